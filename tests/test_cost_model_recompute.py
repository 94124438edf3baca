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
from loopopt.transforms.pair_restructuring import plan_recompute, recompute_into_consumer
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


def test_producer_using_its_iv_in_compute_refuses():
    text = TRANSPOSE.replace("BETWEEN", "").replace(
        "      %y = arith.addf %y0, %c025 : f32",
        "      %k = arith.index_cast %i : index to i32\n      %kf = arith.sitofp %k : i32 to f32\n"
        "      %y = arith.addf %y0, %kf : f32")
    _, plan, why = _plan(text)
    assert plan is None and "IV is used by compute" in why


def test_store_not_indexed_by_the_ivs_refuses():
    text = TRANSPOSE.replace("BETWEEN", "").replace("affine.store %y, %t[%i, %j]", "affine.store %y, %t[%i, 0]")
    _, plan, why = _plan(text)
    assert plan is None
