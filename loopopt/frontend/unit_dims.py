"""`loopopt-drop-trailing-unit-dims`: a temporary's trailing dimensions of size 1 taken out of its
type and of every access.

linalg-fold-unit-extent-dims folds unit dimensions of `linalg.generic` only; a named op keeps
them. torch-mlir writes `x.transpose(...)` of an expanded view as a `linalg.transpose` of a
`N x ... x 1` tensor (torch.einsum's operand permutation does), so the buffer it fills ends in a
dimension of size 1. Every access to it then indexes that last dimension with 0, and each test
that asks whether an access walks the next element of the last dimension (a vector of lanes:
`cpu_plan.lane_width_refusal`, `locality.stride_class`) sees one that does not move: a matrix
product reading such a buffer along its columns runs as scalar copies.

The rule: a `memref.alloc` or `memref.alloca` of identity layout whose last k >= 1 dimensions
have static size 1, keeping at least one dimension, whose every use is an `affine.load` or
`affine.store` through it (not storing the buffer itself) or a `memref.dealloc`, becomes the same
allocation without those k dimensions, and each access's map loses its last k results. Exact:
an in-bounds index of a dimension of size 1 is 0, and dropping trailing unit dimensions of a
row-major buffer keeps every element's offset (the layout is the same bytes). Anything else (an
argument, a view, a call, a copy) leaves the buffer as it is.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir
from .registry import register

_MEMREF_OPERAND = {"affine.load": 0, "affine.store": 1}
ALLOCS = ("memref.alloc", "memref.alloca")


@dataclass(frozen=True)
class UnitDimsPlan:
    """Drop the last `count` dimensions (each of static size 1) of one allocation."""

    alloc: ir.Operation
    count: int


def trailing_unit_count(t: ir.MemRefType) -> int:
    """How many trailing dimensions of static size 1 the type has, at most rank - 1."""
    shape = list(t.shape)
    k = 0
    while k < len(shape) - 1 and shape[len(shape) - 1 - k] == 1:
        k += 1
    return k


def use_refusal(buf: ir.Value) -> str | None:
    """Why some use of the buffer `buf` cannot follow a change of its rank, or None: each use must
    be the memref operand of an affine.load/affine.store, or a memref.dealloc."""
    for u in buf.uses:
        user = mlir.operation(u.owner)
        if user.name == "memref.dealloc":
            continue
        if _MEMREF_OPERAND.get(user.name) != u.operand_number:
            return f"{user.name} at {mlir.location_of(user)} uses it"
    return None


def unit_dims_plan(alloc: ir.Operation) -> UnitDimsPlan | None:
    """The plan for one allocation, or None (no trailing unit dimension, a layout, a use other
    than an affine access or a dealloc)."""
    if alloc.name not in ALLOCS:
        return None
    t = mlir.memref_type(alloc.results[0])
    if t is None or not mlir.identity_layout(t):
        return None
    count = trailing_unit_count(t)
    if count == 0 or use_refusal(alloc.results[0]) is not None:
        return None
    return UnitDimsPlan(alloc, count)


def _attributes(op: ir.Operation) -> dict:
    named = [op.attributes[i] for i in range(len(op.attributes))]
    return {a.name: a.attr for a in named}


def apply_plan(plan: UnitDimsPlan) -> None:
    """Re-type the allocation (same dynamic sizes, all before the dropped dimensions; same
    attributes) and drop the last `count` results of every access's map."""
    alloc, k = plan.alloc, plan.count
    buf = alloc.results[0]
    old_t = mlir.memref_type(buf)
    with alloc.context, alloc.location:
        new_t = ir.MemRefType.get(list(old_t.shape)[:-k], old_t.element_type, memory_space=old_t.memory_space)
        new = ir.Operation.create(alloc.name, results=[new_t], operands=list(alloc.operands),
                                  attributes=_attributes(alloc), ip=ir.InsertionPoint(alloc))
        for u in list(buf.uses):
            op = mlir.operation(u.owner)
            if op.name in _MEMREF_OPERAND:
                m = mlir.affine_map_attr(op, "map")
                kept = list(m.results)[:-k]
                op.attributes["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(m.n_dims, m.n_symbols, kept))
    buf.replace_all_uses_with(new.results[0])
    alloc.erase()


@register("loopopt-drop-trailing-unit-dims",
          "a temporary's trailing dims of size 1 dropped from its type and its affine accesses")
def drop_trailing_unit_dims(module: ir.Module, filename: str) -> str:
    """Every allocation with a plan (`unit_dims_plan`) rewritten; a note of how many."""
    plans = [p for p in (unit_dims_plan(op) for op in mlir.walk(module.operation) if op.name in ALLOCS) if p]
    for p in plans:
        apply_plan(p)
    dims = sum(p.count for p in plans)
    return f"{len(plans)} buffer(s) lost {dims} trailing unit dimension(s)" if plans else ""
