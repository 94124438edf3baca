"""loopopt-sorts-to-loops (frontend/sorts.py): torch-mlir's tm_tensor.sort (torch.sort, argsort,
topk) lowered to loops (docs/cpu_codegen.md section 72).

Compiled and run natively against two references written here: TMTensor's own scalar
implementation (N bubble passes, neighbours swapped where the comparator is false), on rows without
NaN; and the stable sort eager's torch.sort is (NaN after every number ascending, before every
number descending), on every row. Values and indices bit for bit: ascending, descending, ties,
negative zero beside zero, NaN, integer keys, the sort along each dimension of a 3-D tensor, one
operand alone. A dynamic size, a strict comparator, a region reading the indices' pair and a row
longer than MAX_ROW are refused by name."""
from __future__ import annotations

import math

import numpy as np
import pytest

import loopopt
from loopopt.errors import LoopOptError
from loopopt.frontend import sorts

PREDICATE = {("f32", "ascending"): "cmpf ole", ("f32", "descending"): "cmpf oge",
             ("i32", "ascending"): "cmpi sle", ("i32", "descending"): "cmpi sge"}


def sort_program(shape: tuple, dim: int, order: str = "ascending", e: str = "f32", with_indices: bool = True,
                 compare: str | None = None) -> str:
    """tm_tensor.sort as torch-mlir writes torch.sort: the keys and their i64 positions along `dim`."""
    s = "x".join(map(str, shape))
    t, ti = f"tensor<{s}x{e}>", f"tensor<{s}xi64>"
    compare = compare or f"arith.{PREDICATE[(e, order)]}, %a, %b : {e}"
    if not with_indices:
        return f"""
func.func @k(%x: {t}) -> {t} {{
  %s = tm_tensor.sort dimension({dim}) outs(%x : {t}) {{
  ^bb0(%a: {e}, %b: {e}):
    %c = {compare}
    tm_tensor.yield %c : i1
  }} -> {t}
  return %s : {t}
}}
"""
    return f"""
func.func @k(%x: {t}, %i: {ti}) -> ({t}, {ti}) {{
  %s:2 = tm_tensor.sort dimension({dim}) outs(%x, %i : {t}, {ti}) {{
  ^bb0(%a: {e}, %b: {e}, %ia: i64, %ib: i64):
    %c = {compare}
    tm_tensor.yield %c : i1
  }} -> {t}, {ti}
  return %s#0, %s#1 : {t}, {ti}
}}
"""


def _le(a, b, order) -> bool:
    """TMTensor's comparator as torch-mlir writes it: a <= b (ascending), a >= b (descending); false on NaN."""
    return bool(a <= b) if order == "ascending" else bool(a >= b)


def tmtensor_sort(keys, idx, order):
    """TMTensor's SortOp scalar implementation on one row: N passes, each swapping (j, j + 1) where
    the comparator of the keys is false."""
    k, i = list(keys), list(idx)
    n = len(k)
    for _ in range(n):
        for j in range(n - 1):
            if not _le(k[j], k[j + 1], order):
                k[j], k[j + 1] = k[j + 1], k[j]
                i[j], i[j + 1] = i[j + 1], i[j]
    return k, i


def eager_sort(keys, idx, order):
    """torch.sort on CPU: a stable sort, NaN after every number ascending, before every number descending."""
    def key(j):
        v = keys[j]
        nan = isinstance(v, float) and math.isnan(v)
        if order == "ascending":
            return (nan, 0.0 if nan else v)
        return (not nan, 0.0 if nan else -v)
    perm = sorted(range(len(keys)), key=key)
    return [keys[j] for j in perm], [idx[j] for j in perm]


def reference(x, dim, order, row_sort):
    """`row_sort` on every row along `dim`, with the positions along `dim` as indices."""
    xs = np.moveaxis(x, dim, -1)
    vals, inds = np.empty_like(xs), np.empty(xs.shape, np.int64)
    for pos in np.ndindex(*xs.shape[:-1]):
        keys = [v.item() for v in xs[pos]]
        k, i = row_sort(keys, list(range(len(keys))), order)
        vals[pos] = np.array(k, dtype=x.dtype)
        inds[pos] = i
    return np.moveaxis(vals, -1, dim), np.moveaxis(inds, -1, dim)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.int32) if a.dtype == np.float32 else a


def _positions(shape, dim):
    return np.ascontiguousarray(np.broadcast_to(
        np.arange(shape[dim], dtype=np.int64).reshape([-1 if k == dim else 1 for k in range(len(shape))]), shape))


def _run(text, *args):
    return loopopt.compile(text, target="cpu", reassociate=False, contract=False)(*args)


def _ties_zeros(shape, rng):
    """Few distinct values (ties on every row), 0.0 and -0.0 among them."""
    x = rng.integers(-3, 4, shape).astype(np.float32)
    x[rng.random(shape) < 0.3] = -0.0
    return x


def _with_nan(shape, rng):
    x = _ties_zeros(shape, rng)
    x[rng.random(shape) < 0.2] = np.nan
    x[rng.random(shape) < 0.1] = np.inf
    x[rng.random(shape) < 0.1] = -np.inf
    return x


CASES = [  # shape, dim, order
    ((64, 8), 1, "descending"),   # a router's top-k: 8 experts per token
    ((64, 8), 1, "ascending"),
    ((5, 7, 6), 0, "ascending"),
    ((5, 7, 6), 1, "descending"),
    ((5, 7, 6), 2, "ascending"),
    ((33,), 0, "descending"),
]


@pytest.mark.parametrize("shape, dim, order", CASES)
def test_a_sort_without_nan_is_tmtensors_and_eagers(shape, dim, order):
    """Ties and signed zeros: TMTensor's bubble sort and eager's stable sort agree; so do the loops."""
    rng = np.random.default_rng(0)
    x = _ties_zeros(shape, rng)
    got_v, got_i = _run(sort_program(shape, dim, order), x, _positions(shape, dim))
    want_v, want_i = reference(x, dim, order, tmtensor_sort)
    eager_v, eager_i = reference(x, dim, order, eager_sort)
    np.testing.assert_array_equal(_bits(want_v), _bits(eager_v))
    np.testing.assert_array_equal(want_i, eager_i)
    np.testing.assert_array_equal(_bits(got_v), _bits(want_v))
    np.testing.assert_array_equal(got_i, want_i)


@pytest.mark.parametrize("shape, dim, order", CASES)
def test_a_sort_with_nan_is_eagers(shape, dim, order):
    """NaN after every number ascending, before every number descending, NaNs in their order."""
    rng = np.random.default_rng(1)
    x = _with_nan(shape, rng)
    got_v, got_i = _run(sort_program(shape, dim, order), x, _positions(shape, dim))
    want_v, want_i = reference(x, dim, order, eager_sort)
    np.testing.assert_array_equal(_bits(got_v), _bits(want_v))
    np.testing.assert_array_equal(got_i, want_i)


def test_tmtensors_bubble_sort_is_not_a_sort_on_nan():
    """Why NaN follows eager, not TMTensor: TMTensor's three passes leave [3, NaN, 1] as [1, NaN, 3]
    (a NaN swaps with both neighbours on every pass); eager's sort is [1, 3, NaN]."""
    k, i = tmtensor_sort([3.0, math.nan, 1.0], [0, 1, 2], "ascending")
    assert i == [2, 1, 0] and math.isnan(k[1])
    assert eager_sort([3.0, math.nan, 1.0], [0, 1, 2], "ascending")[1] == [2, 0, 1]


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_integer_keys(order):
    rng = np.random.default_rng(2)
    x = rng.integers(-5, 6, (16, 12)).astype(np.int32)
    got_v, got_i = _run(sort_program((16, 12), 1, order, e="i32"), x, _positions((16, 12), 1))
    want_v, want_i = reference(x, 1, order, tmtensor_sort)
    np.testing.assert_array_equal(got_v, want_v)
    np.testing.assert_array_equal(got_i, want_i)


def test_one_operand_sorted_alone():
    rng = np.random.default_rng(3)
    x = _with_nan((9, 10), rng)
    got = _run(sort_program((9, 10), 1, "descending", with_indices=False), x)
    want, _ = reference(x, 1, "descending", eager_sort)
    np.testing.assert_array_equal(_bits(got), _bits(want))


def test_the_lowering_says_what_it_did():
    r = loopopt.optimize(sort_program((4, 8), 1, "descending"), target="cpu")
    assert "loopopt-sorts-to-loops" in r.remarks_text()
    from loopopt.mlir import new_context, parse_module
    notes = sorts.sorts_to_loops(parse_module(sort_program((4, 8), 1, "descending"), "k.mlir", new_context()), "k.mlir")
    assert notes == ["loops: tm_tensor.sort at k.mlir:3:10 (descending, rows of 8)"], notes


@pytest.mark.parametrize("text, why", [
    (sort_program((4, 8), 1).replace("4x8", "?x8"), "a dynamic size"),
    (sort_program((4, 8), 1, compare="arith.cmpf olt, %a, %b : f32"), "not a non-strict order"),
    (sort_program((4, 8), 1, compare="arith.cmpi sle, %ia, %ib : i64"), "not of the first operand's pair"),
    (sort_program((4, 8), 1, compare="arith.cmpf ole, %b, %a : f32"), "not of the first operand's pair"),
    (sort_program((2, sorts.MAX_ROW + 1), 1), f"a row of {sorts.MAX_ROW + 1} elements"),
], ids=["dynamic", "strict", "indices-pair", "reversed-pair", "long-row"])
def test_another_sort_is_refused_by_name(text, why):
    with pytest.raises(LoopOptError, match="cannot lower 'tm_tensor.sort'"):
        loopopt.compile(text, target="cpu")
    from loopopt.mlir import new_context, parse_module
    module = parse_module(text, "k.mlir", new_context())
    notes = sorts.sorts_to_loops(module, "k.mlir")
    assert len(notes) == 1 and notes[0].startswith("kept: tm_tensor.sort at k.mlir") and why in notes[0], notes
