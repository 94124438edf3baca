"""Step `flat-loops` (codegen/cpu/flat_loops.py): an innermost loop over the columns of a
contiguous map alone in its rows loop runs with it as one loop through collapse views (a row of
whole vectors too); the IR, the interpreter's and the native results, and what is left."""
from __future__ import annotations

import pytest

import loopopt
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

SCALE = """func.func @scale(%x: memref<2x8x7x7xf32>, %s: memref<8xf32>, %o: memref<2x8x7x7xf32>) {
  affine.for %n = 0 to 2 {
    affine.for %c = 0 to 8 {
      %v = affine.load %s[%c] : memref<8xf32>
      affine.for %h = 0 to 7 {
        affine.for %w = 0 to 7 {
          %a = affine.load %x[%n, %c, %h, %w] : memref<2x8x7x7xf32>
          %b = arith.mulf %a, %v : f32
          affine.store %b, %o[%n, %c, %h, %w] : memref<2x8x7x7xf32>
        }
      }
    }
  }
  return
}
"""


def optimize(src: str, passes=None):
    res = loopopt.optimize(src, target="cpu", passes=passes)
    return res.text, [r.message for r in res.remarks]


def test_an_elementwise_map_of_7_x_7_runs_as_one_loop_of_49():
    c = optimize_and_compare(SCALE, "scale", natively=False)  # the native run: the next test
    out, remarks = c.text, c.messages
    assert any("[FLAT LOOPS] the loops over 7 rows and 7 columns run as one loop of 49 columns" in r for r in remarks), remarks
    assert out.count("memref.collapse_shape") == 2, out
    assert "affine.for %arg5 = 0 to 49" in out or "to 49 {" in out, out
    assert "to 7 {" not in out, out


@has_runner
def test_the_flat_loop_runs_natively_as_the_two_did():
    # bit-exact: the same ops on the same elements
    assert optimize_and_compare(SCALE, "scale", interpret=False, natively=True).native


WHOLE_ROWS = SCALE.replace("7x7", "32x32").replace("0 to 7 {\n        affine.for %w = 0 to 7",
                                                    "0 to 32 {\n        affine.for %w = 0 to 32")


def test_rows_of_whole_vectors_run_as_one_loop_too():
    """32 columns are two vectors of 16: LLVM would unroll the columns loop whole and vectorize the
    rows loop across rows by gathers and scatters (docs/cpu_codegen.md section 41)."""
    c = optimize_and_compare(WHOLE_ROWS, "scale", natively=False)
    assert any("[FLAT LOOPS] the loops over 32 rows and 32 columns run as one loop of 1024 columns" in r
               for r in c.messages), c.messages
    assert "to 1024 {" in c.text and "to 32 {" not in c.text, c.text


@has_runner
def test_rows_of_whole_vectors_natively_as_the_two_loops_did():
    assert optimize_and_compare(WHOLE_ROWS, "scale", interpret=False, natively=True).native


# the channel taken apart by floordiv and mod before the (h, w) pair (an InstanceNorm over N x C
# as one loop of N * C channels, section 41): the view leaves the leading indices as they are
CHANNELS = """func.func @scale(%x: memref<2x8x7x7xf32>, %s: memref<16xf32>, %o: memref<2x8x7x7xf32>) {
  affine.for %q = 0 to 16 {
    %v = affine.load %s[%q] : memref<16xf32>
    affine.for %h = 0 to 7 {
      affine.for %w = 0 to 7 {
        %a = affine.load %x[%q floordiv 8, %q mod 8, %h, %w] : memref<2x8x7x7xf32>
        %b = arith.mulf %a, %v : f32
        affine.store %b, %o[%q floordiv 8, %q mod 8, %h, %w] : memref<2x8x7x7xf32>
      }
    }
  }
  return
}
"""


def test_leading_indices_of_other_loops_may_be_any_expression():
    c = optimize_and_compare(CHANNELS, "scale", natively=False)
    assert any("[FLAT LOOPS] the loops over 7 rows and 7 columns" in r for r in c.messages), c.messages
    assert "[%arg3 floordiv 8, %arg3 mod 8, %arg" in c.text and "to 49 {" in c.text, c.text


LEFT = {
    # a leading index computed from the row counter (not linear): the view would lose it
    "row in a leading index": (SCALE.replace("%x[%n, %c, %h, %w] : memref<2x8x7x7xf32>",
                                             "%x[%n, (%c + %h) mod 8, %h, %w] : memref<2x8x7x7xf32>"),
                               "an index is not linear in the loops"),
    # the store walks the map transposed: (h, w) is not its last two dimensions
    "transposed": (SCALE.replace("affine.store %b, %o[%n, %c, %h, %w]", "affine.store %b, %o[%n, %c, %w, %h]"),
                   "does not index its last two dimensions by (row, column)"),
    # the column counter is a value (a causal mask's comparison)
    "counter used": (SCALE.replace("%b = arith.mulf %a, %v : f32", """%i = arith.index_cast %w : index to i32
          %f = arith.sitofp %i : i32 to f32
          %m = arith.mulf %a, %v : f32
          %b = arith.addf %m, %f : f32"""), "uses the row or column counter"),
}


@pytest.mark.parametrize("name", sorted(LEFT))
def test_what_is_left_as_two_loops(name):
    src, why = LEFT[name]
    c = optimize_and_compare(src, "scale", natively=False)
    out, remarks = c.text, c.messages
    assert "memref.collapse_shape" not in out and not any("[FLAT LOOPS]" in r for r in remarks), out
    if why is not None:
        _, explained = optimize(src, passes=["flat-loops"])
        assert any("[STOP FLAT LOOPS]" in r and why in r for r in explained), explained


def test_a_reduction_over_the_map_is_left_to_its_own_plan():
    """Loops that carry values are not this step's (a pooling window's sum keeps its loops here)."""
    src = """func.func @pool(%x: memref<4x7x7xf32>, %o: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %c = 0 to 4 {
    %s = affine.for %h = 0 to 7 iter_args(%a = %z) -> (f32) {
      %t = affine.for %w = 0 to 7 iter_args(%b = %a) -> (f32) {
        %v = affine.load %x[%c, %h, %w] : memref<4x7x7xf32>
        %r = arith.addf %b, %v : f32
        affine.yield %r : f32
      }
      affine.yield %t : f32
    }
    affine.store %s, %o[%c] : memref<4xf32>
  }
  return
}
"""
    out, remarks = optimize(src, passes=["flat-loops"])
    assert not any("FLAT LOOPS" in r for r in remarks) and "collapse_shape" not in out
