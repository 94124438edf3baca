"""Sibling reuse on the cpu target: when fusing two loops saves memory traffic although they
share no intermediate (issue 25).

The seed's profit counts only placed intermediates (profit.py). On cpu a pair also earns the
bytes of an external buffer that the second loop touches again in the same fused iteration:
read by both (a shared input, read once instead of twice), or written by the first and read by
the second (the read-back hits the cache). `reads_same_elements` and
`reads_produced_elements` match accesses element by element in nests of the same shape; this
module adds the exact per-iteration rule (`footprints_nest`): the elements the second loop
touches in iteration t of the fused axis, the loops inside the axis projected out, are among
those the first touched in iteration t. That compares nests of different depths and inner
orders (a row written by a 2-deep nest and read inside a 3-deep one; a column read by two
reductions of different lengths). Nothing here mutates IR or decides legality: the battery
(fusion_legality) still runs on every pair.
"""
from __future__ import annotations

import functools

import islpy as isl

from ....analysis.affine import Scope
from ....analysis.dependence import iteration_footprint
from ....analysis.loops import has_iter_args, loop_dims, substitute
from ....analysis.memory import UNTRACED, value_name
from ....loop_optimization.profit import shared_tensors
from ....mlir import ir


def _loops_inside(a, axis) -> list:
    """The loop dimensions of access `a` below `axis` (outermost first)."""
    names = [lp.name for lp in a.loops]
    return list(a.loops[names.index(axis.name) + 1:]) if axis.name in names else []


def sibling_renaming(a, b, ax1, ax2) -> dict | None:
    """How to name b's loops as a's so that one fused iteration of the pair runs both: l2's axis
    as l1's, and each loop inside it as a's loop at the same depth, when both nests have the
    same depth below the axis and those loops the same bounds and steps (after renaming). None
    when the nests differ."""
    inner_a, inner_b = _loops_inside(a, ax1), _loops_inside(b, ax2)
    if len(inner_a) != len(inner_b):
        return None
    rename = {ax2.name: ax1.name}
    for la, lb in zip(inner_a, inner_b):
        if la.step != lb.step or len(la.lower) != len(lb.lower) or len(la.upper) != len(lb.upper):
            return None
        if any(substitute(x, rename) != y for x, y in zip(lb.lower + lb.upper, la.lower + la.upper)):
            return None
        rename[lb.name] = la.name
    return rename


def reads_same_elements(l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
    """Some read of buffer `root` in l2 touches, per iteration, the elements a read in l1
    touches: the same index once l2's axis and the loops nested in it are named as l1's
    (`sibling_renaming`). Fusing the pair then reads those elements once from memory (the
    second read hits the cache) — the cpu profit of sibling fusion, e.g. two nests that walk
    one matrix row by row (bicg written as two nests)."""
    return _same_elements(l1, l2, root, facts, first_writes=False)


def reads_produced_elements(l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
    """Some read of buffer `root` in l2 touches, per iteration, the elements a write in l1
    touches (same renaming as `reads_same_elements`), and the element moves with the loop (an
    index uses its IV): fused, the consumer reads what the producer has just written, from the
    cache, instead of a second pass over memory. The cpu profit of fusing through a buffer the
    function does not place (an argument). A cell both loops touch in every iteration (an
    accumulator) is in the cache either way and earns nothing."""
    return _same_elements(l1, l2, root, facts, first_writes=True)


def _same_elements(l1: ir.Operation, l2: ir.Operation, root, facts, first_writes: bool) -> bool:
    (ax1,), (ax2,) = loop_dims(l1, facts.scope), loop_dims(l2, facts.scope)
    if ax1.lower != ax2.lower or ax1.step != ax2.step:
        return False
    firsts = [a for a in facts.classes(l1).by_root.get(root, ()) if a.index is not None and a.is_write == first_writes
              and (not first_writes or a.uses_iv(ax1.name))]
    seconds = [b for b in facts.classes(l2).by_root.get(root, ()) if b.index is not None and not b.is_write]
    for b in seconds:
        for a in firsts:
            rename = sibling_renaming(a, b, ax1, ax2)
            if rename is not None and tuple(substitute(t, rename) for t in b.index) == a.index \
                    and a.extents() == b.extents():
                return True
    return False




@functools.lru_cache(maxsize=16384)
def _nested_text(inner: str, outer: str) -> bool:
    """The isl set `inner` is non-empty and within `outer` (texts; memoized: a pair is scored
    again after every change around it, with the same accesses)."""
    try:
        fa, fb = isl.Set(outer), isl.Set(inner)
    except isl.Error:
        return False
    fa, fb = fa.align_params(fb.get_space()), fb.align_params(fa.get_space())
    return not fb.is_empty() and fb.is_subset(fa)


def footprints_nest(a, b, ax1, ax2, scope: Scope) -> bool:
    """In every iteration of the fused axis, the elements `b` (in the second loop) touches are
    among those `a` (in the first) touches, and some are touched: in one fused iteration the
    second loop finds all it touches of the buffer in the cache (a second loop that reads more
    than the first touched, `s[j]` for all j after a loop that wrote `s[i]`, earns nothing).
    Decided exactly with isl on the per-iteration footprints (`iteration_footprint`), so nests of different depths
    (a row written by a 2-deep nest, read inside a 3-deep one) are compared too. Both accesses
    must sit in the same loops outside the axis, the two axes have one step."""
    if a.rank != b.rank or a.key != b.key or a.key is UNTRACED:
        return False
    na, nb = [lp.name for lp in a.loops], [lp.name for lp in b.loops]
    if ax1.name not in na or ax2.name not in nb or na[:na.index(ax1.name)] != nb[:nb.index(ax2.name)]:
        return False
    if ax1.step != ax2.step:
        return False
    fa, fb = iteration_footprint(a, ax1, scope), iteration_footprint(b, ax2, scope)
    if fa is None or fb is None:
        return False
    return _nested_text(fb, fa)


def _footprint_reuse(l1: ir.Operation, l2: ir.Operation, root, facts, first_writes: bool) -> bool:
    """Some read of `root` (a buffer key) in l2 touches, per fused iteration, only elements an
    access in l1 touches (a read, or with `first_writes` a write whose element moves with the
    loop: a cell touched in every iteration is in the cache either way)."""
    (ax1,), (ax2,) = loop_dims(l1, facts.scope), loop_dims(l2, facts.scope)
    firsts = [a for a in facts.classes(l1).by_root.get(root, ()) if a.index is not None
              and a.is_write == first_writes and (not first_writes or a.uses_iv(ax1.name))]
    seconds = [b for b in facts.classes(l2).by_root.get(root, ()) if b.index is not None and not b.is_write]
    return any(footprints_nest(a, b, ax1, ax2, facts.scope) for b in seconds for a in firsts)


def reuses_read_elements(l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
    """The pair reads `root` (neither writes it) so that, fused, the second read hits the cache:
    the same elements in the same iteration of nests of one shape (`reads_same_elements`), or
    per fused iteration a footprint within the first loop's (`footprints_nest`)."""
    return reads_same_elements(l1, l2, root, facts) or _footprint_reuse(l1, l2, root, facts, False)


def reuses_produced_elements(l1: ir.Operation, l2: ir.Operation, root, facts) -> bool:
    """The second loop reads, per fused iteration, only elements of `root` the first has just
    written there (`reads_produced_elements`, or the footprint rule across nest shapes)."""
    return reads_produced_elements(l1, l2, root, facts) or _footprint_reuse(l1, l2, root, facts, True)


def accumulates_only(loop: ir.Operation, facts) -> bool:
    """The innermost loop carries nothing but accumulators: no iter_args, effects modelled, and
    every write's index is free of the loop's IV (a value at a loop-invariant address, which
    scalar replacement carries in a register). Its dependences are then reductions only, and
    the work fused next to them stays one pass over the elements."""
    if has_iter_args(loop) or facts.effects(loop).unknown:
        return False
    (axis,) = loop_dims(loop, facts.scope)
    writes = [a for a in facts.classes(loop).flat if a.is_write]
    return bool(writes) and all(a.index is not None and not a.uses_iv(axis.name) for a in writes)


def streams_shared_input(l1: ir.Operation, l2: ir.Operation, facts) -> bool:
    """Both loops read, at the same elements per iteration, a buffer that moves with the loop
    and that neither writes (`reads_same_elements`): fused, that input is streamed from memory
    once instead of twice (bicg written as two nests: A read by both row loops)."""
    e1, e2 = facts.effects(l1), facts.effects(l2)
    (ax1,) = loop_dims(l1, facts.scope)
    for k in sorted(e1.reads & e2.reads - e1.writes - e2.writes, key=str):
        if k is UNTRACED:
            continue
        moving = any(a.uses_iv(ax1.name) for a in facts.classes(l1).by_root.get(k, ()))
        if moving and reads_same_elements(l1, l2, k, facts):
            return True
    return False


def reuse_reasons(l1: ir.Operation, l2: ir.Operation, facts) -> list[str]:
    """Why the pair earns on cpu beyond the seed's placed intermediates, for the fusion remark:
    per external buffer, `<buffer> read by both loops` or `<buffer> written, then read back`."""
    out = []
    for t in shared_tensors(facts.effects(l1), facts.effects(l2), facts.location):
        if t.location.placed:
            continue
        root = t.location.root
        if not (t.written_by_first or t.written_by_second) and reuses_read_elements(l1, l2, root, facts):
            out.append(f"{value_name(root)} read by both loops in one fused iteration (read once from memory)")
        elif t.written_by_first and reuses_produced_elements(l1, l2, root, facts):
            out.append(f"{value_name(root)} written, then read back in the same fused iteration (from the cache)")
    return out
