"""Column panels of a local buffer (cpu): a product's B operand, filled by the function itself, laid
out as the register tile reads it.

Applies codegen/cpu/plan/panel_layout.py's PanelLayout (the rule and its exactness are there): a
new `memref.alloc` of ceil(N / P) x R x P elements (64-byte aligned) replaces the R x N buffer,
every load and store of it reads or writes `[e floordiv P, r, e mod P]` for its old `[r, e]`
(the map's other operands unchanged; a masked access's indices by affine.apply), and its
deallocs free the new buffer. The step runs after
register tiling, whose vector loads of B it rewrites with the buffer's other accesses; LLVM
computes the panel's address once per tile column (the division and remainder move out of the
reduction loop with the column index).

Remarks (pass `panel-layout`, by default): `[PANEL LAYOUT] ...` (Passed) per buffer, with the
panels; `[STOP PANEL LAYOUT] ...` (Missed) when a use of the buffer or a vector access that may
cross a panel keeps it row-major.
"""
from __future__ import annotations

from ... import mlir
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .plan.panel_layout import MASKED_OPS, PanelLayout, plan_panel_layouts

PASS = "panel-layout"

MAP_OPERAND = {"affine.load": 1, "affine.vector_load": 1, "affine.store": 2, "affine.vector_store": 2}


def panel_map(amap: ir.AffineMap, panel: int) -> ir.AffineMap:
    """`(..) -> (r, e)` as `(..) -> (e floordiv P, r, e mod P)`."""
    r, e = amap.results
    return ir.AffineMap.get(amap.n_dims, amap.n_symbols, [ir.AffineExpr.get_floor_div(e, panel), r,
                                                          ir.AffineExpr.get_mod(e, panel)])


def _rewrite(op: ir.Operation, buf: ir.Value, panel: int) -> None:
    """Rebuild the access `op` on `buf` with its map in panels; `op` is erased."""
    first = MAP_OPERAND[op.name]
    amap = mlir.affine_map_attr(op, "map")
    operands = list(op.operands)
    operands[first - 1] = buf
    attrs = {name: attr for name, attr in op.attributes.items()}
    attrs["map"] = ir.AffineMapAttr.get(panel_map(amap, panel))
    with op.location:
        new = ir.Operation.create(op.name, results=[r.type for r in op.results], operands=operands,
                                  attributes=attrs, ip=ir.InsertionPoint(op))
    for old, fresh in zip(op.results, new.results):
        old.replace_all_uses_with(fresh)
    op.erase()


def _panel_index(col: ir.Value, expr, ip) -> ir.Value:
    """`expr(e)` (e the column) as an index value: one affine.apply, composed with the
    affine.apply that computes `col` when there is one."""
    owner, _ = mlir.value_owner(col)
    if owner is not None and owner.name == "affine.apply":
        amap = mlir.affine_map_attr(owner, "map")
        operands = list(owner.operands)
    else:
        amap, operands = ir.AffineMap.get_identity(1), [col]
    one = ir.AffineMap.get(amap.n_dims, amap.n_symbols, [expr(amap.results[0])])
    return affine_d.AffineApplyOp(one, operands, ip=ip).result


def _rewrite_masked(op: ir.Operation, buf: ir.Value, panel: int) -> None:
    """Rebuild the masked access `op` (base, row, column, mask, ..) on `buf` at
    `[e floordiv P, r, e mod P]`; `op` is erased."""
    _, row, col, *rest = list(op.operands)
    ip = ir.InsertionPoint(op)
    with op.location:
        hi = _panel_index(col, lambda e: ir.AffineExpr.get_floor_div(e, panel), ip)
        lo = _panel_index(col, lambda e: ir.AffineExpr.get_mod(e, panel), ip)
        attrs = {name: attr for name, attr in op.attributes.items()}
        new = ir.Operation.create(op.name, results=[r.type for r in op.results], operands=[buf, hi, row, lo, *rest],
                                  attributes=attrs, ip=ip)
    for old, fresh in zip(op.results, new.results):
        old.replace_all_uses_with(fresh)
    op.erase()
    owner, _ = mlir.value_owner(col)
    if owner is not None and owner.name == "affine.apply" and not list(col.uses):
        owner.erase()  # the old column, composed into both new indices


def apply_layout(plan: PanelLayout) -> ir.Operation:
    """Replace the plan's buffer by its panels; returns the new alloc."""
    alloc = plan.alloc
    mt = mlir.memref_type(alloc.results[0])
    with alloc.context, alloc.location:
        ntype = ir.MemRefType.get(plan.shape, mt.element_type, memory_space=mt.memory_space)
        attrs = {n: a for n, a in alloc.attributes.items() if n != "operandSegmentSizes"}
        align = mlir.int_attr(alloc, "alignment") if "alignment" in attrs else 0
        attrs["alignment"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), max(64, align or 0))
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([0, 0])
        new = ir.Operation.create("memref.alloc", results=[ntype], operands=[], attributes=attrs,
                                  ip=ir.InsertionPoint(alloc))
    buf = new.results[0]
    for op in plan.accesses:
        if op.name in MASKED_OPS:
            _rewrite_masked(op, buf, plan.panel)
        else:
            _rewrite(op, buf, plan.panel)
    for d in plan.deallocs:
        d.operands[0] = buf
    alloc.erase()
    return new


def panel_layout_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Lay out every local B buffer of `fn` a register tile reads in panels; returns how many."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    with fn.context:
        for plan in plan_panel_layouts(fn, options):
            where = mlir.location_of(plan.alloc, filename)
            if plan.refusal is not None:
                log.refused(PASS, plan.refusal, function=fname, location=where)
                continue
            rows, cols = mlir.memref_type(plan.alloc.results[0]).shape
            new_shape = plan.shape
            shape = "x".join(map(str, new_shape))
            apply_layout(plan)
            log.add(PASS, PASSED, f"[PANEL LAYOUT] the {rows} x {cols} buffer a register tile reads as B is laid "
                    f"out in panels of {plan.panel} columns ({shape}): each tile's micro-panel is contiguous "
                    f"({len(plan.accesses)} accesses rewritten)", function=fname, location=where,
                    args={"panel": plan.panel, "shape": new_shape, "accesses": len(plan.accesses)})
            count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `panel-layout` (loopopt/pipeline.py)."""
    return panel_layout_function(fn, ctx.options, ctx.log, ctx.filename)
