"""Step `product-views` (codegen/cpu/linear_views.py `run_products`, rule in
codegen/cpu/plan/linear_views.py `plan_lanes_views`, docs/cpu_codegen.md section 75): a product
whose column index joins a batch dimension with the contiguous one (torch-mlir's einsum
`td,edh->teh`: x @ W viewed as d x (e*h), its B read at [d, j floordiv H, j mod H]) reads B (and
C) through a view joining those dimensions at base + j before the loop order and the register tile
are planned, so that j gives the tile its lanes; an access whose loop holds a loop whose bounds
use the counter stays as it is, with a remark saying why."""
from __future__ import annotations

import pytest

import loopopt
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

# td,edh->teh at 8 tokens, d 16, 4 experts of 32: the columns j = e * 32 + h of x @ W.
EXPERTS = """func.func @experts(%x: memref<8x16xf32>, %w: memref<16x4x32xf32>, %o: memref<8x128xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %t = 0 to 8 {
    affine.for %j = 0 to 128 {
      affine.store %z, %o[%t, %j] : memref<8x128xf32>
    }
  }
  affine.for %t = 0 to 8 {
    affine.for %j = 0 to 128 {
      affine.for %d = 0 to 16 {
        %a = affine.load %x[%t, %d] : memref<8x16xf32>
        %b = affine.load %w[%d, %j floordiv 32, %j mod 32] : memref<16x4x32xf32>
        %c = affine.load %o[%t, %j] : memref<8x128xf32>
        %m = arith.mulf %a, %b : f32
        %s = arith.addf %c, %m : f32
        affine.store %s, %o[%t, %j] : memref<8x128xf32>
      }
    }
  }
  return
}
"""

# The same with the result stored as t x e x h (C delinearized too).
EXPERTS_3D = (EXPERTS.replace("%o: memref<8x128xf32>", "%o: memref<8x4x32xf32>")
              .replace("%o[%t, %j] : memref<8x128xf32>", "%o[%t, %j floordiv 32, %j mod 32] : memref<8x4x32xf32>"))

# A loop inside the columns loop whose bounds use its counter (k from j to j + 2), and an address
# that moves by one element between the iterations the nest runs but not between the others:
# (j - k + 1) mod 3 + 3k is contiguous along j only where j - k is -1 or 0. Read at base + j it
# would be wrong (k = 2: element 10 for 7).
MOVING = """func.func @moving(%x: memref<80xf32>, %o: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %j = 0 to 14 {
    %r = affine.for %k = affine_map<(d0) -> (d0)>(%j) to affine_map<(d0) -> (d0 + 2)>(%j) iter_args(%a = %z) -> (f32) {
      %v = affine.load %x[(%j - %k + 1) mod 3 + %k * 3] : memref<80xf32>
      %s = arith.addf %a, %v : f32
      affine.yield %s : f32
    }
    affine.store %r, %o[%j] : memref<16xf32>
  }
  return
}
"""


@pytest.mark.parametrize("src", [EXPERTS, EXPERTS_3D], ids=["teh-joined", "teh-stored"])
def test_the_experts_columns_give_the_register_tile_its_lanes(src):
    """Before, B's index moved by an unknown step along j: the register tile was a scalar 4 x 3
    ("scalar copies: LLVM cannot vectorize the reduction loop either")."""
    c = optimize_and_compare(src, "experts", natively=False)  # bit for bit: the order is kept
    assert any("[LINEAR VIEW]" in m and "dimensions 1..2 of 16x4x32" in m for m in c.messages), c.messages
    tiles = [m for m in c.messages if m.startswith("[REGISTER TILING]")]
    assert tiles and all("vector accumulators (vector<8xf32>)" in m for m in tiles), tiles
    assert "floordiv" not in c.text and " mod " not in c.text, c.text


def test_the_view_joins_the_experts_and_their_columns():
    out = loopopt.optimize(EXPERTS, target="cpu").text
    assert "memref.collapse_shape %arg1 [[0], [1, 2]] : memref<16x4x32xf32> into memref<16x128xf32>" in out, out


@has_runner
@pytest.mark.parametrize("src", [EXPERTS, EXPERTS_3D], ids=["teh-joined", "teh-stored"])
def test_the_experts_run_natively_as_before(src):
    assert optimize_and_compare(src, "experts", interpret=False, natively=True).native


def test_a_loop_whose_bounds_move_with_the_counter_keeps_its_access():
    c = optimize_and_compare(MOVING, "moving", natively=False)
    assert not any("[LINEAR VIEW]" in m for m in c.messages), c.messages
    assert " mod 3" in c.text, c.text
    explained = [r.message for r in loopopt.optimize(MOVING, target="cpu", passes=["product-views"]).remarks]
    assert any("[STOP LINEAR VIEW]" in m and "a loop inside its loop has bounds that use the loop's counter" in m
               for m in explained), explained


@has_runner
def test_the_refused_access_runs_natively_as_it_was():
    assert optimize_and_compare(MOVING, "moving", interpret=False, natively=True).native
