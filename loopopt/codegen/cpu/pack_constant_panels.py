"""Constants laid out in column panels for the products that read them (cpu, step
`pack-constant-panels`, after register tiling).

For each load codegen/cpu/plan/constant_panels.py finds (`B[k, J + c]`, J stepping by P, B a constant of
R x N), a private constant global `@<B>_panelsP` (a fresh name, `mlir.fresh_symbol_name`, when
the module has a symbol of that name) of ceil(N / P) x R x P holds
`Bp[p, r, q] = B[r, p * P + q]` (zero past the last column), and the load becomes
`affine.vector_load Bp[J floordiv P, <its row index>, c]`. Each panel of the register tile's
columns is then one contiguous R x P block: the k loop reads it sequentially instead of one
strided row per step. One panel global per source and panel width serves every load and function
of the module (a global is reused only when it holds exactly those panels: compared, never
assumed from its name). The source global goes once nothing reads it (fold_constant_copies.erase_unread_sources).

Remarks (pass `pack-constant-panels`): `[PACK CONSTANT] ...` (Passed) per loop whose loads were
re-indexed.
"""
from __future__ import annotations

import re

from ... import mlir
from ...analysis.legality import induction_var
from ...mlir import affine_d, ir, memref_d
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .fold_constant_copies import add_constant_global, global_bytes, is_private, source_blobs, unsigned_dtype
from .plan.constant_panels import PanelLoad, plan_constant_panels

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
    where the source's data cannot be laid out exactly). An existing global is taken for it only
    when it is one this step would make: named from `<B>_panelsP` and holding exactly the panels
    (type, visibility, alignment and contents compared, `_made_before`: the global made for an
    earlier function); a new one gets a fresh name (mlir.fresh_symbol_name), whatever the module
    already holds under `<B>_panelsP`."""
    src = ir.StringAttr(plan.global_op.attributes["sym_name"]).value
    key = (src, plan.panel)
    if key not in made:
        value = _panel_value(plan, blobs)
        stem = f"{src}_panels{plan.panel}"
        made[key] = None if value is None else (
            _made_before(module_op, stem, value, blobs) or _new_panel_global(plan, module_op, stem, value))
    return made[key]


def panel_candidates(module_op: ir.Operation, sources) -> list[ir.Operation]:
    """The module's globals named as a panel global of one of the `sources` globals
    (`<B>_panels...`): the only ones `_made_before` may take (their blobs are read with the
    sources')."""
    stems = tuple(f"{ir.StringAttr(g.attributes['sym_name']).value}_panels" for g in sources)
    return [op for op in mlir.block_ops(module_op.regions[0].blocks[0]) if op.name == "memref.global"
            and ir.StringAttr(op.attributes["sym_name"]).value.startswith(stems)]


def _made_before(module_op: ir.Operation, stem: str, value: tuple, blobs: dict[str, bytes]) -> ir.Operation | None:
    """The global this step made earlier (for another function) for the same panels: named
    `stem` or a fresh variant of it (`stem_k`), private, constant, 64-byte aligned, of the
    panels' type and contents (the same splat, or a blob of the same bytes)."""
    memref_t, splat, data = value
    variant = re.compile(re.escape(stem) + r"(_[0-9]+)?")
    for op in mlir.block_ops(module_op.regions[0].blocks[0]):
        if op.name != "memref.global" or not variant.fullmatch(ir.StringAttr(op.attributes["sym_name"]).value):
            continue
        if not (is_private(op) and "constant" in op.attributes and "initial_value" in op.attributes
                and "alignment" in op.attributes and mlir.int_attr(op, "alignment") == 64
                and ir.TypeAttr(op.attributes["type"]).value == memref_t):
            continue
        init = op.attributes["initial_value"]
        if splat is not None:
            same = str(init) == str(splat)
        else:
            name = mlir.resource_name(init)
            same = name is not None and blobs.get(name) == data
        if same:
            return op
    return None


def _panel_value(plan: PanelLoad, blobs: dict[str, bytes]) -> tuple | None:
    """(memref type, splat value or None, raw bytes or None) of the panel global of plan's
    source and width, or None where the source's data cannot be laid out exactly."""
    src_t = ir.MemRefType(ir.TypeAttr(plan.global_op.attributes["type"]).value)
    rows, cols = src_t.shape
    shape = [-(-cols // plan.panel), rows, plan.panel]
    memref_t = ir.MemRefType.get(shape, src_t.element_type)
    value = plan.global_op.attributes["initial_value"]
    if isinstance(value, ir.DenseElementsAttr) and ir.DenseElementsAttr(value).is_splat:
        if cols % plan.panel:
            return None  # the padding would not be the splat's value
        tensor_t = ir.RankedTensorType.get(shape, src_t.element_type)
        return memref_t, ir.DenseElementsAttr.get_splat(tensor_t, ir.DenseElementsAttr(value).get_splat_value()), None
    data = global_bytes(plan.global_op, blobs)
    if data is None:
        return None
    return memref_t, None, panel_bytes(data, [rows, cols], plan.panel, mlir.element_size_bytes(src_t.element_type))


def _new_panel_global(plan: PanelLoad, module_op: ir.Operation, stem: str, value: tuple) -> ir.Operation:
    """A new private constant global holding `value` (`_panel_value`), named fresh from `stem`,
    right before the source global."""
    memref_t, splat, data = value
    attr = splat
    if attr is None:
        elem = mlir.element_size_bytes(memref_t.element_type)
        tensor_t = ir.RankedTensorType.get(memref_t.shape, memref_t.element_type)
        resource = mlir.resource_name(plan.global_op.attributes["initial_value"])
        attr = ir.DenseResourceElementsAttr.get_from_buffer(memoryview(data), f"{resource}_panels{plan.panel}",
                                                            tensor_t, alignment=elem)
    return add_constant_global(mlir.fresh_symbol_name(module_op, stem), memref_t, attr, plan.global_op.location,
                               ir.InsertionPoint(plan.global_op))


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
    sources = [p.global_op for p in plans]
    blobs = source_blobs(module_op, sources + panel_candidates(module_op, sources))
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
