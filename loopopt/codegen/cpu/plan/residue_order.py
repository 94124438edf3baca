"""Residue order (cpu): a loop whose iterations read again what an iteration D > 1 before read
runs its iterations by residue mod D, so that the read comes back in the next iteration.

A dilated convolution (DeepLab's ASPP, dilation 6) reads input row `oh + 6 * kh` for kh = 0, 1, 2:
after the register tile, the loop over output rows `oh` holds, in its reduction over channels,
loads of rows oh, oh + 6 and oh + 12 of every channel. Iteration oh + 6 reads two of the three rows
iteration oh read, but six iterations later: with 256 channels of 76 floats, six iterations touch
1.4 MB of input, more than a core's L2 (1 MB on the AMD host), so every row comes from L3 three
times. Run in the order oh = 0, 6, 12, .., 1, 7, 13, .. (`for r = 0 to 6 { for oh = r to 64 step 6 }`),
the next iteration reads two of its rows again at once, as an undilated convolution does.

Rule. A candidate is an `affine.for` with constant bounds and step s, without results, around a
loop that carries values (a reduction nest; the register tile's accumulators). Its loads are
grouped by buffer and by their indices' coefficients of every loop and parameter; within a
group two loads whose constants differ by t * s * a (a: the coefficients of the loop's counter
in each index, t a whole number) read in iteration i + t what they read in iteration i; so does
one load whose inner loop of two iterations or more moves its indices by t * s * a. D is the gcd
of those t. The loop is rewritten when D > 1, it runs at least 2 D iterations, and the loads of
D iterations touch more than L2 holds (per group of loads, the elements of the boxes they cover
over the inner loops, each dimension's intervals merged; the groups that move with the loop D
times, the others once): then every such read comes back in the next iteration of the new order (distances t / D),
where it still hits L2. A read already reused by the next iteration (t = 1) makes D = 1: nothing
changes; nor where D iterations' loads fit in L2 (ASPP's 33 x 33 map of dilation 6, 256 channels:
135 KiB of input rows an iteration, 108 KiB of weights, 918 KiB for six in the host's 1 MiB L2:
measured unchanged, 0.96-0.99).

Legality (exact, isl; `carried_violation`): no two iterations of the loop touch one element, one
of them writing, so its iterations may run in any order; each iteration runs its body unchanged,
so results are bit-exact. A masked vector access (the register tile's masked tail of a 33-wide
map) counts as its whole vector (`accesses.may_access`, an over-approximation).

Remarks (pass `residue-order`): `[RESIDUE ORDER] ...` per rewritten loop; `[STOP RESIDUE ORDER]`
for a candidate with D > 1 whose loop carries a dependence. The rest are not candidates (quiet).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from math import gcd

from .... import mlir
from ....analysis.accesses import MASKED_ACCESSES, may_access
from ....analysis.dependence import affine_form
from ....analysis.loops import constant_bounds, has_iter_args, loop_dims
from ....analysis.memory import UNTRACED
from ....analysis.refusal import Refusal
from ....analysis.vectorization import buffer_carries
from ....mlir import ir

PASS = "residue-order"
MIN_PASSES = 2  # iterations per residue below which the order gains no reuse
MAX_OFFSETS = 64  # distinct offsets of one group compared pairwise (a profit question: more are left out)


class ResidueCode(enum.Enum):
    CARRIED = "[STOP RESIDUE ORDER] the loop carries a dependence: its iterations may not be reordered"

    @property
    def message(self) -> str:
        return self.value


@dataclass
class ResiduePlan:
    loop: ir.Operation
    modulus: int = 0  # D: iterations between a read and its reuse, made 1
    lower: int = 0
    upper: int = 0
    step: int = 1
    distances: list = field(default_factory=list)  # the reuse distances t found, sorted
    footprint: tuple | None = None  # bytes the loads of one iteration touch: (moving, not moving)

    @property
    def window(self) -> int:
        """Bytes the loads of D consecutive iterations touch (`window_bytes`)."""
        return window_bytes(self.footprint, self.modulus)
    refusal: Refusal | None = None

    @property
    def trip(self) -> int:
        return -(-(self.upper - self.lower) // self.step)


def _reduction_inside(loop: ir.Operation) -> bool:
    return any(o.name == "affine.for" and o != loop and has_iter_args(o) for o in mlir.walk(loop))


def is_candidate(loop: ir.Operation) -> bool:
    """An affine.for of constant bounds without results around a loop that carries values."""
    return (loop.name == "affine.for" and not len(loop.results) and constant_bounds(loop) is not None
            and _reduction_inside(loop))


def candidates(fn: ir.Operation) -> list[ir.Operation]:
    return [op for op in mlir.walk(fn) if is_candidate(op)]


def multiple_of(delta: tuple, along: tuple) -> int | None:
    """t with delta == t * along (along not all zero), else None."""
    t = None
    for d, a in zip(delta, along):
        if a == 0:
            if d != 0:
                return None
            continue
        if d % a:
            return None
        if t is None:
            t = d // a
        elif t != d // a:
            return None
    return t


def reuse_distances(loop: ir.Operation, facts) -> tuple[list[int], tuple[int, int] | None]:
    """(the distances t >= 1, in iterations of `loop`, at which a load of the loop reads again
    what an earlier iteration read (module docstring): between two loads of one group, and along
    an inner loop of one load; the bytes the loads of one iteration touch, (those that move with
    the loop, those that do not), None when an inner loop's trip count is unknown). Loads whose
    indices are not affine forms are left out."""
    params = tuple(sorted(facts.scope.params))
    groups: dict = {}
    found = set()
    known = True
    for a in facts.accesses(loop):
        if a.is_write or a.index is None or not a.index:
            continue
        level = next((k for k, lp in enumerate(a.loops) if lp.op == loop), None)
        if level is None:
            continue
        names = tuple(lp.name for lp in a.loops)
        forms = [affine_form(t, names, params) for t in a.index]
        if any(f is None for f in forms):
            continue
        step = a.loops[level].step
        along = tuple(ivs[level] * step for ivs, _, _ in forms)
        spans = []  # per inner loop: how far it moves each index over its iterations
        for inner in range(level + 1, len(a.loops)):
            lp = a.loops[inner]
            trip = _inner_trip(lp.op)
            if trip is None:
                known = False
                continue
            moves = tuple(ivs[inner] * lp.step for ivs, _, _ in forms)
            spans.append(tuple(m * (trip - 1) for m in moves))
            t = multiple_of(moves, along) if any(along) and trip >= 2 else None
            if t:
                found.add(abs(t))
        consts = tuple(c for _, _, c in forms)
        box = tuple((c + sum(min(0, sp[d]) for sp in spans), c + sum(max(0, sp[d]) for sp in spans) + w)
                    for d, (c, w) in enumerate(zip(consts, a.extents())))
        key = (a.key, tuple((ivs, pars) for ivs, pars, _ in forms))
        groups.setdefault(key, []).append((along, consts, box, _element_bytes(a.root)))
    moving = still = 0
    for members in groups.values():
        size = _group_elements([b for _, _, b, _ in members]) * members[0][3]
        along = members[0][0]
        if not any(along):
            still += size
            continue
        moving += size
        consts = sorted({c for _, c, _, _ in members})[:MAX_OFFSETS]
        for k, c in enumerate(consts):
            for d in consts[k + 1:]:
                t = multiple_of(tuple(x - y for x, y in zip(d, c)), along)
                if t:
                    found.add(abs(t))
    return sorted(found), ((moving, still) if known else None)


def window_bytes(footprint: tuple, d: int) -> int:
    """Bytes the loads of d consecutive iterations touch: those not moving with the loop once, the
    moving ones d times (a reuse at distance d or more only: no two of the d iterations share them)."""
    moving, still = footprint
    return still + d * moving


def _group_elements(boxes: list) -> int:
    """Elements of a group's boxes, each dimension's intervals merged, the dimensions' lengths
    multiplied (an estimate: exact for boxes that differ in one dimension, as a convolution's
    taps do along the rows)."""
    total = 1
    for d in range(len(boxes[0])):
        length, end = 0, None
        for lo, hi in sorted(b[d] for b in boxes):
            if end is None or lo >= end:
                length += hi - lo
                end = hi
            elif hi > end:
                length += hi - end
                end = hi
        total *= length
    return total


def _element_bytes(root: ir.Value) -> int:
    mt = mlir.memref_type(root)
    t = mt.element_type if mt is not None else None
    width = getattr(t, "width", None) if t is not None else None
    return max(1, width // 8) if isinstance(width, int) else 4


def _inner_trip(op: ir.Operation) -> int | None:
    if op.name != "affine.for":
        return None
    cb = constant_bounds(op)
    if cb is None:
        return None
    return -(-(cb[1] - cb[0]) // mlir.int_attr(op, "step"))


def plan_residue_order(loop: ir.Operation, facts, l2_bytes: int) -> ResiduePlan | None:
    """The plan of a candidate loop; None when it gains nothing: D <= 1, fewer than MIN_PASSES
    iterations per residue, or the loads of D iterations fit in L2 (`l2_bytes`: the read D
    iterations later still hits there: `window_bytes`) or their size is unknown."""
    lower, upper = constant_bounds(loop)
    step = mlir.int_attr(loop, "step")
    plan = ResiduePlan(loop, lower=lower, upper=upper, step=step)
    plan.distances, plan.footprint = reuse_distances(loop, facts)
    d = 0
    for t in plan.distances:
        d = gcd(d, t)
    if d <= 1 or plan.trip < MIN_PASSES * d or plan.footprint is None or window_bytes(plan.footprint, d) <= l2_bytes:
        return None
    plan.modulus = d
    why = carried_violation(loop, facts)
    if why is not None:
        plan.refusal = Refusal(ResidueCode.CARRIED, why, (loop,))
    return plan


def carried_violation(loop: ir.Operation, facts) -> str | None:
    """None iff no two iterations of `loop` touch one element, one of them writing (exact, isl:
    `vectorization.buffer_carries` over each buffer's accesses), so the iterations may run in
    any order; else why not. A masked vector access counts as every element its vector covers
    (`accesses.may_access`: the register tile's masked tail); an unknown effect, an access at
    unknown elements, a buffer that may alias any other or a run-time check refuse."""
    scope = facts.scope
    eff = facts.effects(loop)
    if eff.unknown:
        return eff.reason or "unmodelled effects"
    check = next((o for o in mlir.walk(loop) if o.name == "cf.assert"), None)
    if check is not None:
        return f"a run-time check (cf.assert at {mlir.location_of(check)}) would change its order"
    (axis,) = loop_dims(loop, scope)
    groups: dict = {}
    for a in facts.accesses(loop):
        if a.index is None and a.op.name in MASKED_ACCESSES:
            a = may_access(a.op, scope)
        if a.index is None:
            return f"{a.op.name} at {mlir.location_of(a.op)} touches elements not modelled"
        if a.key is UNTRACED:
            return f"{a.op.name} at {mlir.location_of(a.op)} may touch any buffer"
        groups.setdefault(a.key, []).append(a)
    for group in groups.values():
        carries = buffer_carries(group, axis, scope)
        if carries is None:
            return f"the accesses of the buffer {group[0].op.name} at {mlir.location_of(group[0].op)} uses are not modelled as one relation"
        if carries:
            return f"{mlir.location_of(group[0].op)}: its buffer is written in one iteration and touched in another"
    return None
