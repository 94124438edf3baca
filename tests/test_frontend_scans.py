"""loopopt-scans-to-loops (frontend/scans.py): torch-mlir's tm_tensor.scan (torch.cumsum) lowered to
affine loops (docs/cpu_codegen.md section 43).

Checked, compiled and run natively against a reference written from TMTensor's definition (the
same adds in the same order, float32, so bit for bit): inclusive along the last dimension (the
probe's cumsum), inclusive along the first dimension of a 3-D tensor, exclusive with the
accumulator result used, a scan of one element (the accumulator keeps its initial value), a
dynamic leading dimension, a dynamic scanned dimension (also empty); a multiplying region; a
dynamic scanned dimension whose accumulator result is used is still refused by name."""
from __future__ import annotations

import numpy as np
import pytest

import loopopt
from loopopt.errors import LoopOptError


def scan_program(shape: str, dim: int, inclusive: bool, acc_shape: str, combine: str = "arith.addf",
                 with_acc: bool = False) -> str:
    e = "f32"
    t, a = f"tensor<{shape}x{e}>", f"tensor<{acc_shape}{'x' if acc_shape else ''}{e}>"
    results = f"({t}, {a})" if with_acc else t
    ret = f"return %s#0, %s#1 : {t}, {a}" if with_acc else f"return %s#0 : {t}"
    return f"""
func.func @k(%x: {t}, %acc: {a}) -> {results} {{
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : {e}
  %d = tensor.dim %x, %c0 : {t}
  %e = tensor.empty(%d) : {t}
  %o = linalg.fill ins(%cst : {e}) outs(%e : {t}) -> {t}
  %s:2 = tm_tensor.scan dimension({dim}) inclusive({'true' if inclusive else 'false'}) ins(%x : {t}) outs(%o, %acc : {t}, {a}) {{
  ^bb0(%p: {e}, %v: {e}):
    %r = {combine} %p, %v : {e}
    tm_tensor.yield %r : {e}
  }} -> {t}, {a}
  {ret}
}}
""" if "?" in shape else f"""
func.func @k(%x: {t}, %acc: {a}) -> {results} {{
  %cst = arith.constant 0.0 : {e}
  %e = tensor.empty() : {t}
  %o = linalg.fill ins(%cst : {e}) outs(%e : {t}) -> {t}
  %s:2 = tm_tensor.scan dimension({dim}) inclusive({'true' if inclusive else 'false'}) ins(%x : {t}) outs(%o, %acc : {t}, {a}) {{
  ^bb0(%p: {e}, %v: {e}):
    %r = {combine} %p, %v : {e}
    tm_tensor.yield %r : {e}
  }} -> {t}, {a}
  {ret}
}}
"""


def reference(x: np.ndarray, acc: np.ndarray, dim: int, inclusive: bool, op=np.add):
    """TMTensor's loops: out[0] = in[0] (inclusive) or acc (exclusive); out[j] = f(out[j-1], in[j])
    (inclusive) or f(out[j-1], in[j-1]); acc = out[N-1] when N >= 2."""
    xs = np.moveaxis(x, dim, 0)
    out = np.empty_like(xs)
    if xs.shape[0] == 0:
        return np.moveaxis(out, 0, dim), acc
    out[0] = xs[0] if inclusive else acc
    for j in range(1, xs.shape[0]):
        out[j] = op(out[j - 1], xs[j] if inclusive else xs[j - 1])
    last = out[-1] if xs.shape[0] >= 2 else acc
    return np.moveaxis(out, 0, dim), last


def _run(text: str, x: np.ndarray, acc: np.ndarray):
    k = loopopt.compile(text, target="cpu", reassociate=False, contract=False)
    r = k(x, acc)
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.int32)


CASES = [  # shape, scanned dim, inclusive, accumulator shape, numpy shapes (x), with the accumulator result
    ("32x300", 1, True, "32", (32, 300), False),
    ("6x5x7", 0, True, "5x7", (6, 5, 7), True),
    ("4x9x3", 1, False, "4x3", (4, 9, 3), True),
    ("5x1", 1, True, "5", (5, 1), True),
    ("?x17", 1, True, "?", (6, 17), False),
    ("?x17", 0, True, "17", (6, 17), False),  # a dynamic scanned dimension (torch.compile's dynamic=True)
    ("?x17", 0, True, "17", (0, 17), False),  # ... empty: nothing is read
]


@pytest.mark.parametrize("shape, dim, inclusive, acc_shape, np_shape, with_acc", CASES)
def test_scan_runs_as_tmtensor_defines_it(shape, dim, inclusive, acc_shape, np_shape, with_acc):
    text = scan_program(shape, dim, inclusive, acc_shape, with_acc=with_acc)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(np_shape).astype(np.float32)
    acc = rng.standard_normal(tuple(s for k, s in enumerate(np_shape) if k != dim)).astype(np.float32)
    got = _run(text, x, acc)
    want_out, want_acc = reference(x, acc, dim, inclusive)
    np.testing.assert_array_equal(_bits(got[0]), _bits(want_out))
    if with_acc:
        np.testing.assert_array_equal(_bits(got[1]), _bits(want_acc))


def test_a_multiplying_scan_keeps_its_operand_order():
    """cumprod's region (arith.mulf of the previous output and the input)."""
    text = scan_program("8x50", 1, True, "8", combine="arith.mulf")
    rng = np.random.default_rng(1)
    x = (1 + 0.01 * rng.standard_normal((8, 50))).astype(np.float32)
    acc = np.zeros(8, np.float32)
    got = _run(text, x, acc)
    np.testing.assert_array_equal(_bits(got[0]), _bits(reference(x, acc, 1, True, np.multiply)[0]))


def test_the_lowering_says_what_it_did():
    text = scan_program("32x300", 1, True, "32")
    r = loopopt.optimize(text, target="cpu")
    assert "loopopt-scans-to-loops" in r.remarks_text()


def test_a_dynamic_scanned_dimension_with_its_accumulator_used_is_still_refused_by_name():
    text = scan_program("?x17", 0, True, "17", with_acc=True)
    with pytest.raises(LoopOptError, match="cannot lower 'tm_tensor.scan'"):
        loopopt.compile(text, target="cpu")


def test_an_empty_dynamic_scan_reads_nothing():
    """The interpreter checks every access is in bounds: with 0 rows the loops must not run."""
    from loopopt import frontend
    from loopopt.testing import run_on_inputs

    lowered = frontend.lower(scan_program("?x17", 0, True, "17"))
    x, acc, out = np.zeros((0, 17), np.float32), np.zeros(17, np.float32), np.zeros((0, 17), np.float32)
    got = run_on_inputs(str(lowered.module), "k", [x, acc, out])
    assert got[2].shape == (0, 17)


def test_a_dynamic_scan_inside_a_branch_runs():
    """Its loops' dynamic bounds are dims of a function argument (affine symbols anywhere)."""
    text = """
func.func @k(%x: tensor<?x17xf32>, %acc: tensor<?xf32>, %c: i1) -> tensor<?x17xf32> {
  %r = scf.if %c -> (tensor<?x17xf32>) {
    %s:2 = tm_tensor.scan dimension(1) inclusive(true) ins(%x : tensor<?x17xf32>) outs(%x, %acc : tensor<?x17xf32>, tensor<?xf32>) {
    ^bb0(%p: f32, %v: f32):
      %a = arith.addf %p, %v : f32
      tm_tensor.yield %a : f32
    } -> tensor<?x17xf32>, tensor<?xf32>
    scf.yield %s#0 : tensor<?x17xf32>
  } else {
    scf.yield %x : tensor<?x17xf32>
  }
  return %r : tensor<?x17xf32>
}
"""
    k = loopopt.compile(text, target="cpu", reassociate=False, contract=False)
    x = np.random.default_rng(2).standard_normal((5, 17)).astype(np.float32)
    acc = np.zeros(5, np.float32)
    for c in (1, 0):
        out = np.zeros((5, 17), np.float32)
        k(x, acc, c, out=out)
        want = reference(x, acc, 1, True)[0] if c else x
        np.testing.assert_array_equal(_bits(out), _bits(want))
