"""Issue 10: the reference interpreter models every construct the soundness work covers.

Each program runs in the interpreter and natively (mlir-opt 22 + mlir-runner through
loopopt.native's harness); both must print the same outputs. The harness fills every memref
argument with a fixed pattern and calls the kernel twice (one untimed call, one timed), so the
interpreter is given the same inputs and also runs the kernel twice on them. Interpreter-only
tests check aliasing identities and the runs that must stop with InterpreterError.
"""
from __future__ import annotations

import numpy as np
import pytest

from loopopt import native
from loopopt.interpreter import InterpreterError, compile_module, run_function
from loopopt.toolchain import find_tool, mlir_opt

# LOWERING_PASSES with the vector dialect lowered after affine (transfers to loops of 1-D ones
# first); kernels without vector ops use native.LOWERING_PASSES unchanged.
VECTOR_LOWERING = ("--lower-affine", "--convert-vector-to-scf", "--convert-scf-to-cf", "--convert-vector-to-llvm",
                   *(p for p in native.LOWERING_PASSES if p not in ("--lower-affine", "--convert-scf-to-cf")))
CALLS = 2  # the harness calls the kernel max(1, warmup) + reps times; we pass warmup=0, reps=1

_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
           "i32": np.int32, "i64": np.int64, "index": np.int64}


def harness_fill(shape, argno: int, elem: str) -> np.ndarray:
    """The values native.make_harness stores into memref argument `argno` (row-major order)."""
    r = (7 * np.arange(int(np.prod(shape)), dtype=np.int64) + 131 * argno + 3) % native.FILL_MODULUS
    if elem == "index":
        out = r
    elif elem.startswith("i"):
        out = (r - native.FILL_MODULUS // 2).astype(_DTYPES[elem])
    else:
        out = (r.astype(np.float64) * (2.0 / native.FILL_MODULUS) - 1.0).astype(_DTYPES[elem])
    return out.reshape(shape)


def harness_inputs(text: str, kernel: str, sizes: list) -> list:
    """The kernel's arguments as the native harness builds them."""
    sig = native.kernel_signature(text, kernel)
    sizes = native.resolve_sizes(sig, sizes)
    return [harness_fill(tuple(size), k, slot.elem) if slot.kind == "memref" else size
            for k, (slot, size) in enumerate(zip(sig.args, sizes))]


def _values(x) -> tuple:
    arr = np.asarray(x).reshape(-1)
    return tuple(float(v) if arr.dtype.kind == "f" else int(v) for v in arr)


def interpreted(text: str, kernel: str, sizes: list) -> tuple[native.Output, ...]:
    """What the harness would print, computed by the interpreter (kernel called CALLS times)."""
    sig = native.kernel_signature(text, kernel)
    args = harness_inputs(text, kernel, sizes)
    compiled = compile_module(text)
    for _ in range(CALLS):
        results = compiled.run(kernel, args)
    outs = [native.Output(s.name, a.size, values=_values(a)) for s, a in zip(sig.args, args) if s.kind == "memref"]
    outs += [native.Output(s.name, np.asarray(r).size, values=_values(r)) for s, r in zip(sig.results, results)]
    return tuple(outs)


def natively(text: str, kernel: str, sizes: list) -> tuple[native.Output, ...]:
    harness = native.make_harness(text, kernel, sizes, reps=1, warmup=0)
    # loopopt.mlir prints `call ... <no_inline>`, which mlir-opt 22 reads only as `{no_inline}`
    harness = harness.replace("<no_inline>", "{no_inline}")
    passes = VECTOR_LOWERING if "vector" in text else native.LOWERING_PASSES
    lowered = mlir_opt(harness, list(passes))
    assert lowered.returncode == 0, lowered.stderr
    _, outputs = native.parse_output(native.run_lowered(lowered.stdout), native.kernel_signature(text, kernel))
    return outputs


def check_same(text: str, kernel: str, sizes: list) -> tuple[native.Output, ...]:
    """Interpreter and native runs print the same outputs; returns them."""
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    ours, theirs = interpreted(text, kernel, sizes), natively(text, kernel, sizes)
    assert native.compare_outputs(ours, theirs) is None, (native.compare_outputs(ours, theirs), ours, theirs)
    return ours


def test_harness_fill_matches_the_native_pattern():
    # argument 1, elements 0..2 of an f32 memref: ((7 i + 134) mod 251) * 2/251 - 1
    got = harness_fill((3,), 1, "f32")
    want = np.array([(134 + 7 * i) % 251 * (2.0 / 251) - 1.0 for i in range(3)]).astype(np.float32)
    assert np.array_equal(got, want)
    assert list(harness_fill((2,), 0, "i32")) == [3 - 125, 10 - 125]


# ---------------------------------------------------------------- memref aliasing

SELECT_IF_ALIAS = """
func.func @k(%A: memref<8xf32>, %B: memref<8xf32>, %c: i1, %d: i1) -> (memref<8xf32>, memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %five = arith.constant 5.0 : f32
  %m = arith.select %c, %A, %B : memref<8xf32>
  memref.store %five, %m[%c0] : memref<8xf32>
  %seen = memref.load %A[%c0] : memref<8xf32>
  memref.store %seen, %B[%c1] : memref<8xf32>
  %n = scf.if %d -> (memref<8xf32>) {
    scf.yield %A : memref<8xf32>
  } else {
    scf.yield %B : memref<8xf32>
  }
  %six = arith.constant 6.0 : f32
  memref.store %six, %n[%c2] : memref<8xf32>
  %back = memref.load %B[%c2] : memref<8xf32>
  memref.store %back, %A[%c1] : memref<8xf32>
  return %m, %n : memref<8xf32>, memref<8xf32>
}
"""


@pytest.mark.parametrize("c,d", [(1, 0), (0, 1)])
def test_select_and_scf_if_results_alias_interpreter(c, d):
    a, b = harness_fill((8,), 0, "f32"), harness_fill((8,), 1, "f32")
    m, n = run_function(SELECT_IF_ALIAS, "k", [a, b, c, d])
    assert m is (a if c else b) and n is (a if d else b)
    assert (a if c else b)[0] == 5.0 and (a if d else b)[2] == 6.0
    assert b[1] == (5.0 if c else harness_fill((8,), 0, "f32")[0])  # the write through %m was seen


@pytest.mark.toolchain
@pytest.mark.parametrize("c,d", [(1, 0), (0, 1)])
def test_select_and_scf_if_results_alias_native(c, d):
    check_same(SELECT_IF_ALIAS, "k", [None, None, c, d])


PING_PONG = """
func.func @k(%A: memref<10xf32>, %B: memref<10xf32>, %T: index) -> memref<10xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %r:2 = scf.for %t = %c0 to %T step %c1 iter_args(%src = %A, %dst = %B) -> (memref<10xf32>, memref<10xf32>) {
    affine.for %i = 1 to 9 {
      %l = affine.load %src[%i - 1] : memref<10xf32>
      %h = affine.load %src[%i + 1] : memref<10xf32>
      %s = arith.addf %l, %h : f32
      %m = arith.mulf %s, %half : f32
      affine.store %m, %dst[%i] : memref<10xf32>
    }
    scf.yield %dst, %src : memref<10xf32>, memref<10xf32>
  }
  %q = affine.for %j = 0 to 3 iter_args(%cur = %r#0) -> (memref<10xf32>) {
    %x = affine.load %cur[%j] : memref<10xf32>
    %y = arith.addf %x, %half : f32
    affine.store %y, %cur[%j + 5] : memref<10xf32>
    affine.yield %cur : memref<10xf32>
  }
  return %q : memref<10xf32>
}
"""


def test_for_iter_args_carry_the_same_arrays_interpreter():
    a, b = harness_fill((10,), 0, "f32"), harness_fill((10,), 1, "f32")
    (q,) = run_function(PING_PONG, "k", [a, b, 3])
    assert q is b  # three swaps: the last destination is B
    a2, b2 = harness_fill((10,), 0, "f32"), harness_fill((10,), 1, "f32")
    src, dst = a2, b2
    for _ in range(3):
        dst[1:9] = (src[0:8] + src[2:10]) * np.float32(0.5)
        src, dst = dst, src
    src[5:8] = src[0:3] + np.float32(0.5)
    assert np.array_equal(a, a2) and np.array_equal(b, b2)


@pytest.mark.toolchain
def test_for_iter_args_carry_the_same_arrays_native():
    check_same(PING_PONG, "k", [None, None, 3])


CALL_RETURNS_ARG = """
func.func private @pick(%X: memref<6xf32>, %Y: memref<6xf32>, %i: index) -> memref<6xf32> {
  %c3 = arith.constant 3 : index
  %lt = arith.cmpi ult, %i, %c3 : index
  %r = arith.select %lt, %X, %Y : memref<6xf32>
  return %r : memref<6xf32>
}
func.func @k(%A: memref<6xf32> {llvm.noalias}, %B: memref<6xf32> {llvm.noalias}, %i: index) -> f32 {
  %m = "func.call"(%A, %B, %i) <{callee = @pick, no_inline}> : (memref<6xf32>, memref<6xf32>, index) -> memref<6xf32>
  %c0 = arith.constant 0 : index
  %v = arith.constant 9.0 : f32
  memref.store %v, %m[%c0] : memref<6xf32>
  %a = memref.load %A[%c0] : memref<6xf32>
  %b = memref.load %B[%c0] : memref<6xf32>
  %s = arith.subf %a, %b : f32
  return %s : f32
}
"""


@pytest.mark.parametrize("i", [1, 4])
def test_call_result_aliases_the_callee_argument_interpreter(i):
    a, b = harness_fill((6,), 0, "f32"), harness_fill((6,), 1, "f32")
    before = (a[0], b[0])
    (s,) = run_function(CALL_RETURNS_ARG, "k", [a, b, i])
    assert s == (np.float32(9.0) - before[1] if i < 3 else before[0] - np.float32(9.0))


@pytest.mark.toolchain
@pytest.mark.parametrize("i", [1, 4])
def test_call_result_aliases_the_callee_argument_native(i):
    check_same(CALL_RETURNS_ARG, "k", [None, None, i])


# ---------------------------------------------------------------- globals

GLOBALS = """
memref.global "private" constant @table : memref<4xf32> = dense<[1.5, -2.0, 0.25, 8.0]>
memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func private @reset() {
  %g = memref.get_global @state : memref<4xf32>
  %t = memref.get_global @table : memref<4xf32>
  affine.for %i = 0 to 4 {
    %x = affine.load %t[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %g[%i] : memref<4xf32>
  }
  return
}
func.func @k(%A: memref<4xf32>) {
  func.call @reset() : () -> ()
  %g1 = memref.get_global @state : memref<4xf32>
  %g2 = memref.get_global @state : memref<4xf32>
  %c0 = arith.constant 0 : index
  %a0 = memref.load %A[%c0] : memref<4xf32>
  memref.store %a0, %g1[%c0] : memref<4xf32>
  affine.for %i = 0 to 4 {
    %x = affine.load %g2[%i] : memref<4xf32>
    %y = affine.load %A[%i] : memref<4xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %A[%i] : memref<4xf32>
  }
  return
}
"""


def test_get_global_twice_is_one_storage_interpreter():
    a = harness_fill((4,), 0, "f32")
    orig = a.copy()
    run_function(GLOBALS, "k", [a])
    want = orig + np.array([0, -4.0, 0.5, 16.0], np.float32)
    want[0] = orig[0] + orig[0]  # written through @state's first get_global, read through the second
    assert np.array_equal(a, want)


def test_write_to_a_constant_global_stops():
    bad = GLOBALS.replace("%g1 = memref.get_global @state", "%g1 = memref.get_global @table")
    with pytest.raises(InterpreterError, match="memref.store"):
        run_function(bad, "k", [harness_fill((4,), 0, "f32")])


@pytest.mark.toolchain
def test_get_global_twice_is_one_storage_native():
    check_same(GLOBALS, "k", [None])
