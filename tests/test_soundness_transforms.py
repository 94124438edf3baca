"""Issue 10, classes 2/6/8/10/11 in the transforms: buffer shrinking and contraction, vectorized
chains, LICM of ops that divide by a symbol, dead-iteration elimination.

Each adversarial program is one a naive transform gets wrong (results change); each positive
program shows that the legal case still transforms. Every test checks the output IR and the
results before/after (reference interpreter); `test_native_before_and_after` runs a sample with
mlir-runner too.
"""
from __future__ import annotations

import re

import pytest

from fusion_util import optimize_checked
from loopopt import driver, mlir
from loopopt.analysis.affine import Scope
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool
from loopopt.loop_optimization import pair_restructuring as pr
from loopopt.loop_optimization.licm import may_trap


def optimize(src: str, target: str = "cpu", sizes=None, seed: int = 3):
    """Run loopopt; the output must verify, leave no [INTERNAL] remark and compute what `src` does."""
    return optimize_checked(src, target, sizes=sizes, seed=seed)


def allocs(text: str) -> list[str]:
    """The memref types of every memref.alloc in the output."""
    return re.findall(r"memref\.alloc\(\) : (memref<[^>]*>)", text)


def kept(res) -> list[str]:
    return [m for m in res.remarks.messages("contraction") if m.startswith("[CONTRACTION] kept")]


# ----------------------------------------------------------------- class 10: buffer shrinking

DIAGONAL = """
func.func @diag(%a: memref<6x6xf32>, %out: memref<6x6xf32>) {
  %t = memref.alloc() : memref<6x6xf32>
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 6 {
      %v = affine.load %a[%i, %j] : memref<6x6xf32>
      %w = arith.mulf %v, %v : f32
      affine.store %w, %t[%i, %j] : memref<6x6xf32>
    }
    %d = affine.load %t[%i, %i] : memref<6x6xf32>
    affine.for %j = 0 to 6 {
      %x = affine.load %t[%i, %j] : memref<6x6xf32>
      %q = arith.subf %x, %d : f32
      affine.store %q, %out[%i, %j] : memref<6x6xf32>
    }
  }
  memref.dealloc %t : memref<6x6xf32>
  return
}
"""


def test_diagonal_read_keeps_its_column_when_shrunk():
    # Row i only is used per i iteration: one row suffices, but the diagonal read must become
    # t'[0][i] (the column is not the private loop's slice), never t'[0][0].
    res = optimize(DIAGONAL)
    assert allocs(res.text) == ["memref<1x6xf32>"]
    assert "[0, 0]" not in res.text
    assert re.search(r"%(\w+) = affine\.load %alloc\[0, %arg2\]", res.text), res.text


WHILE_OUTSIDE = """
func.func @carried(%a: memref<6x4xf32>, %out: memref<6x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<6x4xf32>
  %r = scf.while (%k = %c0) : (index) -> index {
    %c = arith.cmpi slt, %k, %c3 : index
    scf.condition(%c) %k : index
  } do {
  ^bb0(%k: index):
    %first = arith.cmpi eq, %k, %c0 : index
    affine.for %i = 0 to 6 {
      affine.for %j = 0 to 4 {
        %v = scf.if %first -> (f32) {
          %x = affine.load %a[%i, %j] : memref<6x4xf32>
          scf.yield %x : f32
        } else {
          %x = affine.load %t[%i, %j] : memref<6x4xf32>
          scf.yield %x : f32
        }
        %w = arith.addf %v, %one : f32
        affine.store %w, %t[%i, %j] : memref<6x4xf32>
        affine.store %w, %out[%i, %j] : memref<6x4xf32>
      }
    }
    %k1 = arith.addi %k, %c1 : index
    scf.yield %k1 : index
  }
  memref.dealloc %t : memref<6x4xf32>
  return
}
"""

# The same trips as a loop of blocks: ^trip is re-entered by cf.cond_br.
CF_OUTSIDE = """
func.func @carried(%a: memref<6x4xf32>, %out: memref<6x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<6x4xf32>
  cf.br ^trip(%c0 : index)
^trip(%k: index):
  %first = arith.cmpi eq, %k, %c0 : index
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 4 {
      %v = scf.if %first -> (f32) {
        %x = affine.load %a[%i, %j] : memref<6x4xf32>
        scf.yield %x : f32
      } else {
        %x = affine.load %t[%i, %j] : memref<6x4xf32>
        scf.yield %x : f32
      }
      %w = arith.addf %v, %one : f32
      affine.store %w, %t[%i, %j] : memref<6x4xf32>
      affine.store %w, %out[%i, %j] : memref<6x4xf32>
    }
  }
  %k1 = arith.addi %k, %c1 : index
  %more = arith.cmpi slt, %k1, %c3 : index
  cf.cond_br %more, ^trip(%k1 : index), ^done
^done:
  memref.dealloc %t : memref<6x4xf32>
  return
}
"""


@pytest.mark.parametrize("src, why", [(WHILE_OUTSIDE, "scf.while at"), (CF_OUTSIDE, "another block")],
                         ids=["scf.while", "cf-loop"])
def test_buffer_carried_across_unmodelled_loop_trips_is_kept(src, why):
    # Within one trip every i iteration owns row i, but trip k reads what trip k-1 left in %t:
    # one row would hand trip k the last row of trip k-1.
    res = optimize(src)
    assert allocs(res.text) == ["memref<6x4xf32>"]
    msgs = kept(res)
    assert len(msgs) == 1 and why in msgs[0], res.remarks.messages("contraction")


def test_buffer_allocated_inside_the_while_body_still_shrinks():
    # Allocated afresh in every trip (and read only in the trip's first half), the buffer
    # carries nothing between trips: it shrinks to one row.
    src = WHILE_OUTSIDE.replace("  %t = memref.alloc() : memref<6x4xf32>\n", "").replace(
        "  memref.dealloc %t : memref<6x4xf32>\n", "").replace(
        "    %first = arith.cmpi eq, %k, %c0 : index\n",
        "    %first = arith.cmpi eq, %k, %k : index\n    %t = memref.alloc() : memref<6x4xf32>\n")
    res = optimize(src)
    assert allocs(res.text) == ["memref<1x4xf32>"]
    assert any("shrunk from 6x4 to 1x4" in m for m in res.remarks.messages("contraction"))


# Iteration i writes the band t[j], j in [lo(i), hi(i)), after reading t[2i + 1] (i > 0).
BAND_CARRY = """
func.func @band(%a: memref<40xf32>, %out: memref<40xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<40xf32>
  affine.for %i = 0 to 10 {
    %p = affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%i) -> f32 {
      %v = affine.load %t[%i * 2 + 1] : memref<40xf32>
      affine.yield %v : f32
    } else {
      affine.yield %zero : f32
    }
    affine.for %j = affine_map<(d0) -> (d0 * 2)>(%i) to affine_map<(d0) -> (d0 * 2 + 4)>(%i) {
      %x = affine.load %a[%j] : memref<40xf32>
      %y = arith.addf %x, %p : f32
      affine.store %y, %t[%j] : memref<40xf32>
    }
    affine.for %j = affine_map<(d0) -> (d0 * 2)>(%i) to affine_map<(d0) -> (d0 * 2 + 4)>(%i) {
      %x = affine.load %t[%j] : memref<40xf32>
      affine.store %x, %out[%j] : memref<40xf32>
    }
  }
  memref.dealloc %t : memref<40xf32>
  return
}
"""

# Iteration i writes and reads only its own band t[4i .. 4i+3].
BAND_PRIVATE = """
#lo = affine_map<(d0) -> (d0 * 4)>
#hi = affine_map<(d0) -> (d0 * 4 + 4)>
func.func @band(%a: memref<40xf32>, %out: memref<40xf32>) {
  %t = memref.alloc() : memref<40xf32>
  affine.for %i = 0 to 10 {
    affine.for %j = #lo(%i) to #hi(%i) {
      %x = affine.load %a[%j] : memref<40xf32>
      %y = arith.mulf %x, %x : f32
      affine.store %y, %t[%j] : memref<40xf32>
    }
    affine.for %j = #lo(%i) to #hi(%i) {
      %x = affine.load %t[%j] : memref<40xf32>
      %z = affine.load %t[%i * 4 + 1] : memref<40xf32>
      %y = arith.addf %x, %z : f32
      affine.store %y, %out[%j] : memref<40xf32>
    }
  }
  memref.dealloc %t : memref<40xf32>
  return
}
"""


def test_band_that_carries_values_to_the_next_iteration_is_kept():
    # Bands of neighbouring iterations share two elements, and iteration i reads t[2i + 1],
    # written by iteration i - 1: a 4-element slice would hand it another iteration's value.
    res = optimize(BAND_CARRY)
    assert allocs(res.text) == ["memref<40xf32>"]
    assert any("share elements" in m for m in kept(res)), res.remarks.messages("contraction")


def test_band_reached_only_through_bounds_shrinks_to_one_band():
    # Iteration i owns t[4i .. 4i+3]; its IV reaches the index `j` only through j's bounds. The
    # slice is shifted by 4 * i (the IV becomes an operand of the access maps). On trn1: on cpu
    # the consumer recomputes t instead and the buffer goes (test_cost_model_recompute).
    res = optimize(BAND_PRIVATE, "trn1")
    assert allocs(res.text) == ["memref<4xf32>"]
    assert re.search(r"affine\.store %\w+, %alloc\[%arg3 - %arg2 \* 4\]", res.text), res.text


ESCAPES = {
    "call": ("  func.call @sink(%t) : (memref<8x4xf32>) -> ()\n", "used by func.call"),
    "view": ("  %v = memref.subview %t[0, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[1]>>\n"
             "  %e = affine.load %v[0] : memref<4xf32, strided<[1]>>\n"
             "  affine.store %e, %out[0, 0] : memref<8x4xf32>\n", "used by memref.subview"),
}
ROWS = """
func.func private @sink(%m: memref<8x4xf32>) {
  %z = arith.constant 0.0 : f32
  affine.store %z, %m[0, 0] : memref<8x4xf32>
  return
}
func.func @rows(%a: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %t = memref.alloc() : memref<8x4xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %x = affine.load %a[%i, %j] : memref<8x4xf32>
      affine.store %x, %t[%i, %j] : memref<8x4xf32>
    }
    affine.for %j = 0 to 4 {
      %x = affine.load %t[%i, 3 - %j] : memref<8x4xf32>
      affine.store %x, %out[%i, %j] : memref<8x4xf32>
    }
  }
ESCAPE  memref.dealloc %t : memref<8x4xf32>
  return
}
"""


@pytest.mark.parametrize("kind", sorted(ESCAPES))
def test_escaping_buffer_is_kept_and_says_why(kind):
    use, why = ESCAPES[kind]
    res = optimize(ROWS.replace("ESCAPE", use))
    assert "memref<8x4xf32>" in allocs(res.text)
    msgs = kept(res)
    assert len(msgs) == 1 and why in msgs[0], res.remarks.messages("contraction")


def test_private_rows_shrink_without_a_kept_remark():
    res = optimize(ROWS.replace("ESCAPE", ""))
    assert allocs(res.text) == ["memref<1x4xf32>"]
    assert not kept(res)


def test_buffers_of_unfused_loops_get_no_kept_remark():
    # The consumer reads rows in reverse: fusion is refused and the buffer stays, silently
    # (trn1: on cpu the consumer recomputes t instead, test_cost_model_recompute).
    src = """
func.func @f(%a: memref<16xf32>, %out: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    affine.store %x, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %x = affine.load %t[15 - %i] : memref<16xf32>
    affine.store %x, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
"""
    res = optimize(src, "trn1")
    assert allocs(res.text) == ["memref<16xf32>"]
    assert not kept(res)


# ----------------------------------------------------------------- class 6: vectorized chains

VECTOR_CHAIN = """
func.func @vchain(%a: memref<64xf32>, %out: memref<64xf32>) {
  %one = arith.constant dense<1.0> : vector<8xf32>
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<8xf32>
    %w = arith.mulf %v, %v : vector<8xf32>
    affine.vector_store %w, %t[%i] : memref<64xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %x = affine.vector_load %t[%i] : memref<64xf32>, vector<8xf32>
    %q = arith.addf %x, %one : vector<8xf32>
    affine.vector_store %q, %out[%i] : memref<64xf32>, vector<8xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
"""


@pytest.mark.parametrize("target", ["cpu", "trn1"])
def test_vectorized_chain_fuses_and_its_intermediate_contracts(target):
    res = optimize(VECTOR_CHAIN, target)
    assert res.num_loops_fused == 1
    assert "memref.alloc" not in res.text
    assert res.text.count("affine.vector_load") == 1  # the load of %t took the stored vector
    assert any("replaced by its stored values" in m for m in res.remarks.messages("contraction"))


VECTOR_ROWS = """
func.func @vrows(%a: memref<16x64xf32>, %out: memref<16x64xf32>) {
  %t = memref.alloc() : memref<16x64xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 64 step 8 {
      %v = affine.vector_load %a[%i, %j] : memref<16x64xf32>, vector<8xf32>
      affine.vector_store %v, %t[%i, %j] : memref<16x64xf32>, vector<8xf32>
    }
    affine.for %j = 0 to 64 step 8 {
      %x = affine.vector_load %t[%i, 56 - %j] : memref<16x64xf32>, vector<8xf32>
      affine.vector_store %x, %out[%i, %j] : memref<16x64xf32>, vector<8xf32>
    }
  }
  memref.dealloc %t : memref<16x64xf32>
  return
}
"""


def test_vector_boxes_shrink_to_one_row():
    # Boxes of 8 from 0, 8, ..., 56: the row's 64 elements, not 57 (box starts only).
    res = optimize(VECTOR_ROWS)
    assert allocs(res.text) == ["memref<1x64xf32>"]


def test_load_of_a_smaller_box_is_not_forwarded():
    # The load reads 4 of the 8 elements stored (other type, other box): no forwarding, but each
    # iteration still owns its 8 elements.
    src = """
func.func @half(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<8xf32>
    affine.vector_store %v, %t[%i] : memref<64xf32>, vector<8xf32>
    %x = affine.vector_load %t[%i + 4] : memref<64xf32>, vector<4xf32>
    affine.vector_store %x, %out[%i] : memref<64xf32>, vector<4xf32>
    affine.vector_store %x, %out[%i + 4] : memref<64xf32>, vector<4xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
"""
    res = optimize(src)
    assert allocs(res.text) == ["memref<8xf32>"]
    assert "affine.vector_load %alloc[4] : memref<8xf32>, vector<4xf32>" in res.text


# ----------------------------------------------------------------- class 11: LICM and traps

TRAPS = {
    "mod": "    %v = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%x)[%m]\n",
    "floordiv": "    %v = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%x)[%m]\n",
    "ceildiv": "    %v = affine.apply affine_map<(d0)[s0] -> (d0 ceildiv s0)>(%x)[%m]\n",
    "min": "    %v = affine.min affine_map<(d0)[s0] -> (d0 floordiv s0, 5)>(%x)[%m]\n",
    "if": ("    %v = affine.if affine_set<(d0)[s0] : (d0 floordiv s0 - 1 >= 0)>(%x)[%m] -> index {\n"
           "      affine.yield %x : index\n    } else {\n      affine.yield %m : index\n    }\n"),
    "inner-for": ("    %v = affine.for %j = 0 to affine_map<()[s0, s1] -> (s0 floordiv s1)>()[%x, %m]"
                  " iter_args(%acc = %m) -> (index) {\n"
                  "      %s = arith.addi %acc, %x : index\n      affine.yield %s : index\n    }\n"),
}


def trap_program(trap: str, upper: str) -> str:
    return f"""
func.func @f(%n: index, %m: index, %x: index, %out: memref<16xindex>) {{
  affine.for %i = 0 to {upper} {{
{TRAPS[trap]}    affine.store %v, %out[%i] : memref<16xindex>
  }}
  return
}}
"""


def _in_loop(text: str, op: str) -> bool:
    """True iff the op that defines the first result made by `op` sits inside the outer loop
    (by brace depth relative to the first `affine.for` statement)."""
    depth, loop_depth = 0, None
    for line in text.splitlines():
        if loop_depth is None and line.strip().startswith("affine.for"):
            loop_depth = depth
        if re.search(rf"= {re.escape(op)}\b", line) and "%" in line.split("=")[0]:
            return loop_depth is not None and depth > loop_depth
        depth += line.count("{") - line.count("}")
    raise AssertionError(f"{op} not found in {text}")


OP_OF = {"mod": "affine.apply", "floordiv": "affine.apply", "ceildiv": "affine.apply", "min": "affine.min",
         "if": "affine.if", "inner-for": "affine.for"}


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_division_by_a_symbol_stays_in_a_loop_that_may_not_run(trap):
    # With %n = 0 the loop never runs and %m = 0 is never a divisor; hoisted, it divides by 0.
    src = trap_program(trap, "%n")
    res = optimize(src, sizes={0: 0, 1: 0, 2: 7})
    assert _in_loop(src, OP_OF[trap]) and _in_loop(res.text, OP_OF[trap])
    assert any("may divide by zero" in m for m in res.remarks.messages("licm")), res.remarks.messages("licm")
    assert_same_results(src, res.text, seed=5, sizes={1: 3})


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_division_by_a_symbol_leaves_a_loop_that_runs(trap):
    src = trap_program(trap, "16")
    res = optimize(src, sizes={1: 3})
    assert _in_loop(src, OP_OF[trap]) and not _in_loop(res.text, OP_OF[trap])


def test_division_by_a_constant_leaves_a_loop_that_may_not_run():
    src = trap_program("mod", "%n").replace("(d0)[s0] -> (d0 mod s0)>(%x)[%m]", "(d0) -> (d0 mod 4)>(%x)")
    res = optimize(src, sizes={0: 0, 1: 0})
    assert not _in_loop(res.text, "affine.apply")


def test_may_trap_reads_maps_and_sets():
    module = mlir.parse_module(trap_program("if", "%n") + trap_program("mod", "%n").replace("@f", "@g").replace(
        "(d0)[s0] -> (d0 mod s0)>(%x)[%m]", "(d0) -> (d0 mod 4)>(%x)"))
    ops = {(mlir.func_name(f), o.name): o for f in mlir.functions(module) for o in mlir.walk(f)}
    assert may_trap(ops[("f", "affine.if")])
    assert not may_trap(ops[("g", "affine.apply")])
    assert not may_trap(ops[("f", "affine.for")])  # `0 to %n` divides by nothing


# ----------------------------------------------------------------- class 8: dead iterations

TWO_LOOPS = """
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<16xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 12 {
    %v = affine.load %t[%i] : memref<16xf32>
    %w = arith.addf %v, %one : f32
    affine.store %w, %out[%i] : memref<16xf32>
  }
"""
DEAD_TAIL_BLOCKS = """
func.func @f(%a: memref<16xf32>, %out: memref<16xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
""" + TWO_LOOPS + """
  %go = arith.cmpi sgt, %flag, %c0 : index
  cf.cond_br %go, ^tail, ^done
^tail:
  %c = arith.constant READ : index
  scf.if %go {
    %v = memref.load %t[%c] : memref<16xf32>
    memref.store %v, %out[%c] : memref<16xf32>
  }
  cf.br ^done
^done:
  memref.dealloc %t : memref<16xf32>
  return
}
"""


def test_dead_iterations_read_in_a_later_block_are_kept():
    # %t[14] (an extra iteration of loop 1) is read in ^tail, nested in an scf.if.
    res = optimize(DEAD_TAIL_BLOCKS.replace("READ", "14"), sizes={2: 1})
    assert "to 16" in res.text  # on cpu the live tail is split off (a loop to 16 remains), never dropped
    assert "[DEAD ITERATIONS] shrink loop to the iterations whose writes are read" not in res.remarks.messages()


def test_dead_iterations_unread_in_later_blocks_are_removed():
    # ^tail reads %t[5], which the kept iterations write: the tail is dead, both loops fuse.
    res = optimize(DEAD_TAIL_BLOCKS.replace("READ", "5"), sizes={2: 1})
    assert "[DEAD ITERATIONS] shrink loop to the iterations whose writes are read" in res.remarks.messages()
    assert res.num_loops_fused == 1 and "0 to 16" not in res.text


REENTERED = """
func.func @f(%a: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c13 = arith.constant 13 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  cf.br ^trip(%c0 : index)
^trip(%k: index):
  %again = arith.cmpi sgt, %k, %c0 : index
  scf.if %again {
    %v = memref.load %t[%c13] : memref<16xf32>
    memref.store %v, %out[%c13] : memref<16xf32>
  }
  LOOPS
  %k1 = arith.addi %k, %c1 : index
  %more = arith.cmpi slt, %k1, %c2 : index
  cf.cond_br %more, ^trip(%k1 : index), ^done
^done:
  return
}
"""


def shrink_if_dead(src: str, keep: int) -> tuple[str, str | None]:
    """Apply dead-iteration elimination to the function's first 16-iteration loop if legal:
    (output text, the refusal)."""
    module = mlir.parse_module(src)
    fn = mlir.functions(module)[0]
    loop = next(o for o in mlir.walk(fn) if o.name == "affine.for" and "to 16" in str(o).split("{")[0])
    why = pr.dead_tail_violation(loop, keep, Scope())
    if why is None:
        pr.shrink_loop(loop, keep)
    return mlir.print_module(module), why


def _reentered(loops: str) -> str:
    # The buffer is allocated in the entry block; the loops run in ^trip, which cf re-enters.
    return REENTERED.replace("  LOOPS\n", loops).replace(
        "  cf.br ^trip", "  %t = memref.alloc() : memref<16xf32>\n  cf.br ^trip")


def test_dead_iterations_read_by_the_next_trip_of_a_block_loop_are_kept():
    # Trip 2 reads %t[13] before loop 1 runs again: trip 1's iteration 13 is not dead.
    src = _reentered(TWO_LOOPS.replace("  %t = memref.alloc() : memref<16xf32>\n", ""))
    out, why = shrink_if_dead(src, 12)
    assert why is not None and "uses the removed iterations" in why
    assert "0 to 16" in out
    assert_same_results(src, out, seed=2)


def test_dead_iterations_of_a_block_loop_unread_in_any_trip_are_removed():
    src = _reentered(TWO_LOOPS.replace("  %t = memref.alloc() : memref<16xf32>\n", "")).replace(
        "%t[%c13]", "%t[%c1]")
    out, why = shrink_if_dead(src, 12)
    assert why is None and "0 to 12" in out and "0 to 16" not in out
    assert_same_results(src, out, seed=2)


def test_loop_yielding_a_value_keeps_its_iterations():
    # The extra iterations write nothing anyone reads, but they add to the loop's result.
    src = """
func.func @f(%a: memref<16xf32>, %out: memref<1xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<16xf32>
  %s = affine.for %i = 0 to 16 iter_args(%acc = %z) -> (f32) {
    %v = affine.load %a[%i] : memref<16xf32>
    affine.store %v, %t[%i] : memref<16xf32>
    %n = arith.addf %acc, %v : f32
    affine.yield %n : f32
  }
  affine.store %s, %out[0] : memref<1xf32>
  memref.dealloc %t : memref<16xf32>
  return
}
"""
    out, why = shrink_if_dead(src, 12)
    assert why == "the loop yields values" and "0 to 16" in out
    assert_same_results(src, out, seed=4)


HEAD_READ = """
func.func @f(%a: memref<16xf32>, %out: memref<12xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<16xf32>
    affine.store %v, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %t[READ] : memref<16xf32>
    %w = arith.addf %v, %one : f32
    affine.store %w, %t[%i] : memref<16xf32>
  }
  affine.for %j = 4 to 16 {
    %v = affine.load %t[%j] : memref<16xf32>
    affine.store %v, %out[%j - 4] : memref<12xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
"""


def shrink_head_if_dead(src: str, start: int, keep: int) -> tuple[str, str | None]:
    """Dead-iteration elimination of the function's second loop to its iterations
    `start..start + keep - 1` if legal: (output text, the refusal)."""
    module = mlir.parse_module(src)
    fn = mlir.functions(module)[0]
    loop = [o for o in mlir.walk(fn) if o.name == "affine.for"][1]
    why = pr.dead_tail_violation(loop, keep, Scope(), start=start)
    if why is None:
        pr.shrink_loop(loop, keep, start)
    return mlir.print_module(module), why


def test_dead_head_iterations_read_by_kept_iterations_are_kept():
    # Iteration 0 writes %t[0], which every later iteration reads; nothing after the loop reads
    # %t[0..3]. Dropping the head changed the kept iterations' results (fuzz seed 569479676).
    src = HEAD_READ.replace("READ", "0")
    out, why = shrink_head_if_dead(src, 4, 12)
    assert why is not None and "kept iteration" in why and "uses the removed iterations" in why
    assert out.count("= 0 to 16") == 2  # the loop under test keeps its head
    assert_same_results(src, out, seed=5)


def test_dead_head_iterations_read_by_no_kept_iteration_are_removed():
    # Each iteration reads only its own element: the head's writes reach nobody.
    src = HEAD_READ.replace("READ", "%i")
    out, why = shrink_head_if_dead(src, 4, 12)
    assert why is None and out.count("= 0 to 16") == 1 and out.count("= 4 to 16") == 2
    assert_same_results(src, out, seed=5)


def test_the_fuzzers_dead_head_program_keeps_its_results_through_the_driver():
    src = HEAD_READ.replace("READ", "0")
    res = optimize(src)
    assert_same_results(src, res.text, seed=6)


# ----------------------------------------------------------------- native cross-check

NATIVE = {
    "diagonal": (DIAGONAL, "diag", [None, None]),
    "while": (WHILE_OUTSIDE, "carried", [None, None]),
    "cf-loop": (CF_OUTSIDE, "carried", [None, None]),
    "band": (BAND_PRIVATE, "band", [None, None]),
    "vector-chain": (VECTOR_CHAIN, "vchain", [None, None]),
    "dead-tail-blocks": (DEAD_TAIL_BLOCKS.replace("READ", "14"), "f", [None, None, 1]),
    "dead-head-read": (HEAD_READ.replace("READ", "0"), "f", [None, None]),
}


def run_natively(text: str, kernel: str, sizes: list):
    """Outputs of @kernel run with mlir-runner; vector programs get the vector lowering too."""
    from loopopt import native
    from loopopt.toolchain import mlir_opt

    if "vector" not in text:
        return native.run_native(text, kernel, sizes, reps=1, warmup=0).outputs
    harness = native.make_harness(text, kernel, sizes, reps=1, warmup=0)
    passes = list(native.LOWERING_PASSES)
    at = passes.index("--lower-affine") + 1
    passes[at:at] = ["--convert-vector-to-scf", "--convert-vector-to-llvm"]
    p = mlir_opt(harness, passes)
    assert p.returncode == 0, native.first_error_line(p.stderr)
    return native.parse_output(native.run_lowered(p.stdout), native.kernel_signature(text, kernel))[1]


@pytest.mark.toolchain
@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native_before_and_after(name):
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs

    src, kernel, sizes = NATIVE[name]
    res = driver.optimize(src, Options(target=TARGETS["cpu"]), "t.mlir")
    before, after = run_natively(src, kernel, sizes), run_natively(res.text, kernel, sizes)
    assert before
    assert compare_outputs(before, after) is None
