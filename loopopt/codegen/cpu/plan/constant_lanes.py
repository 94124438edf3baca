"""Constants laid out along the lanes (cpu, step `constant-lanes`; docs/cpu_codegen.md section 50).

The register tile (cpu_plan.plan_register_tile) takes its lanes from the loop directly around a
reduction band, and `loop-order` moves there a loop of the band that walks every access of the
nest contiguously or not at all (plan/lanes_order.py). A convolution whose result is stored in
channels-last order, `Y[n, oh, ow, co] = sum W[co, ci, kh, kw] * X[n, ci, oh + kh, ow + kw]`
(what a channels_last result written by the kernel itself gives), has no such loop: along ow
the store moves by a whole pixel of channels, along co the weight moves by ci * kh * kw
elements. The tile then runs scalar (17 to 21 times the row-major kernel's time measured).

When the only accesses that keep a loop Q of the band from giving the lanes are loads of a
constant global (its value readable: a `dense_resource` blob or a splat) that move along Q by one
element of one dimension d other than the last, and by nothing in any other dimension, the
constant is laid out with d last (a new private global: `G'[.., d] = G[...]`, the other
dimensions in their order) and those loads read it through the permuted map: along Q they are
then contiguous, and `loop-order` moves Q around the reduction (the plan is asked of
`plan_lanes_order` with those loads allowed: legal there, and Q its choice). Only the loads
found are rewritten; a constant is never written, so they read the same values: bit-exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import mlir
from ....analysis.loops import constant_trip_count, loop_dims
from ....mlir import ir
from .constant_copies import constant_global, static_type
from .cpu_plan import reduction_band_of
from .locality import index_strides


@dataclass(frozen=True)
class LaneConstant:
    """`load` reads the constant `global_op` (through `get_global`) moving by one element of its
    dimension `dim` along the loop `lanes`: laid out in `order` (dim last) it is contiguous."""

    load: ir.Operation
    get_global: ir.Operation
    global_op: ir.Operation
    dim: int
    lanes: ir.Operation

    @property
    def order(self) -> tuple[int, ...]:
        return dim_last(len(ir.MemRefType(self.load.operands[0].type).shape), self.dim)


def dim_last(rank: int, d: int) -> tuple[int, ...]:
    """The order of dimensions (outermost first) that moves `d` innermost, the others kept."""
    return tuple(k for k in range(rank) if k != d) + (d,)


def lane_constant(a, axis: str, module_op: ir.Operation) -> tuple[ir.Operation, ir.Operation, int] | None:
    """(get_global, global, d) when the access `a` is a scalar affine.load of a readable constant
    global of static identity-layout type that moves along the loop `axis` by one element of its
    dimension d (not the last) and by none in any other; else None."""
    if a.op.name != "affine.load" or a.is_write or a.index is None or getattr(a, "is_vector", False):
        return None
    owner, _ = mlir.value_owner(a.op.operands[0])
    if owner is None or owner.name != "memref.get_global":
        return None
    t = a.op.operands[0].type
    if not static_type(t):
        return None
    g = constant_global(owner, module_op)
    if g is None:
        return None
    strides = index_strides(a, axis)
    if strides is None or any(s is None for s in strides):
        return None
    moving = [d for d, s in enumerate(strides) if s != 0]
    if len(moving) != 1 or strides[moving[0]] != 1 or moving[0] == len(strides) - 1:
        return None
    return owner, g, moving[0]


def plan_band(band: list, facts, options, module_op: ir.Operation) -> list[LaneConstant]:
    """The loads to lay out for one perfect band above a reduction nest (P = band[-1]): [] when
    P gives the lanes already, when no loop of the band would give them with constant loads laid
    out (the innermost candidate is asked first, as `plan_lanes_order` does), when that loop
    gives them without (loop-order moves it), or when `plan_lanes_order` with those loads allowed
    does not take that loop or finds the order illegal."""
    from .lanes_order import lanes_refusal, plan_lanes_order

    if len(band) < 2:
        return []
    p = band[-1]
    if reduction_band_of(p, facts.scope) is None:
        return []
    accesses = facts.accesses(p)
    if not accesses or any(a.index is None for a in accesses):
        return []
    if lanes_refusal(p, accesses, facts.scope) is None:
        return []
    for level in reversed(range(len(band) - 1)):
        q = band[level]
        trips = constant_trip_count(q)
        if trips is not None and trips < 2:
            continue
        (axis,) = loop_dims(q, facts.scope)
        found = [(a, hit) for a in accesses if (hit := lane_constant(a, axis.name, module_op)) is not None]
        allowed = {mlir.op_key(a.op) for a, _ in found}
        if lanes_refusal(q, accesses, facts.scope, allowed) is not None:
            continue
        if not found:
            return []
        order = plan_lanes_order(band, facts, options, allowed)
        if order is None or order.refusal is not None or band[order.lanes] != q:
            return []
        return [LaneConstant(a.op, get, g, d, q) for a, (get, g, d) in found]
    return []
