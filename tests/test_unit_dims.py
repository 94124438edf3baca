"""loopopt-drop-trailing-unit-dims (frontend/unit_dims.py): a temporary's trailing dimensions of
size 1 leave its type and its accesses.

Checked: the rewrite on hand-written affine programs (the maps lose their last results, a dynamic
leading size and the alignment stay, a dealloc follows; an argument, a buffer another op uses and
a strided layout are left alone; a buffer of all unit dimensions keeps one); and on the reduced
einsum of a Gram matrix (`bchw,bdhw->bcd`, torch-mlir's transposed operand ends in a unit
dimension: docs/cpu_codegen.md section 37), compiled and run natively, the results against the
step-less lowering bit for bit (sums in source order, no FMA) and against numpy, and the product
now a tile of vector lanes."""
from __future__ import annotations

import numpy as np
import pytest

import loopopt
from loopopt import frontend, mlir
from loopopt.frontend import unit_dims as ud

STEP = "loopopt-drop-trailing-unit-dims"
WITHOUT_STEP = frontend.join_pipeline([s for s in frontend.split_pipeline(frontend.lowering_pipeline()) if s != STEP])

GRAM = """
func.func @gram(%x: tensor<2x64x8x8xf32>) -> tensor<2x64x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %a = tensor.collapse_shape %x [[0], [1], [2, 3]] : tensor<2x64x8x8xf32> into tensor<2x64x64xf32>
  %u = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [2, 64, 8, 8, 1] : tensor<2x64x8x8xf32> into tensor<2x64x8x8x1xf32>
  %e = tensor.empty() : tensor<2x8x8x64x1xf32>
  %t = linalg.transpose ins(%u : tensor<2x64x8x8x1xf32>) outs(%e : tensor<2x8x8x64x1xf32>) permutation = [0, 2, 3, 1, 4]
  %b = tensor.collapse_shape %t [[0], [1, 2], [3, 4]] : tensor<2x8x8x64x1xf32> into tensor<2x64x64xf32>
  %e2 = tensor.empty() : tensor<2x64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %g = linalg.batch_matmul ins(%a, %b : tensor<2x64x64xf32>, tensor<2x64x64xf32>) outs(%f : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  return %g : tensor<2x64x64xf32>
}
"""


def _rewritten(text: str) -> str:
    m = mlir.parse_module(text)
    note = ud.drop_trailing_unit_dims(m, "<test>")
    assert mlir.verify(m.operation) is None
    return note + "\n" + str(m)


def test_trailing_unit_dims_leave_the_type_and_the_maps():
    out = _rewritten("""
func.func @f(%n: index, %out: memref<?x4xf32>) {
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x4x1x1xf32>
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 4 {
      affine.for %k = 0 to 1 {
        affine.store %c, %a[%i, %j, %k, 0] : memref<?x4x1x1xf32>
      }
    }
  }
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 4 {
      %v = affine.load %a[%i, %j, 0, 0] : memref<?x4x1x1xf32>
      affine.store %v, %out[%i, %j] : memref<?x4xf32>
    }
  }
  memref.dealloc %a : memref<?x4x1x1xf32>
  return
}""")
    assert "1 buffer(s) lost 2 trailing unit dimension(s)" in out
    assert "memref.alloc(%arg0) {alignment = 64 : i64} : memref<?x4xf32>" in out
    assert "affine.store %cst, %alloc[%arg2, %arg3] : memref<?x4xf32>" in out
    assert "affine.load %alloc[%arg2, %arg3] : memref<?x4xf32>" in out
    assert "memref.dealloc %alloc : memref<?x4xf32>" in out
    assert "x1xf32" not in out


def test_all_unit_dims_keep_one():
    out = _rewritten("""
func.func @f(%out: memref<1xf32>) {
  %a = memref.alloca() : memref<1x1xf32>
  %c = arith.constant 1.0 : f32
  affine.store %c, %a[0, 0] : memref<1x1xf32>
  %v = affine.load %a[0, 0] : memref<1x1xf32>
  affine.store %v, %out[0] : memref<1xf32>
  return
}""")
    assert "memref.alloca() : memref<1xf32>" in out and "%alloca[0] : memref<1xf32>" in out


@pytest.mark.parametrize("body", [
    # an argument: its type is the caller's
    "%v = affine.load %arg[0, 0] : memref<4x1xf32>\n affine.store %v, %out[0] : memref<4xf32>",
    # a buffer another op reads whole
    "%a = memref.alloc() : memref<4x1xf32>\n memref.copy %arg, %a : memref<4x1xf32> to memref<4x1xf32>\n"
    " %v = affine.load %a[0, 0] : memref<4x1xf32>\n affine.store %v, %out[0] : memref<4xf32>",
    # a strided layout
    "%a = memref.alloc() : memref<4x1xf32, strided<[2, 1]>>\n"
    " %v = affine.load %a[0, 0] : memref<4x1xf32, strided<[2, 1]>>\n affine.store %v, %out[0] : memref<4xf32>",
])
def test_left_alone(body):
    out = _rewritten(f"func.func @f(%arg: memref<4x1xf32>, %out: memref<4xf32>) {{\n {body}\n return\n}}")
    assert out.startswith("\n")  # no note: nothing rewritten


def test_use_refusal_names_the_user():
    m = mlir.parse_module("""
func.func @f(%arg: memref<4x1xf32>) {
  %a = memref.alloc() : memref<4x1xf32>
  memref.copy %arg, %a : memref<4x1xf32> to memref<4x1xf32>
  return
}""")
    alloc = next(o for o in mlir.walk(m.operation) if o.name == "memref.alloc")
    assert "memref.copy" in ud.use_refusal(alloc.results[0])
    assert ud.unit_dims_plan(alloc) is None


def test_gram_lowering_drops_the_transposed_operands_unit_dim():
    text = loopopt.optimize(GRAM, target="cpu", vector_bits=256).remarks_text()
    assert "[REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>)" in text
    assert "scalar copies" not in text
    # without the step, the register tile's lane test leaves the buffer's unit tail out (section 38):
    # the same vector tile, its lane loads through a memref.collapse_shape of the 2x8x8x64x1 buffer
    r = loopopt.optimize(GRAM, target="cpu", vector_bits=256, lowering_pipeline=WITHOUT_STEP)
    before = r.remarks_text()
    assert "[REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>)" in before
    assert "memref<2x8x8x64x1xf32> into memref<2x8x8x64xf32>" in r.text


def test_gram_results_unchanged_natively():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 64, 8, 8)).astype(np.float32)
    knobs = dict(target="cpu", reassociate=False, contract=False)
    with_step = loopopt.compile(GRAM, **knobs)
    without = loopopt.compile(GRAM, lowering_pipeline=WITHOUT_STEP, **knobs)
    a, b = with_step(x), without(x)
    np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))  # the same sums in the same order
    f = x.reshape(2, 64, 64).astype(np.float64)
    np.testing.assert_allclose(a, np.einsum("bck,bdk->bcd", f, f), rtol=1e-4, atol=1e-4)
    fast = loopopt.compile(GRAM, target="cpu")  # the framework defaults
    np.testing.assert_allclose(fast(x), a, rtol=1e-5, atol=1e-4)
