"""Column panels of a local buffer (cpu): a product's B operand, filled by the function itself, laid
out as the register tile reads it.

Applies codegen/cpu/plan/panel_layout.py's PanelLayout (the rule and its exactness are there): a
new `memref.alloc` of ceil(N / P) x R x P elements (64-byte aligned) replaces the R x N buffer,
every load and store of it reads or writes `[e floordiv P, r, e mod P]` for its old `[r, e]`
(the map's other operands unchanged), and its deallocs free the new buffer. The step runs after
register tiling, whose vector loads of B it rewrites with the buffer's other accesses; LLVM
computes the panel's address once per tile column (the division and remainder move out of the
reduction loop with the column index).

Remarks (pass `panel-layout`, by default): `[PANEL LAYOUT] ...` (Passed) per buffer, with the
panels; `[STOP PANEL LAYOUT] ...` (Missed) when a use of the buffer or a vector access that may
cross a panel keeps it row-major.
"""
from __future__ import annotations

from ... import mlir
from ...mlir import ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .plan.panel_layout import PanelLayout, plan_panel_layouts

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
