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
VECTOR_LOWERING = ("--convert-vector-to-scf", "--lower-affine", "--convert-scf-to-cf", "--convert-vector-to-llvm",
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


# ---------------------------------------------------------------- control flow

CF_LOOP = """
func.func @k(%A: memref<8xf32>, %B: memref<8xf32>, %n: index, %f: i32) -> (f32, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  cf.br ^head(%c0, %z, %A, %B : index, f32, memref<8xf32>, memref<8xf32>)
^exit(%r: f32, %w: index):
  return %r, %w : f32, index
^head(%i: index, %s: f32, %p: memref<8xf32>, %q: memref<8xf32>):
  %done = arith.cmpi sge, %i, %n : index
  cf.cond_br %done, ^pick, ^body
^body:
  %x = memref.load %p[%i] : memref<8xf32>
  %s2 = arith.addf %s, %x : f32
  memref.store %s2, %q[%i] : memref<8xf32>
  %i2 = arith.addi %i, %c1 : index
  cf.br ^head(%i2, %s2, %q, %p : index, f32, memref<8xf32>, memref<8xf32>)
^pick:
  %c7 = arith.constant 7 : index
  cf.switch %f : i32, [
    default: ^exit(%s, %c0 : f32, index),
    3: ^exit(%s, %c1 : f32, index),
    -2: ^exit(%s, %c7 : f32, index)
  ]
}
"""


def test_cf_loop_with_memref_block_arguments_interpreter():
    a, b = harness_fill((8,), 0, "f32"), harness_fill((8,), 1, "f32")
    a0, b0 = a.copy(), b.copy()
    s, w = run_function(CF_LOOP, "k", [a, b, 5, -2])
    p, q, acc = a0, b0, np.float32(0)
    for i in range(5):
        acc = np.float32(acc + p[i])
        q[i] = acc
        p, q = q, p
    assert w == 7 and s == acc and np.array_equal(a, a0) and np.array_equal(b, b0)


@pytest.mark.toolchain
@pytest.mark.parametrize("n,f", [(5, -2), (8, 3), (0, 1)])
def test_cf_loop_with_memref_block_arguments_native(n, f):
    check_same(CF_LOOP, "k", [None, None, n, f])


def test_cf_assert_and_budget_in_a_cf_loop():
    src = """func.func @k(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1(%c0 : index)
^bb1(%i: index):
  %ok = arith.cmpi slt, %i, %n : index
  cf.assert %ok, "i below n"
  %j = arith.addi %i, %c1 : index
  cf.br ^bb1(%j : index)
}"""
    with pytest.raises(InterpreterError, match="cf.assert: assertion failed: i below n"):
        run_function(src, "k", [10])
    with pytest.raises(InterpreterError, match="budget"):
        run_function(src.replace('cf.assert %ok, "i below n"', ""), "k", [10], max_ops=1000)


WHILE = """
func.func @k(%A: memref<16xf32>, %B: memref<16xf32>, %lim: f32) -> (index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0.0 : f32
  %r:4 = scf.while (%i = %c0, %s = %z, %p = %A, %q = %B)
      : (index, f32, memref<16xf32>, memref<16xf32>) -> (index, f32, memref<16xf32>, memref<16xf32>) {
    %in = arith.cmpi slt, %i, %c16 : index
    %small = arith.cmpf olt, %s, %lim : f32
    %go = arith.andi %in, %small : i1
    scf.condition(%go) %i, %s, %p, %q : index, f32, memref<16xf32>, memref<16xf32>
  } do {
  ^bb0(%i: index, %s: f32, %p: memref<16xf32>, %q: memref<16xf32>):
    %x = memref.load %p[%i] : memref<16xf32>
    %ax = math.absf %x : f32
    %s2 = arith.addf %s, %ax : f32
    memref.store %s2, %q[%i] : memref<16xf32>
    %i2 = arith.addi %i, %c1 : index
    scf.yield %i2, %s2, %q, %p : index, f32, memref<16xf32>, memref<16xf32>
  }
  return %r#0, %r#1 : index, f32
}
"""


def test_scf_while_interpreter():
    a, b = harness_fill((16,), 0, "f32"), harness_fill((16,), 1, "f32")
    i, s = run_function(WHILE, "k", [a, b, 2.0])
    p, q = harness_fill((16,), 0, "f32"), harness_fill((16,), 1, "f32")
    acc, j = np.float32(0), 0
    while j < 16 and acc < 2.0:
        acc = np.float32(acc + abs(p[j]))
        q[j] = acc
        p, q = q, p
        j += 1
    assert (i, s) == (j, acc) and 0 < j < 16


@pytest.mark.toolchain
@pytest.mark.parametrize("lim", [2.0, 100.0])
def test_scf_while_native(lim):
    check_same(WHILE, "k", [None, None, lim])


BOUNDS = """
func.func @k(%A: memref<40xf32>, %a: index, %n: index, %s: index) -> index {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %cnt = affine.for %i = max affine_map<(d0)[s0] -> (d0, s0 - 30, 2)>(%a)[%n]
      to min affine_map<(d0)[s0] -> (d0 + 17, s0, 39)>(%a)[%n] step 3 iter_args(%c = %c0) -> (index) {
    %x = affine.load %A[%i] : memref<40xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %A[%i] : memref<40xf32>
    %c2 = arith.addi %c, %i : index
    affine.yield %c2 : index
  }
  affine.for %j = 0 to 16 {
    %d = affine.apply affine_map<(d0)[s0] -> ((d0 - 8) floordiv s0 + ((d0 - 8) ceildiv s0) * 100)>(%j)[%s]
    %m = affine.apply affine_map<(d0)[s0] -> ((d0 - 8) mod (s0 * s0))>(%j)[%s]
    %e = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1 + 3)>(%d, %m)
    %f = arith.index_cast %e : index to i64
    %g = arith.sitofp %f : i64 to f32
    affine.store %g, %A[%j + 20] : memref<40xf32>
  }
  return %cnt : index
}
"""


def test_multi_result_bounds_step_and_semi_affine_interpreter():
    a = harness_fill((40,), 0, "f32")
    a0 = a.copy()
    (cnt,) = run_function(BOUNDS, "k", [a, 5, 33, 3])
    ivs = list(range(max(5, 33 - 30, 2), min(5 + 17, 33, 39), 3))
    assert cnt == sum(ivs) and ivs == [5, 8, 11, 14, 17, 20]
    want = a0.copy()
    want[ivs] += np.float32(1)
    for j in range(16):
        d = (j - 8) // 3 + (-((8 - j) // 3)) * 100
        want[j + 20] = np.float32(d * 16 + (j - 8) % 9 + 3)
    assert np.array_equal(a, want)


@pytest.mark.toolchain
@pytest.mark.parametrize("a,n,s", [(5, 33, 3), (0, 40, 4), (12, 20, 1)])
def test_multi_result_bounds_step_and_semi_affine_native(a, n, s):
    check_same(BOUNDS, "k", [None, a, n, s])


@pytest.mark.parametrize("op,good", [("mod", 2), ("floordiv", -3), ("ceildiv", -2)])
@pytest.mark.parametrize("s", [0, -3])
def test_semi_affine_division_by_a_non_positive_symbol_stops(op, good, s):
    # MLIR 22 lowers `floordiv s0` with a formula valid for s0 > 0 only: -8 floordiv -3 runs as 1.
    src = f"""func.func @k(%i: index, %s: index) -> index {{
  %r = affine.apply affine_map<(d0)[s0] -> (d0 {op} s0)>(%i)[%s]
  return %r : index
}}"""
    assert run_function(src, "k", [-7, 3]) == [good]
    with pytest.raises(InterpreterError, match=f"affine.apply: {op} by non-positive value {s}"):
        run_function(src, "k", [-7, s])


# ---------------------------------------------------------------- unranked memrefs and reshape

UNRANKED = """
func.func private @fill(%U: memref<*xf32>, %v: f32) -> index {
  %r = memref.cast %U : memref<*xf32> to memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %r, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %r[%i] : memref<?xf32>
    %y = arith.mulf %x, %v : f32
    memref.store %y, %r[%i] : memref<?xf32>
  }
  %k = memref.rank %U : memref<*xf32>
  return %k : index
}
func.func @k(%A: memref<2x3xf32>, %B: memref<6xf32>) -> (index, index) {
  %v = arith.constant -3.0 : f32
  %u = memref.cast %B : memref<6xf32> to memref<*xf32>
  %r1 = func.call @fill(%u, %v) : (memref<*xf32>, f32) -> index
  %ua = memref.cast %A : memref<2x3xf32> to memref<*xf32>
  %back = memref.cast %ua : memref<*xf32> to memref<2x3xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b1 = memref.load %B[%c1] : memref<6xf32>
  memref.store %b1, %back[%c1, %c2] : memref<2x3xf32>
  %r2 = memref.rank %ua : memref<*xf32>
  return %r1, %r2 : index, index
}
"""


def test_unranked_memrefs_interpreter():
    a, b = harness_fill((2, 3), 0, "f32"), harness_fill((6,), 1, "f32")
    b0 = b.copy()
    assert run_function(UNRANKED, "k", [a, b]) == [1, 2]
    assert np.array_equal(b, b0 * np.float32(-3)) and a[1, 2] == b[1]
    u = np.arange(4, dtype=np.float32).reshape(2, 2)  # an unranked argument takes any rank
    with pytest.raises(InterpreterError, match=r"memref.cast: memref of rank 2 cast to rank 1"):
        run_function(UNRANKED, "fill", [u, 2.0])
    with pytest.raises(InterpreterError, match="expects dtype float32"):
        run_function(UNRANKED, "fill", [np.zeros(3, np.float64), 2.0])
    assert run_function(UNRANKED, "fill", [u.reshape(-1), 2.0]) == [1]


@pytest.mark.toolchain
def test_unranked_memrefs_native():
    check_same(UNRANKED, "k", [None, None])


RESHAPE = """
func.func @k(%A: memref<12xf32>, %r: index, %c: index) -> (index, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloca() : memref<2xindex>
  memref.store %r, %s[%c0] : memref<2xindex>
  memref.store %c, %s[%c1] : memref<2xindex>
  %v = memref.reshape %A(%s) : (memref<12xf32>, memref<2xindex>) -> memref<?x?xf32>
  %t = memref.alloca() : memref<2xi32>
  %three = arith.constant 3 : i32
  %four = arith.constant 4 : i32
  memref.store %four, %t[%c0] : memref<2xi32>
  memref.store %three, %t[%c1] : memref<2xi32>
  %w = memref.reshape %A(%t) : (memref<12xf32>, memref<2xi32>) -> memref<4x3xf32>
  %d = memref.dim %v, %c1 : memref<?x?xf32>
  %last = arith.subi %r, %c1 : index
  %x = arith.constant 42.0 : f32
  memref.store %x, %v[%last, %c1] : memref<?x?xf32>
  %y = memref.load %w[%c1, %c1] : memref<4x3xf32>
  return %d, %y : index, f32
}
"""


def test_memref_reshape_reads_its_shape_at_run_time_interpreter():
    a = harness_fill((12,), 0, "f32")
    a0 = a.copy()
    d, y = run_function(RESHAPE, "k", [a, 3, 4])
    assert d == 4 and a[2 * 4 + 1] == 42.0 and y == a0[4]
    with pytest.raises(InterpreterError, match=r"memref.reshape: cannot reshape \[12\] to \[5, 4\]"):
        run_function(RESHAPE, "k", [a, 5, 4])


@pytest.mark.toolchain
@pytest.mark.parametrize("r,c", [(3, 4), (2, 6), (6, 2)])
def test_memref_reshape_reads_its_shape_at_run_time_native(r, c):
    check_same(RESHAPE, "k", [None, r, c])


# ---------------------------------------------------------------- vectors

AFFINE_VECTOR = """
func.func @k(%A: memref<4x16xf32>, %B: memref<4x16xf32>) {
  %half = arith.constant dense<0.5> : vector<8xf32>
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 16 step 8 {
      %v = affine.vector_load %A[%i, %j] : memref<4x16xf32>, vector<8xf32>
      %w = arith.mulf %v, %v : vector<8xf32>
      %x = arith.addf %w, %half : vector<8xf32>
      %e = math.absf %v : vector<8xf32>
      %y = arith.divf %x, %e : vector<8xf32>
      affine.vector_store %y, %B[%i, %j] : memref<4x16xf32>, vector<8xf32>
    }
  }
  return
}
"""


def test_affine_vector_load_store_interpreter():
    a, b = harness_fill((4, 16), 0, "f32"), harness_fill((4, 16), 1, "f32")
    run_function(AFFINE_VECTOR, "k", [a, b])
    want = (a * a + np.float32(0.5)) / np.abs(a)
    assert want.dtype == np.float32 and np.array_equal(b, want)


@pytest.mark.toolchain
def test_affine_vector_load_store_native():
    check_same(AFFINE_VECTOR, "k", [None, None])


INT_VECTOR = """
func.func @k(%A: memref<3x8xi32>, %B: memref<3x8xi32>, %F: memref<8xf32>, %r: index, %c: index) -> (i32, i32, f32) {
  %v = vector.load %A[%r, %c] : memref<3x8xi32>, vector<4xi32>
  %s = arith.constant dense<[3, -3, 7, 1]> : vector<4xi32>
  %q = arith.divsi %v, %s : vector<4xi32>
  %m = arith.remsi %v, %s : vector<4xi32>
  %sh = arith.constant dense<[1, 30, 3, 31]> : vector<4xi32>
  %l = arith.shli %v, %sh : vector<4xi32>
  %u = arith.shrui %v, %sh : vector<4xi32>
  %lt = arith.cmpi slt, %q, %m : vector<4xi32>
  %pick = arith.select %lt, %l, %u : vector<4xi1>, vector<4xi32>
  %sum = arith.addi %pick, %q : vector<4xi32>
  vector.store %sum, %B[%c, %r] : memref<3x8xi32>, vector<4xi32>
  %x = vector.reduction <xor>, %sum : vector<4xi32> into i32
  %mx = vector.reduction <maxsi>, %v, %x : vector<4xi32> into i32
  %fv = arith.sitofp %v : vector<4xi32> to vector<4xf32>
  %seven = arith.constant 7.0 : f32
  %b = vector.broadcast %seven : f32 to vector<4xf32>
  %d = arith.divf %fv, %b : vector<4xf32>
  %c0 = arith.constant 0 : index
  vector.store %d, %F[%c] : memref<8xf32>, vector<4xf32>
  %p = vector.reduction <mul>, %d : vector<4xf32> into f32
  %e1 = vector.extract %sum[2] : i32 from vector<4xi32>
  %e2 = vector.extract %d[%r] : f32 from vector<4xf32>
  %pe = arith.addf %p, %e2 : f32
  %xe = arith.addi %mx, %e1 : i32
  return %x, %xe, %pe : i32, i32, f32
}
"""


def test_integer_vector_ops_interpreter():
    a, b, f = harness_fill((3, 8), 0, "i32"), harness_fill((3, 8), 1, "i32"), harness_fill((8,), 2, "f32")
    a[1, 2:6] = [-7, 2**30 + 5, -2**31, 9]
    x, xe, pe = run_function(INT_VECTOR, "k", [a, b, f, 1, 2])
    v = a[1, 2:6].astype(np.int64)
    s = np.array([3, -3, 7, 1])
    q = np.trunc(v / s).astype(np.int64)
    m = v - q * s
    sh = np.array([1, 30, 3, 31])
    wrap = lambda z: ((z + 2**31) % 2**32) - 2**31  # noqa: E731
    l, u = wrap(v << sh), wrap((v % 2**32) >> sh)
    total = wrap(np.where(q < m, l, u) + wrap(q))
    assert list(b[2, 1:5]) == list(total)
    assert x == total[0] ^ total[1] ^ total[2] ^ total[3]
    assert xe == wrap(max(max(v), x) + total[2])
    d = v.astype(np.float32) / np.float32(7)
    assert np.array_equal(f[2:6], d)
    assert pe == np.float32(np.float32(np.float32(np.float32(1) * d[0] * d[1]) * d[2]) * d[3]) + d[1]


@pytest.mark.toolchain
@pytest.mark.parametrize("r,c", [(1, 2), (2, 0), (0, 1)])
def test_integer_vector_ops_native(r, c):
    check_same(INT_VECTOR, "k", [None, None, None, r, c])


TRANSFERS = """
func.func @k(%A: memref<5x7xf32>, %B: memref<5x7xf32>, %C: memref<6x9xf32>, %i: index, %j: index, %m: index) -> f32 {
  %pad = arith.constant -9.0 : f32
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %v = vector.transfer_read %A[%i, %j], %pad : memref<5x7xf32>, vector<4xf32>
  %w = vector.transfer_read %A[%c0, %c2], %pad {in_bounds = [true]} : memref<5x7xf32>, vector<4xf32>
  %mask = vector.create_mask %m : vector<4xi1>
  %x = vector.transfer_read %A[%i, %c0], %pad, %mask : memref<5x7xf32>, vector<4xf32>
  %s = arith.addf %v, %w : vector<4xf32>
  %t = arith.addf %s, %x : vector<4xf32>
  vector.transfer_write %t, %B[%i, %j] : vector<4xf32>, memref<5x7xf32>
  vector.transfer_write %x, %B[%c0, %j], %mask : vector<4xf32>, memref<5x7xf32>
  %p = vector.transfer_read %A[%i, %j], %pad : memref<5x7xf32>, vector<3x4xf32>
  vector.transfer_write %p, %C[%c2, %c2] {in_bounds = [true, true]} : vector<3x4xf32>, memref<6x9xf32>
  %q = vector.broadcast %t : vector<4xf32> to vector<2x4xf32>
  vector.transfer_write %q, %C[%i, %j] : vector<2x4xf32>, memref<6x9xf32>
  %r = vector.reduction <add>, %t : vector<4xf32> into f32
  %p1 = vector.extract %p[1] : vector<4xf32> from vector<3x4xf32>
  %mx = vector.reduction <maximumf>, %p1 : vector<4xf32> into f32
  %out = arith.addf %r, %mx : f32
  return %out : f32
}
"""


def _transfer_read(a, i, j, shape, pad, mask=None):
    """Reference transfer_read with a minor-identity map: padding outside `a` or the mask."""
    out = np.full(shape, pad, a.dtype)
    for pos in np.ndindex(*shape):
        idx = (i,) * (a.ndim - len(shape)) + tuple(b + p for b, p in zip((i, j)[a.ndim - len(shape):], pos))
        if all(x < n for x, n in zip(idx, a.shape)) and (mask is None or mask[pos]):
            out[pos] = a[idx]
    return out


@pytest.mark.parametrize("i,j,m", [(1, 5, 2), (2, 1, 2)])
def test_transfers_with_padding_masks_and_bounds_interpreter(i, j, m):
    a, b, c = harness_fill((5, 7), 0, "f32"), harness_fill((5, 7), 1, "f32"), harness_fill((6, 9), 2, "f32")
    b0, c0 = b.copy(), c.copy()
    (out,) = run_function(TRANSFERS, "k", [a, b, c, i, j, m])
    pad = np.float32(-9)
    v = _transfer_read(a, i, j, (4,), pad)
    if j == 5:
        assert list(v) == [a[1, 5], a[1, 6], pad, pad]
    mask = np.arange(4) < m
    x = _transfer_read(a, i, 0, (4,), pad, mask)
    t = v + a[0, 2:6] + x
    n = min(4, 7 - j)  # lanes past the end are dropped
    b0[i, j:j + n] = t[:n]
    b0[0, j:j + n] = np.where(mask[:n], x[:n], b0[0, j:j + n])  # and so are masked-off lanes
    assert np.array_equal(b, b0)
    p = _transfer_read(a, i, j, (3, 4), pad)
    c0[2:5, 2:6] = p
    c0[i:i + 2, j:j + 4] = t
    assert np.array_equal(c, c0)
    r = np.float32(0)
    for e in t:
        r = np.float32(r + e)
    assert out == r + p[1].max()


@pytest.mark.toolchain
@pytest.mark.parametrize("i,j,m", [(1, 5, 2), (4, 7, 0), (3, 0, 4), (2, 3, 9), (0, 6, 3), (2, 1, 2), (0, 2, 1)])
def test_transfers_with_padding_masks_and_bounds_native(i, j, m):
    check_same(TRANSFERS, "k", [None, None, None, i, j, m])


SCALAR_KERNEL = """
func.func @k(%A: memref<37xf32>, %B: memref<37xf32>, %C: memref<37xf32>) -> f32 {
  %cst = arith.constant 0.0 : f32
  %k = arith.constant 1.5 : f32
  affine.for %i = 0 to 37 {
    %a = affine.load %A[%i] : memref<37xf32>
    %b = affine.load %B[%i] : memref<37xf32>
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %k : f32
    affine.store %s, %C[%i] : memref<37xf32>
  }
  %r = affine.for %i = 0 to 37 iter_args(%acc = %cst) -> f32 {
    %x = affine.load %C[%i] : memref<37xf32>
    %y = arith.addf %acc, %x : f32
    affine.yield %y : f32
  }
  return %r : f32
}
"""


@pytest.mark.toolchain
def test_super_vectorized_output_interpreter_vs_native():
    """mlir-opt's own vectorizer output (out-of-bounds transfers with ub.poison padding, a masked
    vector reduction) runs alike in the interpreter and natively; its stores equal the scalar run's."""
    if find_tool("mlir-opt") is None:
        pytest.skip("mlir-opt 22 not installed")
    p = mlir_opt(SCALAR_KERNEL, ["--affine-super-vectorize=virtual-vector-size=8 vectorize-reductions=true"])
    assert p.returncode == 0, p.stderr
    vectorized = p.stdout
    assert "vector.transfer_read" in vectorized and "vector.create_mask" in vectorized
    outs = check_same(vectorized, "k", [None, None, None])
    scalar = interpreted(SCALAR_KERNEL, "k", [None, None, None])
    assert outs[:3] == scalar[:3]  # C (and A, B) equal; the sum differs only by association


def test_vector_accesses_out_of_bounds_stop():
    load = """func.func @k(%A: memref<4x6xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %v = vector.load %A[%c0, %i] : memref<4x6xf32>, vector<4xf32>
  %r = vector.reduction <add>, %v : vector<4xf32> into f32
  return %r : f32
}"""
    a = harness_fill((4, 6), 0, "f32")
    assert run_function(load, "k", [a, 2]) == [np.float32(np.float32(np.float32(np.float32(0) + a[0, 2]) + a[0, 3])
                                                           + a[0, 4]) + a[0, 5]]
    with pytest.raises(InterpreterError, match=r"vector.load: vector of shape \[4\] at \[0, 3\] out of bounds"):
        run_function(load, "k", [a, 3])
    read = """func.func @k(%A: memref<4x6xf32>, %i: index, %j: index, %m: index) -> f32 {
  %p = arith.constant 0.0 : f32
  %mask = vector.create_mask %m : vector<4xi1>
  %v = vector.transfer_read %A[%i, %j], %p, %mask {in_bounds = [true]} : memref<4x6xf32>, vector<4xf32>
  %r = vector.reduction <add>, %v : vector<4xf32> into f32
  return %r : f32
}"""
    assert run_function(read, "k", [a, 0, 4, 2])[0] == a[0, 4] + a[0, 5]  # masked-off lanes may be outside
    with pytest.raises(InterpreterError, match="runs out of bounds along in_bounds dim 0"):
        run_function(read, "k", [a, 0, 4, 3])
    with pytest.raises(InterpreterError, match=r"transfer at \[4, 0\] out of bounds"):
        run_function(read, "k", [a, 4, 0, 1])  # the leading index is not transferred
    with pytest.raises(InterpreterError, match=r"transfer at \[0, -1\] out of bounds"):
        run_function(read, "k", [a, 0, -1, 1])


def test_n_d_vector_load_store_and_vector_arguments():
    # mlir-opt 22 does not lower n-D vector.load; the slice follows the op's definition.
    src = """func.func @k(%A: memref<3x4x6xf32>, %v: vector<2x3xf32>) -> vector<2x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %w = vector.load %A[%c1, %c2, %c1] : memref<3x4x6xf32>, vector<2x3xf32>
  vector.store %v, %A[%c0, %c1, %c2] : memref<3x4x6xf32>, vector<2x3xf32>
  %s = arith.addf %v, %w : vector<2x3xf32>
  return %s : vector<2x3xf32>
}"""
    a = harness_fill((3, 4, 6), 0, "f32")
    a0 = a.copy()
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    (s,) = run_function(src, "k", [a, v])
    assert np.array_equal(s, v + a0[1, 2:4, 1:4]) and np.array_equal(a[0, 1:3, 2:5], v)
    assert not s.flags.writeable
    with pytest.raises(InterpreterError, match="expects an array of dtype float32 and shape"):
        run_function(src, "k", [a, np.zeros((3, 2), np.float32)])


def test_a_vector_value_is_not_a_view_of_memory():
    src = """func.func @k(%A: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %v = vector.load %A[%c0] : memref<8xf32>, vector<8xf32>
  %z = arith.constant 0.0 : f32
  memref.store %z, %A[%c0] : memref<8xf32>
  %e = vector.extract %v[0] : f32 from vector<8xf32>
  return %e : f32
}"""
    a = harness_fill((8,), 0, "f32")
    first = a[0]
    assert run_function(src, "k", [a]) == [first] and a[0] == 0


# ---------------------------------------------------------------- what is not modelled stops

@pytest.mark.parametrize("op", [
    "%t = vector.transpose %v, [1, 0] : vector<2x4xf32> to vector<4x2xf32>",
    "%t = vector.transfer_read %A[%c0, %c0], %p {permutation_map = affine_map<(d0, d1) -> (d0)>} "
    ": memref<4x4xf32>, vector<2xf32>",
])
def test_an_unknown_op_stops_with_interpreter_error(op):
    src = f"""func.func @k(%A: memref<4x4xf32>, %v: vector<2x4xf32>) {{
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  {op}
  return
}}"""
    with pytest.raises(InterpreterError, match="cannot interpret"):
        run_function(src, "k", [np.zeros((4, 4), np.float32), np.zeros((2, 4), np.float32)])
