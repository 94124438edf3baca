"""Step `linear-views` (codegen/cpu/linear_views.py, rule in codegen/cpu/plan/linear_views.py):
an innermost loop's access whose index takes the loop's counter apart by floordiv and mod (GroupNorm's
statistics after torch-mlir's reshape) reads through a collapse view at base + i when isl proves its
address one element further every iteration; the IR, the interpreter's and the native results, and
the accesses whose address is not contiguous (they stay as they are, with a remark saying why)."""
from __future__ import annotations

import pytest

import loopopt
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

# GroupNorm(4 groups, 16 channels)'s sums over 2x16x8x8: the channels of a group around the
# collapsed H x W loop, indexed (e floordiv 8, e mod 8).
STATS = """func.func @stats(%x: memref<2x16x8x8xf32>, %s: memref<2x4xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 2 {
    affine.for %g = 0 to 4 {
      %t = affine.for %c = 0 to 4 iter_args(%a0 = %z) -> (f32) {
        %r = affine.for %e = 0 to 64 iter_args(%a = %a0) -> (f32) {
          %v = affine.load %x[%n, %g * 4 + %c, %e floordiv 8, %e mod 8] : memref<2x16x8x8xf32>
          %b = arith.addf %a, %v : f32
          affine.yield %b : f32
        }
        affine.yield %r : f32
      }
      affine.store %t, %s[%n, %g] : memref<2x4xf32>
    }
  }
  return
}
"""

# The whole group (channels x H x W) as one loop: x[n, g*4 + e floordiv 64, (e mod 64) floordiv 8, e mod 8].
GROUP = """func.func @group(%x: memref<2x16x8x8xf32>, %s: memref<2x4xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 2 {
    affine.for %g = 0 to 4 {
      %r = affine.for %e = 0 to 256 iter_args(%a = %z) -> (f32) {
        %v = affine.load %x[%n, %g * 4 + %e floordiv 64, (%e mod 64) floordiv 8, %e mod 8] : memref<2x16x8x8xf32>
        %b = arith.addf %a, %v : f32
        affine.yield %b : f32
      }
      affine.store %r, %s[%n, %g] : memref<2x4xf32>
    }
  }
  return
}
"""

# An elementwise copy through the delinearized index, read and written (a store rewritten too).
COPY = """func.func @copy(%x: memref<4x8x8xf32>, %o: memref<4x8x8xf32>) {
  affine.for %c = 0 to 4 {
    affine.for %e = 0 to 64 {
      %v = affine.load %x[%c, %e floordiv 8, %e mod 8] : memref<4x8x8xf32>
      %w = arith.mulf %v, %v : f32
      affine.store %w, %o[%c, %e floordiv 8, %e mod 8] : memref<4x8x8xf32>
    }
  }
  return
}
"""


def optimize(src: str, **kw):
    res = loopopt.optimize(src, target="cpu", **kw)
    return res.text, [r.message for r in res.remarks]


@pytest.mark.parametrize("src,kernel,view", [
    (STATS, "stats", "memref.collapse_shape %arg0 [[0], [1], [2, 3]] : memref<2x16x8x8xf32> into memref<2x16x64xf32>"),
    (GROUP, "group", "memref.collapse_shape %arg0 [[0], [1, 2, 3]] : memref<2x16x8x8xf32> into memref<2x1024xf32>"),
    (COPY, "copy", "memref.collapse_shape %arg1 [[0], [1, 2]] : memref<4x8x8xf32> into memref<4x64xf32>"),
])
def test_a_delinearized_access_reads_at_base_plus_i(src, kernel, view):
    c = optimize_and_compare(src, kernel, natively=False)  # bit for bit: the order is kept
    assert any("[LINEAR VIEW]" in m and "move by one element per iteration in memory (isl)" in m
               for m in c.messages), c.messages
    assert view in c.text, c.text
    assert "floordiv" not in c.text and " mod " not in c.text, c.text


def test_the_whole_group_is_read_at_the_groups_base():
    out, _ = optimize(GROUP)
    assert "* 256 + %arg" in out, out  # x[n, g * 256 + e] of the 2 x 1024 view


@has_runner
@pytest.mark.parametrize("src,kernel", [(STATS, "stats"), (GROUP, "group"), (COPY, "copy")])
def test_the_views_run_natively_as_the_delinearized_accesses_did(src, kernel):
    assert optimize_and_compare(src, kernel, interpret=False, natively=True).native


def test_with_reassociation_the_statistics_vectorize():
    """Before, the vector planner refused the loop: `moves by [0, 0, ?, ?] elements per iteration`."""
    opts = Options(target=TARGETS["cpu"], reassociate=True)
    c = optimize_and_compare(STATS, "stats", opts, rtol=1e-5, normwise=True, natively=False)
    assert any(m.startswith("[VECTORIZE] innermost loop") for m in c.messages), c.messages
    assert not any("[STOP VECTORIZE]" in m for m in c.messages), c.messages
    assert "fastmath<reassoc>" in c.text, c.text


# Accesses whose floordiv/mod do not give a contiguous address: left alone, and the step named in
# --passes says why (and the vector planner's refusal names it too).
LEFT = {
    # a row of 16 read 8 at a time: (e floordiv 8, e mod 8) of 8 x 16 jumps by 9 after element 7
    "mismatched extents": (STATS.replace("2x16x8x8xf32", "2x16x8x16xf32"),
                           "its address in memory moves by other than one element after iteration 7 of its loop"),
    # e mod 4 of a row of 8: the second half of each row is never read, the first twice
    "mod by a non-extent": (STATS.replace("%e mod 8]", "%e mod 4]"),
                            "its address in memory moves by other than one element after iteration 3 of its loop"),
    # the rows' length is only known at run time
    "symbolic extent": ("""func.func @stats(%x: memref<2x?x8xf32>, %s: memref<2xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 2 {
    %r = affine.for %e = 0 to 64 iter_args(%a = %z) -> (f32) {
      %v = affine.load %x[%n, %e floordiv 8, %e mod 8] : memref<2x?x8xf32>
      %b = arith.addf %a, %v : f32
      affine.yield %b : f32
    }
    affine.store %r, %s[%n] : memref<2xf32>
  }
  return
}
""", "a symbolic extent among the dimensions 1..2 it moves in"),
    # the column counter walks a column: x[e mod 8, e floordiv 8]
    "transposed": (STATS.replace("%e floordiv 8, %e mod 8]", "%e mod 8, %e floordiv 8]"),
                   "its address in memory moves by other than one element after iteration 0 of its loop"),
    # the row comes through an affine.apply of the counter inside the loop: A(lb) cannot fold it
    "index computed in the loop": (STATS.replace(
        "          %v = affine.load %x[%n, %g * 4 + %c, %e floordiv 8, %e mod 8] : memref<2x16x8x8xf32>",
        "          %h = affine.apply affine_map<(d0) -> (d0 floordiv 8)>(%e)\n"
        "          %v = affine.load %x[%n, %g * 4 + %c, %h, %e mod 8] : memref<2x16x8x8xf32>"),
        "an index operand is computed inside the loop"),
    # the loop starts at an outer counter
    "lower bound": (STATS.replace("affine.for %e = 0 to 64", "affine.for %e = affine_map<(d0) -> (d0)>(%c) to 64"),
                    "its loop does not step by 1 from a constant"),
}


@pytest.mark.parametrize("name", sorted(LEFT))
def test_what_is_left_delinearized(name):
    src, why = LEFT[name]
    c = optimize_and_compare(src, "stats", natively=False)
    assert "memref.collapse_shape" not in c.text and not any("[LINEAR VIEW]" in m for m in c.messages), c.text
    _, explained = optimize(src, passes=["linear-views"])
    assert any("[STOP LINEAR VIEW]" in m and why in m for m in explained), explained


@has_runner
def test_a_refused_access_runs_natively_as_it_was():
    src, _ = LEFT["mismatched extents"]
    assert optimize_and_compare(src, "stats", interpret=False, natively=True).native


def test_the_vector_planner_names_why_a_delinearized_access_is_strided():
    src, _ = LEFT["mismatched extents"]
    remarks = [r.text for r in loopopt.optimize(src, target="cpu", reassociate=True).remarks]
    assert any("[STOP VECTORIZE]" in m and "moves by [0, 0, ?, ?] elements per iteration (its address in memory "
               "moves by other than one element after iteration 7 of its loop)" in m for m in remarks), remarks


def test_contiguous_over_the_loops_range_only_is_proven_there():
    """x[c, e mod 64] over e < 32 of 32 columns: the mod never wraps in the loop's range (isl
    proves the step over the iteration domain, not over every integer)."""
    src = """func.func @k(%x: memref<4x32xf32>, %o: memref<4x32xf32>) {
  affine.for %c = 0 to 4 {
    affine.for %e = 0 to 32 {
      %v = affine.load %x[%c, %e mod 64] : memref<4x32xf32>
      affine.store %v, %o[%c, %e] : memref<4x32xf32>
    }
  }
  return
}
"""
    c = optimize_and_compare(src, "k", natively=False)
    assert any("[LINEAR VIEW]" in m for m in c.messages), c.messages
    assert " mod " not in c.text and "collapse_shape" not in c.text, c.text  # one dimension: no view
    wraps = src.replace("to 32 {\n      %v", "to 32 {\n      %v").replace("%e mod 64", "%e mod 16")
    d = optimize_and_compare(wraps, "k", natively=False)
    assert " mod 16" in d.text, d.text


def test_a_symbolic_trip_count_is_a_parameter_of_the_proof():
    src = STATS.replace("affine.for %e = 0 to 64", "affine.for %e = 0 to %m").replace(
        "func.func @stats(%x: memref<2x16x8x8xf32>, %s: memref<2x4xf32>) {",
        "func.func @stats(%x: memref<2x16x8x8xf32>, %s: memref<2x4xf32>, %m: index) {")
    c = optimize_and_compare(src, "stats", natively=False)
    assert any("[LINEAR VIEW]" in m for m in c.messages), c.messages
