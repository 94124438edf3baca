"""math.expm1 keeps a small argument's digits on the cpu target (codegen/cpu/expm1.py).

MLIR 22 lowers `math.expm1` as `exp(x) - 1`, which gives 0 for expm1(1e-10) in f32. The step
writes Kahan's formula; these tests run the optimized programs natively (mlir-runner) and compare
every result with the true expm1 (numpy in f64 or long double, rounded), in ulp of the result:
scalar loops and vector ops, f32 and f64, with and without approximate_math, and the special values
(0, -0, infinities, NaN, the arguments where exp overflows or underflows).
"""
from __future__ import annotations

import numpy as np
import pytest

from loopopt import mlir, native
from loopopt.codegen.cpu.expm1 import KEPT, MAX_ULP, REWRITTEN
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.toolchain import find_tool

needs_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

SPECIAL = [0.0, -0.0, 1e-10, -1e-10, 1e-7, -1e-7, 1e-3, -1e-3, 0.5, -0.5, 1.0, -1.0, 10.0, -10.0, 50.0,
           -50.0, 88.0, 89.0, 700.0, 710.0, -17.0, -90.0, -104.0, -800.0, float("inf"), float("-inf"), float("nan")]


def cpu(**kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=256, **kw)


def arguments(n: int, dtype) -> np.ndarray:
    """SPECIAL, then magnitudes spread over 10^-30 .. 10^3 of both signs."""
    rng = np.random.default_rng(7)
    spread = np.sign(rng.standard_normal(n)) * 10.0 ** rng.uniform(-30, 2.5, n)
    return np.concatenate([np.array(SPECIAL), spread])[:n].astype(dtype)


def literal(v, elem: str) -> str:
    """An MLIR dense element: the value, or the bit pattern (hex) of an infinity or NaN."""
    if np.isfinite(v):
        text = repr(float(v))  # MLIR's float literal needs a '.': 1e-10 is written 1.0e-10
        return text if "." in text else text.replace("e", ".0e")
    dtype, itype = (np.float32, np.uint32) if elem == "f32" else (np.float64, np.uint64)
    return hex(int(np.array(v, dtype).view(itype)))


def program(n: int, elem: str, lanes: int = 0) -> str:
    """y[i] = expm1(x[i]), x a constant (SPECIAL, then a spread of magnitudes); with `lanes`, the
    loop steps by that many and expm1 is on vectors (a register tile's epilogue)."""
    values = ", ".join(literal(v, elem) for v in arguments(n, np.float32 if elem == "f32" else np.float64))
    t = f"vector<{lanes}x{elem}>" if lanes else elem
    load = f"affine.vector_load %x[%i] : memref<{n}x{elem}>, {t}" if lanes else f"affine.load %x[%i] : memref<{n}x{elem}>"
    store = (f"affine.vector_store %e, %y[%i] : memref<{n}x{elem}>, {t}" if lanes
             else f"affine.store %e, %y[%i] : memref<{n}x{elem}>")
    return f"""
memref.global "private" constant @xs : memref<{n}x{elem}> = dense<[{values}]>
func.func @k(%y: memref<{n}x{elem}>) {{
  %x = memref.get_global @xs : memref<{n}x{elem}>
  affine.for %i = 0 to {n} step {lanes or 1} {{
    %v = {load}
    %e = math.expm1 %v : {t}
    {store}
  }}
  return
}}
"""


def ulp_errors(got: np.ndarray, x: np.ndarray) -> np.ndarray:
    """|got - expm1(x)| in ulp of the correctly rounded expm1 (long double reference); equal
    NaNs and equal infinities count 0."""
    exact = np.expm1(x.astype(np.longdouble))
    ref = exact.astype(x.dtype)
    both_nan = np.isnan(got) & np.isnan(ref)
    same = (got == ref) | both_nan
    ulp = np.spacing(np.abs(ref).astype(x.dtype)).astype(np.longdouble)
    err = np.abs(got.astype(np.longdouble) - exact) / ulp
    return np.where(same, 0.0, err).astype(np.float64)


def run(elem: str, n: int = 256, lanes: int = 0, **kw) -> tuple[str, np.ndarray, np.ndarray]:
    src = program(n, elem, lanes)
    out = optimize(src, cpu(**kw))
    got = native.run_native(out.text, "k", [None], reps=1, full_limit=n).outputs[0]
    dtype = np.float32 if elem == "f32" else np.float64
    return out.text, np.array(got.values, dtype=dtype), arguments(n, dtype)


@needs_runner
@pytest.mark.parametrize("elem", ["f32", "f64"])
@pytest.mark.parametrize("approximate", [False, True])
@pytest.mark.parametrize("lanes", [0, 4])
def test_expm1_is_within_a_few_ulp_everywhere(elem, approximate, lanes):
    text, got, x = run(elem, lanes=lanes, approximate_math=approximate)
    assert "math.expm1" not in text
    err = ulp_errors(got, x)
    worst = int(np.argmax(err))
    assert err[worst] <= MAX_ULP[elem], f"expm1({x[worst]!r}) = {got[worst]!r}: {err[worst]:.1f} ulp"
    # the special values exactly
    assert got[0] == 0 and not np.signbit(got[0]) and got[1] == 0 and np.signbit(got[1])
    assert np.isposinf(got[SPECIAL.index(float("inf"))]) and got[SPECIAL.index(float("-inf"))] == -1
    assert np.isnan(got[len(SPECIAL) - 1])


@needs_runner
def test_mlir_lowering_alone_loses_small_arguments():
    """The reason for the step: the input lowered as it is gives exp(x) - 1 (expm1(1e-10) = 0)."""
    n = 64
    src = program(n, "f32")
    got = np.array(native.run_native(src, "k", [None], reps=1, full_limit=n).outputs[0].values, dtype=np.float32)
    assert got[SPECIAL.index(1e-10)] == 0.0


def test_each_op_is_rewritten_with_a_remark_and_verifies():
    out = optimize(program(16, "f32"), cpu())
    assert "math.expm1" not in out.text and "math.exp " in out.text and "math.log " in out.text
    assert [r.message for r in out.remarks.remarks if r.pass_name == "expm1"] == [REWRITTEN]
    assert mlir.verify(mlir.parse_module(out.text).operation) is None


def test_the_neuron_targets_keep_expm1():
    out = optimize(program(16, "f32"), Options())
    assert "math.expm1" in out.text


def test_other_element_types_keep_expm1_with_a_remark():
    """f16 (and bf16) are not rewritten: the op stays, the remark names the type, the IR verifies."""
    src = """
func.func @k(%x: memref<8xf16>, %y: memref<8xf16>) {
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf16>
    %e = math.expm1 %v : f16
    affine.store %e, %y[%i] : memref<8xf16>
  }
  return
}
"""
    out = optimize(src, cpu())
    assert "math.expm1" in out.text
    kept = [r for r in out.remarks.remarks if r.pass_name == "expm1"]
    assert [(r.message, r.detail) for r in kept] == [(KEPT, "element type f16: only f32 and f64 are rewritten")]
    assert mlir.verify(mlir.parse_module(out.text).operation) is None
