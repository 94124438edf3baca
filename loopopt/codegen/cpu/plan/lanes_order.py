"""Lanes on the loop outside (docs/cpu_codegen.md section 30): the order of the parallel loops
around a reduction nest, chosen so that the loop directly around the reduction band walks every
access contiguously (its iterations become the register tile's vector lanes).

The register tile (cpu_plan.plan_register_tile) takes as its lanes loop P the parallel loop
directly around the reduction band, whatever it walks. A product whose loops run columns
outside rows (C[i, j] = sum_k A[i, k] * B[k, j] in the order j, i, k: what fusion's interchange
leaves of `x @ (w * c)^T`) puts the rows loop i there: C and A move by a whole row per
iteration of i, the lanes are refused and the product runs as scalar copies. With j directly
around the reduction, C and B are contiguous along j and A is invariant: a vector tile.

`plan_lanes_order` asks this of a perfect band of loops whose innermost loop P holds a
reduction band (the band is imperfect below P: the reduction's init, its loop, the store of its
result): when some access of P's nest is neither invariant nor contiguous along P (the tile's
lane test on accesses: `lanes_refusal`) and a loop Q of the band passes that test (the
innermost such loop), the plan moves Q innermost, the other loops keeping their order. Legality
is `transforms.interchange.check_loop_interchange` (isl: the conflicting pairs of band
iterations, the reduction nest inside each iteration a unit, keep their order; bounds only use
IVs of loops that stay outside). Q must then carry no dependence where it lands (two
conflicting iterations equal in the loops outside it: `locality.carries_at`), since its
iterations become lanes run together; else the band keeps its order (`LanesCode.CARRIED`).
Only loops of the band move, each iteration's ops run as they are: results are bit-exact.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.loops import constant_trip_count, loop_dims
from ....analysis.refusal import Refusal
from ....analysis.vectorization import is_innermost
from ....mlir import ir
from .cpu_plan import access_refusal, reduction_band_of, strided_lane_load
from .locality import band_conflicts, carries_at, index_strides, stride_class


class LanesCode(enum.Enum):
    """Why a band keeps its order although another loop would give the lanes (the remark text)."""

    CARRIED = "[STOP LOOP ORDER] the loop carries a dependence directly around the reduction"

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class LanesOrder:
    """The order of a band (outermost first, P = band[-1] holding a reduction band) that puts
    the loop `lanes` (a band level) directly around the reduction. `order[k]` = the band level
    placed at position k (interchange's permutation). With a refusal, the order is not legal
    and the band keeps its own."""

    band: tuple
    order: tuple[int, ...]
    lanes: int  # the band level whose iterations become the tile's lanes
    lanes_why: str  # why P's own iterations are not lanes
    refusal: Refusal | None = None

    @property
    def changes(self) -> bool:
        return self.refusal is None and self.order != tuple(range(len(self.band)))


def lanes_refusal(loop: ir.Operation, accesses: list, scope, allowed=frozenset()) -> str | None:
    """Why `loop`'s iterations cannot be the register tile's lanes on account of the accesses of
    the nest below P (`accesses`, their index along `loop`), or None: every access invariant in
    `loop` or contiguous along it (cpu_plan.access_refusal), but for a load of stride
    LANE_STRIDE (cpu_plan.strided_lane_load: the tile reads two vectors and shuffles), and every
    store moving with it (a store of one element for every lane is a dependence). Accesses whose
    op key (`mlir.op_key`) is in `allowed` are not asked (loads a copy makes contiguous first:
    codegen/cpu/plan/deinterleave.py)."""
    (axis,) = loop_dims(loop, scope)
    for a in accesses:
        if mlir.op_key(a.op) in allowed:
            continue
        if a.index is None:
            return f"{a.op.name} at {mlir.location_of(a.op)} touches unknown elements"
        if a.is_vector:
            return f"{a.op.name} at {mlir.location_of(a.op)} is a vector access"
        if strided_lane_load(loop, a, axis.name):
            continue
        why = access_refusal(loop, [a], scope)
        if why is not None:
            return why[0]
        if a.is_write and stride_class(index_strides(a, axis.name)) == "invariant":
            return f"{a.op.name} at {mlir.location_of(a.op)} writes one element for every iteration"
    return None


def plan_lanes_order(band: list, facts, options=None, allowed=frozenset()) -> LanesOrder | None:
    """The order of the perfect band `band` that moves the innermost loop whose iterations may
    be lanes directly around the reduction band in P = band[-1]; None when there is nothing to
    reorder: fewer than two loops, P innermost (a perfect band is locality.plan_loop_order's),
    no reduction band in P, an access the model cannot name, P's own lanes not refused by an
    access, or no other loop of the band whose lanes every access allows (a loop of constant
    trip count below 2 has no lanes). `allowed`: as lanes_refusal's, for the other loops only
    (asked before a copy that makes those loads contiguous along the loop it is for)."""
    from ....transforms.interchange import check_loop_interchange

    if len(band) < 2:
        return None
    p = band[-1]
    if is_innermost(p) or reduction_band_of(p, facts.scope) is None:
        return None
    accesses = facts.accesses(p)
    if not accesses or any(a.index is None for a in accesses):
        return None
    why_p = lanes_refusal(p, accesses, facts.scope)
    if why_p is None:
        return None
    for level in reversed(range(len(band) - 1)):
        q = band[level]
        trips = constant_trip_count(q)
        if (trips is not None and trips < 2) or lanes_refusal(q, accesses, facts.scope, allowed) is not None:
            continue
        order = tuple(k for k in range(len(band)) if k != level) + (level,)
        why = check_loop_interchange(list(band), list(order), facts.scope, options)
        if why is None:
            names = [loop_dims(lp, facts.scope)[0].name for lp in band]
            conflict = band_conflicts(band, facts, facts.accesses(band[0]), names)
            if carries_at(conflict, [names[k] for k in order], len(order) - 1):
                why = Refusal(LanesCode.CARRIED, "two iterations equal in the loops outside it touch one element "
                              "and one writes it" if conflict is not None else "its dependences cannot be modelled",
                              (q,))
        return LanesOrder(tuple(band), order, level, why_p, why)
    return None
