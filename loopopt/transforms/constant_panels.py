"""Constants laid out in column panels for the products that read them (cpu, step
`pack-constant-panels`, after register tiling).

For each load analysis/constant_panels.py finds (`B[k, J + c]`, J stepping by P, B a constant of
R x N), a private constant global `@<B>_panelsP` of ceil(N / P) x R x P holds
`Bp[p, r, q] = B[r, p * P + q]` (zero past the last column), and the load becomes
`affine.vector_load Bp[J floordiv P, <its row index>, c]`. Each panel of the register tile's
columns is then one contiguous R x P block: the k loop reads it sequentially instead of one
strided row per step. One panel global per source and panel width serves every load and function
of the module. The source global goes once nothing reads it (constant_copies.erase_unread_sources).

Remarks (pass `pack-constant-panels`): `[PACK CONSTANT] ...` (Passed) per loop whose loads were
re-indexed.
"""
from __future__ import annotations

from .. import mlir
from ..analysis.constant_panels import PanelLoad, plan_constant_panels
from ..mlir import affine_d, ir, memref_d
from ..options import Options
from ..remarks import PASSED, RemarkLog
from .constant_copies import _count, _symbol_names

PASS = "pack-constant-panels"


def panel_bytes(data: bytes, shape: list[int], panel: int, elem_bytes: int) -> bytes:
    """Row-major bytes of Bp (ceil(N / P) x R x P) from B's (R x N): Bp[p, r, q] = B[r, p P + q],
    zero where p P + q >= N."""
    import numpy as np

    dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[elem_bytes]
    rows, cols = shape
    panels = -(-cols // panel)
    b = np.zeros((rows, panels * panel), dtype=dtype)
    b[:, :cols] = np.frombuffer(data, dtype=dtype).reshape(shape)
    return np.ascontiguousarray(b.reshape(rows, panels, panel).transpose(1, 0, 2)).tobytes()


def _panel_global(plan: PanelLoad, module_op: ir.Operation, blobs: dict[str, bytes], made: dict) -> str | None:
    """The name of the panel global for plan's source and width (made once per module)."""
    src = ir.StringAttr(plan.global_op.attributes["sym_name"]).value
    name = f"{src}_panels{plan.panel}"
    if name in made:
        return made[name]
    if name in _symbol_names(module_op):
        made[name] = name
        return name
    src_t = ir.MemRefType(ir.TypeAttr(plan.global_op.attributes["type"]).value)
    rows, cols = src_t.shape
    shape = [-(-cols // plan.panel), rows, plan.panel]
    dst_t = ir.MemRefType.get(shape, src_t.element_type)
    tensor_t = ir.RankedTensorType.get(shape, src_t.element_type)
    value = plan.global_op.attributes["initial_value"]
    if isinstance(value, ir.DenseElementsAttr) and ir.DenseElementsAttr(value).is_splat:
        if cols % plan.panel:
            made[name] = None  # the padding would not be the splat's value
            return None
        attr = ir.DenseElementsAttr.get_splat(tensor_t, ir.DenseElementsAttr(value).get_splat_value())
    else:
        resource = mlir.resource_name(value)
        elem = mlir.element_size_bytes(src_t.element_type)
        data = blobs.get(resource) if resource else None
        if data is None or len(data) != elem * _count(src_t.shape):
            made[name] = None
            return None
        attr = ir.DenseResourceElementsAttr.get_from_buffer(
            memoryview(panel_bytes(data, [rows, cols], plan.panel, elem)), f"{resource}_panels{plan.panel}",
            tensor_t, alignment=elem)
    memref_d.GlobalOp(name, ir.TypeAttr.get(dst_t), sym_visibility="private", initial_value=attr, constant=True,
                      alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 64),
                      loc=plan.global_op.location, ip=ir.InsertionPoint(plan.global_op))
    made[name] = name
    return name


def _reindexed(plan: PanelLoad, panels: ir.Value) -> ir.Operation:
    """`affine.vector_load panels[J floordiv P, row, c]` in place of plan.load."""
    load = plan.load
    amap = mlir.affine_map_attr(load, "map")
    operands = list(load.operands)[1:]
    j = plan.j_loop.regions[0].blocks[0].arguments[0]
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
    if options.target.partitioned or mlir.func_body(fn) is None:
        return 0
    plans = plan_constant_panels(fn)
    if not plans:
        return 0
    module_op = mlir.operation(fn.parent)
    names = {n for p in plans if (n := mlir.resource_name(p.global_op.attributes["initial_value"]))}
    blobs = mlir.resource_blobs(module_op, names) if names else {}
    made: dict = {}
    per_loop: dict[int, tuple[ir.Operation, PanelLoad, str, int]] = {}
    count = 0
    fname = mlir.func_name(fn)
    with fn.context, fn.location:
        entry = mlir.func_body(fn)
        views: dict[str, ir.Value] = {}
        sources: dict[int, ir.Operation] = {}
        for plan in plans:
            name = _panel_global(plan, module_op, blobs, made)
            if name is None:
                continue
            if name not in views:
                t = ir.MemRefType(ir.TypeAttr(_global_op(module_op, name).attributes["type"]).value)
                views[name] = memref_d.GetGlobalOp(t, name, ip=ir.InsertionPoint.at_block_begin(entry)).result
            key = mlir.op_key(plan.j_loop)
            source, _ = mlir.value_owner(plan.load.operands[0])
            sources[mlir.op_key(source)] = source
            _reindexed(plan, views[name])
            loop, first, _, k = per_loop.get(key, (plan.j_loop, plan, name, 0))
            per_loop[key] = (loop, first, name, k + 1)
            count += 1
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
                    function=fname, location=mlir.location_of(loop, filename),
                    args={"loads": k, "panel": plan.panel})
    return count


def _global_op(module_op: ir.Operation, name: str) -> ir.Operation:
    for op in mlir.block_ops(module_op.regions[0].blocks[0]):
        if op.name == "memref.global" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    raise KeyError(name)
