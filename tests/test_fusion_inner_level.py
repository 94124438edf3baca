"""Fusion at an inner level (loop_optimization/inner_level.py, docs/cpu_codegen.md section 47): on
the cpu, a pair refused by the seed's working-set bound is measured per iteration of the fused
loop, and fused at the next inner common loop where one iteration fits. Also the result of a
batch of one computed in the out-parameter through a collapse_shape (loopopt-results-into-out-params).
The remarks, the IR, and natively the same values as before the fusion."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest

import loopopt
from loopopt import frontend, mlir
from loopopt.analysis.facts import Facts
from loopopt.loop_optimization.inner_level import fused_iteration_bytes, shells
from loopopt.mlir import ir
from loopopt.testing import native_mismatch
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

HERE = os.path.dirname(__file__)
LIT = open(os.path.join(HERE, "lit", "cpu", "fuse-inner-level.mlir")).read()
FIXTURES = os.path.join(HERE, "fixtures", "groupnorm")


def function(name: str) -> str:
    """One function of the lit test, alone."""
    start = LIT.index(f"func.func @{name}(")
    end = LIT.index("\n}\n", start) + 3
    return LIT[start:end]


def fusion_messages(res) -> list[str]:
    return [r.message + (f" [{r.args['detail']}]" if r.args.get("detail") else "") for r in res.remarks
            if r.pass_name == "fusion"]


def test_the_batch_loops_fuse_as_shells_at_the_group_loop():
    res = loopopt.optimize(function("groups"), target="cpu", sb_size=2048)
    msgs = fusion_messages(res)
    assert any(m.startswith("[LOOP FUSION] , level = 0 fused") and "fused at level 1: one iteration of the fused "
               "loop there touches 1024 bytes <= SBSize 2048" in m for m in msgs), msgs
    assert any(m.startswith("[LOOP FUSION] , level = 1 fused") and "inside the shells fused at level 0" in m
               for m in msgs), msgs
    assert "memref.alloc" not in res.text  # the f64 intermediate lives in a register


def test_the_seed_targets_keep_the_refusal():
    res = loopopt.optimize(function("groups"), target="trn1", sb_size=2048)
    assert res.num_loops_fused == 0
    assert any("exceeds SBSize" in m and m.endswith("[4096 bytes per partition > SBSize 2048]")
               for m in fusion_messages(res)), fusion_messages(res)


def test_an_inner_pair_the_battery_refuses_keeps_the_pair_apart():
    res = loopopt.optimize(function("other_group"), target="cpu", sb_size=2048)
    assert res.num_loops_fused == 0
    assert any(m.endswith("one iteration of the fused loop touches 4096 bytes, and the loops inside are not "
                          "fusable]") for m in fusion_messages(res)), fusion_messages(res)


def test_bodies_of_more_than_one_loop_are_no_shells():
    res = loopopt.optimize(function("not_shells"), target="cpu", sb_size=2048)
    assert any(m.endswith("and the loops' bodies are not one loop each]") for m in fusion_messages(res))


@has_runner
@pytest.mark.parametrize("name", ["groups", "other_group", "not_shells"])
def test_the_same_values_natively(name):
    src = function(name)
    out = loopopt.optimize(src, target="cpu", sb_size=2048).text
    assert native_mismatch(src, out, kernel=name) is None


# ----------------------------------------------------------------------------- the measure

NESTS = """func.func @k(%a: memref<16x32xf32>, %t: memref<16x32xf32>, %c: memref<32x16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      affine.store %x, %t[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t[%i, %j] : memref<16x32xf32>
      %y = affine.load %t[%i, 31 - %j] : memref<16x32xf32>
      %z = arith.addf %x, %y : f32
      affine.store %z, %c[%j, %i] : memref<32x16xf32>
    }
  }
  return
}
"""


def _loops(text: str):
    module = mlir.parse_module(text)
    fn = mlir.functions(module)[0]
    return module, [o for o in mlir.block_ops(mlir.func_body(fn)) if o.name == "affine.for"]


def test_one_fused_iteration_touches_a_row_of_each_and_a_column():
    module, (l1, l2) = _loops(NESTS)
    facts = Facts()
    # one i: a row of a (32 floats), the same row of t (written, then read in both orders: one box),
    # and a column of c (32 rows of one element)
    assert fused_iteration_bytes(l1, l2, facts) == 3 * 32 * 4
    i1, i2 = shells(l1, l2)
    assert i1.name == i2.name == "affine.for"
    # one j of the inner loops, side by side in their own nests: a, t at j and t at 31 - j (a box of
    # 32 - 2j elements, largest at j = 0), c at j
    assert fused_iteration_bytes(i1, i2, facts) == (1 + 32 + 1) * 4


# ----------------------------------------------------------------------------- GroupNorm, as torch-mlir lowers it

def fixture(name: str) -> str:
    return open(os.path.join(FIXTURES, f"{name}.mlir")).read()


def test_groupnorm_fuses_at_the_group_loop_and_keeps_no_deviations_buffer():
    """GroupNorm(4, 16) on 2x16x8x8 (section 41's GroupNorm(8, 64) on 2x64x56x56, smaller; SBSize
    scaled with it): a batch row of the f64 deviations and the input is 12 KiB, a group 3 KiB. The
    deviations' nest and the squares' fuse at the group loop, then all the way in; no buffer of
    batch's slice of the 2x4x4x64 doubles is left, and with the sums in vector partials (torch input's
    default) none."""
    lowered = frontend.lower(fixture("groupnorm_batch2")).text
    assert "memref<2x4x4x64xf64>" in lowered
    res = loopopt.optimize(lowered, target="cpu", sb_size=8192)
    assert any("fused at level 1: one iteration of the fused loop there touches" in m
               for m in fusion_messages(res)), fusion_messages(res)
    # in order, the squares' sum stays a scalar loop apart from the deviations (the vectorization
    # guard): the deviations of one batch are kept, not of both
    assert "2x4x4x64xf64" not in res.text and "memref<1x4x4x64xf64>" in res.text
    fast = loopopt.optimize(lowered, target="cpu", sb_size=8192, reassociate=True)
    assert not re.search(r"memref<\d+x\d+x\d+x\d+xf64>", fast.text)  # only per-group statistics left
    if find_tool("mlir-runner") is not None:  # in order: the same values bit for bit
        assert native_mismatch(lowered, res.text, kernel="groupnorm_batch2") is None
        assert native_mismatch(lowered, fast.text, kernel="groupnorm_batch2", rtol=1e-6, normwise=True) is None


def test_a_result_with_its_batch_of_one_put_back_is_computed_in_the_out_parameter():
    """GroupNorm(4, 16) on 1x16x8x8: torch-mlir computes the 16x8x8 result and expands it to
    1x16x8x8; the nests write the out-parameter through its collapse_shape, no copy is left. Then,
    with the seed's bound (a row of a buffer of one row is all of it: 2 x 4 KiB over an SBSize of
    6 KiB), the two nests fuse only as measured per iteration."""
    low = frontend.lower(fixture("groupnorm_batch1"))
    step = next(s for s in low.steps if s.name == "loopopt-results-into-out-params")
    assert step.note == "1 result(s) written straight into their out-parameter", step.note
    assert "memref.copy" not in low.text
    # the scale's and the shift's nests store to the out-parameter (its collapse_shape folded into the accesses)
    assert low.text.count("affine.store %8, %arg1[0, %arg2, %arg3, %arg4]") == 2
    if find_tool("mlir-runner") is not None:
        plain = loopopt.lower(fixture("groupnorm_batch1"), pipeline=_without("loopopt-results-into-out-params")).text
        assert native_mismatch(plain, low.text, kernel="groupnorm_batch1") is None
    res = loopopt.optimize(low.text, target="cpu", sb_size=6144)
    assert any("one iteration of the fused loop touches" in m and "<= SBSize 6144" in m and "%arg1 written, then read"
               in m for m in fusion_messages(res)), fusion_messages(res)


EXPANDED = """func.func @twice(%x: tensor<4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>],
      iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %r = tensor.expand_shape %n [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf32> into tensor<1x4x8xf32>
  return %r, %r : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}
"""


def test_an_expanded_result_returned_twice():
    """The same expanded buffer returned as two results: both out-parameters get every value."""
    from loopopt.interpreter import run_function

    low = frontend.lower(EXPANDED)
    x = (np.arange(32, dtype=np.float32) - 7).reshape(4, 8)
    o1, o2 = np.zeros((1, 4, 8), np.float32), np.zeros((1, 4, 8), np.float32)
    run_function(low.text, "twice", [x, o1, o2])
    np.testing.assert_array_equal(o1[0], -x)
    np.testing.assert_array_equal(o2[0], -x)


def _without(step: str) -> str:
    from loopopt.frontend import linalg

    return "builtin.module(" + ",".join(s for s in linalg.steps() if s != step) + ")"


# ----------------------------------------------------------------------------- gathers (section 69)

LIT_GATHER = open(os.path.join(HERE, "lit", "cpu", "fuse-inner-level-gather.mlir")).read()
GATHERS = LIT_GATHER[LIT_GATHER.index("func.func @gathers("):]

COPIES = """func.func @k(%a: memref<16x32xf32>, %t: memref<16x32xf32>, %s: memref<64xf32>, %w: memref<64xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      affine.store %x, %t[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t[%i, %j] : memref<16x32xf32>
      %n = arith.fptosi %x : f32 to i32
      %m = arith.index_cast %n : i32 to index
      %y = memref.load %s[%m] : memref<64xf32>
      affine.store %y, %a[%i, %j] : memref<16x32xf32>
    }
    memref.copy %s, %w : memref<64xf32> to memref<64xf32>
  }
  return
}
"""


def test_a_gather_counts_one_element_per_execution():
    """One i of the pair: a row of a, t and c, and %src at one element per execution of its load
    (64 of a 2x4x64 buffer per group, 256 per batch); before, the whole buffer at every level."""
    module, (l1, l2) = _loops(GATHERS)
    facts = Facts()
    # one batch: %d 4 x 64 doubles, %x, %out 4 x 64 floats, 256 gathered floats
    assert fused_iteration_bytes(l1, l2, facts) == 4 * 64 * 8 + 3 * 4 * 64 * 4
    i1, i2 = shells(l1, l2)
    # one group: 64 of each, 64 gathered (the seed's rule counted %src whole: 2048 bytes)
    assert fused_iteration_bytes(i1, i2, facts) == 64 * 8 + 3 * 64 * 4


def test_a_copy_or_a_gather_past_the_buffer_counts_it_whole():
    """A memref.copy touches its buffers whole in every execution; 512 executions of a gather
    from a buffer of 64 elements reach at most those 64."""
    module, (l1, l2) = _loops(COPIES)
    facts = Facts()
    # one i: a row of a (read and written), of t; %s: the copy reads it whole (and the gather's
    # 32 loads within it), %w written whole
    assert fused_iteration_bytes(l1, l2, facts) == (32 + 32 + 64 + 64) * 4
    m2, (c1, c2) = _loops(COPIES.replace("affine.for %i = 0 to 16", "affine.for %i = 0 to 1")
                          .replace("memref.copy %s, %w : memref<64xf32> to memref<64xf32>", "")
                          .replace("0 to 32", "0 to 512").replace("16x32", "1x512"))
    assert fused_iteration_bytes(c1, c2, Facts()) == (512 + 512 + 64) * 4


def test_the_gathering_pair_fuses_at_the_group_loop():
    res = loopopt.optimize(GATHERS, target="cpu", sb_size=2048)
    msgs = fusion_messages(res)
    assert any(m.startswith("[LOOP FUSION] , level = 0 fused") and "fused at level 1: one iteration of the fused "
               "loop there touches 1280 bytes <= SBSize 2048" in m for m in msgs), msgs
    assert "memref.alloc" not in res.text


@has_runner
def test_the_gathering_pair_gives_the_same_values_natively():
    out = loopopt.optimize(GATHERS, target="cpu", sb_size=2048).text
    assert native_mismatch(GATHERS, out, kernel="gathers") is None
