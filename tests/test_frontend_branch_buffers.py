"""A grouped transposed convolution through the lowering (docs/frontend.md, docs/cpu_codegen.md
section 42): the index ops fold-memref-alias-ops leaves (`affine.linearize_index` of the weight's
group split) become affine.apply (`affine-expand-index-ops-as-affine`); the phases' scf.if yields
no buffer (`loopopt-fold-branch-buffers`; `loopopt-duplicate-shared-fills` leaves a fill the two
branches share); the result, a collapse_shape of the grouped buffer, is computed in the
out-parameter. The results against torch: tests/test_transposed_conv_fixtures.py."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import loopopt
from loopopt import frontend, mlir
from loopopt.frontend import fixtures
from loopopt.frontend.branch_yields import fold_branch_buffers, plan_branch_fold
from loopopt.frontend.rewrites import duplicate_shared_fills, exclusive_branches
from loopopt.testing import optimize_and_compare

DIR = Path(__file__).resolve().parent / "fixtures" / "transposed_conv"
GROUPED = ["convt2d_k4_s2_p1_g2", "convt2d_k4_s2_p1_g2_bias"]


def _lowered(name: str) -> frontend.Lowered:
    return frontend.lower(fixtures.load_fixture(name, DIR).text, filename=f"{name}.mlir")


def _note(low: frontend.Lowered, step: str) -> str:
    return next(s.note for s in low.steps if s.name == step)


@pytest.mark.parametrize("name", GROUPED)
def test_grouped_transposed_conv_lowers_into_its_out_parameter(name):
    low = _lowered(name)
    text = low.text
    for gone in ("affine.linearize_index", "affine.delinearize_index", "dealloc_helper", "memref.copy",
                 "memref.expand_shape", "memref.collapse_shape", "extract_strided_metadata"):
        assert gone not in text, gone
    assert "affine_map<(d0, d1) -> (d0 * 2 + d1)>" in text  # the weight's group g * 2 + c, as affine.apply
    assert _note(low, "loopopt-fold-branch-buffers") == "1 scf.if result(s) replaced by the buffer both branches yield"
    assert _note(low, "loopopt-results-into-out-params") == "1 result(s) written straight into their out-parameter"
    out = "%arg3" if name.endswith("bias") else "%arg2"  # a phase's write-back, into the 6 channels as g * 3 + f
    iv = r"%arg\d+"
    assert re.search(rf"affine.store %\w+, {out}\[{iv}, {iv} \* 3 \+ {iv}, {iv} \* 2, {iv} \* 2 \+ 1\] : "
                     r"memref<1x6x12x12xf32>", text)


def test_the_flip_loop_is_no_barrier_after_the_expansion():
    res = loopopt.optimize(_lowered("convt2d_k4_s2_p1_g2").text, target="cpu")
    text = "\n".join(r.render() for r in res.remarks)
    assert "unmodelled op" not in text
    assert "yield" not in text  # no buffer kept for an scf.yield (contraction) or traced through one


# An scf.if over buffers: result 0 is %a in both branches (folded), result 1 differs (kept),
# result 2 is a buffer allocated in each branch (two values: kept).
BRANCHES = """func.func @k(%c: i1, %a: memref<4xf32>, %b: memref<4xf32>, %o: memref<4xf32>) {
  %i = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %r:3 = scf.if %c -> (memref<4xf32>, memref<4xf32>, memref<4xf32>) {
    memref.store %v, %a[%i] : memref<4xf32>
    %t = memref.alloc() : memref<4xf32>
    scf.yield %a, %a, %t : memref<4xf32>, memref<4xf32>, memref<4xf32>
  } else {
    %t = memref.alloc() : memref<4xf32>
    scf.yield %a, %b, %t : memref<4xf32>, memref<4xf32>, memref<4xf32>
  }
  %x = memref.load %r#0[%i] : memref<4xf32>
  %y = memref.load %r#1[%i] : memref<4xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %o[%i] : memref<4xf32>
  return
}
"""


def test_only_a_result_both_branches_yield_as_one_value_is_folded():
    module = mlir.parse_module(BRANCHES)
    [op] = [o for o in mlir.walk(module.operation) if o.name == "scf.if"]
    plan = plan_branch_fold(op)
    assert [v is not None for v in plan.same] == [True, False, False]
    assert fold_branch_buffers(module, "<input>") == "1 scf.if result(s) replaced by the buffer both branches yield"
    assert mlir.verify(module.operation) is None
    text = str(module)
    assert "scf.if %arg0 -> (memref<4xf32>, memref<4xf32>)" in text
    assert "memref.load %arg1[%c0]" in text
    assert fold_branch_buffers(module, "<input>") == ""  # nothing left to fold


# One fill read by the two branches of an scf.if (one user of each shares it: both never run),
# by a second user in the then branch and by an op after the scf.if (each its own fill).
FILLS = """func.func @k(%c: i1, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = scf.if %c -> (tensor<4xf32>) {
    %a = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
    %d = linalg.div ins(%a, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %d : tensor<4xf32>
  } else {
    %m = linalg.mul ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %m : tensor<4xf32>
  }
  %s = linalg.sub ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  return %r, %s : tensor<4xf32>, tensor<4xf32>
}
"""


def test_a_fill_the_two_branches_share_is_not_repeated():
    module = mlir.parse_module(FILLS)
    by_name = {o.name: o for o in mlir.walk(module.operation)}
    assert exclusive_branches(by_name["linalg.add"], by_name["linalg.mul"])
    assert not exclusive_branches(by_name["linalg.add"], by_name["linalg.sub"])
    assert not exclusive_branches(by_name["linalg.add"], by_name["linalg.div"])  # one branch
    assert duplicate_shared_fills(module, "<input>") == "2 fill(s) repeated for their extra users"
    fills = [o for o in mlir.walk(module.operation) if o.name == "linalg.fill"]
    assert len(fills) == 3  # the shared one, then one more in the then branch and the sub's own


# Index ops the lowering did not make (affine input, not lowered): each is named where it blocks.
DYNAMIC = """func.func @k(%x: memref<64xf32>, %y: memref<?x?xf32>, %z: memref<?x?xf32>, %n: index, %m: index) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %l = affine.linearize_index disjoint [%i, %j] by (%n, %m) : index
      %v = memref.load %x[%l] : memref<64xf32>
      affine.store %v, %y[%i, %j] : memref<?x?xf32>
    }
  }
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %v = affine.load %y[%i, %j] : memref<?x?xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %z[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
"""


def test_an_index_op_left_is_a_named_barrier():
    res = loopopt.optimize(DYNAMIC, target="cpu", filename="dyn.mlir")
    text = "\n".join(r.render() for r in res.remarks)
    assert "[STOP FUSION] unmodelled effects" in text
    assert "[unmodelled op affine.linearize_index at dyn.mlir:4:12" in text


def test_a_dynamic_basis_expands_to_a_semi_affine_map_that_fuses_exactly():
    low = frontend.lower(DYNAMIC, frontend.LoweringOptions(pipeline="builtin.module(affine-expand-index-ops-as-affine)"))
    assert "linearize_index" not in low.text
    assert "(d0 * s0 + d1)" in low.text  # the basis %m as a symbol: semi-affine, pure
    got = optimize_and_compare(low.text, "k", natively=False)
    assert any("[LOOP FUSION]" in str(r) for r in got.remarks)
