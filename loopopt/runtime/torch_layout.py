"""Eager's strides for the torch backend's outputs.

A loopopt kernel writes each result row-major. Eager's result of the same op may be laid out
otherwise: a conv or an elementwise op of a channels_last input is channels_last, `(x + 1).t()`
is a transpose of a row-major tensor. The values are equal, but code downstream may depend on the
strides (`.view()` fails on a non-contiguous tensor, `is_contiguous(memory_format=...)`), and a
view the backend makes again after the kernel (output_plan) has eager's strides only if the
tensor it views has.

TorchDynamo's fake tensor of each graph value (its `example_value`) carries eager's strides, as
SymInt expressions of the input sizes' symbols under dynamic shapes. `dense_order` finds the
order of dims, outermost first, in which those strides are row-major for every value of the
symbols (each stride the product of the sizes inside it, a polynomial identity; a size-1 dim's
stride included). The call then makes the output `result.permute(order)`, cloned row-major,
`.permute(inverse(order))`: a copy into memory ordered as eager's, a view of it with eager's sizes
and strides exactly. (Having the kernel write `value.permute(order)` itself, no copy, was measured
3 to 15 times slower on channels_last results: loopopt's transposed stores; docs/runtime.md.) A
layout that is not a permutation of a dense row-major one (an expanded or strided view of a
temporary: stride 0, gaps) has no such order: the output stays row-major (eager's values, other
strides).
"""
from __future__ import annotations

MAX_RANK = 8  # the search below tries orders; a rank above this keeps row-major


def _expr(v):
    """A size or stride as a sympy expression (an int, a SymInt's expression, or one already)."""
    import sympy

    if isinstance(v, sympy.Basic):
        return v
    node = getattr(v, "node", None)
    return node.expr if node is not None else sympy.Integer(int(v))


def _same(a, b) -> bool:
    """Whether two size expressions are equal for every value of their symbols (as polynomials,
    TorchDynamo's FloorDiv and the like as opaque terms)."""
    import sympy

    return sympy.expand(a - b) == 0


def dense_order(sizes, strides) -> tuple | None:
    """The dims, outermost first, in whose order a tensor of these sizes and strides is row-major:
    the innermost dim's stride is 1 and each other dim's is the product of the sizes inside it,
    for every value of the symbols; the identity first where it holds. None when there is none."""
    sizes = [_expr(s) for s in sizes]
    strides = [_expr(s) for s in strides]
    n = len(sizes)
    if n > MAX_RANK:
        return None

    def search(inner: list, need):
        if len(inner) == n:
            return inner
        for d in range(n - 1, -1, -1):  # the last dim innermost first: the identity is tried first
            if d not in inner and _same(strides[d], need):
                found = search(inner + [d], need * sizes[d])
                if found is not None:
                    return found
        return None

    import sympy

    inner = search([], sympy.Integer(1))
    return None if inner is None else tuple(reversed(inner))


def eager_order(value) -> tuple | None:
    """The order (dense_order) of dims in which eager lays out a graph value, from TorchDynamo's
    fake tensor of it; None for row-major (identity) or a layout no order gives."""
    import torch

    if not isinstance(value, torch.Tensor) or value.dim() < 2:
        return None
    try:
        order = dense_order(value.shape, value.stride())
    except Exception:  # noqa: BLE001 - an expression sympy cannot compare: row-major
        return None
    if order is None or order == tuple(range(value.dim())):
        return None
    return order


def inverse(order: tuple) -> tuple:
    """The permutation undoing `order`: t.permute(order).permute(inverse(order)) is t."""
    out = [0] * len(order)
    for k, d in enumerate(order):
        out[d] = k
    return tuple(out)
