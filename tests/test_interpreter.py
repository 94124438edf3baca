"""The reference interpreter against independent numpy computations, and the differential checker.

Every expected value here is computed by numpy or plain Python written in the test, never by
the interpreter itself, so a wrong translation of an op shows up as a mismatch.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from loopopt.interpreter import InterpreterError, compile_module, function_source, run_function
from loopopt.mlir import parse_module
from loopopt.testing import assert_same_results, first_difference, make_inputs, run_on_inputs


def rng(seed=0):
    return np.random.default_rng(seed)


def f32(shape, seed=0):
    return rng(seed).standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------- elementwise and layout

ELEMENTWISE = """
func.func @chain(%A: memref<16xf32>, %B: memref<16xf32>, %C: memref<16xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 16 {
    %a = affine.load %A[%i] : memref<16xf32>
    %b = affine.load %B[%i] : memref<16xf32>
    %s = arith.addf %a, %b : f32
    %m = arith.mulf %s, %a : f32
    %d = arith.subf %m, %one : f32
    %q = arith.divf %d, %b : f32
    %e = math.exp %a : f32
    %r = arith.addf %q, %e : f32
    affine.store %r, %C[%i] : memref<16xf32>
  }
  return
}
"""


def libm_exp(a: np.ndarray) -> np.ndarray:
    """math.exp on f32 as the interpreter defines it: the host's libm expf (numpy's exp where
    there is none)."""
    from loopopt.codegen.cpu.math.libm import libm_expf

    fn = libm_expf()
    if isinstance(fn, str):
        return np.exp(a)
    return np.array([fn(float(v)) for v in a], dtype=np.float32)


def test_elementwise_chain_matches_numpy_float32():
    a, b = f32(16, 1), f32(16, 2)
    c = np.zeros(16, np.float32)
    assert run_function(ELEMENTWISE, "chain", [a, b, c]) == []
    want = ((a + b) * a - np.float32(1)) / b + libm_exp(a)
    assert want.dtype == np.float32
    assert np.array_equal(c, want)


TRANSPOSED = """
func.func @transposed(%A: memref<8x6xf32>, %B: memref<6x8xf32>) {
  %t = memref.alloc() : memref<8x6xf32>
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 6 {
      %a = affine.load %A[%i, %j] : memref<8x6xf32>
      %m = arith.mulf %a, %two : f32
      affine.store %m, %t[%i, %j] : memref<8x6xf32>
    }
  }
  affine.for %j = 0 to 6 {
    affine.for %i = 0 to 8 {
      %v = affine.load %t[%i, %j] : memref<8x6xf32>
      %s = arith.addf %v, %v : f32
      affine.store %s, %B[%j, %i] : memref<6x8xf32>
    }
  }
  memref.dealloc %t : memref<8x6xf32>
  return
}
"""


def test_transposed_consumer():
    a = f32((8, 6))
    b = np.zeros((6, 8), np.float32)
    run_function(TRANSPOSED, "transposed", [a, b])
    assert np.array_equal(b, ((a * 2) + (a * 2)).T)


REDUCTION = """
func.func @rowsum(%A: memref<5x7xf32>, %S: memref<5xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %total = affine.for %i = 0 to 5 iter_args(%t = %z) -> (f32) {
    %r = affine.for %j = 0 to 7 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[%i, %j] : memref<5x7xf32>
      %n = arith.addf %acc, %a : f32
      affine.yield %n : f32
    }
    affine.store %r, %S[%i] : memref<5xf32>
    %t2 = arith.addf %t, %r : f32
    affine.yield %t2 : f32
  }
  return %total : f32
}
"""


def test_reduction_with_iter_args_is_sequential_float32():
    a = f32((5, 7), 3)
    s = np.zeros(5, np.float32)
    (total,) = run_function(REDUCTION, "rowsum", [a, s])
    rows = [functools.reduce(lambda x, y: np.float32(x + y), row, np.float32(0)) for row in a]
    assert np.array_equal(s, np.array(rows, np.float32))
    assert isinstance(total, np.float32)
    assert total == functools.reduce(lambda x, y: np.float32(x + y), rows, np.float32(0))


STENCIL = """
func.func @stencil(%A: memref<?xf32>, %B: memref<?xf32>, %n: index) {
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
    %l = affine.load %A[%i - 1] : memref<?xf32>
    %c = affine.load %A[%i] : memref<?xf32>
    %r = affine.load %A[%i + 1] : memref<?xf32>
    %s = arith.addf %l, %c : f32
    %t = arith.addf %s, %r : f32
    affine.store %t, %B[%i] : memref<?xf32>
  }
  return
}
"""


def test_stencil_with_shifted_indices_and_symbolic_bound():
    n = 11
    a = f32(n, 4)
    b = np.full(n, -7.0, np.float32)
    run_function(STENCIL, "stencil", [a, b, n])
    want = np.full(n, -7.0, np.float32)
    want[1:n - 1] = a[:-2] + a[1:-1] + a[2:]
    assert np.array_equal(b, want)


TILED = """
#lb = affine_map<(d0) -> (d0)>
#ub = affine_map<(d0)[s0] -> (d0 + 4, s0)>
func.func @tiled(%A: memref<?xf32>, %B: memref<?xi32>, %n: index) {
  %one = arith.constant 1 : i32
  affine.for %i = 0 to %n step 4 {
    affine.for %j = #lb(%i) to min #ub(%i)[%n] {
      %a = affine.load %A[%j] : memref<?xf32>
      %d = arith.mulf %a, %a : f32
      affine.store %d, %A[%j] : memref<?xf32>
      %c = affine.load %B[%j] : memref<?xi32>
      %c1 = arith.addi %c, %one : i32
      affine.store %c1, %B[%j] : memref<?xi32>
    }
  }
  return
}
"""


@pytest.mark.parametrize("n", [0, 1, 4, 7, 10])
def test_min_bound_from_tiling_touches_each_element_once(n):
    a = f32(12, n)
    b = np.zeros(12, np.int32)
    a0 = a.copy()
    run_function(TILED, "tiled", [a, b, n])
    assert b.tolist() == [1] * n + [0] * (12 - n)
    assert np.array_equal(a[:n], a0[:n] * a0[:n]) and np.array_equal(a[n:], a0[n:])


MAX_BOUND = """
func.func @maxb(%B: memref<20xindex>, %m: index) {
  affine.for %i = max affine_map<()[s0] -> (2, s0 - 3)>()[%m] to 20 step 3 {
    affine.store %i, %B[%i] : memref<20xindex>
  }
  return
}
"""


@pytest.mark.parametrize("m", [0, 5, 9])
def test_max_lower_bound_and_step(m):
    b = np.full(20, -1, np.int64)
    run_function(MAX_BOUND, "maxb", [b, m])
    want = np.full(20, -1, np.int64)
    for i in range(max(2, m - 3), 20, 3):
        want[i] = i
    assert np.array_equal(b, want)


AFFINE_IF = """
#set = affine_set<(d0)[s0] : (d0 mod 2 == 0, s0 - d0 - 1 >= 0)>
func.func @evens(%A: memref<10xf32>, %n: index) -> f32 {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = affine.for %i = 0 to 10 iter_args(%acc = %z) -> (f32) {
    %v = affine.if #set(%i)[%n] -> f32 {
      %a = affine.load %A[%i] : memref<10xf32>
      affine.yield %a : f32
    } else {
      affine.yield %one : f32
    }
    affine.if affine_set<(d0) : (d0 - 9 == 0)>(%i) {
      affine.store %z, %A[%i] : memref<10xf32>
    }
    %s = arith.addf %acc, %v : f32
    affine.yield %s : f32
  }
  return %r : f32
}
"""


def test_affine_if_with_else_results_and_symbols():
    a = f32(10, 5)
    a0 = a.copy()
    (r,) = run_function(AFFINE_IF, "evens", [a, 7])
    acc = np.float32(0)
    for i in range(10):
        acc = np.float32(acc + (a0[i] if i % 2 == 0 and i < 7 else np.float32(1)))
    assert r == acc
    assert a[9] == 0 and np.array_equal(a[:9], a0[:9])


SCALAR_MEMREFS = """
func.func @zerod(%A: memref<6xf32>, %out: memref<f32>) -> f32 {
  %acc = memref.alloca() : memref<f32>
  %z = arith.constant 0.0 : f32
  affine.store %z, %acc[] : memref<f32>
  affine.for %i = 0 to 6 {
    %a = affine.load %A[%i] : memref<6xf32>
    %s = affine.load %acc[] : memref<f32>
    %m = arith.maximumf %s, %a : f32
    affine.store %m, %acc[] : memref<f32>
  }
  %r = memref.load %acc[] : memref<f32>
  memref.store %r, %out[] : memref<f32>
  return %r : f32
}
"""


def test_alloca_and_zero_d_memrefs():
    a = f32(6, 6)
    out = np.zeros((), np.float32)
    (r,) = run_function(SCALAR_MEMREFS, "zerod", [a, out])
    assert r == max(0.0, a.max()) and out[()] == r


UNINIT = """
func.func @uninit(%B: memref<3xf32>, %C: memref<3xi32>) {
  %t = memref.alloc() : memref<3xf32>
  %u = memref.alloca() : memref<3xi32>
  %c1 = arith.constant 1 : index
  %v = memref.load %t[%c1] : memref<3xf32>
  memref.store %v, %B[%c1] : memref<3xf32>
  %w = memref.load %u[%c1] : memref<3xi32>
  memref.store %w, %C[%c1] : memref<3xi32>
  return
}
"""


def test_reading_fresh_memory_is_visible_not_zero():
    b, c = np.zeros(3, np.float32), np.zeros(3, np.int32)
    run_function(UNINIT, "uninit", [b, c])
    assert np.isnan(b[1]) and c[1] != 0


SUBVIEW = """
func.func @sub(%A: memref<8x8xf32>, %o: index) -> index {
  %v = memref.subview %A[%o, 1] [3, 4] [2, 1] : memref<8x8xf32> to memref<3x4xf32, strided<[16, 1], offset: ?>>
  %c = memref.cast %v : memref<3x4xf32, strided<[16, 1], offset: ?>> to memref<?x4xf32, strided<[16, 1], offset: ?>>
  %row = memref.subview %A[2, %o] [1, 5] [1, 1] : memref<8x8xf32> to memref<5xf32, strided<[1], offset: ?>>
  %c0 = arith.constant 0 : index
  %n = memref.dim %c, %c0 : memref<?x4xf32, strided<[16, 1], offset: ?>>
  %ten = arith.constant 10.0 : f32
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 4 {
      %x = affine.load %c[%i, %j] : memref<?x4xf32, strided<[16, 1], offset: ?>>
      %y = arith.addf %x, %ten : f32
      affine.store %y, %c[%i, %j] : memref<?x4xf32, strided<[16, 1], offset: ?>>
    }
  }
  affine.for %k = 0 to 5 {
    %x = affine.load %row[%k] : memref<5xf32, strided<[1], offset: ?>>
    %y = arith.negf %x : f32
    affine.store %y, %row[%k] : memref<5xf32, strided<[1], offset: ?>>
  }
  return %n : index
}
"""


def test_subview_cast_dim_and_rank_reduction_write_through():
    a = f32((8, 8), 8)
    want = a.copy()
    (n,) = run_function(SUBVIEW, "sub", [a, 1])
    want[1:6:2, 1:5] += np.float32(10)
    want[2, 1:6] = -want[2, 1:6]
    assert n == 3 and np.array_equal(a, want)


def test_subview_out_of_bounds_raises():
    with pytest.raises(InterpreterError, match=r"memref.subview.*out of bounds"):
        run_function(SUBVIEW, "sub", [f32((8, 8)), 4])


DYNAMIC_ALLOC = """
func.func @copy(%A: memref<?x?xf64>, %B: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %A, %c0 : memref<?x?xf64>
  %n = memref.dim %A, %c1 : memref<?x?xf64>
  %t = memref.alloc(%m, %n) : memref<?x?xf64>
  memref.copy %A, %t : memref<?x?xf64> to memref<?x?xf64>
  scf.for %i = %c0 to %m step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %x = memref.load %t[%i, %j] : memref<?x?xf64>
      %y = math.sqrt %x : f64
      memref.store %y, %B[%j, %i] : memref<?x?xf64>
    }
  }
  return
}
"""


def test_dynamic_alloc_copy_and_scf_for_in_float64():
    a = np.abs(rng(9).standard_normal((3, 5)))
    b = np.zeros((5, 3))
    run_function(DYNAMIC_ALLOC, "copy", [a, b])
    assert np.array_equal(b, np.sqrt(a).T)


SCF = """
func.func @scf(%A: memref<10xi32>, %n: index) -> (i32, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %n step %c3 iter_args(%acc = %z) -> (i32) {
    %a = memref.load %A[%i] : memref<10xi32>
    %pos = arith.cmpi sgt, %a, %z : i32
    %v = scf.if %pos -> (i32) {
      scf.yield %a : i32
    } else {
      %neg = arith.subi %z, %a : i32
      scf.yield %neg : i32
    }
    %s = arith.addi %acc, %v : i32
    scf.yield %s : i32
  }
  %w = scf.while (%k = %c1) : (index) -> index {
    %more = arith.cmpi ult, %k, %n : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%k2: index):
    %d = arith.addi %k2, %k2 : index
    scf.yield %d : index
  }
  return %r, %w : i32, index
}
"""


@pytest.mark.parametrize("n", [0, 1, 9, 10])
def test_scf_for_if_while(n):
    a = rng(2).integers(-50, 50, 10).astype(np.int32)
    r, w = run_function(SCF, "scf", [a, n])
    assert r == sum(abs(int(x)) for x in a[0:n:3])
    k = 1
    while k < n:
        k *= 2
    assert w == k


CALLS = """
func.func private @square(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}
func.func private @external(f32) -> f32
func.func @caller(%A: memref<4xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 4 iter_args(%acc = %z) -> (f32) {
    %a = affine.load %A[%i] : memref<4xf32>
    %s = func.call @square(%a) : (f32) -> f32
    %t = arith.addf %acc, %s : f32
    affine.yield %t : f32
  }
  return %r : f32
}
func.func @calls_external(%x: f32) -> f32 {
  %y = func.call @external(%x) : (f32) -> f32
  return %y : f32
}
"""


def test_calls_and_missing_bodies():
    a = f32(4, 10)
    (r,) = run_function(CALLS, "caller", [a])
    assert r == functools.reduce(lambda x, y: np.float32(x + y * y), a, np.float32(0))
    with pytest.raises(InterpreterError, match=r"@external.*no body"):
        run_function(CALLS, "calls_external", [1.0])
    with pytest.raises(InterpreterError, match="name the function"):
        run_function(CALLS, None, [a])


# ---------------------------------------------------------------- integers

INTEGERS = """
func.func @ints(%a: i8, %b: i8, %x: i32, %y: i32) -> (i8, i8, i32, i32, i32, i32, i32, i32, i1, i1, i32, i32, i8, i32) {
  %add = arith.addi %a, %b : i8
  %mul = arith.muli %a, %b : i8
  %div = arith.divsi %x, %y : i32
  %rem = arith.remsi %x, %y : i32
  %fdiv = arith.floordivsi %x, %y : i32
  %cdiv = arith.ceildivsi %x, %y : i32
  %udiv = arith.divui %x, %y : i32
  %shr = arith.shrui %x, %y : i32
  %slt = arith.cmpi slt, %x, %y : i32
  %ult = arith.cmpi ult, %x, %y : i32
  %ext = arith.extui %slt : i1 to i32
  %sext = arith.extsi %slt : i1 to i32
  %tr = arith.trunci %x : i32 to i8
  %ashr = arith.shrsi %x, %y : i32
  return %add, %mul, %div, %rem, %fdiv, %cdiv, %udiv, %shr, %slt, %ult, %ext, %sext, %tr, %ashr
      : i8, i8, i32, i32, i32, i32, i32, i32, i1, i1, i32, i32, i8, i32
}
"""


def wrap(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def test_integer_wraparound_and_signedness():
    out = run_function(INTEGERS, "ints", [100, 100, -7, 2])
    add, mul, div, rem, fdiv, cdiv, udiv, shr, slt, ult, ext, sext, tr, ashr = out
    assert (add, mul) == (wrap(200, 8), wrap(10000, 8)) == (-56, 16)
    assert (div, rem, fdiv, cdiv) == (-3, -1, -4, -3)
    assert udiv == wrap((2**32 - 7) // 2, 32) and shr == wrap((2**32 - 7) >> 2, 32)
    assert (slt, ult) == (1, 0)
    assert (ext, sext) == (1, -1)
    assert tr == -7 and ashr == -2
    out = run_function(INTEGERS, "ints", [-128, -1, 2**31 - 1, 3])
    assert out[0] == 127 and out[1] == -128  # -128 * -1 wraps back to -128
    assert out[12] == -1  # trunc of 0x7fffffff to i8


def test_integer_division_by_zero_names_the_op():
    with pytest.raises(InterpreterError, match=r"<input>:5:\d+: arith.divsi: division by zero"):
        run_function(INTEGERS, "ints", [1, 1, 5, 0])


CASTS = """
func.func @casts(%i: i32, %f: f32, %d: f64, %n: index) -> (f32, i32, f64, f32, i64, index, i32, f16, i32) {
  %a = arith.sitofp %i : i32 to f32
  %b = arith.fptosi %f : f32 to i32
  %c = arith.extf %f : f32 to f64
  %e = arith.truncf %d : f64 to f32
  %g = arith.extsi %i : i32 to i64
  %h = arith.index_cast %i : i32 to index
  %k = arith.index_cast %n : index to i32
  %l = arith.truncf %f : f32 to f16
  %m = arith.bitcast %f : f32 to i32
  return %a, %b, %c, %e, %g, %h, %k, %l, %m : f32, i32, f64, f32, i64, index, i32, f16, i32
}
"""


def test_casts_round_like_the_target_type():
    d = 1.0 + 2.0 ** -30
    out = run_function(CASTS, "casts", [16777217, -2.75, d, 2**32 + 5])
    a, b, c, e, g, h, k, l, m = out
    assert a == np.float32(16777216.0) and isinstance(a, np.float32)
    assert b == -2
    assert isinstance(c, np.float64) and c == -2.75
    assert e == np.float32(1.0) and isinstance(e, np.float32)
    assert (g, h, k) == (16777217, 16777217, 5)
    assert l == np.float16(-2.75) and isinstance(l, np.float16)
    assert m == int(np.array(-2.75, np.float32).view(np.int32))


FLOAT32 = """
func.func @round(%x: f32, %y: f32) -> (f32, f64) {
  %s = arith.addf %x, %y : f32
  %r = arith.subf %s, %x : f32
  %xd = arith.extf %x : f32 to f64
  %yd = arith.extf %y : f32 to f64
  %sd = arith.addf %xd, %yd : f64
  %rd = arith.subf %sd, %xd : f64
  return %r, %rd : f32, f64
}
"""


def test_float32_rounds_after_every_op():
    r, rd = run_function(FLOAT32, "round", [1.0e8, 1.0])
    assert r == 0.0 and rd == 1.0


CMPF = """
func.func @cmp(%a: f32, %b: f32) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %0 = arith.cmpf false, %a, %b : f32
  %1 = arith.cmpf oeq, %a, %b : f32
  %2 = arith.cmpf ogt, %a, %b : f32
  %3 = arith.cmpf oge, %a, %b : f32
  %4 = arith.cmpf olt, %a, %b : f32
  %5 = arith.cmpf ole, %a, %b : f32
  %6 = arith.cmpf one, %a, %b : f32
  %7 = arith.cmpf ord, %a, %b : f32
  %8 = arith.cmpf ueq, %a, %b : f32
  %9 = arith.cmpf ugt, %a, %b : f32
  %10 = arith.cmpf uge, %a, %b : f32
  %11 = arith.cmpf ult, %a, %b : f32
  %12 = arith.cmpf ule, %a, %b : f32
  %13 = arith.cmpf une, %a, %b : f32
  %14 = arith.cmpf uno, %a, %b : f32
  %15 = arith.cmpf true, %a, %b : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15
      : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}
"""


@pytest.mark.parametrize("a,b", [(1.0, 2.0), (2.0, 1.0), (3.0, 3.0), (math.nan, 1.0), (1.0, math.nan)])
def test_cmpf_all_predicates(a, b):
    unordered = math.isnan(a) or math.isnan(b)
    lt, gt, eq = (not unordered and a < b), (not unordered and a > b), (not unordered and a == b)
    want = [False, eq, gt, gt or eq, lt, lt or eq, lt or gt, not unordered,
            unordered or eq, unordered or gt, unordered or gt or eq, unordered or lt,
            unordered or lt or eq, unordered or not eq, unordered, True]
    assert run_function(CMPF, "cmp", [a, b]) == [int(w) for w in want]


MINMAX = """
func.func @mm(%a: f32, %b: f32) -> (f32, f32, f32, f32) {
  %0 = arith.maximumf %a, %b : f32
  %1 = arith.minimumf %a, %b : f32
  %2 = arith.maxnumf %a, %b : f32
  %3 = arith.minnumf %a, %b : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}
"""


def test_nan_propagating_and_nan_ignoring_min_max():
    r = run_function(MINMAX, "mm", [math.nan, 2.0])
    assert math.isnan(r[0]) and math.isnan(r[1]) and r[2] == 2.0 and r[3] == 2.0


# ---------------------------------------------------------------- affine arithmetic

AFFINE_DIV = """
func.func @divs(%x: index, %s: index) -> (index, index, index, index, index) {
  %f = affine.apply affine_map<(d0) -> ((d0 - 7) floordiv 3)>(%x)
  %m = affine.apply affine_map<(d0) -> ((d0 - 7) mod 3)>(%x)
  %c = affine.apply affine_map<(d0) -> ((d0 - 7) ceildiv 3)>(%x)
  %mn = affine.min affine_map<(d0)[s0] -> (d0 * 2, s0 - d0, 5)>(%x)[%s]
  %mx = affine.max affine_map<(d0)[s0] -> (d0 * 2, s0 - d0, 5)>(%x)[%s]
  return %f, %m, %c, %mn, %mx : index, index, index, index, index
}
"""


@pytest.mark.parametrize("x", [-4, 0, 2, 7, 11])
def test_floordiv_mod_ceildiv_round_toward_negative_infinity(x):
    v = x - 7
    f, m, c, mn, mx = run_function(AFFINE_DIV, "divs", [x, 6])
    assert f == math.floor(v / 3) and m == v - 3 * math.floor(v / 3) and c == math.ceil(v / 3)
    assert 0 <= m < 3
    assert (mn, mx) == (min(2 * x, 6 - x, 5), max(2 * x, 6 - x, 5))


PARALLEL = """
func.func @par(%A: memref<6x4xf32>) -> (f32, f32) {
  %sum, %mx = affine.parallel (%i, %j) = (0, 0) to (6, 4) reduce ("addf", "maximumf") -> (f32, f32) {
    %a = affine.load %A[%i, %j] : memref<6x4xf32>
    affine.yield %a, %a : f32, f32
  }
  return %sum, %mx : f32, f32
}
"""


def test_affine_parallel_reductions():
    a = f32((6, 4), 12)
    s, mx = run_function(PARALLEL, "par", [a])
    assert s == functools.reduce(lambda x, y: np.float32(x + y), a.ravel(), np.float32(0))
    assert mx == a.max()


# ---------------------------------------------------------------- errors

OOB = """
func.func @oob(%A: memref<8xf32>, %n: index, %k: index) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    affine.store %z, %A[%i - %k] : memref<8xf32>
  }
  return
}
"""


def test_in_bounds_accesses_run():
    a = np.ones(8, np.float32)
    run_function(OOB, "oob", [a, 8, 0])
    assert not a.any()


@pytest.mark.parametrize("n,k,bad", [(9, 0, 8), (3, 1, -1)])
def test_out_of_bounds_raises_with_location(n, k, bad):
    a = np.ones(8, np.float32)
    with pytest.raises(InterpreterError, match=rf"<input>:5:5: affine.store: index \[{bad}\] out of bounds"):
        run_function(OOB, "oob", [a, n, k])


def test_unsupported_op_is_named_with_location():
    text = """
func.func @f(%A: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    "test.mystery"(%i) : (index) -> ()
  }
  return
}
"""
    with pytest.raises(InterpreterError, match=r"<input>:4:5: test.mystery: cannot interpret"):
        run_function(text, "f", [np.zeros(4, np.float32)])
    # an unsupported op that never runs does not stop the program
    run_function(text.replace("0 to 4", "0 to 0"), "f", [np.zeros(4, np.float32)])


def test_op_budget_stops_runaway_loops():
    text = """
func.func @spin(%n: index) -> index {
  %r = affine.for %i = 0 to %n iter_args(%a = %n) -> (index) {
    %b = affine.apply affine_map<(d0) -> (d0 + 1)>(%a)
    affine.yield %b : index
  }
  return %r : index
}
"""
    assert run_function(text, "spin", [1000]) == [2000]
    with pytest.raises(InterpreterError, match=r"budget of 500 operations"):
        run_function(text, "spin", [1000], max_ops=500)


def test_argument_checks():
    with pytest.raises(InterpreterError, match="expects dtype float32"):
        run_function(ELEMENTWISE, "chain", [np.zeros(16), np.zeros(16), np.zeros(16)])
    with pytest.raises(InterpreterError, match=r"expects shape \[16\]"):
        z = np.zeros(15, np.float32)
        run_function(ELEMENTWISE, "chain", [z, z, z])


def test_translation_is_cached_and_readable():
    assert compile_module(ELEMENTWISE) is compile_module(ELEMENTWISE)
    module = parse_module(ELEMENTWISE)
    assert compile_module(module) is compile_module(module)
    src = function_source(ELEMENTWISE)
    assert "for i" in src and "range(0, 16)" in src


def test_accepts_parsed_modules():
    a, b, c = f32(16, 1), f32(16, 2), np.zeros(16, np.float32)
    run_function(parse_module(ELEMENTWISE), "chain", [a, b, c])
    assert np.array_equal(c, ((a + b) * a - np.float32(1)) / b + libm_exp(a))


# ---------------------------------------------------------------- differential checking

ADD = """
func.func @k(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %a = affine.load %A[%i] : memref<?xf32>
    %b = affine.load %B[%i] : memref<?xf32>
    %c = arith.addf %a, %b : f32
    affine.store %c, %C[%i] : memref<?xf32>
  }
  return
}
"""


def test_make_inputs_is_reproducible_and_sized():
    x = make_inputs(ADD, "k", seed=3)
    y = make_inputs(ADD, "k", seed=3)
    n = x[3]
    assert 1 <= n <= 9 and all(np.array_equal(p, q) for p, q in zip(x[:3], y[:3]))
    assert x[0].shape == (4 * n + 16,) and x[0].dtype == np.float32
    fixed = make_inputs(ADD, "k", seed=3, sizes={"arg3": 5, 0: (7,)})
    assert fixed[3] == 5 and fixed[0].shape == (7,) and fixed[1].shape == (36,)
    assert any(make_inputs(ADD, "k", seed=s, allow_zero=True)[3] == 0 for s in range(40))


def test_run_on_inputs_leaves_inputs_alone():
    inputs = make_inputs(ADD, "k", seed=1)
    before = [np.copy(x) if isinstance(x, np.ndarray) else x for x in inputs]
    out = run_on_inputs(ADD, "k", inputs)
    assert len(out) == 3 and all(np.array_equal(p, q) for p, q in zip(inputs[:3], before[:3]))
    n = inputs[3]
    assert np.array_equal(out[2][:n], inputs[0][:n] + inputs[1][:n])


def test_same_program_compares_equal():
    assert assert_same_results(ADD, ADD, seed=0, trials=3) == 3


def test_reordered_but_equivalent_program_passes():
    split = """
func.func @k(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %b = affine.load %B[%i] : memref<?xf32>
    %a = affine.load %A[%i] : memref<?xf32>
    %c = arith.addf %a, %b : f32
    affine.store %c, %C[%i] : memref<?xf32>
  }
  return
}
"""
    assert assert_same_results(ADD, split, trials=2) == 2


def test_add_versus_sub_fails():
    with pytest.raises(AssertionError, match=r"@k: output 2 \(memref argument %arg2\) differs.*index \[0\]"):
        assert_same_results(ADD, ADD.replace("arith.addf", "arith.subf"))


def test_difference_in_one_element_is_found():
    one_off = ADD.replace("affine.for %i = 0 to %n", "affine.for %i = 0 to affine_map<()[s0] -> (s0 - 1)>()[%n]")
    with pytest.raises(AssertionError, match=r"first difference at index \[(\d)\].*\(1 of \d+ elements differ\)"):
        assert_same_results(ADD, one_off, sizes={"arg3": 6})


def test_signed_zero_differs_but_nan_matches_nan():
    prog = """
func.func @z(%A: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %nan = arith.divf %zero, %zero : f32
  memref.store %nan, %A[%c0] : memref<2xf32>
  memref.store %zero, %A[%c1] : memref<2xf32>
  return
}
"""
    nan_another_way = (prog.replace("%nan = arith.divf %zero, %zero", "%nan = arith.subf %zero, %zero")
                       .replace("memref.store %nan", "%q = arith.divf %nan, %nan : f32\n  memref.store %q"))
    assert assert_same_results(prog, nan_another_way) == 3
    with pytest.raises(AssertionError, match=r"index \[1\]: before=np.float32\(0.0\) after=np.float32\(-0.0\)"):
        assert_same_results(prog, prog.replace("0.0 : f32", "-0.0 : f32"))


def test_return_values_are_compared_and_tolerances_loosen():
    prog = """
func.func @r(%x: f32) -> f32 {
  %c = arith.constant 1.0 : f32
  %y = arith.addf %x, %c : f32
  return %y : f32
}
"""
    other = prog.replace("1.0 : f32", "1.0000001 : f32")
    with pytest.raises(AssertionError, match=r"output 0 \(result 0\)"):
        assert_same_results(prog, other)
    assert assert_same_results(prog, other, rtol=1e-5, atol=1e-6) == 3


def test_before_failing_on_large_sizes_is_retried_with_smaller_ones():
    shifted = """
func.func @s(%A: memref<12xf32>, %B: memref<12xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %a = affine.load %A[%i + 6] : memref<12xf32>
    affine.store %a, %B[%i] : memref<12xf32>
  }
  return
}
"""
    assert assert_same_results(shifted, shifted, trials=4) == 4
    never = shifted.replace("%i + 6", "%i + 12")
    with pytest.raises(AssertionError, match="BEFORE program fails on every input"):
        assert_same_results(never, never, trials=1)


def test_after_failing_is_reported():
    bad = ADD.replace("affine.store %c, %C[%i]", "affine.store %c, %C[%i + 100]")
    with pytest.raises(AssertionError, match="AFTER program fails"):
        assert_same_results(ADD, bad)


def test_first_difference_helper():
    assert first_difference(np.array([1.0, np.nan]), np.array([1.0, np.nan])) is None
    assert "shape" in first_difference(np.zeros(2), np.zeros(3))
    assert "index [1]" in first_difference(np.array([1, 2, 3]), np.array([1, 5, 3]))


def test_constant_bounds_still_check_the_last_iteration():
    text = """
func.func @f(%A: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 9 {
    affine.store %z, %A[%i] : memref<8xf32>
  }
  return
}
"""
    with pytest.raises(InterpreterError, match=r"index \[8\] out of bounds"):
        run_function(text, "f", [np.ones(8, np.float32)])
    assert "_oob" not in function_source(text.replace("0 to 9", "0 to 8"))  # provably in bounds


MISC = """
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @misc(%A: memref<2x6xf32>, %x: f32, %i: i32, %j: i32, %b: i1)
    -> (f32, f32, f32, i32, i32, f16, i32, i1, i32, i32, f32, f32, i32, index, i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %g = memref.get_global @table : memref<4xf32>
  %s = scf.parallel (%k) = (%c0) to (%c4) step (%c1) init (%z) -> f32 {
    %v = memref.load %g[%k] : memref<4xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      scf.reduce.return %t : f32
    }
  }
  %flat = memref.collapse_shape %A [[0, 1]] : memref<2x6xf32> into memref<12xf32>
  %back = memref.expand_shape %flat [[0, 1]] output_shape [3, 4] : memref<12xf32> into memref<3x4xf32>
  %w = memref.load %back[%c1, %c1] : memref<3x4xf32>
  %sel = arith.select %b, %i, %j : i32
  %bc = arith.bitcast %x : f32 to i32
  %h = arith.truncf %x : f32 to f16
  %h2 = arith.addf %h, %h : f16
  %sum, %ov = arith.addui_extended %i, %j : i32, i1
  %lo, %hi = arith.mului_extended %i, %j : i32
  %sh = arith.shli %i, %j : i32
  %fma = math.fma %x, %x, %x : f32
  %rd = math.round %x : f32
  %pop = math.ctpop %i : i32
  %icu = arith.index_castui %i : i32 to index
  %bb = arith.addi %b, %b : i1
  return %s, %w, %x, %sel, %bc, %h2, %sum, %ov, %hi, %sh, %fma, %rd, %pop, %icu, %bb
      : f32, f32, f32, i32, i32, f16, i32, i1, i32, i32, f32, f32, i32, index, i1
}
"""


def test_views_globals_parallel_and_extended_arithmetic():
    a = np.arange(12, dtype=np.float32).reshape(2, 6)
    s, w, x, sel, bc, h2, total, ov, hi, sh, fma, rd, pop, icu, bb = run_function(MISC, "misc", [a, 2.5, -3, 5, 1])
    assert (s, w, x) == (10.0, 5.0, 2.5)
    assert sel == -3 and bc == int(np.array(2.5, np.float32).view(np.int32))
    assert h2 == np.float16(5.0) and isinstance(h2, np.float16)
    u = (2**32 - 3)
    assert (total, ov) == (wrap(u + 5, 32), 1) and hi == (u * 5) >> 32
    assert sh == -96 and fma == 8.75 and rd == 3.0  # round: ties away from zero
    assert pop == 31 and icu == u and bb == 0


def test_private_helpers_may_disappear():
    inlined = """
func.func @caller(%A: memref<4xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 4 iter_args(%acc = %z) -> (f32) {
    %a = affine.load %A[%i] : memref<4xf32>
    %s = arith.mulf %a, %a : f32
    %t = arith.addf %acc, %s : f32
    affine.yield %t : f32
  }
  return %r : f32
}
"""
    assert assert_same_results(CALLS.replace("func.func @calls_external", "func.func private @calls_external"),
                               inlined) == 3
    with pytest.raises(AssertionError, match=r"output 1 \(result 0\) differs"):
        assert_same_results(CALLS, inlined.replace("arith.mulf %a, %a", "arith.addf %a, %a"), func="caller")


# ---------------------------------------------------------------- against compiled MLIR

def _lower_and_run(text: str) -> list[str]:
    """Lower `text` to LLVM with mlir-opt 22 and run @main with mlir-runner; its printed lines."""
    import os
    import subprocess

    from loopopt.toolchain import LLVM_BIN, find_tool, mlir_opt

    runner = find_tool("mlir-runner")
    libs = [os.path.join(LLVM_BIN, "..", "lib", f"libmlir_{n}_utils.so.22.1") for n in ("c_runner", "runner")]
    if runner is None or find_tool("mlir-opt") is None or not all(os.path.exists(p) for p in libs):
        pytest.skip("mlir-opt/mlir-runner 22 and the runner utils are needed")
    lowered = mlir_opt(text, ["--lower-affine", "--convert-scf-to-cf", "--arith-expand", "--convert-vector-to-llvm",
                              "--convert-math-to-llvm", "--convert-arith-to-llvm", "--finalize-memref-to-llvm",
                              "--convert-cf-to-llvm", "--convert-func-to-llvm", "--reconcile-unrealized-casts"])
    assert lowered.returncode == 0, lowered.stderr
    run = subprocess.run([runner, "-e", "main", "-entry-point-result=void", f"-shared-libs={','.join(libs)}"],
                         input=lowered.stdout, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


_INT_OPS = ["arith.addi", "arith.muli", "arith.divsi", "arith.remsi", "arith.floordivsi", "arith.ceildivsi",
            "arith.divui", "arith.remui", "arith.shrsi", "arith.shrui", "arith.shli", "arith.maxui", "arith.minsi",
            "arith.xori"]
_INT_PAIRS = [(-7, 2), (7, -2), (-7, -2), (100, 7), (-128, 3), (127, 1), (-1, 5), (6, 6)]
_FLOAT_OPS = ["arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.remf", "arith.divf",
              "math.powf", "arith.cmpf ult,", "arith.cmpf one,", "arith.cmpf ueq,", "arith.cmpf oge,"]
_FLOAT_PAIRS = [(1.5, -2.25), (-0.0, 0.0), (math.nan, 1.0), (7.5, 2.0), (-7.5, 2.0), (0.0, 0.0), (3.0, 1e-3)]
# (argument type, ops computing %r from %a, result type, arguments)
_UNARY = [
    ("f32", "%r = arith.fptosi %a : f32 to i32", "i32", [-2.75, 2.5, 1e9]),
    ("f32", "%r = arith.fptoui %a : f32 to i8", "i8", [200.7, 3.2]),
    ("i64", "%f = arith.sitofp %a : i64 to f32\n  %r = arith.bitcast %f : f32 to i32", "i32",
     [2**62 + 2**38 + 1, -(2**40) - 3, 16777217]),
    ("i16", "%f = arith.uitofp %a : i16 to f16\n  %r = arith.bitcast %f : f16 to i16", "i16", [-1, 2049]),
    ("f64", "%f = arith.truncf %a : f64 to f32\n  %r = arith.bitcast %f : f32 to i32", "i32",
     [1.0 + 2.0**-24, 1.0 + 3 * 2.0**-24, 1e300, -1e-50]),
    ("f32", "%f = math.round %a : f32\n  %r = arith.bitcast %f : f32 to i32", "i32", [2.5, -2.5, 0.49999997, -0.0]),
    ("f32", "%f = math.roundeven %a : f32\n  %r = arith.bitcast %f : f32 to i32", "i32", [2.5, 3.5, -2.5]),
    ("f32", "%f = math.fma %a, %a, %a : f32\n  %r = arith.bitcast %f : f32 to i32", "i32", [1.0 + 2.0**-12, 0.1]),
    ("f32", "%f = math.absf %a : f32\n  %r = arith.bitcast %f : f32 to i32", "i32", [-0.0, -3.5]),
    ("i32", "%r = arith.trunci %a : i32 to i8", "i8", [300, -129]),
    ("i8", "%r = arith.extui %a : i8 to i32", "i32", [-1, 5]),
    ("i64", "%i = arith.index_cast %a : i64 to index\n  %j = affine.apply affine_map<(d0) -> ((d0 - 7) floordiv 3"
            " + ((d0 - 7) mod 3) * 100 + ((d0 - 7) ceildiv 3) * 10000)>(%i)\n"
            "  %r = arith.index_cast %j : index to i64", "i64", [-4, 0, 2, 7, 11]),
    ("i8", "%b = arith.cmpi ugt, %a, %a : i8\n  %c = arith.constant 3 : i8\n"
           "  %d = arith.cmpi ult, %a, %c : i8\n  %r = arith.extsi %d : i1 to i32", "i32", [-1, 2]),
]


def _literal(x, t: str) -> str:
    """MLIR literal for `x`: decimal for integers, exact hex bits for floats."""
    if t.startswith("i"):
        return str(x)
    dt, bits = {"f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64)}[t]
    return f"0x{int(np.array(x, dt).view(bits)):0{2 * np.dtype(dt).itemsize}X}"


@pytest.mark.toolchain
def test_scalar_ops_match_compiled_mlir():
    """Integer (i8), float (f32) and cast ops give the bits that mlir-opt + mlir-runner compute."""
    cases = []  # (function text, argument types, arguments)
    for k, op in enumerate(_INT_OPS):
        fn = f"func.func @i{k}(%a: i8, %b: i8) -> i8 {{\n  %r = {op} %a, %b : i8\n  return %r : i8\n}}"
        cases += [(fn, ["i8", "i8"], [a, b]) for a, b in _INT_PAIRS
                  if "sh" not in op or 0 <= b < 8]  # shifting by the bit width or more is poison
    for k, op in enumerate(_FLOAT_OPS):
        res = "i1" if "cmpf" in op else "f32"
        fn = (f"func.func @f{k}(%a: f32, %b: f32) -> i32 {{\n  %r = {op} %a, %b : f32\n"
              + ("  %i = arith.extui %r : i1 to i32\n" if res == "i1" else "  %i = arith.bitcast %r : f32 to i32\n")
              + "  return %i : i32\n}")
        cases += [(fn, ["f32", "f32"], [a, b]) for a, b in _FLOAT_PAIRS]
    for k, (t, body, rt, args) in enumerate(_UNARY):
        fn = f"func.func @u{k}(%a: {t}) -> {rt} {{\n  {body}\n  return %r : {rt}\n}}"
        cases += [(fn, [t], [a]) for a in args]
    funcs = list(dict.fromkeys(fn for fn, _, _ in cases))
    lines = []
    for c, (fn, types, args) in enumerate(cases):
        name = fn.split("(")[0].split("@")[1]
        rt = fn.split("-> ")[1].split(" ")[0]
        names = []
        for j, (t, a) in enumerate(zip(types, args)):
            lines.append(f"  %a{c}_{j} = arith.constant {_literal(a, t)} : {t}")
            names.append(f"%a{c}_{j}")
        lines.append(f"  %r{c} = func.call @{name}({', '.join(names)}) : ({', '.join(types)}) -> {rt}")
        lines.append(f"  vector.print %r{c} : {rt}")
    main = "func.func @main() {\n" + "\n".join(lines) + "\n  return\n}"
    printed = _lower_and_run("\n".join(funcs) + "\n" + main)
    assert len(printed) == len(cases)
    for (fn, _, args), got in zip(cases, printed):
        (ours,) = run_function(fn, None, args)
        as_f32 = np.array(ours, np.int32).view(np.float32) if "bitcast %r : f32" in fn else None
        if as_f32 is not None and np.isnan(as_f32):
            assert np.isnan(np.array(int(got), np.int32).view(np.float32)), (fn, args)  # any NaN
        else:
            assert ours == int(got), (fn, args, ours, got)


def test_empty_loop_bodies_run():
    # Transforms (LICM, mlir-opt) can leave loops with empty bodies; they must still translate.
    from loopopt.testing import run_on_inputs

    src = """func.func @f(%a: memref<4xf32>) {
  affine.for %i = 0 to 4 {
  }
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 2 {
    }
  }
  return
}"""
    a = np.arange(4, dtype=np.float32)
    out = run_on_inputs(src, "f", [a])
    assert np.array_equal(out[0], a)
