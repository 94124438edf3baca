"""Step unit-loops (codegen/cpu/unit_loops.py) and the register tile's lanes over a buffer that ends
in dimensions of size 1 (cpu_plan.unit_tail, register_tile._collapsed_tail): docs/cpu_codegen.md
section 40.

Checked: every loop of one iteration goes, carrying values or not, in any nest, with one remark per
function; a loop of two iterations (or of none) stays; the loop around the unit loops is then the
innermost one vectorize plans; results unchanged (interpreter, every output bit for bit, and
natively). An argument ending in a unit dimension read or written along the register tile's lanes:
a tile of vector lanes through a memref.collapse_shape of it, results bit for bit (sums in order);
a buffer without a unit tail keeps its own vector loads."""
from __future__ import annotations

from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare


def cpu(bits: int = 256, **kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


# torch.einsum's output permutation [0, 1, 4, 2, 3] with an exp fused after it (small sizes)
PERM = """
func.func @k(%in: memref<2x3x1x1x40xf32>, %out: memref<2x3x40xf32>) {
  affine.for %b = 0 to 2 {
    affine.for %c = 0 to 3 {
      affine.for %d = 0 to 40 {
        affine.for %u = 0 to 1 {
          affine.for %v = 0 to 1 {
            %x = affine.load %in[%b, %c, %u, %v, %d] : memref<2x3x1x1x40xf32>
            %e = math.exp %x : f32
            affine.store %e, %out[%b, %c, %d] : memref<2x3x40xf32>
          }
        }
      }
    }
  }
  return
}
"""

# a unit loop carrying a value, outside any reduction nest; one of 2 iterations by step 2 (runs
# once), one of 3 by step 2 (runs twice: kept) and one of none (kept)
CARRIED = """
func.func @k(%A: memref<8x4xf32>, %O: memref<8x4xf32>) {
  %one = arith.constant 1.0 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %a = affine.load %A[%i, %j] : memref<8x4xf32>
      %r = affine.for %u = 3 to 4 iter_args(%s = %a) -> (f32) {
        %t = arith.addf %s, %one : f32
        affine.yield %t : f32
      }
      %q = affine.for %w = 0 to 2 step 2 iter_args(%s = %r) -> (f32) {
        %t = arith.mulf %s, %s : f32
        affine.yield %t : f32
      }
      %p = affine.for %w = 0 to 3 step 2 iter_args(%s = %q) -> (f32) {
        %t = arith.addf %s, %one : f32
        affine.yield %t : f32
      }
      %z = affine.for %w = 5 to 5 iter_args(%s = %p) -> (f32) {
        %t = arith.addf %s, %one : f32
        affine.yield %t : f32
      }
      affine.store %z, %O[%i, %j] : memref<8x4xf32>
    }
  }
  return
}
"""


def _unit(messages: list[str]) -> list[str]:
    return [m for m in messages if m.startswith("[UNIT LOOP]")]


def test_unit_loops_of_a_copy_nest_go_and_the_loop_around_them_vectorizes():
    c = optimize_and_compare(PERM, "k", cpu(exact_math=True))
    assert _unit(c.messages) == ["[UNIT LOOP] 2 loops of one iteration replaced by their bodies; "
                                 "1 loop around them now innermost"]
    assert "[VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8" in c.messages
    assert not any("fewer iterations than one vector" in m for m in c.messages)
    assert "affine.load %arg0[%arg2, %arg3, 0, 0, %arg4]" in c.text  # the constant written into the map


def test_a_carried_unit_loop_goes_and_a_loop_of_two_iterations_or_none_stays():
    c = optimize_and_compare(CARRIED, "k", cpu())
    assert _unit(c.messages) == ["[UNIT LOOP] 2 loops of one iteration replaced by their bodies; "
                                 "1 loop around them now innermost"] or \
        _unit(c.messages) == ["[UNIT LOOP] 2 loops of one iteration replaced by their bodies"]
    assert "0 to 3 step 2" in c.text  # two iterations: kept
    assert c.text.count("affine.for") >= 3


# a product whose B and C are arguments ending in a unit dimension (keepdim, einsum operands)
ARGTAIL = """
func.func @k(%A: memref<12x20xf32>, %B: memref<20x40x1xf32>, %C: memref<12x40x1xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 40 {
      affine.store %z, %C[%i, %j, 0] : memref<12x40x1xf32>
    }
  }
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 40 {
      affine.for %k = 0 to 20 {
        %a = affine.load %A[%i, %k] : memref<12x20xf32>
        %b = affine.load %B[%k, %j, 0] : memref<20x40x1xf32>
        %c = affine.load %C[%i, %j, 0] : memref<12x40x1xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j, 0] : memref<12x40x1xf32>
      }
    }
  }
  return
}
"""


def test_an_argument_ending_in_a_unit_dimension_gives_vector_lanes():
    c = optimize_and_compare(ARGTAIL, "k", cpu())
    tiles = [m for m in c.messages if m.startswith("[REGISTER TILING]")]
    assert len(tiles) == 1 and "vector accumulators (vector<8xf32>)" in tiles[0], tiles
    assert "lanes refused" not in tiles[0]
    assert "memref.collapse_shape %arg1 [[0], [1, 2]] : memref<20x40x1xf32> into memref<20x40xf32>" in c.text
    assert "memref.collapse_shape %arg2 [[0], [1, 2]] : memref<12x40x1xf32> into memref<12x40xf32>" in c.text
    assert "affine.vector_store" in c.text
    assert c.text.count("memref.collapse_shape") == 2  # one view per buffer, shared by every tile


def test_a_masked_tail_of_lanes_reads_and_writes_through_the_view():
    """19 columns: the last vector of each row masked (vector.maskedload/maskedstore of the view)."""
    src = ARGTAIL.replace("x40x", "x19x").replace("0 to 40", "0 to 19")
    c = optimize_and_compare(src, "k", cpu())
    assert "vector.maskedload %collapse_shape" in c.text and "vector.maskedstore" in c.text
    assert "vector.maskedload %arg1" not in c.text and "vector.maskedstore %arg2" not in c.text


def test_a_buffer_without_a_unit_tail_keeps_its_own_vector_loads():
    two_d = (ARGTAIL.replace("memref<20x40x1xf32>", "memref<20x40xf32>").replace("%B[%k, %j, 0]", "%B[%k, %j]"))
    c = optimize_and_compare(two_d, "k", cpu())
    assert "memref.collapse_shape %arg1" not in c.text
    assert "affine.vector_load %arg1" in c.text


# a unit loop whose counter the inner loop's bounds use (a tile loop of one tile)
TILE_OF_ONE = """
func.func @k(%A: memref<64xf32>, %O: memref<64xf32>) {
  affine.for %t = 0 to 1 {
    affine.for %i = affine_map<(d0) -> (d0 * 64)>(%t) to affine_map<(d0) -> (d0 * 64 + 64)>(%t) {
      %a = affine.load %A[%i] : memref<64xf32>
      %e = math.exp %a : f32
      affine.store %e, %O[%i] : memref<64xf32>
    }
  }
  return
}
"""


def test_the_constant_is_written_into_the_maps_that_use_it():
    """The inner loop's bounds `(d0) -> (d0 * 64)` of the promoted counter become the constants 0
    and 64: its trip count is known and vectorize plans it."""
    c = optimize_and_compare(TILE_OF_ONE, "k", cpu(exact_math=True))
    assert _unit(c.messages) == ["[UNIT LOOP] 1 loop of one iteration replaced by its body"]
    assert "[VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8" in c.messages
    assert "affine_map<(d0) -> (0)>" in c.text and "affine_map<(d0) -> (64)>" in c.text
