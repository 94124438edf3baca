"""Lowering step `loopopt-matmul-of-broadcast-operand` (frontend/shared_operand.py): a
linalg.batch_matmul whose right operand broadcasts one matrix over the batch (torch's F.linear of
a transposed 3-D input: nn.MultiheadAttention with batch_first=True) runs as one linalg.matmul of
the batch's rows. The IR, what is left and why, and natively the same values bit for bit as the
lowering without the step (docs/cpu_codegen.md section 49)."""
from __future__ import annotations

import pytest

import loopopt
from loopopt.frontend import linalg
from loopopt.testing import native_mismatch
from lowering_util import step_lowering
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

STEP = "loopopt-matmul-of-broadcast-operand"

# torch-mlir's F.linear of a transposed (B, M, K) input: W^T broadcast over the batch, a batched
# product onto zeros, then the bias.
LINEAR = """#w = affine_map<(d0, d1, d2) -> (WMAP)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
func.func @k(%x: tensor<BxMxKxf32>, %wt: tensor<KxNxf32>, %b: tensor<Nxf32>) -> tensor<BxMxNxf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<BxKxNxf32>
  %wb = linalg.generic {indexing_maps = [#w, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wt : tensor<KxNxf32>) outs(%e : tensor<BxKxNxf32>) {
  ^bb0(%in: f32, %o: f32):
    BODY
  } -> tensor<BxKxNxf32>
  %e2 = tensor.empty() : tensor<BxMxNxf32>
  %c = linalg.fill ins(%zero : f32) outs(%e2 : tensor<BxMxNxf32>) -> tensor<BxMxNxf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<BxMxKxf32>, tensor<BxKxNxf32>) outs(%c : tensor<BxMxNxf32>) -> tensor<BxMxNxf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<BxMxNxf32>, tensor<Nxf32>) outs(%e2 : tensor<BxMxNxf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<BxMxNxf32>
  return %r : tensor<BxMxNxf32>
}
"""


def linear(b=6, m=5, k=12, n=20, wmap="d1, d2", body="linalg.yield %in : f32") -> str:
    text = LINEAR.replace("WMAP", wmap).replace("BODY", body)
    for name, v in (("Bx", b), ("Mx", m), ("Kx", k), ("Nx", n)):
        text = text.replace(name, f"{v}x")
    return text


lowered, note = step_lowering(STEP)


def test_the_step_is_in_the_pipeline():
    assert STEP in linalg.steps() and STEP in linalg.steps(elementwise_fusion=True)


def test_the_batched_product_of_a_broadcast_weight_is_one_matrix_product():
    low = lowered(linear())
    assert note(low) == "one product: linalg.batch_matmul at <input>:14:8: a batch of 6 over one 12x20xf32 matrix", note(low)
    # no buffer of the batch's copies of the weight (before: memref<6x12x20xf32>, written every call)
    assert "6x12x20" not in low.text, low.text
    assert "6x12x20" in lowered(linear(), step=False).text


@has_runner
@pytest.mark.parametrize("b,m,k,n", [(6, 5, 12, 20), (64, 8, 32, 24), (2, 7, 3, 9)])
def test_the_same_values_bit_for_bit(b, m, k, n):
    src = linear(b, m, k, n)
    assert note(lowered(src)).startswith("one product:")
    assert native_mismatch(lowered(src, step=False).text, lowered(src).text, kernel="k") is None
    # and loopopt's output of each: the plans differ (a batched and a plain product's register
    # tiles, which contract the multiply-adds differently), so within rounding
    a = loopopt.optimize(lowered(src, step=False).text, target="cpu").text
    bb = loopopt.optimize(src, target="cpu").text
    assert native_mismatch(a, bb, kernel="k", rtol=1e-6, normwise=True) is None


BROADCAST_OP = """func.func @k(%x: tensor<4x3x8xf32>, %w: tensor<8x16xf32>, %c: tensor<4x3x16xf32>) -> tensor<4x3x16xf32> {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %wb = linalg.broadcast ins(%w : tensor<8x16xf32>) outs(%e : tensor<4x8x16xf32>) dimensions = [0]
  %y = linalg.batch_matmul ins(%x, %wb : tensor<4x3x8xf32>, tensor<4x8x16xf32>) outs(%c : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %y : tensor<4x3x16xf32>
}
"""


def test_linalg_broadcast_onto_an_accumulator():
    """linalg.broadcast's form, the product added onto an input (not zeros): C's rows are collapsed too."""
    low = lowered(BROADCAST_OP)
    assert note(low).startswith("one product: linalg.batch_matmul at <input>:4:8: a batch of 4 over one 8x16xf32"), note(low)
    assert "4x8x16" not in low.text
    if find_tool("mlir-runner") is not None:
        assert native_mismatch(lowered(BROADCAST_OP, step=False).text, low.text, kernel="k") is None


DYNAMIC = """func.func @k(%x: tensor<?x3x8xf32>, %w: tensor<8x16xf32>, %c: tensor<?x3x16xf32>) -> tensor<?x3x16xf32> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %x, %c0 : tensor<?x3x8xf32>
  %e = tensor.empty(%b) : tensor<?x8x16xf32>
  %wb = linalg.broadcast ins(%w : tensor<8x16xf32>) outs(%e : tensor<?x8x16xf32>) dimensions = [0]
  %y = linalg.batch_matmul ins(%x, %wb : tensor<?x3x8xf32>, tensor<?x8x16xf32>) outs(%c : tensor<?x3x16xf32>) -> tensor<?x3x16xf32>
  return %y : tensor<?x3x16xf32>
}
"""


@has_runner
def test_a_dynamic_batch_reads_the_matrix_in_place():
    """A dynamic batch: no reshape (a collapsed buffer's dims would bound the loops, a view the
    lowering does not re-index); the batched loops read W itself, bit for bit at two batch sizes."""
    low = lowered(DYNAMIC)
    assert note(low) == "one product: linalg.batch_matmul at <input>:6:8: a dynamic batch reads one 8x16xf32 matrix", note(low)
    assert "8x16xf32>" in low.text and "x8x16xf32>" not in low.text, low.text
    for batch in (5, 1):
        sizes = [(batch, 3, 8), (8, 16), (batch, 3, 16), (batch, 3, 16)]
        assert native_mismatch(lowered(DYNAMIC, step=False).text, low.text, sizes, kernel="k") is None
    a = loopopt.optimize(lowered(DYNAMIC, step=False).text, target="cpu").text
    b = loopopt.optimize(DYNAMIC, target="cpu").text
    assert native_mismatch(a, b, [(5, 3, 8), (8, 16), (5, 3, 16), (5, 3, 16)], kernel="k", rtol=1e-6, normwise=True) is None


def test_a_dynamic_batch_of_integers_stays_batched():
    src = DYNAMIC.replace("f32", "i32")
    assert note(lowered(src)) == ("kept: linalg.batch_matmul at <input>:6:8: a size is dynamic and its elements "
                                  "are not floats"), note(lowered(src))


LEFT = """func.func @k(%w: tensor<3x8xf32>, %x: tensor<4x8x16xf32>, %c: tensor<4x3x16xf32>) -> tensor<4x3x16xf32> {
  %e = tensor.empty() : tensor<4x3x8xf32>
  %wb = linalg.broadcast ins(%w : tensor<3x8xf32>) outs(%e : tensor<4x3x8xf32>) dimensions = [0]
  %y = linalg.batch_matmul ins(%wb, %x : tensor<4x3x8xf32>, tensor<4x8x16xf32>) outs(%c : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %y : tensor<4x3x16xf32>
}
"""

# R's map over (b, m, n, k) is (b, n, k): the product reads R transposed, as batch_matmul_transpose_b.
TRANSPOSED_MAPS = """func.func @k(%x: tensor<4x3x8xf32>, %w: tensor<16x8xf32>, %c: tensor<4x3x16xf32>) -> tensor<4x3x16xf32> {
  %e = tensor.empty() : tensor<4x16x8xf32>
  %wb = linalg.broadcast ins(%w : tensor<16x8xf32>) outs(%e : tensor<4x16x8xf32>) dimensions = [0]
  %y = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%x, %wb : tensor<4x3x8xf32>, tensor<4x16x8xf32>) outs(%c : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %y : tensor<4x3x16xf32>
}
"""


@pytest.mark.parametrize("name,src,why", [
    ("left", LEFT, "its broadcast operand is the left one (the batch runs along the product's columns)"),
    ("transposed maps", TRANSPOSED_MAPS, "its indexing maps are not the default ones (a transposed or broadcast operand)"),
])
def test_what_stays_batched_says_why(name, src, why):
    low = lowered(src)
    assert note(low) == f"kept: linalg.batch_matmul at <input>:4:8: {why}", note(low)
    assert "linalg.batch_matmul" not in low.text  # lowered to loops all the same
    if find_tool("mlir-runner") is not None:
        assert native_mismatch(lowered(src, step=False).text, low.text, kernel="k") is None


# linalg.broadcast along the middle dimension: R[b, k, n] = V[b, n], one row per batch (K = B = 4)
BY_ROWS = """func.func @k(%x: tensor<4x3x4xf32>, %v: tensor<4x16xf32>, %c: tensor<4x3x16xf32>) -> tensor<4x3x16xf32> {
  %e = tensor.empty() : tensor<4x4x16xf32>
  %vb = linalg.broadcast ins(%v : tensor<4x16xf32>) outs(%e : tensor<4x4x16xf32>) dimensions = [1]
  %y = linalg.batch_matmul ins(%x, %vb : tensor<4x3x4xf32>, tensor<4x4x16xf32>) outs(%c : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %y : tensor<4x3x16xf32>
}
"""


@pytest.mark.parametrize("name,src", [
    ("broadcast along k", BY_ROWS),
    # the weight broadcast transposed: R[b, k, n] = W[n, k], not W's rows
    ("transposed broadcast", linear(k=12, n=12, wmap="d2, d1")),
    # not a copy: R[b, k, n] = 2 W[k, n]
    ("scaled", linear(body="%t = arith.addf %in, %in : f32\n    linalg.yield %t : f32")),
])
def test_what_is_not_a_broadcast_is_left(name, src):
    low = lowered(src)
    assert note(low) == "", note(low)
    assert "linalg" not in low.text
    if find_tool("mlir-runner") is not None:
        assert native_mismatch(lowered(src, step=False).text, low.text, kernel="k") is None


def test_the_remarks():
    msgs = [r.message for r in loopopt.optimize(linear(), target="cpu").remarks]
    assert any(m.startswith("[SHARED OPERAND] a batched product of one broadcast matrix runs as one matrix "
                            "product: linalg.batch_matmul at") for m in msgs), msgs
    msgs = [r.message for r in loopopt.optimize(LEFT, target="cpu").remarks]
    assert any(m.startswith("[STOP SHARED OPERAND] the broadcast operand is materialised: linalg.batch_matmul at")
               for m in msgs), msgs
