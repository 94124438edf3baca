"""Whether an innermost loop is parallel (vectorizable) or carries a dependence (sequential).

A loop is *parallel* when no dependence is carried by it: no two of its iterations touch the
same element of a buffer with at least one write, and it yields no values. A C compiler can
then run its iterations in vector lanes. A loop that carries a dependence (typically a
reduction: `load acc; add; store acc` at an address that does not move with the loop, or an
accumulator in `iter_args`) runs one iteration after the other.

The cpu cost model uses this to keep vectorizable work out of reductions: fusing a parallel
innermost loop into a sequential one makes the parallel work sequential too
(`fusion_legality.check_vectorization`). Decided exactly with isl (`dependence.distance_set`)
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


def is_innermost(loop: ir.Operation) -> bool:
    """True iff no loop-like op (affine.for, scf.for, scf.while, ...) is nested in `loop`."""
    return not any(o.name in LOOP_OPS for o in mlir.walk(loop) if o != loop)


def _buffer_text(a: AccessPattern) -> str:
    owner, _ = mlir.value_owner(a.root)
    if owner is not None:
        return f"{owner.name} at {mlir.location_of(owner)}"
    return f"argument #{a.root.arg_number}" if isinstance(a.root, ir.BlockArgument) else "a memref"


def carried_dependence(loop: ir.Operation, facts) -> Carried | None:
    """None if the affine.for `loop` carries no dependence (parallel), else why it does.

    Every pair of accesses in the loop that may touch one buffer, one of them a write, is
    checked: a dependence whose distance along the loop may be non-zero is carried. Unknown
    effects, unknown elements and untraced memrefs count as carried (sound by default)."""
    cache = facts.__dict__.setdefault("_carried_cache", {})
    accs = facts.accesses(loop)
    hit = cache.get(op_key(loop))
    if hit is not None and hit[0] is accs and hit[1] == len(accs):
        return hit[2]
    result = _carried(loop, facts, accs)
    cache[op_key(loop)] = (accs, len(accs), result)
    return result


def _carried(loop: ir.Operation, facts, accs: list[AccessPattern]) -> Carried | None:
    if has_iter_args(loop):
        return Carried("it carries values in iter_args")
    eff = facts.effects(loop)
    if eff.unknown:
        return Carried(eff.reason or "unmodelled effects")
    (axis,) = loop_dims(loop, facts.scope)
    writes = [a for a in accs if a.is_write]
    for w in writes:
        for b in accs:
            if b is w and not _may_repeat(w, axis):
                continue
            if not dependence.conflicts(w, b) or (b.is_write and id(b) < id(w) and b is not w):
                continue  # write-write pairs are checked once
            if w.key is UNTRACED or b.key is UNTRACED:
                return Carried(f"{_buffer_text(w)} may alias any buffer")
            if w.index is None or b.index is None:
                return Carried(f"{_buffer_text(w)} is accessed at unknown elements")
            dist = dependence.distance_set(w, b, axis, axis, facts.scope)
            if dist is not None and not _only_zero(dist):
                what = "reduction into" if not w.uses_iv(axis.name) else "dependence on"
                return Carried(f"{what} {_buffer_text(w)} across iterations")
    return None


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
