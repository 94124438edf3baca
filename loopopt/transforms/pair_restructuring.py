"""Restructuring a candidate pair so that it can fuse (seed 001, inside the fusion driver).

Per refused pair, in the seed's order: distribution (split off the statements that block the
fusion), then tiling by the GCD of the partition extents and interchange (so both loops walk
the same number of partitions outermost), then the fuse is retried. Before tiling we try
dead-iteration elimination: if the longer loop's extra iterations only write placed buffers
that nothing reads afterwards, its range shrinks to the shorter one and plain fusion applies.

Every restructuring is first tried on a scratch copy of the function; only a plan that ends in
a legal fusion is replayed on the real IR, so a refused pair never leaves tiled or split loops.
"""
from __future__ import annotations

from typing import Callable

import islpy as isl

from .. import mlir
from ..analysis import dependence
from ..analysis.accesses import collect_accesses
from ..analysis.affine import NonAffine, Scope
from ..analysis.effects import READ_OPS, WRITE_OPS, op_effects
from ..analysis.loops import collect_interchangeable_loops, constant_bounds, constant_trip_count, loop_dims
from ..analysis.memory import UNTRACED, block_reentered, escaping_use, is_placed
from ..mlir import ir

DEAD_ITERATIONS = "[DEAD ITERATIONS] shrink loop to the iterations whose writes are read"


def on_scratch_copy(seq: list[ir.Operation], ops: list[ir.Operation], plan: Callable[..., bool]) -> bool:
    """Plan a restructuring on copies: clone the consecutive sibling ops `seq` (the pair and every
    op between them) into a scratch `scf.execute_region` placed just before the last of them, and
    run `plan(*copies of ops)`. True iff the plan succeeded and the scratch region verifies. The
    region is always erased; the real IR is never touched. Only the pair is copied, not the
    function, so a trial costs what the pair costs.

    Every value the copies use is defined before the region (the originals dominate it), and no
    analysis counts `scf.execute_region` as a loop, so the copies see the pair's own context."""
    last = seq[-1]
    with last.context, last.location:
        region_op = ir.Operation.create("scf.execute_region", results=[], regions=1, ip=ir.InsertionPoint(last))
        block = region_op.regions[0].blocks.append()
        end = ir.Operation.create("scf.yield", ip=ir.InsertionPoint(block))
    try:
        copies = [mlir.operation(op.clone(ip=ir.InsertionPoint(end))) for op in seq]
        picked = [copies[next(k for k, o in enumerate(seq) if o == op)] for op in ops]
        ok = bool(plan(*picked))
        return ok and mlir.verify(region_op) is None
    except (ValueError, NonAffine, isl.Error):  # a refused step; anything else is a bug for the guard
        return False
    finally:
        region_op.erase()

def ops_after(loop: ir.Operation) -> list[ir.Operation]:
    """The function-level ops that may run after `loop` (a direct child of the function body);
    what is nested in them is theirs. The rest of its block; when the function has several
    blocks, every op of every other block; and when a branch can re-enter the loop's block, the
    whole block, the loop included (its next trip reads what this trip left)."""

    block = loop.block
    ops = mlir.block_ops(block)
    blocks = list(block.region.blocks)
    if len(blocks) > 1 and block_reentered(block):
        later = list(ops)
    else:
        later = ops[ops.index(loop) + 1:]
    if len(blocks) > 1:
        for b in blocks:
            if b != block:
                later.extend(mlir.block_ops(b))
    return later


def _may_read(a) -> bool:
    """A plain store or a dealloc only writes; any other access (a call or an unknown op on the
    buffer, recorded as a whole-buffer write) may also read."""
    return not a.is_write or (a.op.name not in WRITE_OPS and a.op.name != "memref.dealloc")


def dead_tail_violation(loop: ir.Operation, keep: int, scope: Scope) -> str | None:
    """None iff iterations `keep..` of `loop` can be removed without changing the program.

    Rule: the loop sits at function level, has constant bounds, yields nothing, calls nothing
    unknown, writes only placed buffers that cannot escape, and no access that may run after the
    loop (`ops_after`, everything nested in them included) may read an element written by the
    removed iterations (exact, with isl; buffers compared by key, an untraced memref may be
    any buffer)."""
    parent = mlir.operation(loop.parent)
    if parent.name != "func.func":
        return "not at function level"
    cb = constant_bounds(loop)
    tc = constant_trip_count(loop)
    if cb is None or tc is None or keep >= tc or keep < 1:
        return "bounds are not constant"
    if len(loop.results):
        return "the loop yields values"
    eff = op_effects(loop)
    if eff.unknown:
        return "the loop has unknown effects"
    if any(not is_placed(eff.values[k]) or escaping_use(eff.values[k], {**READ_OPS, **WRITE_OPS}) is not None for k in eff.writes):
        return "the loop writes a buffer that is not placed or escapes"
    (ax,) = loop_dims(loop, scope)
    cut = f"{ax.name} >= {cb[0] + keep * mlir.int_attr(loop, 'step')}"
    tails = {}
    for a in collect_accesses(loop, scope):
        if a.is_write:
            if a.index is None:
                return "a write at unknown elements"
            s = dependence.element_set(a, scope, [cut])
            tails[a.key] = s if a.key not in tails else tails[a.key].union(s)
    for later in ops_after(loop):
        for b in collect_accesses(later, scope):
            if not _may_read(b):
                continue
            if b.key is UNTRACED:
                return f"the access at {mlir.location_of(b.op)} may read any buffer"
            if b.key not in tails:
                continue
            if b.index is None:
                return "a later access reads unknown elements"
            if dependence.sets_intersect(tails[b.key], dependence.element_set(b, scope)):
                return f"a later read at {mlir.location_of(b.op)} uses the removed iterations"
    return None


def shrink_loop(loop: ir.Operation, keep: int) -> None:
    """Set a constant-bound loop's upper bound to run exactly `keep` iterations."""
    lb, _ = constant_bounds(loop)
    ub = lb + keep * mlir.int_attr(loop, "step")
    with loop.context:
        loop.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(ub))


def tile_and_interchange(l1: ir.Operation, l2: ir.Operation, options, log, function: str):
    """GCD-tile both loops' partition loops (the seed's `[LOOP TILING] by N`) and interchange each
    nest so its point loop (the N partitions) is outermost. Returns the two new roots, or None."""
    from .interchange import outermost_permutation, try_interchange
    from .tiling import gcd_tiling, partition_loop

    # A loop whose own IV is the partition loop is erased by tiling: its tile loop takes its place.
    replaced = [(p is not None and p == lp) for lp in (l1, l2) for p in [partition_loop(lp)]]
    parts = gcd_tiling(l1, l2, log, function)
    if parts is None:
        return None
    roots = []
    for gone, old, (tile, point) in zip(replaced, (l1, l2), parts):
        root = tile if gone else old
        nest = collect_interchangeable_loops(root)
        if point not in nest:
            return None
        k = nest.index(point)
        new, why = try_interchange(nest, outermost_permutation(len(nest), k), Scope(), options, log, function)
        if why is not None:
            return None
        roots.append(new[0])
    return roots[0], roots[1]


def distribute_for_partner(loop: ir.Operation, log, function: str) -> list[ir.Operation] | None:
    """Maximally distribute `loop` (seed 001's split_for_distribution / loop_distribution);
    returns the new loops, or None if it has fewer than two statement groups."""
    from .distribution import check_loop_distribution, loop_distribution, split_for_distribution
    from ..remarks import PASSED

    if check_loop_distribution(loop) is not None:
        return None
    where = mlir.location_of(loop)
    groups = split_for_distribution(loop)
    loops = loop_distribution(loop, groups)
    if len(loops) < 2:
        return None
    if log is not None:
        log.add("distribution", PASSED, f"[LOOP DISTRIBUTION] into {len(loops)} loops", function=function,
                location=where, args={"groups": [len(g) for g in groups], "reason": "to enable fusion"})
    return loops


def interchange_options(loop: ir.Operation, max_depth: int = 3) -> list[list[int]]:
    """Non-identity permutations of the loop's perfect band (depth 2..max_depth)."""
    from itertools import permutations

    band = collect_interchangeable_loops(loop)
    if not 2 <= len(band) <= max_depth:
        return []
    return [list(p) for p in permutations(range(len(band))) if list(p) != list(range(len(band)))]


def interchange_band(loop: ir.Operation, perm: list[int], options, log, function: str) -> ir.Operation | None:
    """Permute the loop's perfect band if legal (check_loop_interchange); the new root or None."""
    from .interchange import try_interchange

    band = collect_interchangeable_loops(loop)[:len(perm)]
    new, why = try_interchange(band, perm, Scope(), options, log, function)
    return new[0] if why is None else None
