"""A product's B read in place from an argument, packed per column block (cpu, step
`pack-argument-panels`, after register tiling and `pack-column-blocks`).

Applies codegen/cpu/plan/argument_panels.py's ArgumentPanel (the rule and its exactness are
there): a 64-byte aligned `memref.alloc` of H x NB before the function's top-level op that holds
the column-block loop L (freed after it), at the head of L's body the copy

    affine.for %r = 0 to H { affine.for %c = 0 to NB step w {
      P[%r, %c] = B[%r + r0, %c + jb] } }      (vectors of w lanes; scalars when w = 1)

and every read `B[row, col]` inside L becomes `P[row - r0, col - jb]` (jb, and kb when a
reduction block sets r0, appended to the read's map operands).

With the whole layout (row blocks around the column blocks, `ArgumentPanel.panels`), the buffer is
panels x B's rows x NB, the copy writes `P[jb floordiv NB, %r + r0, %c]` inside
`affine.if (ib0 == start0, ...)` (the repeat loops' counters at their first iteration), and every
read `B[row, col]` becomes `P[jb floordiv NB, row, col - jb]`.

Remarks (pass `pack-argument-panels`, by default): `[PACK PANEL] ...` (Passed) per product;
`[STOP PACK PANEL] ...` (Missed) when a register tile's column blocks keep reading an argument
in place.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.affine import Scope
from ...analysis.loops import body_block
from ...analysis.memory import value_name
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from .pack_column_blocks import shift_access
from .plan.argument_panels import ArgumentPanel, candidates, plan_argument_panel

PASS = "pack-argument-panels"


def top_level_op(op: ir.Operation) -> ir.Operation:
    """The op of the function body's block that is or holds `op`."""
    cur = op
    while cur.parent is not None and cur.parent.name != "func.func":
        cur = mlir.operation(cur.parent)
    return cur


def _copy(plan: ArgumentPanel, buf: ir.Value, jb: ir.Value, kb: ir.Value | None, ip: ir.InsertionPoint) -> None:
    """The copy of the block's window of B into `buf` at `ip` (module doc)."""
    elem = mlir.memref_type(plan.source).element_type
    rows = mlir.affine_for((ir.AffineMap.get_constant(0), []), (ir.AffineMap.get_constant(plan.height), []), 1, [],
                           ip, plan.block.location)
    body = body_block(rows)
    term = ir.InsertionPoint(mlir.block_ops(body)[-1])
    cols = mlir.affine_for((ir.AffineMap.get_constant(0), []), (ir.AffineMap.get_constant(plan.width), []),
                           plan.lanes, [], term, plan.block.location)
    r, c = body.arguments[0], body_block(cols).arguments[0]
    at = ir.InsertionPoint(mlir.block_ops(body_block(cols))[-1])
    d = [ir.AffineDimExpr.get(k) for k in range(4)]
    operands = [r, c, jb] + ([kb] if kb is not None else [])
    row = d[0] + d[3] if kb is not None else d[0]
    src_map = ir.AffineMap.get(len(operands), 0, [row, d[1] + d[2]])
    if plan.panels:
        dst_map = ir.AffineMap.get(len(operands), 0, [ir.AffineExpr.get_floor_div(d[2], plan.width), row, d[1]])
        dst = operands
    else:
        dst_map = ir.AffineMap.get(2, 0, [d[0], d[1]])
        dst = [r, c]
    with plan.block.location:
        if plan.lanes > 1:
            vt = ir.VectorType.get([plan.lanes], elem)
            v = affine_d.AffineVectorLoadOp(vt, plan.source, operands, ir.AffineMapAttr.get(src_map), ip=at).result
            affine_d.AffineVectorStoreOp(v, buf, dst, ir.AffineMapAttr.get(dst_map), ip=at)
        else:
            v = ir.Operation.create("affine.load", results=[elem], operands=[plan.source, *operands],
                                    attributes={"map": ir.AffineMapAttr.get(src_map)}, ip=at).results[0]
            ir.Operation.create("affine.store", operands=[v, buf, *dst],
                                attributes={"map": ir.AffineMapAttr.get(dst_map)}, ip=at)


def _first_iteration(plan: ArgumentPanel, ip: ir.InsertionPoint) -> ir.InsertionPoint:
    """`affine.if` (every repeat loop's counter at its start) at `ip`; the insertion point inside."""
    n = len(plan.repeats)
    cond = ir.IntegerSet.get(n, 0, [ir.AffineExpr.get_dim(k) - s for k, s in enumerate(plan.starts)], [True] * n)
    ivs = [body_block(lp).arguments[0] for lp in plan.repeats]
    with plan.block.location:
        op = ir.Operation.create("affine.if", operands=ivs, attributes={"condition": ir.IntegerSetAttr.get(cond)},
                                 regions=2, ip=ip)
        then = op.regions[0].blocks.append()
        ir.Operation.create("affine.yield", ip=ir.InsertionPoint(then))
    return ir.InsertionPoint(mlir.block_ops(then)[-1])


def apply_panel(plan: ArgumentPanel) -> ir.Operation:
    """Apply one plan: the buffer, the copy at the head of the block, the reads moved to it.
    Returns the buffer's alloc."""
    top = top_level_op(plan.block)
    elem = mlir.memref_type(plan.source).element_type
    with plan.block.context, plan.block.location:
        shape = [plan.panels, plan.rows, plan.width] if plan.panels else [plan.height, plan.width]
        alloc = mlir.aligned_alloc(shape, elem, ir.InsertionPoint(top))
        buf = alloc.results[0]
        ops = mlir.block_ops(top.block)
        after = ops[ops.index(top) + 1]  # a top-level op is followed by the function's return at least
        ir.Operation.create("memref.dealloc", operands=[buf], ip=ir.InsertionPoint(after))
        body = body_block(plan.block)
        jb = body.arguments[0]
        kb = body_block(plan.row_block).arguments[0] if plan.row_block is not None else None
        head = ir.InsertionPoint(mlir.operation(body.operations[0]))
        _copy(plan, buf, jb, kb, _first_iteration(plan, head) if plan.panels else head)
        for read in plan.reads:
            shift_access(read, buf, jb, kb, plan.width if plan.panels else 0)
    return alloc


def lanes_of(options: Options, elem) -> int:
    """Vector lanes of the plan's width for `elem` (1 where its size is not whole bytes)."""
    size = mlir.element_size_bytes(elem)
    return max(1, options.plan_vector_bits // (8 * size)) if size else 1


def pack_argument_panels_function(fn: ir.Operation, options: Options, log: RemarkLog,
                                  filename: str = "<input>") -> int:
    """Pack every argument a register tile reads in column blocks (module doc); returns how many
    (argument, block) pairs were packed."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    with fn.context:
        for source, block in candidates(fn):
            scope = Scope()
            lanes = lanes_of(options, mlir.memref_type(source).element_type)
            plan = plan_argument_panel(source, block, lanes, scope, options.plan_cache_sizes[2])
            if plan is None:
                continue
            where = mlir.location_of(block, filename)
            if plan.refusal is not None:
                log.refused(PASS, plan.refusal, function=fname, location=where)
                continue
            if plan.whole_refusal is not None:
                log.refused(PASS, plan.whole_refusal, function=fname, location=where)
            apply_panel(plan)
            esize = mlir.element_size_bytes(mlir.memref_type(source).element_type)
            size = plan.height * plan.width * esize
            per = "reduction and column block" if plan.row_block is not None else "column block"
            text = (f"[PACK PANEL] argument {value_name(source)} ({plan.rows} x {plan.cols}) is "
                    f"copied per {per} of {plan.width} into one contiguous {plan.height} x {plan.width} panel "
                    f"({size // 1024} KiB), read by {plan.row_tiles} row tiles per copy")
            if plan.panels:
                size = plan.panels * plan.rows * plan.width * esize
                text += (f", in the first row block only, into a whole layout of {plan.panels} panels "
                         f"({size // 1024} KiB) that later row blocks read")
            log.add(PASS, PASSED, text,
                    function=fname, location=where,
                    args={"rows": plan.rows, "columns": plan.cols, "block": plan.width, "height": plan.height,
                          "row_tiles": plan.row_tiles, "bytes": size})
            count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `pack-argument-panels` (loopopt/pipeline.py)."""
    return pack_argument_panels_function(fn, ctx.options, ctx.log, ctx.filename)
