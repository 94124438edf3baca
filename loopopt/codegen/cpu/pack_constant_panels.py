"""Constants laid out in column panels for the products that read them (cpu, step
`pack-constant-panels`, after register tiling).

For each load codegen/cpu/plan/constant_panels.py finds (`B[k, J + c]`, J stepping by P, B a constant of
R x N), a private constant global `@<B>_panelsP` of ceil(N / P) x R x P holds
`Bp[p, r, q] = B[r, p * P + q]` (zero past the last column), and the load becomes
`affine.vector_load Bp[J floordiv P, <its row index>, c]`. Each panel of the register tile's
columns is then one contiguous R x P block: the k loop reads it sequentially instead of one
strided row per step. One panel global per source and panel width serves every load and function
of the module. The source global goes once nothing reads it (fold_constant_copies.erase_unread_sources).

Remarks (pass `pack-constant-panels`): `[PACK CONSTANT] ...` (Passed) per loop whose loads were
re-indexed.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.legality import induction_var
from ...mlir import affine_d, ir, memref_d
from ...options import Options
from ...remarks import PASSED, RemarkLog
from .fold_constant_copies import add_constant_global, global_bytes, source_blobs, unsigned_dtype
from .plan.constant_copies import find_global
from .plan.constant_panels import PanelLoad, plan_constant_panels
from ...step import StepContext

PASS = "pack-constant-panels"


def panel_bytes(data: bytes, shape: list[int], panel: int, elem_bytes: int) -> bytes:
    """Row-major bytes of Bp (ceil(N / P) x R x P) from B's (R x N): Bp[p, r, q] = B[r, p P + q],
    zero where p P + q >= N."""
    import numpy as np

    dtype = unsigned_dtype(elem_bytes)
    rows, cols = shape
    panels = -(-cols // panel)
    b = np.zeros((rows, panels * panel), dtype=dtype)
    b[:, :cols] = np.frombuffer(data, dtype=dtype).reshape(shape)
    return np.ascontiguousarray(b.reshape(rows, panels, panel).transpose(1, 0, 2)).tobytes()


def _panel_global(plan: PanelLoad, module_op: ir.Operation, blobs: dict[str, bytes],
                  made: dict) -> ir.Operation | None:
    """The panel global for plan's source and width: one per module, made on first use (None
    where the source's data cannot be laid out exactly)."""
    src = ir.StringAttr(plan.global_op.attributes["sym_name"]).value
    name = f"{src}_panels{plan.panel}"
    if name not in made:
        made[name] = find_global(module_op, name) or _new_panel_global(plan, name, blobs)
    return made[name]


def _new_panel_global(plan: PanelLoad, name: str, blobs: dict[str, bytes]) -> ir.Operation | None:
    src_t = ir.MemRefType(ir.TypeAttr(plan.global_op.attributes["type"]).value)
    rows, cols = src_t.shape
    shape = [-(-cols // plan.panel), rows, plan.panel]
    tensor_t = ir.RankedTensorType.get(shape, src_t.element_type)
    value = plan.global_op.attributes["initial_value"]
    if isinstance(value, ir.DenseElementsAttr) and ir.DenseElementsAttr(value).is_splat:
        if cols % plan.panel:
            return None  # the padding would not be the splat's value
        attr = ir.DenseElementsAttr.get_splat(tensor_t, ir.DenseElementsAttr(value).get_splat_value())
    else:
        data = global_bytes(plan.global_op, blobs)
        if data is None:
            return None
        elem = mlir.element_size_bytes(src_t.element_type)
        attr = ir.DenseResourceElementsAttr.get_from_buffer(
            memoryview(panel_bytes(data, [rows, cols], plan.panel, elem)),
            f"{mlir.resource_name(value)}_panels{plan.panel}", tensor_t, alignment=elem)
    return add_constant_global(name, ir.MemRefType.get(shape, src_t.element_type), attr,
                               plan.global_op.location, ir.InsertionPoint(plan.global_op))


def _reindexed(plan: PanelLoad, panels: ir.Value) -> ir.Operation:
    """`affine.vector_load panels[J floordiv P, row, c]` in place of plan.load."""
    load = plan.load
    amap = mlir.affine_map_attr(load, "map")
    operands = list(load.operands)[1:]
    j = induction_var(plan.j_loop)
    n = len(operands)
    row = amap.results[0]
    new_map = ir.AffineMap.get(n + 1, 0, [ir.AffineExpr.get_floor_div(ir.AffineDimExpr.get(n), plan.panel), row,
                                          ir.AffineConstantExpr.get(plan.offset)])
    new = affine_d.AffineVectorLoadOp(load.results[0].type, panels, [*operands, j], ir.AffineMapAttr.get(new_map),
                                      loc=load.location, ip=ir.InsertionPoint(load))
    load.results[0].replace_all_uses_with(new.result)
    load.erase()
    return new


def pack_constant_panels_function(fn: ir.Operation, options: Options, log: RemarkLog,
                                  filename: str = "<input>") -> int:
    """Re-index every panel load of `fn` (cpu only); returns the number of loads re-indexed."""
    if mlir.func_body(fn) is None:
        return 0
    plans = plan_constant_panels(fn)
    if not plans:
        return 0
    module_op = mlir.operation(fn.parent)
    blobs = source_blobs(module_op, [p.global_op for p in plans])
    made: dict = {}
    per_loop: dict[int, list] = {}  # j loop -> [loop, a plan of it, its panel global, loads re-indexed]
    with fn.context, fn.location:
        entry = mlir.func_body(fn)
        views: dict[str, ir.Value] = {}
        sources: dict[int, ir.Operation] = {}
        for plan in plans:
            panels = _panel_global(plan, module_op, blobs, made)
            if panels is None:
                continue
            name = ir.StringAttr(panels.attributes["sym_name"]).value
            if name not in views:
                t = ir.MemRefType(ir.TypeAttr(panels.attributes["type"]).value)
                views[name] = memref_d.GetGlobalOp(t, name, ip=ir.InsertionPoint.at_block_begin(entry)).result
            source, _ = mlir.value_owner(plan.load.operands[0])
            sources[mlir.op_key(source)] = source
            _reindexed(plan, views[name])
            per_loop.setdefault(mlir.op_key(plan.j_loop), [plan.j_loop, plan, name, 0])[3] += 1
        for source in sources.values():
            if not list(source.results[0].uses):
                source.erase()
        for loop, plan, name, k in per_loop.values():
            src_t = ir.MemRefType(ir.TypeAttr(plan.global_op.attributes["type"]).value)
            src = ir.StringAttr(plan.global_op.attributes["sym_name"]).value
            rows, cols = src_t.shape
            log.add(PASS, PASSED, f"[PACK CONSTANT] {k} load(s) of @{src} ({rows} x {cols}) read column panels of "
                    f"{plan.panel}: @{name} ({-(-cols // plan.panel)} x {rows} x {plan.panel}), one contiguous "
                    f"{rows} x {plan.panel} block per iteration of this loop",
                    function=mlir.func_name(fn), location=mlir.location_of(loop, filename),
                    args={"loads": k, "panel": plan.panel})
    return sum(entry[3] for entry in per_loop.values())


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `pack-constant-panels` (loopopt/pipeline.py)."""
    return pack_constant_panels_function(fn, ctx.options, ctx.log, ctx.filename)
