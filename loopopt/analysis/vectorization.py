"""Whether an innermost loop is parallel (vectorizable) or carries a dependence (sequential).

A loop is *parallel* when no dependence is carried by it: no two of its iterations touch the
same element of a buffer with at least one write, and it yields no values. A C compiler can
then run its iterations in vector lanes. A loop that carries a dependence (typically a
reduction: `load acc; add; store acc` at an address that does not move with the loop, or an
accumulator in `iter_args`) runs one iteration after the other.

The cpu cost model uses this to keep vectorizable work out of reductions: fusing a parallel
innermost loop into a sequential one makes the parallel work sequential too
(the cpu hooks' vectorization guard, `codegen/cpu/hooks.py`). Decided exactly with isl (`dependence.distance_set`)
over the loop's own accesses; what the analysis cannot see (unknown effects, unknown
elements, a memref that may alias anything) counts as carried.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir, op_key
from . import dependence
from .accesses import AccessPattern
from .loops import LOOP_OPS, has_iter_args, loop_dims
from .memory import UNTRACED


@dataclass(frozen=True)
class Carried:
    """Why a loop runs sequentially: a short reason naming the buffer (or iter_args)."""

    reason: str


def is_innermost(loop: ir.Operation, facts=None) -> bool:
    """True iff no loop-like op (affine.for, scf.for, scf.while, ...) is nested in `loop`.

    With `facts`, memoized on the loop's access list as `carried_dependence` is: a fuse that
    appends a nest brings that nest's accesses along, so the list grows and the answer is
    recomputed. (A nest without any access appended by a fuse would leave a stale True; the
    answer only steers the cpu cost model, never legality.)"""
    if facts is None:
        return _no_nested_loop(loop)
    cache = facts.__dict__.setdefault("_innermost_cache", {})
    accs = facts.accesses(loop)
    hit = cache.get(op_key(loop))
    if hit is not None and hit[0] is accs and hit[1] <= len(accs):
        if not hit[2] or hit[1] == len(accs):
            return hit[2]
        # appended accesses (a fused partner's body): innermost iff each sits right in `loop`
        result = all(a.loops and a.loops[-1].op == loop for a in accs[hit[1]:])
    else:
        result = _no_nested_loop(loop)
    cache[op_key(loop)] = (accs, len(accs), result)
    return result


def _no_nested_loop(loop: ir.Operation) -> bool:
    return not any(o.name in LOOP_OPS for o in mlir.walk_list(loop) if o != loop)


def _buffer_text(a: AccessPattern) -> str:
    owner, _ = mlir.value_owner(a.root)
    if owner is not None:
        return f"{owner.name} at {mlir.location_of(owner)}"
    return f"argument #{a.root.arg_number}" if isinstance(a.root, ir.BlockArgument) else "a memref"


def carried_dependence(loop: ir.Operation, facts, through_iter_args: bool = True) -> Carried | None:
    """None if the affine.for `loop` carries no dependence (parallel), else why it does.

    Every pair of accesses in the loop that may touch one buffer, one of them a write, is
    checked: a dependence whose distance along the loop may be non-zero is carried. Unknown
    effects, unknown elements and untraced memrefs count as carried (sound by default). Values
    in iter_args are carried too, unless `through_iter_args` is False: then only memory is
    judged (the cpu plan classifies iter_args itself: a reduction may run in vector lanes).

    Memoized per loop on its access list: a fuse appends the partner's accesses to the kept
    loop's list (`Facts.fused`), so only pairs with an appended access are checked again (a
    carried verdict stays carried: accesses are only ever added), and a chain of N fusions
    costs time proportional to its accesses, not their square."""
    cache = facts.__dict__.setdefault("_carried_cache" if through_iter_args else "_carried_memory_cache", {})
    accs = facts.accesses(loop)
    hit = cache.get(op_key(loop))
    if hit is not None and hit[0] is accs and hit[1] <= len(accs):
        if hit[2] is not None or hit[1] == len(accs):
            return hit[2]
        result = _carried(loop, facts, accs, hit[1], through_iter_args)
    else:
        result = _carried(loop, facts, accs, 0, through_iter_args)
    cache[op_key(loop)] = (accs, len(accs), result)
    return result


MAX_PAIR_CHECKS = 256  # write/access pairs of one buffer checked per call before giving up
MAX_RELATION_ACCESSES = 512  # accesses of one buffer in one relation (isl composes every pair)


def _carried(loop: ir.Operation, facts, accs: list[AccessPattern], start: int,
             through_iter_args: bool = True) -> Carried | None:
    """The first carried dependence among pairs with at least one access from accs[start:]."""
    if through_iter_args and has_iter_args(loop):
        return Carried("it carries values in iter_args")
    eff = facts.effects(loop)
    if eff.unknown:
        return Carried(eff.reason or "unmodelled effects")
    (axis,) = loop_dims(loop, facts.scope)
    # One access per signature (Facts.distinct, kept current by Facts.fused like the access list):
    # a pair's verdict depends only on the two signatures, and a repeated access adds nothing to
    # a buffer's relation.
    distinct = facts.distinct(loop)
    by_key = distinct.by_root
    checked = 0
    parallel_keys = set()  # buffers one relation per buffer showed free of carried dependences
    for new in accs[start:]:
        if new.key is UNTRACED or UNTRACED in by_key:
            return Carried(f"{_buffer_text(new)} may alias any buffer")
        if new.key in parallel_keys:
            continue
        group = by_key.get(new.key, ())
        if 2 < len(group) <= MAX_RELATION_ACCESSES and _buffer_parallel(distinct, new.key, axis, facts.scope):
            parallel_keys.add(new.key)
            continue
        for other in group:
            if not (new.is_write or other.is_write):
                continue
            w, b = (new, other) if new.is_write else (other, new)
            checked += 1
            if checked > MAX_PAIR_CHECKS:
                # A profit question, not a legality one: answering "carried" lets the pair fuse
                # as the seed would, and keeps the guard linear in a loop's accesses.
                return Carried(f"more than {MAX_PAIR_CHECKS} access pairs on one buffer; assumed carried")
            why = _pair_carried(w, b, axis, facts)
            if why is not None:
                return why
    return None


def _buffer_parallel(distinct, key, axis, scope) -> bool:
    """buffer_carries of the distinct accesses of buffer `key` is False, memoized on the
    loop's `Facts.distinct` (which a fuse only appends to): a loop that absorbs partners
    repeating its accesses asks again with the same group and gets the answer without building
    the relation."""
    group = distinct.by_root[key]
    stamp = (len(group), op_key(axis.op), axis.name)
    hit = distinct.verdicts.get(key)
    if hit is None or hit[0] != stamp:
        hit = distinct.verdicts[key] = (stamp, buffer_carries(group, axis, scope) is False)
    return hit[1]


def buffer_carries(group: list[AccessPattern], axis, scope) -> bool | None:
    """Whether some write and some access of one buffer (`group`, all inside the loop `axis`)
    touch one element in two different iterations of `axis` (and the same iterations of the
    loops around it), from the buffer's access relation (`legality.conflict_relation`) instead
    of one set per access pair. None when the group is outside what the relation models here
    (an unknown index, two roots, different ranks, an access appended from a fused partner
    whose loops are still the partner's): the caller then checks pair by pair."""
    import islpy as isl

    from .legality import conflict_relation

    root = group[0].root
    if any(a.index is None or a.root != root or len(a.index) != len(group[0].index) for a in group):
        return None
    if axis.name != loop_dims(axis.op, scope)[0].name:
        return None  # the relation's band is an op's first dim; not another dim of affine.parallel
    if not any(a.is_write for a in group):
        return False
    depth = next((k for k, lp in enumerate(group[0].loops) if lp.op == axis.op and lp.name == axis.name), None)
    if depth is None or any(len(a.loops) <= depth or a.loops[depth].op != axis.op for a in group):
        return None
    outer = [lp.name for lp in group[0].loops[:depth + 1]]
    if any([lp.name for lp in a.loops[:depth + 1]] != outer for a in group):
        return None
    pairs = conflict_relation([axis.op], scope, group)
    if pairs is None:
        return None
    return not pairs.intersect(isl.UnionMap("{ I[s] -> I[t] : t < s or t > s }")).is_empty()


def _pair_carried(w: AccessPattern, b: AccessPattern, axis, facts) -> Carried | None:
    """Why the write w and the access b (same buffer) depend across iterations, or None."""
    if b is w and not _may_repeat(w, axis):
        return None
    if b is not w and _same_element_same_iteration(w, b, axis):
        return None
    if w.index is None or b.index is None:
        return Carried(f"{_buffer_text(w)} is accessed at unknown elements")
    dist = dependence.distance_set(w, b, axis, axis, facts.scope)
    if dist is not None and not _only_zero(dist):
        what = "reduction into" if not w.uses_iv(axis.name) else "dependence on"
        return Carried(f"{what} {_buffer_text(w)} across iterations")
    return None


def _same_element_same_iteration(a: AccessPattern, b: AccessPattern, axis) -> bool:
    """The cheap common case of distance 0 only: the same root, the same scalar index text, and
    a component that is exactly the axis IV (so the element determines the iteration)."""
    if a.root != b.root or a.index is None or a.index != b.index or a.is_vector or b.is_vector:
        return False
    return not _may_repeat(a, axis)


def _may_repeat(a: AccessPattern, axis) -> bool:
    """A write can depend on itself across iterations only if its element may repeat; an index
    component that is exactly the axis IV rules that out (the cheap common case)."""
    if a.index is None or a.is_vector or axis.step != 1:
        return True
    return not any(t.strip("()") == axis.name for t in a.index)


def _only_zero(dist) -> bool:
    """The distance set is empty or {0}: no dependence crosses iterations."""
    import islpy as isl

    nonzero = isl.Set("{ [d] : d < 0 or d > 0 }").align_params(dist.get_space())
    return dist.intersect(nonzero).is_empty()


def is_parallel(loop: ir.Operation, facts) -> bool:
    return carried_dependence(loop, facts) is None
