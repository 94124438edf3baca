"""Constants laid out along the lanes (cpu, step `constant-lanes`, before `loop-order`; the rule
is codegen/cpu/plan/constant_lanes.py's, docs/cpu_codegen.md section 50).

For each load the plan finds, a private constant global `@<G>_lanes<k>` (a fresh name) holds the
constant with the dimension the lanes loop moves last: `G'[x_order] = G[x]`, its bytes moved by
numpy's transpose, no arithmetic; a splat stays a splat. One global per source and order serves
every load of the function; the load reads it with its map's results in that order. The source
goes once nothing reads it (fold_constant_copies.erase_unread_sources).

Remarks (pass `constant-lanes`): `[CONSTANT LANES] ...` (Passed) per constant laid out.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...mlir import ir, memref_d
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .fold_constant_copies import add_constant_global, global_bytes, source_blobs, unsigned_dtype
from .loop_order import band_starts
from .plan.constant_lanes import LaneConstant, plan_band
from .plan.permuted_copies import permuted_map

PASS = "constant-lanes"


def permuted_bytes(data: bytes, shape: list[int], order: tuple, elem_bytes: int) -> bytes:
    """Row-major bytes of the array of `shape` laid out in `order` (numpy's transpose)."""
    import numpy as np

    a = np.frombuffer(data, dtype=unsigned_dtype(elem_bytes)).reshape(shape)
    return np.ascontiguousarray(a.transpose(order)).tobytes()


def permuted_value(g: ir.Operation, order: tuple, blobs: dict) -> tuple[ir.MemRefType, ir.Attribute] | None:
    """(type, initial value) of the global `g` laid out in `order`; None where its bytes cannot
    be read exactly."""
    t = ir.MemRefType(ir.TypeAttr(g.attributes["type"]).value)
    shape = [t.shape[k] for k in order]
    memref_t = ir.MemRefType.get(shape, t.element_type)
    tensor_t = ir.RankedTensorType.get(shape, t.element_type)
    value = g.attributes["initial_value"]
    if isinstance(value, ir.DenseElementsAttr) and ir.DenseElementsAttr(value).is_splat:
        return memref_t, ir.DenseElementsAttr.get_splat(tensor_t, ir.DenseElementsAttr(value).get_splat_value())
    data = global_bytes(g, blobs)
    if data is None:
        return None
    elem = mlir.element_size_bytes(t.element_type)
    moved = permuted_bytes(data, list(t.shape), order, elem)
    name = mlir.resource_name(value)
    return memref_t, ir.DenseResourceElementsAttr.get_from_buffer(memoryview(moved), f"{name}_lanes", tensor_t,
                                                                  alignment=elem)


def plan_function(fn: ir.Operation, facts, options, module_op) -> list[LaneConstant]:
    out = []
    for _, band in band_starts(fn):
        out.extend(plan_band(band, facts, options, module_op))
    return out


def constant_lanes_function(fn: ir.Operation, options, log: RemarkLog, filename: str = "<input>") -> int:
    """Lay out every constant the plan finds and re-index its loads; returns the loads changed."""
    if mlir.func_body(fn) is None:
        return 0
    module_op = mlir.operation(fn.parent)
    plans = plan_function(fn, Facts(), options, module_op)
    if not plans:
        return 0
    blobs = source_blobs(module_op, [p.global_op for p in plans])
    made: dict = {}  # (source name, order) -> the new get_global's result, or None
    count = 0
    with fn.context, fn.location:
        entry = mlir.func_body(fn)
        for p in plans:
            src = ir.StringAttr(p.global_op.attributes["sym_name"]).value
            key = (src, p.order)
            if key not in made:
                value = permuted_value(p.global_op, p.order, blobs)
                if value is None:
                    made[key] = None
                else:
                    memref_t, attr = value
                    name = mlir.fresh_symbol_name(module_op, f"{src}_lanes", numbered=True)
                    add_constant_global(name, memref_t, attr, p.global_op.location, ir.InsertionPoint(p.global_op))
                    made[key] = memref_d.GetGlobalOp(memref_t, name, ip=ir.InsertionPoint.at_block_begin(entry)).result
                    t = ir.MemRefType(ir.TypeAttr(p.global_op.attributes["type"]).value)
                    log.add(PASS, PASSED, f"[CONSTANT LANES] @{src} ({'x'.join(map(str, t.shape))}) laid out with "
                            f"its dimension {p.dim} last as @{name} ({'x'.join(map(str, memref_t.shape))}): "
                            f"its loads move by one element along the loop at {mlir.location_of(p.lanes, filename)}, "
                            "which gives the register tile's lanes", function=mlir.func_name(fn),
                            location=mlir.location_of(p.load, filename), args={"dim": p.dim, "order": list(p.order)})
            view = made[key]
            if view is None:
                continue
            p.load.operands[0] = view
            p.load.attributes["map"] = ir.AffineMapAttr.get(permuted_map(mlir.affine_map_attr(p.load, "map"),
                                                                         list(p.order)))
            count += 1
        gets = {mlir.op_key(p.get_global): p.get_global for p in plans}
        for get in gets.values():
            if not list(get.results[0].uses):
                get.erase()
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `constant-lanes` (loopopt/pipeline.py)."""
    return constant_lanes_function(fn, ctx.options, ctx.log, ctx.filename)
