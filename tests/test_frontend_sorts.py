"""loopopt-sorts-to-loops (frontend/sorts.py): torch-mlir's tm_tensor.sort (torch.sort, argsort,
topk) lowered to loops (docs/cpu_codegen.md section 72).

Compiled and run natively against two references written here: TMTensor's own scalar
implementation (N bubble passes, neighbours swapped where the comparator is false), on rows without
NaN; and the stable sort eager's torch.sort is (NaN after every number ascending, before every
number descending), on every row. Values and indices bit for bit: ascending, descending, ties,
negative zero beside zero, NaN, integer keys, the sort along each dimension of a 3-D tensor, one
operand alone. Rows longer than MAX_ROW (section 79): merged, or, when only the first k are read
(topk's slices), selected; against numpy's stable lexsort, up to rows of 32768. A dynamic size, a
strict comparator, a region reading the indices' pair and a row longer than MAX_MERGE are refused
by name."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import loopopt
from loopopt.errors import LoopOptError
from loopopt.frontend import sorts

PREDICATE = {("f32", "ascending"): "cmpf ole", ("f32", "descending"): "cmpf oge",
             ("i32", "ascending"): "cmpi sle", ("i32", "descending"): "cmpi sge",
             ("f16", "ascending"): "cmpf ole", ("f16", "descending"): "cmpf oge",
             ("f64", "ascending"): "cmpf ole", ("f64", "descending"): "cmpf oge",
             ("i16", "ascending"): "cmpi sle", ("i16", "descending"): "cmpi sge"}


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
    return a.view({np.float32: np.int32, np.float16: np.int16, np.float64: np.int64}[a.dtype.type]) \
        if a.dtype.kind == "f" else a


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
    (sort_program((1, sorts.MAX_MERGE + 1), 1), f"a row of {sorts.MAX_MERGE + 1} elements"),
], ids=["dynamic", "strict", "indices-pair", "reversed-pair", "long-row"])
def test_another_sort_is_refused_by_name(text, why):
    with pytest.raises(LoopOptError, match="cannot lower 'tm_tensor.sort'") as refused:
        loopopt.compile(text, target="cpu")
    assert why in str(refused.value)  # the error names why
    from loopopt.mlir import new_context, parse_module
    module = parse_module(text, "k.mlir", new_context())
    notes = sorts.sorts_to_loops(module, "k.mlir")
    assert len(notes) == 1 and notes[0].startswith("kept: tm_tensor.sort at k.mlir") and why in notes[0], notes


# -- long rows: merged, or the first k selected (section 79) ------------------------------------

def stable_reference(x, dim, order):
    """Eager's stable sort by numpy's stable lexsort: NaN after every number ascending, before every
    number descending, NaNs in their order; -0.0 equal to 0.0; the positions along `dim`."""
    xs = np.moveaxis(x, dim, -1)
    if x.dtype.kind == "f":
        nan = np.isnan(xs)
        v = np.where(nan, 0, xs)
        perm = np.lexsort((v, nan), axis=-1) if order == "ascending" else np.lexsort((-v, ~nan), axis=-1)
    else:
        v = xs.astype(np.int64)
        perm = np.argsort(v if order == "ascending" else -v, axis=-1, kind="stable")
    return np.moveaxis(np.take_along_axis(xs, perm, -1), -1, dim), np.moveaxis(perm.astype(np.int64), -1, dim)


def topk_program(shape: tuple, dim: int, ks: tuple, order: str = "descending", e: str = "f32",
                 offset: int = 0) -> str:
    """torch.topk as torch-mlir writes it: a tm_tensor.sort of the keys and positions, the values'
    first ks[0] and the indices' first ks[1] along `dim` sliced (from `offset`)."""
    s = "x".join(map(str, shape))
    t, ti = f"tensor<{s}x{e}>", f"tensor<{s}xi64>"

    def cut(k, el):
        return "x".join(str(k if d == dim else n) for d, n in enumerate(shape)) + f"x{el}"
    offs = ", ".join(str(offset if d == dim else 0) for d in range(len(shape)))
    sizes = [", ".join(str(k if d == dim else n) for d, n in enumerate(shape)) for k in ks]
    ones = ", ".join("1" for _ in shape)
    return f"""
func.func @k(%x: {t}, %i: {ti}) -> (tensor<{cut(ks[0], e)}>, tensor<{cut(ks[1], 'i64')}>) {{
  %s:2 = tm_tensor.sort dimension({dim}) outs(%x, %i : {t}, {ti}) {{
  ^bb0(%a: {e}, %b: {e}, %ia: i64, %ib: i64):
    %c = arith.{PREDICATE[(e, order)]}, %a, %b : {e}
    tm_tensor.yield %c : i1
  }} -> {t}, {ti}
  %v = tensor.extract_slice %s#0[{offs}] [{sizes[0]}] [{ones}] : {t} to tensor<{cut(ks[0], e)}>
  %k = tensor.extract_slice %s#1[{offs}] [{sizes[1]}] [{ones}] : {ti} to tensor<{cut(ks[1], 'i64')}>
  return %v, %k : tensor<{cut(ks[0], e)}>, tensor<{cut(ks[1], 'i64')}>
}}
"""


def _first(a, k, dim, offset=0):
    return np.take(a, np.arange(offset, offset + k), axis=dim)


def test_the_stable_reference_is_eagers_sort():
    """numpy's lexsort reference against the stable sort written above, on rows with ties, -0.0,
    NaN and infinities."""
    rng = np.random.default_rng(4)
    x = _with_nan((6, 150), rng)
    for order in ("ascending", "descending"):
        v, i = stable_reference(x, 1, order)
        w, j = reference(x, 1, order, eager_sort)
        np.testing.assert_array_equal(_bits(v), _bits(w))
        np.testing.assert_array_equal(i, j)


LONG = [  # shape, dim, order: rows longer than MAX_ROW, merged (N not a power of two, strided rows)
    ((4, 300), 1, "descending"),
    ((300, 3), 0, "ascending"),
    ((2, 129, 3), 1, "descending"),
    ((2, 4096), 1, "ascending"),
    ((1, 32768), 1, "descending"),
]


@pytest.mark.parametrize("shape, dim, order", LONG)
def test_a_long_row_is_merged_into_eagers_stable_order(shape, dim, order):
    """Ties, -0.0 beside 0.0, NaN and infinities: values and indices bit for bit eager's stable sort."""
    rng = np.random.default_rng(5)
    x = _with_nan(shape, rng)
    program = sort_program(shape, dim, order)
    assert sorts.shape_of(_sort_op(program)).plan == "merge"
    got_v, got_i = _run(program, x, _positions(shape, dim))
    want_v, want_i = stable_reference(x, dim, order)
    np.testing.assert_array_equal(_bits(got_v), _bits(want_v))
    np.testing.assert_array_equal(got_i, want_i)


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_long_rows_of_integer_keys(order):
    rng = np.random.default_rng(6)
    x = rng.integers(-50, 50, (3, 1000)).astype(np.int32)
    x[0, :7] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, -1, 1, np.iinfo(np.int32).min, 0]
    got_v, got_i = _run(sort_program((3, 1000), 1, order, e="i32"), x, _positions((3, 1000), 1))
    want_v, want_i = stable_reference(x, 1, order)
    np.testing.assert_array_equal(got_v, want_v)
    np.testing.assert_array_equal(got_i, want_i)


def test_a_long_row_sorted_alone():
    rng = np.random.default_rng(7)
    x = _with_nan((3, 777), rng)
    got = _run(sort_program((3, 777), 1, "ascending", with_indices=False), x)
    np.testing.assert_array_equal(_bits(got), _bits(stable_reference(x, 1, "ascending")[0]))


TOPK = [  # shape, dim, (k of the values, k of the indices), order, input
    ((4, 1000), 1, (5, 3), "descending", "nan"),
    ((1000, 4), 0, (7, 7), "ascending", "nan"),
    ((2, 32000), 1, (50, 50), "descending", "nan"),
    ((3, 2000), 1, (256, 256), "descending", "ties"),
    ((2, 500), 1, (20, 20), "descending", "rising"),   # every element enters the heap
    ((2, 500), 1, (20, 20), "ascending", "falling"),
    # section 85's adversarial rows: the opposite order (every element a new first), all equal
    # (0.0 and -0.0: the first k positions), a few values, all NaN; k = 1, 2, 3, k = N, k = 256
    ((2, 32000), 1, (50, 50), "descending", "rising"),
    ((2, 32000), 1, (50, 50), "ascending", "falling"),
    ((3, 2000), 1, (256, 256), "descending", "rising"),
    ((3, 2000), 1, (256, 256), "ascending", "zeros"),
    ((3, 1000), 1, (1, 1), "descending", "rising"),
    ((3, 1000), 1, (1, 1), "ascending", "nan"),
    ((3, 1000), 1, (2, 2), "descending", "ties"),
    ((3, 1000), 1, (3, 3), "ascending", "falling"),
    ((2, 200), 1, (200, 200), "descending", "nan"),
    ((2, 256), 1, (256, 256), "ascending", "falling"),
    ((2, 1000), 1, (64, 64), "descending", "zeros"),
    ((2, 1000), 1, (31, 31), "descending", "nans"),
    ((2, 1000), 1, (31, 31), "ascending", "nans"),
    ((2, 1000), 1, (100, 100), "descending", "twovalues"),
    ((2, 1000), 1, (100, 100), "ascending", "nanfirst"),
]


def topk_input(shape, dim, kind, rng):
    """The row kinds of TOPK: random with ties, -0.0, NaN and infinities (nan) or without NaN
    (ties); sorted rows (rising, falling; random fractions, no ties); every element 0.0 or -0.0
    (zeros), NaN of either sign (nans); two values, 1.0 and -0.0, in random places (twovalues); NaN first, then
    a rising row (nanfirst: NaN the last ascending, so every later element enters)."""
    if kind in ("rising", "falling"):
        x = np.sort(_ties_zeros(shape, rng) + rng.random(shape).astype(np.float32), axis=dim)
        return x if kind == "rising" else np.flip(x, dim).copy()
    if kind == "zeros":
        return np.where(rng.random(shape) < 0.5, np.float32(0.0), np.float32(-0.0)).astype(np.float32)
    if kind == "nans":  # NaN of either sign (eager's NaNs are equal whatever their bits)
        return np.where(rng.random(shape) < 0.5, np.float32(np.nan), -np.float32(np.nan)).astype(np.float32)
    if kind == "twovalues":
        return np.where(rng.random(shape) < 0.5, np.float32(1.0), np.float32(-0.0)).astype(np.float32)
    if kind == "nanfirst":
        x = np.sort(rng.random(shape).astype(np.float32), axis=dim)
        x[(slice(None),) * dim + (slice(0, 40),)] = np.nan
        return x
    return _with_nan(shape, rng) if kind == "nan" else _ties_zeros(shape, rng)


@pytest.mark.parametrize("shape, dim, ks, order, kind", TOPK)
def test_topk_of_a_long_row_selects_eagers_first_k(shape, dim, ks, order, kind):
    """topk's sort of a long row read only through slices of its first k: the k first of eager's
    stable order selected, values and indices bit for bit."""
    rng = np.random.default_rng(8)
    x = topk_input(shape, dim, kind, rng)
    program = topk_program(shape, dim, ks, order)
    s = sorts.shape_of(_sort_op(program))
    assert s.plan == "select" and s.first == max(ks)
    got_v, got_i = _run(program, x, _positions(shape, dim))
    want_v, want_i = stable_reference(x, dim, order)
    np.testing.assert_array_equal(_bits(got_v), _bits(_first(want_v, ks[0], dim)))
    np.testing.assert_array_equal(got_i, _first(want_i, ks[1], dim))


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_topk_of_integer_keys_in_the_opposite_order(order):
    """i32 keys, a row in the opposite order with ties and INT_MIN, INT_MAX: the heap's tie break
    by position on integers."""
    x = np.repeat(np.arange(-250, 250, dtype=np.int32), 2).reshape(1, 1000)
    x = np.concatenate([x, x[:, ::-1], x // 7], 0).copy()
    x[:, 500] = np.iinfo(np.int32).min
    x[:, 501] = np.iinfo(np.int32).max
    x = x if order == "descending" else -np.maximum(x, -np.iinfo(np.int32).max)
    program = topk_program((3, 1000), 1, (40, 40), order, e="i32")
    assert sorts.shape_of(_sort_op(program)).plan == "select"
    got_v, got_i = _run(program, x, _positions((3, 1000), 1))
    want_v, want_i = stable_reference(x, 1, order)
    np.testing.assert_array_equal(got_v, want_v[:, :40])
    np.testing.assert_array_equal(got_i, want_i[:, :40])


@pytest.mark.parametrize("e, dtype, plan", [("f16", np.float16, "select"), ("i16", np.int16, "select"),
                                            ("f64", np.float64, "merge")])
@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_topk_of_other_key_types(e, dtype, plan, order):
    """Keys of 16 bits enter the heap widened (f16 exactly to f32, i16 signed); keys of 64 bits do
    not fit an i64 entry beside their position: merged. Ties, -0.0, NaN, rows in the opposite order."""
    rng = np.random.default_rng(12)
    shape = (4, 700)
    x = (_with_nan(shape, rng) if dtype != np.int16 else rng.integers(-9, 10, shape)).astype(dtype)
    x[1] = np.sort(x[1])
    x[2] = np.sort(x[2])[::-1]
    if dtype == np.int16:
        x[3, :2] = [np.iinfo(np.int16).min, np.iinfo(np.int16).max]
    program = topk_program(shape, 1, (60, 60), order, e=e)
    assert sorts.shape_of(_sort_op(program)).plan == plan
    got_v, got_i = _run(program, x, _positions(shape, 1))
    want_v, want_i = stable_reference(x, 1, order)
    np.testing.assert_array_equal(_bits(got_v), _bits(want_v[:, :60]))
    np.testing.assert_array_equal(got_i, want_i[:, :60])


def test_a_slice_past_the_front_is_merged():
    """A slice that does not start at the row's front reads past the first k: the whole row merged."""
    rng = np.random.default_rng(9)
    x = _with_nan((2, 600), rng)
    program = topk_program((2, 600), 1, (5, 5), "descending", offset=3)
    assert sorts.shape_of(_sort_op(program)).plan == "merge"
    got_v, got_i = _run(program, x, _positions((2, 600), 1))
    want_v, want_i = stable_reference(x, 1, "descending")
    np.testing.assert_array_equal(_bits(got_v), _bits(_first(want_v, 5, 1, 3)))
    np.testing.assert_array_equal(got_i, _first(want_i, 5, 1, 3))


def test_the_plans_and_their_notes():
    """ranks to MAX_ROW; beyond it select for a first k <= MAX_SELECT, merge otherwise; the note says which."""
    assert sorts.shape_of(_sort_op(sort_program((2, sorts.MAX_ROW), 1))).plan == "ranks"
    assert sorts.shape_of(_sort_op(topk_program((2, 1000), 1, (sorts.MAX_SELECT, 3)))).plan == "select"
    assert sorts.shape_of(_sort_op(topk_program((2, 1000), 1, (sorts.MAX_SELECT + 1, 3)))).plan == "merge"
    from loopopt.mlir import new_context, parse_module
    notes = [sorts.sorts_to_loops(parse_module(text, "k.mlir", new_context()), "k.mlir")[0]
             for text in (sort_program((4, 1000), 1), topk_program((4, 32000), 1, (50, 50)))]
    assert notes == ["loops: tm_tensor.sort at k.mlir:3:10 (ascending, rows of 1000: runs of 16 ranked, merged in 6 stages)",
                     "loops: tm_tensor.sort at k.mlir:3:10 (descending, the first 50 of rows of 32000 selected)"], notes
    remarks = loopopt.optimize(topk_program((4, 32000), 1, (50, 50)), target="cpu").remarks_text()
    assert f"{sorts.PASSED_REMARK}: tm_tensor.sort at" in remarks and "the first 50 of rows of 32000 selected" in remarks


def test_the_loops_do_not_grow_with_the_row():
    """The helper's text is the same length for a row of 200 and of 32768 (merge), of 1000 and 32000
    (select): loops, nothing unrolled."""
    def lines(text):
        return len(sorts.helper_text(sorts.shape_of(_sort_op(text))).splitlines())
    assert lines(sort_program((2, 200), 1)) == lines(sort_program((2, 32768), 1))
    assert lines(topk_program((2, 1000), 1, (50, 50))) == lines(topk_program((2, 32000), 1, (50, 50)))


def _sort_op(text):
    """The sort op of `text` (its module kept alive beside it)."""
    from loopopt import mlir
    module = mlir.parse_module(text, "k.mlir", mlir.new_context())
    _sort_op.keep = module
    return next(o for o in mlir.walk(module.operation) if o.name == sorts.SORT)


def positions_program(shape: tuple, k: int | None, order: str = "descending", index_dim: int = 1) -> str:
    """As torch-mlir writes topk (k) and argsort (k None): the positions a linalg.generic of
    linalg.index along the row, sorted beside the keys; topk reads both results' first k, argsort
    only the positions."""
    s = "x".join(map(str, shape))
    t, ti = f"tensor<{s}xf32>", f"tensor<{s}xi64>"
    head = f"""
  %0 = tensor.empty() : {ti}
  %1 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} outs(%0 : {ti}) {{
  ^bb0(%out: i64):
    %i = linalg.index {index_dim} : index
    %c = arith.index_cast %i : index to i64
    linalg.yield %c : i64
  }} -> {ti}
  %2:2 = tm_tensor.sort dimension(1) outs(%x, %1 : {t}, {ti}) {{
  ^bb0(%a: f32, %b: f32, %ia: i64, %ib: i64):
    %3 = arith.{PREDICATE[('f32', order)]}, %a, %b : f32
    tm_tensor.yield %3 : i1
  }} -> {t}, {ti}"""
    if k is None:
        return f"func.func @k(%x: {t}) -> {ti} {{{head}\n  return %2#1 : {ti}\n}}\n"
    tk, tki = f"tensor<{shape[0]}x{k}xf32>", f"tensor<{shape[0]}x{k}xi64>"
    return f"""func.func @k(%x: {t}) -> ({tk}, {tki}) {{{head}
  %v = tensor.extract_slice %2#0[0, 0] [{shape[0]}, {k}] [1, 1] : {t} to {tk}
  %w = tensor.extract_slice %2#1[0, 0] [{shape[0]}, {k}] [1, 1] : {ti} to {tki}
  return %v, %w : {tk}, {tki}
}}
"""


@pytest.mark.parametrize("shape, k", [((3, 1000), 7), ((3, 300), None)], ids=["topk", "argsort"])
def test_sorted_positions_are_written_not_read(shape, k):
    """The positions operand torch-mlir builds (linalg.index along the row) is written as the
    positions the plan kept, never read (the generic left unused); a result nothing reads (argsort's
    values) is not written. Results eager's stable order."""
    rng = np.random.default_rng(10)
    x = _with_nan(shape, rng)
    program = positions_program(shape, k)
    s = sorts.shape_of(_sort_op(program))
    assert s.positions == frozenset({1}) and s.unused == (frozenset() if k else frozenset({0}))
    lowered = loopopt.optimize(program, target="cpu").text
    assert re.search(r"memref\.alloc\(\).*memref<3x\d+xi64>", lowered) is None  # no buffer of positions
    assert re.search(r"memref\.alloc\(\).*memref<3x\d+xf32>", lowered) is None  # topk: 3 x 7 out-params only
    want_v, want_i = stable_reference(x, 1, "descending")
    if k is None:
        np.testing.assert_array_equal(_run(program, x), want_i)
        return
    got_v, got_i = _run(program, x)
    np.testing.assert_array_equal(_bits(got_v), _bits(want_v[:, :k]))
    np.testing.assert_array_equal(got_i, want_i[:, :k])


def test_an_index_along_another_dimension_is_gathered():
    """A generic of linalg.index 0 sorted along dimension 1 holds the row number, not the
    positions: gathered as any operand (every index of row r is r)."""
    rng = np.random.default_rng(11)
    x = _with_nan((3, 1000), rng)
    program = positions_program((3, 1000), 7, index_dim=0)
    assert sorts.shape_of(_sort_op(program)).positions == frozenset()
    got_v, got_i = _run(program, x)
    want_v, _ = stable_reference(x, 1, "descending")
    np.testing.assert_array_equal(_bits(got_v), _bits(want_v[:, :7]))
    np.testing.assert_array_equal(got_i, np.repeat(np.arange(3)[:, None], 7, 1))


def test_a_row_whose_positions_overflow_a_heap_entry_is_not_selected():
    """select keeps a position in the low 32 bits of an i64 entry: a row of 2^32 elements or more
    takes the merge, which refuses a row that long (a remark, not wrong positions)."""
    from loopopt.mlir import ir

    with ir.Context(), ir.Location.unknown():
        def shape(n: int) -> sorts.SortShape:
            t = ir.RankedTensorType.get([2, n], ir.F32Type.get())
            return sorts.SortShape((t, t), 1, "oge", "descending", first=50)

        assert shape(32000).plan == "select"
        assert shape((1 << 32) - 1).plan == "select"
        assert shape(1 << 32).plan == "merge"
        assert shape(1 << 32).row > sorts.MAX_MERGE  # shape_of refuses it: "a row of ... elements (longer than ...)"
