"""Issue 25, fusion of loops that carry iter_args (loop_optimization/iter_args_fusion.py): the fused
loop carries both loops' iter_args, each loop's values stay with its own iterations, results
are remapped; a pair whose second loop needs the first loop's results is refused (mutation
checks below show the guard is needed). IR, remarks and results are checked (reference
interpreter; natively with mlir-runner where marked)."""
from __future__ import annotations

import pytest

from fusion_util import optimize_checked
from loopopt import driver, mlir
from loopopt.options import TARGETS, Options
from loopopt.toolchain import find_tool
from loopopt.pipeline import hooks_for

# Two column reductions of one matrix inside one row loop (MLIR's loop-fusion-3.mlir
# @reduce_add_non_innermost, small): a sum and a product, each in iter_args.
TWO_REDUCTIONS = """
func.func @two(%a: memref<8x8xf32>, %o1: memref<8xf32>, %o2: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  affine.for %j = 0 to 8 {
    %s = affine.for %k = 0 to 8 iter_args(%acc = %zero) -> f32 {
      %x = affine.load %a[%k, %j] : memref<8x8xf32>
      %n = arith.addf %acc, %x : f32
      affine.yield %n : f32
    }
    %p = affine.for %k = 0 to 8 iter_args(%acc = %one) -> f32 {
      %x = affine.load %a[%k, %j] : memref<8x8xf32>
      %n = arith.mulf %acc, %x : f32
      affine.yield %n : f32
    }
    %s2 = arith.addf %s, %s : f32
    affine.store %s2, %o1[%j] : memref<8xf32>
    %p2 = arith.mulf %p, %p : f32
    affine.store %p2, %o2[%j] : memref<8xf32>
  }
  return
}
"""

# Different lower bounds (the second loop's IV is shifted) and two values carried by the first.
SHIFTED = """
func.func @shifted(%a: memref<20xf32>, %b: memref<20xf32>, %o: memref<3xf32>) {
  %zero = arith.constant 0.0 : f32
  %r:2 = affine.for %i = 0 to 16 iter_args(%s = %zero, %m = %zero) -> (f32, f32) {
    %x = affine.load %a[%i] : memref<20xf32>
    %n = arith.addf %s, %x : f32
    %q = arith.maximumf %m, %x : f32
    affine.yield %n, %q : f32, f32
  }
  %t = affine.for %i = 4 to 20 iter_args(%s = %zero) -> f32 {
    %x = affine.load %a[%i - 4] : memref<20xf32>
    %y = affine.load %b[%i] : memref<20xf32>
    %z = arith.mulf %x, %y : f32
    %n = arith.addf %s, %z : f32
    affine.yield %n : f32
  }
  affine.store %r#0, %o[0] : memref<3xf32>
  affine.store %r#1, %o[1] : memref<3xf32>
  affine.store %t, %o[2] : memref<3xf32>
  return
}
"""

# The second loop divides by the first loop's sum: it needs the sum before it can start.
USES_RESULT = """
func.func @normalize(%a: memref<16xf32>, %out: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = affine.for %i = 0 to 16 iter_args(%acc = %zero) -> f32 {
    %x = affine.load %a[%i] : memref<16xf32>
    %n = arith.addf %acc, %x : f32
    affine.yield %n : f32
  }
  %tot = affine.for %i = 0 to 16 iter_args(%acc = %zero) -> f32 {
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.divf %x, %sum : f32
    affine.store %y, %out[%i] : memref<16xf32>
    %n = arith.addf %acc, %y : f32
    affine.yield %n : f32
  }
  affine.store %tot, %out[0] : memref<16xf32>
  return
}
"""

# The sum goes through memory between the loops: the store must move above the first loop
# for the second to read it, and it stores the first loop's result.
THROUGH_MEMORY = """
func.func @through(%a: memref<16xf32>, %t: memref<1xf32>, %out: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = affine.for %i = 0 to 16 iter_args(%acc = %zero) -> f32 {
    %x = affine.load %a[%i] : memref<16xf32>
    %n = arith.addf %acc, %x : f32
    affine.yield %n : f32
  }
  affine.store %sum, %t[0] : memref<1xf32>
  %tot = affine.for %i = 0 to 16 iter_args(%acc = %zero) -> f32 {
    %x = affine.load %a[%i] : memref<16xf32>
    %s = affine.load %t[0] : memref<1xf32>
    %y = arith.mulf %x, %s : f32
    %n = arith.addf %acc, %y : f32
    affine.yield %n : f32
  }
  affine.store %tot, %out[0] : memref<16xf32>
  return
}
"""


def fors(text: str) -> int:
    return sum(1 for line in text.splitlines() if "affine.for" in line)


def fusion(res, kind: str) -> list:
    return [r for r in res.remarks if r.pass_name == "fusion" and r.kind == kind]


def test_two_reductions_fuse_into_one_loop_carrying_both():
    res = optimize_checked(TWO_REDUCTIONS, "cpu", passes=["fusion"])
    assert fors(res.text) == 2
    (r,) = fusion(res, "Passed")
    assert r.args["iter_args"] == [1, 1] and r.args["level"] == 1
    assert "carries the iter_args of both loops (1 + 1), results remapped" in r.detail
    assert res.text.count("-> (f32, f32)") == 1 and res.text.count("affine.yield") == 1
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, run_native

    a = run_native(TWO_REDUCTIONS, "two", [None] * 3, reps=1, warmup=0)
    b = run_native(res.text, "two", [None] * 3, reps=1, warmup=0)
    assert a.outputs and compare_outputs(a.outputs, b.outputs) is None


def test_two_reductions_fuse_on_trn1_when_the_seed_profit_allows():
    """trn1: the shared input earns nothing in the seed's profit (no placed intermediate)."""
    res = driver.optimize(TWO_REDUCTIONS, Options(target=TARGETS["trn1"]), "t.mlir", passes=["fusion"])
    assert fors(res.text) == 3
    assert [r.args["code"] for r in fusion(res, "Missed")] == ["NO_BENEFIT"]


def test_shifted_lower_bounds_and_several_results_are_remapped():
    res = optimize_checked(SHIFTED, "cpu", passes=["fusion"])
    assert fors(res.text) == 1
    assert "-> (f32, f32, f32)" in res.text
    (r,) = fusion(res, "Passed")
    assert r.args["iter_args"] == [2, 1]


def test_second_loop_using_the_first_loops_result_is_refused():
    res = optimize_checked(USES_RESULT, "cpu", passes=["fusion"])
    assert fors(res.text) == 2
    (r,) = fusion(res, "Missed")
    assert r.message.startswith("[STOP FUSION] loop yields values (iter_args)")
    assert "uses a result of the loop" in r.detail and "arith.divf" in r.detail


def test_an_op_to_hoist_that_uses_the_first_loops_result_is_refused():
    res = optimize_checked(THROUGH_MEMORY, "cpu", passes=["fusion"])
    assert fors(res.text) == 2
    (r,) = fusion(res, "Missed")
    assert r.args["code"] == "CARRIES_VALUES" and "affine.store" in r.detail


@pytest.mark.parametrize("src", [USES_RESULT, THROUGH_MEMORY])
def test_mutation_without_the_carried_values_guard_the_fuse_is_invalid(src, monkeypatch):
    """Without carried_values_refusal the pair fuses and the sum is used before the loop that
    computes it has run (a use before its definition): the fused IR does not verify."""
    from loopopt.remarks import RemarkLog
    from loopopt.loop_optimization import iter_args_fusion as ia
    from loopopt.loop_optimization.fusion import check_loop_fusion

    monkeypatch.setattr(ia, "carried_values_refusal", lambda *a: None)
    module = mlir.parse_module(src)
    log = RemarkLog()
    assert check_loop_fusion(module, Options(target=TARGETS["cpu"]), log, "t.mlir", hooks=hooks_for(TARGETS["cpu"])) == 1
    assert mlir.verify(module.operation) is not None
