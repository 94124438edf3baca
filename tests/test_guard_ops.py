"""cf.assert (analysis/effects.py GUARD_OPS): it reads and writes no memory but may abort
(`Effects.aborts`, never pure), so loops fuse across it where the check rule allows
(analysis/checks.py: here the second check asserts what the first did, so it cannot fail) and no
[UNSUPPORTED] remark is given; LICM keeps it in a loop that may not run (hoisted, it could abort a
program that did not). tests/test_checks.py holds the adversarial programs of the rule."""
from __future__ import annotations

import loopopt
from loopopt.analysis.effects import op_effects
from loopopt import mlir
from fusion_util import optimize_checked

FUSE_ACROSS = """
func.func @f(%a: memref<64xf32>, %b: memref<64xf32>, %n: index) {
  %t = memref.alloc() : memref<64xf32>
  %c64 = arith.constant 64 : index
  %ok = arith.cmpi ule, %n, %c64 : index
  cf.assert %ok, "n must be at most 64"
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  cf.assert %ok, "checked again between the loops"
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %b[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
"""

IN_LOOP = """
func.func @g(%a: memref<64xf32>, %n: index, %m: index) {
  %ok = arith.cmpi ult, %m, %n : index
  affine.for %i = 0 to %n {
    cf.assert %ok, "m below n"
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %a[%i] : memref<64xf32>
  }
  return
}
"""


def test_assert_has_no_memory_effects_and_is_not_reported_unsupported():
    module = mlir.parse_module(FUSE_ACROSS)
    asserts = [op for op in mlir.walk(module.operation) if op.name == "cf.assert"]
    assert asserts and all(not op_effects(op).reads and not op_effects(op).writes and not op_effects(op).unknown
                           and op_effects(op).aborts and not op_effects(op).pure for op in asserts)
    res = loopopt.optimize(FUSE_ACROSS, target="cpu")
    assert not any("[UNSUPPORTED]" in r.message for r in res.remarks)


def test_loops_fuse_across_an_assert_and_results_stay():
    for target in ("trn1", "cpu"):
        res = optimize_checked(FUSE_ACROSS, target=target, sizes={"arg2": 8})
        assert res.num_loops_fused == 1
        assert res.text.count("cf.assert") == 2


def test_licm_keeps_an_assert_in_a_loop_that_may_not_run():
    res = optimize_checked(IN_LOOP, target="cpu", sizes={"arg1": 0, "arg2": 3})
    body = res.text[res.text.index("affine.for"):]
    assert "cf.assert" in body  # still inside the loop
    assert not any("Moving inst cf.assert" in r.message for r in res.remarks)
