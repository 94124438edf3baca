"""Issue 12, cpu cost model part 3: recompute (slice) fusion for a consumer that reads the
intermediate in another order (pair_restructuring.plan_recompute / recompute_into_consumer).

The planner is pure (it never changes IR); the apply step is checked for IR, verification
(ours and mlir-opt's) and unchanged results in the reference interpreter and natively."""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.analysis.affine import Scope
from loopopt.analysis.loops import loops_in_block
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.loop_optimization.pair_restructuring import plan_recompute, recompute_into_consumer
from fusion_util import optimize_checked
from test_cost_model import _native_same

TRANSPOSE = """
func.func @tc(%a: memref<8x12xf32>, %b: memref<12x8xf32>, %out: memref<12x8xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %t = memref.alloc() : memref<8x12xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 12 {
      %x = affine.load %a[%i, %j] : memref<8x12xf32>
      %y0 = arith.mulf %x, %c15 : f32
      %y = arith.addf %y0, %c025 : f32
      affine.store %y, %t[%i, %j] : memref<8x12xf32>
    }
  }
  BETWEEN
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 8 {
      %x = affine.load %t[%j, %i] : memref<8x12xf32>
      %y = affine.load %b[%i, %j] : memref<12x8xf32>
      %z = arith.addf %x, %y : f32
      affine.store %z, %out[%i, %j] : memref<12x8xf32>
    }
  }
  memref.dealloc %t : memref<8x12xf32>
  return
}
"""


def _plan(text: str):
    module = mlir.parse_module(text, "t.mlir")
    fn = mlir.functions(module)[0]
    loops = loops_in_block(mlir.func_body(fn))
    before = mlir.print_module(module)
    plan, why = plan_recompute(loops[0], loops[-1], Scope())
    assert mlir.print_module(module) == before  # planning never changes the IR
    return module, plan, why


def _apply(text: str) -> str:
    module, plan, why = _plan(text)
    assert plan is not None, why
    recompute_into_consumer(plan)
    assert mlir.verify(module.operation) is None
    out = mlir.print_module(module)
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(out) is None
    return out


def test_transposed_consumer_recomputes_the_producer_and_drops_the_intermediate():
    src = TRANSPOSE.replace("BETWEEN", "")
    out = _apply(src)
    assert out.count("affine.for") == 2 and "memref.alloc" not in out
    assert out.count("arith.mulf") == 1 and "affine.apply" in out
    assert_same_results(src, out)
    _native_same(src, out, "tc")


@pytest.mark.parametrize("between, why", [
    ("affine.store %c15, %a[0, 0] : memref<8x12xf32>", "may change what the producer reads"),
    ("func.call @clobber(%b) : (memref<12x8xf32>) -> ()", "may change what the producer reads"),
])
def test_writes_between_the_loops_to_what_the_producer_reads_refuse(between, why):
    text = TRANSPOSE.replace("BETWEEN", between)
    if "@clobber" in between:
        text = "func.func private @clobber(%m: memref<12x8xf32>) {\n  return\n}\n" + text
        module = mlir.parse_module(text, "t.mlir")
        fn = [f for f in mlir.functions(module) if mlir.func_name(f) == "tc"][0]
        loops = loops_in_block(mlir.func_body(fn))
        plan, reason = plan_recompute(loops[0], loops[-1], Scope())
    else:
        _, plan, reason = _plan(text)
    assert plan is None and why in reason


def test_consumer_writing_what_the_producer_reads_refuses():
    text = TRANSPOSE.replace("BETWEEN", "").replace(
        "      affine.store %z, %out[%i, %j] : memref<12x8xf32>",
        "      affine.store %z, %out[%i, %j] : memref<12x8xf32>\n      affine.store %z, %a[%j, %i] : memref<8x12xf32>")
    _, plan, why = _plan(text)
    assert plan is None and "may change what the producer reads" in why


def test_intermediate_read_elsewhere_refuses():
    text = TRANSPOSE.replace("BETWEEN", "%keep = affine.load %t[0, 0] : memref<8x12xf32>")
    _, plan, why = _plan(text)
    assert plan is None and "also used by" in why


def test_reads_beyond_what_the_producer_writes_refuse():
    """The producer writes only rows 0..6 of t; the consumer reads row 7 too (old contents)."""
    text = TRANSPOSE.replace("BETWEEN", "").replace("  affine.for %i = 0 to 8 {\n    affine.for %j = 0 to 12 {",
                                                    "  affine.for %i = 0 to 7 {\n    affine.for %j = 0 to 12 {", 1)
    _, plan, why = _plan(text)
    assert plan is None and "may read elements the producer does not write" in why


def test_expensive_recompute_refuses():
    text = TRANSPOSE.replace("BETWEEN", "").replace(
        "      %y = arith.addf %y0, %c025 : f32",
        "      %e1 = math.exp %y0 : f32\n      %e2 = math.exp %e1 : f32\n      %y = arith.addf %e2, %c025 : f32")
    _, plan, why = _plan(text)
    assert plan is None and "over" in why


def test_producer_using_its_iv_in_compute_recomputes_it_from_the_read():
    """The IV as data is remapped like an index (issue 33): the read's index names it."""
    text = TRANSPOSE.replace("BETWEEN", "").replace(
        "      %y = arith.addf %y0, %c025 : f32",
        "      %k = arith.index_cast %i : index to i32\n      %kf = arith.sitofp %k : i32 to f32\n"
        "      %y = arith.addf %y0, %kf : f32")
    out = _apply(text)
    assert out.count("affine.for") == 2 and "memref.alloc" not in out and "arith.index_cast" in out
    assert_same_results(text, out)
    _native_same(text, out, "tc")


def test_store_not_indexed_by_the_ivs_refuses():
    text = TRANSPOSE.replace("BETWEEN", "").replace("affine.store %y, %t[%i, %j]", "affine.store %y, %t[%i, 0]")
    _, plan, why = _plan(text)
    assert plan is None


# Inside an outer loop, the producer of iteration i writes t[i..3] only; the consumer reads all
# of t, so t[0..i-1] hold values of earlier iterations, computed from a[0..i-1], which the outer
# body overwrites after each consumer. Recomputing those elements would read the new inputs: the
# reads must be covered by the writes of the *same* outer iteration, so the plan is refused.
OUTER_CARRY = """
func.func @carry(%a: memref<4xf32>, %out: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4xf32>
  affine.for %i = 0 to 4 {
    affine.for %j = LOWER to 4 {
      %x = affine.load %a[%j] : memref<4xf32>
      %y = arith.mulf %x, %x : f32
      affine.store %y, %t[%j] : memref<4xf32>
    }
    affine.for %j = 0 to 4 {
      %r = affine.load %t[-%j + 3] : memref<4xf32>
      affine.store %r, %out[%i * 4 + %j] : memref<16xf32>
    }
    affine.store %z, %a[%i] : memref<4xf32>
  }
  memref.dealloc %t : memref<4xf32>
  return
}
"""


def _inner_pair(text: str):
    module = mlir.parse_module(text, "t.mlir")
    outer = loops_in_block(mlir.func_body(mlir.functions(module)[0]))[0]
    producer, consumer = loops_in_block(outer.regions[0].blocks[0])
    return module, producer, consumer


def test_reads_of_an_earlier_outer_iteration_refuse():
    src = OUTER_CARRY.replace("LOWER", "affine_map<(d0) -> (d0)>(%i)")
    module, producer, consumer = _inner_pair(src)
    plan, why = plan_recompute(producer, consumer, Scope())
    assert plan is None and "may read elements the producer does not write" in why
    res = optimize_checked(src, "cpu")
    assert not any("[RECOMPUTE]" in r.message for r in res.remarks)
    _native_same(src, res.text, "carry")


def test_reads_of_the_same_outer_iteration_recompute():
    """When the producer writes all of t in every iteration, every element read in iteration i
    was written in iteration i: the consumer recomputes it and the intermediate goes, whatever
    the outer body writes afterwards."""
    src = OUTER_CARRY.replace("LOWER", "0")
    module, producer, consumer = _inner_pair(src)
    plan, why = plan_recompute(producer, consumer, Scope())
    assert plan is not None, why
    res = optimize_checked(src, "cpu")
    assert any("[RECOMPUTE]" in r.message for r in res.remarks)
    assert "memref.alloc" not in res.text and res.text.count("affine.for") == 2
    _native_same(src, res.text, "carry")
