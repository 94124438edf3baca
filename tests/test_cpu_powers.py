"""Small constant integer powers become multiplications (codegen/cpu/powers.py), and no math op is
put on vector lanes that MLIR 22 cannot lower (codegen/cpu/plan/vector_math.py).

* `math.fpowi` with a constant exponent: LLVM's own expansion of `llvm.powi`, so every result
  keeps its bits: checked natively on 4,096 bit patterns per exponent (every class of f32: NaN,
  infinities, subnormals, overflowing squares) against the input as it is (mlir-runner).
* `math.powf` by 2 or 3: a product only with approximate_math (libm's powf is not the product
  on every input); without it the call stays and the results are bit-exact.
* A register tile whose epilogue holds an `fpowi` with a variable exponent: its iterations stay
  scalar copies (a vector exponent has no `llvm.intr.powi`), and the program runs.
* The interpreter runs `math.fpowi` (a torch model's `x.pow(2)` lowers to it): its bits equal the
  native code's for constant exponents (LLVM's expansion) and variable ones (compiler-rt's
  __powisf2), every f32 class included.
* Every math op the plan knows, on vectors, through the native lowering: only `fpowi` fails.
* A mask of i1 read in a register tile (gpt2_layer's causal mask): a vector of i1 is bit-packed,
  the buffer holds a byte per element, so its loads never become vector loads (the scores were
  0.17 off torch once the block's tile lowered).
"""
from __future__ import annotations

import numpy as np
import pytest

from loopopt import mlir, native
from loopopt.codegen.cpu.plan import cpu_plan
from loopopt.codegen.cpu.plan.vector_math import NO_VECTOR_LOWERING
from loopopt.codegen.cpu.powers import squaring_steps
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.toolchain import find_tool, mlir_opt

needs_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")
N = 4096
EXPONENTS = (-3, -2, -1, 0, 1, 2, 3, 4, 5, 7, 8, 13)


def cpu(**kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=256, **kw)


def bits_kernel(body: str, outputs: int) -> str:
    """A kernel storing the i32 bits of `body`'s results %r0.. for x = f32 bits of i * 0x9E3779B1
    (a spread over every exponent and sign: NaN, infinities, subnormals and zeros included)."""
    outs = ", ".join(f"%o{k}: memref<{N}xi32>" for k in range(outputs))
    stores = "\n".join(f"    %b{k} = arith.bitcast %r{k} : f32 to i32\n    affine.store %b{k}, %o{k}[%i] : memref<{N}xi32>"
                       for k in range(outputs))
    return f"""
func.func @k({outs}) {{
  %h = arith.constant -1640531535 : i32
  affine.for %i = 0 to {N} {{
    %ii = arith.index_cast %i : index to i32
    %hx = arith.muli %ii, %h : i32
    %x = arith.bitcast %hx : i32 to f32
{body}
{stores}
  }}
  return
}}
"""


def _bits(outputs) -> list[np.ndarray]:
    return [np.array(o.values, dtype=np.int64).astype(np.uint32) for o in outputs]


def _run(src: str) -> list[np.ndarray]:
    return _bits(native.run_native(src, "k", [None] * len(native.kernel_signature(src, "k").args), reps=1,
                                   full_limit=N).outputs)


def test_squaring_steps_are_llvms_expansion():
    # ExpandPowI: the result starts at the lowest set bit's power, squares follow the bits
    assert squaring_steps(1) == ([], "x")
    assert squaring_steps(2) == ([("s1", "x", "x")], "s1")
    assert squaring_steps(3) == ([("s1", "x", "x"), ("r1", "x", "s1")], "r1")
    assert squaring_steps(4) == ([("s1", "x", "x"), ("s2", "s1", "s1")], "s2")
    assert squaring_steps(6) == ([("s1", "x", "x"), ("s2", "s1", "s1"), ("r1", "s1", "s2")], "r1")
    assert squaring_steps(7) == ([("s1", "x", "x"), ("r1", "x", "s1"), ("s2", "s1", "s1"), ("r2", "r1", "s2")], "r2")
    assert squaring_steps(-2) == squaring_steps(2)


@needs_runner
def test_fpowi_by_constants_keeps_every_bit():
    body = "\n".join(f"    %n{k} = arith.constant {n} : i64\n    %r{k} = math.fpowi %x, %n{k} : f32, i64"
                     for k, n in enumerate(EXPONENTS))
    src = bits_kernel(body, len(EXPONENTS))
    res = optimize(src, cpu(), filename="t.mlir")
    assert "math.fpowi" not in res.text
    assert sum("[POWER]" in r.message for r in res.remarks) == len(EXPONENTS)
    plain, opt = _run(src), _run(res.text)
    for n, a, b in zip(EXPONENTS, plain, opt):
        assert np.array_equal(a, b), f"fpowi(x, {n}): {np.flatnonzero(a != b)[:5]}"


@needs_runner
def test_the_interpreter_computes_fpowi_as_the_native_code_does():
    from loopopt import interpreter

    body = "\n".join(f"    %n{k} = arith.constant {n} : i64\n    %r{k} = math.fpowi %x, %n{k} : f32, i64"
                     for k, n in enumerate(EXPONENTS))
    # a variable exponent -8..8 (a call of __powisf2 natively) and i32's extremes (i64 n, i32 n)
    k = len(EXPONENTS)
    body += (f"\n    %c17 = arith.constant 17 : i32\n    %c8 = arith.constant 8 : i32"
             f"\n    %m = arith.remsi %ii, %c17 : i32\n    %nv = arith.subi %m, %c8 : i32"
             f"\n    %r{k} = math.fpowi %x, %nv : f32, i32"
             f"\n    %big = arith.constant -2147483648 : i32\n    %r{k + 1} = math.fpowi %x, %big : f32, i32")
    src = bits_kernel(body, k + 2)
    outs = [np.zeros(N, dtype=np.int32) for _ in range(k + 2)]
    interpreter.run_function(src, "k", outs)
    for n, got, want in zip([*EXPONENTS, "variable", -2**31], outs, _run(src)):
        got = got.astype(np.uint32)
        assert np.array_equal(got, want), f"fpowi(x, {n}): elements {np.flatnonzero(got != want)[:5]}"


@needs_runner
def test_powf_stays_a_call_without_approximate_math_and_keeps_its_bits():
    body = ("    %two = arith.constant 2.0 : f32\n    %r0 = math.powf %x, %two : f32\n"
            "    %three = arith.constant 3.0 : f32\n    %r1 = math.powf %x, %three : f32")
    src = bits_kernel(body, 2)
    res = optimize(src, cpu(approximate_math=False), filename="t.mlir")
    assert res.text.count("math.powf") == 2
    assert sum("[STOP POWER]" in r.message for r in res.remarks) == 2
    for a, b in zip(_run(src), _run(res.text)):
        assert np.array_equal(a, b)


@needs_runner
def test_powf_by_two_and_three_with_approximate_math():
    body = ("    %two = arith.constant 2.0 : f32\n    %r0 = math.powf %x, %two : f32\n"
            "    %three = arith.constant 3.0 : f32\n    %r1 = math.powf %x, %three : f32\n"
            "    %half = arith.constant 2.5 : f32\n    %r2 = math.powf %x, %half : f32")
    src = bits_kernel(body, 3)
    res = optimize(src, cpu(approximate_math=True), filename="t.mlir")
    assert res.text.count("math.powf") == 1  # 2.5 is not an integer
    plain, opt = _run(src), _run(res.text)
    x = (np.arange(N, dtype=np.uint64) * 0x9E3779B1 % 2 ** 32).astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        square = (x.astype(np.float64) ** 2).astype(np.float32)  # exact in f64, rounded once
    got = opt[0].view(np.float32)
    same = (got.view(np.uint32) == square.view(np.uint32)) | (np.isnan(got) & np.isnan(square))
    assert same.all(), "x * x is the correctly rounded square"

    def ordered(b: np.ndarray) -> np.ndarray:
        i = b.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(2 ** 31) - i, i)

    finite = ~np.isnan(plain[1].view(np.float32))
    ulps = np.abs(ordered(plain[1]) - ordered(opt[1]))[finite]
    assert ulps.max() <= 1, "x * (x * x) is within 1 ulp of libm's powf(x, 3)"
    assert np.array_equal(plain[2], opt[2])


TILED_FPOWI = """
func.func @k(%A: memref<8x16xf32>, %B: memref<16x32xf32>, %E: memref<1xi32>, %C: memref<8x32xf32>) {
  %z = arith.constant 0.0 : f32
  %n = affine.load %E[0] : memref<1xi32>
  %c5 = arith.constant 5 : i32
  %e = arith.remsi %n, %c5 : i32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 32 {
      %s = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<8x16xf32>
        %b = affine.load %B[%k, %j] : memref<16x32xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %acc, %p : f32
        affine.yield %t : f32
      }
      %q = math.fpowi %s, %e : f32, i32
      affine.store %q, %C[%i, %j] : memref<8x32xf32>
    }
  }
  return
}
"""


@needs_runner
def test_a_variable_power_keeps_the_tile_scalar_and_runs():
    res = optimize(TILED_FPOWI, cpu(reassociate=False), filename="t.mlir")
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message]
    assert "math.fpowi" in res.text and "vector<8xi32>" not in res.text
    tile = [r for r in res.remarks if r.pass_name == "register-tile"]
    assert tile, [r.render() for r in res.remarks]
    sizes = [None] * 4
    a = native.run_native(TILED_FPOWI, "k", sizes, reps=1, full_limit=1000).outputs
    b = native.run_native(res.text, "k", sizes, reps=1, full_limit=1000).outputs
    assert native.compare_outputs(a, b) is None


def _vector_function(name: str) -> str:
    v = "vector<8xf32>"
    if name == "math.fpowi":
        return (f"func.func @f(%v: {v}, %e: vector<8xi32>) -> {v} {{\n  %r = math.fpowi %v, %e : {v}, vector<8xi32>\n"
                f"  return %r : {v}\n}}\n")
    if name in ("math.absi", "math.ctpop"):
        v = "vector<8xi32>"
    args = {"math.fma": "%v, %v, %v", "math.copysign": "%v, %v", "math.powf": "%v, %v", "math.atan2": "%v, %v"}
    return f"func.func @f(%v: {v}) -> {v} {{\n  %r = {name} {args.get(name, '%v')} : {v}\n  return %r : {v}\n}}\n"


@pytest.mark.skipif(find_tool("mlir-opt") is None, reason="mlir-opt 22 not installed")
@pytest.mark.parametrize("name", sorted(cpu_plan.VECTOR_MATH | cpu_plan.LIBM_MATH_APPROXIMATED
                                        | {"math.powf", "math.fpowi", "math.atan2", "math.sin", "math.cbrt"}))
def test_math_ops_on_vectors_lower_unless_listed(name):
    p = mlir_opt(_vector_function(name), list(native.LOWERING_PASSES))
    assert (p.returncode == 0) == (name not in NO_VECTOR_LOWERING), p.stderr[-400:]
    if p.returncode == 0:
        assert "math." not in p.stdout
    mlir.parse_module(_vector_function(name))  # the test's own IR is valid


MASKED_SCORES = """
func.func @k(%Q: memref<16x8xf32>, %K: memref<8x32xf32>, %mask: memref<16x32xi1>, %S: memref<16x32xf32>) {
  %z = arith.constant 0.0 : f32
  %low = arith.constant -3.0e+38 : f32
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %s = affine.for %k = 0 to 8 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %Q[%i, %k] : memref<16x8xf32>
        %b = affine.load %K[%k, %j] : memref<8x32xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %acc, %p : f32
        affine.yield %t : f32
      }
      %keep = affine.load %mask[%i, %j] : memref<16x32xi1>
      %v = arith.select %keep, %s, %low : f32
      affine.store %v, %S[%i, %j] : memref<16x32xf32>
    }
  }
  return
}
"""


@needs_runner
def test_a_mask_of_i1_is_never_loaded_as_a_vector():
    res = optimize(MASKED_SCORES, cpu(reassociate=False), filename="t.mlir")
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message]
    assert [r for r in res.remarks if r.pass_name == "register-tile"]
    assert not [ln for ln in res.text.splitlines() if "vector_load" in ln and "xi1>" in ln]
    sizes = [None] * 4
    a = native.run_native(MASKED_SCORES, "k", sizes, reps=1, full_limit=1000).outputs
    b = native.run_native(res.text, "k", sizes, reps=1, full_limit=1000).outputs
    assert native.compare_outputs(a, b) is None
