"""A copy that feeds a matrix product is not fused with it when the product's output exceeds L2
(fusion's cpu cost model, `codegen/cpu/plan/copy_products.py`; docs/cpu_codegen.md section 64).

torch-mlir's `x @ W^T` with W an argument: a transposing copy into a fresh buffer, then the
product. Fused, product isolation cuts the product into strips of its reduction, each loading and
storing the whole output again; refused, the copy stays whole and the product keeps its sums in
registers through the whole reduction. Checked on the remarks and the IR, and natively bit for
bit against the input; the Neuron targets keep the seed's answer.
"""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu.hooks import CpuHooks
from loopopt.codegen.cpu.plan.copy_products import copy_into_product, copy_nest
from loopopt.driver import optimize
from loopopt.loop_optimization.hooks import TargetHooks
from loopopt.options import TARGETS, Options
from loopopt.testing import native_mismatch, optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

# 16 x 64 @ 64 x 96: the transposed copy 24 KiB, the output 6 KiB. A fusion budget of 8 KiB cuts
# the fused copy into strips; an L2 of 4 KiB puts the output over L2, one of 256 KiB under it.
TORCH_LINEAR = """module {
  func.func @k(%x: tensor<16x64xf32>, %w: tensor<96x64xf32>) -> tensor<16x96xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<64x96xf32>
    %t = linalg.transpose ins(%w : tensor<96x64xf32>) outs(%e : tensor<64x96xf32>) permutation = [1, 0]
    %o = tensor.empty() : tensor<16x96xf32>
    %f = linalg.fill ins(%cst : f32) outs(%o : tensor<16x96xf32>) -> tensor<16x96xf32>
    %r = linalg.matmul ins(%x, %t : tensor<16x64xf32>, tensor<64x96xf32>) outs(%f : tensor<16x96xf32>) -> tensor<16x96xf32>
    return %r : tensor<16x96xf32>
  }
}
"""

OVER_L2 = (1024, 4 * 1024, 1024 * 1024)
IN_L2 = (32 * 1024, 256 * 1024, 8 * 1024 * 1024)
BUDGET = 8 * 1024


def cpu(caches, **kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=256, sb_size=BUDGET, cache_sizes=caches, **kw)


def messages(src: str, options: Options) -> tuple[str, list[str]]:
    res = optimize(src, options, filename="t.mlir")
    return res.text, [r.message for r in res.remarks]


def test_copy_left_whole_when_the_output_exceeds_l2():
    """Fails before the rule: the copy was fused, and isolation cut the product into strips."""
    text, msgs = messages(TORCH_LINEAR, cpu(OVER_L2))
    refused = [m for m in msgs if m.startswith("[STOP FUSION] a copy feeds a matrix product's operand")]
    assert refused, msgs
    assert not any("cut into strips" in m for m in msgs), msgs
    assert not any(m.startswith("[LOOP INTERCHANGE]") for m in msgs), msgs
    # the copy is whole: a buffer of all 64 x 96 elements (in panels), not a strip's rows
    assert "[PRODUCT ISOLATION]" not in " ".join(msgs)


def test_remark_names_the_copy_the_product_and_the_output():
    _, msgs = messages(TORCH_LINEAR, cpu(OVER_L2))
    got = next(m for m in msgs if m.startswith("[STOP FUSION] a copy feeds"))
    assert got.startswith("[STOP FUSION] a copy feeds a matrix product's operand: fused, the product would run "
                          "in strips of its reduction"), got


def test_output_in_l2_keeps_the_fusion():
    """The product's output in L2: the strips reread it from L2, the fusion stays (as before)."""
    _, msgs = messages(TORCH_LINEAR, cpu(IN_L2))
    assert not any(m.startswith("[STOP FUSION] a copy feeds") for m in msgs), msgs
    assert any("cut into strips" in m for m in msgs), msgs


def test_copy_within_the_budget_keeps_the_fusion():
    """A copy within the fusion budget: isolation gives the product the whole copy, no strips."""
    options = Options(target=TARGETS["cpu"], vector_bits=256, sb_size=64 * 1024, cache_sizes=OVER_L2)
    _, msgs = messages(TORCH_LINEAR, options)
    assert not any(m.startswith("[STOP FUSION] a copy feeds") for m in msgs), msgs


@pytest.mark.parametrize("caches", [OVER_L2, IN_L2])
def test_results_unchanged(caches):
    """The lowered input (affine: no contraction into fused multiply-adds) through the pipeline,
    refused and fused: bit for bit against it in the interpreter and natively."""
    lowered = optimize(TORCH_LINEAR, cpu(caches), filename="t.mlir", passes=[]).text
    got = optimize_and_compare(lowered, "k", cpu(caches))
    refused = any(m.startswith("[STOP FUSION] a copy feeds") for m in got.messages)
    assert refused == (caches is OVER_L2), got.messages


def test_results_unchanged_on_nests():
    """The hand-written nests through the pipeline with the rule refusing: bit for bit in the
    interpreter (and natively when mlir-runner is found)."""
    got = optimize_and_compare(NESTS, "k", cpu(OVER_L2))
    assert any(m.startswith("[STOP FUSION] a copy feeds") for m in got.messages), got.messages


@has_runner
def test_refused_equals_fused_natively():
    """The refused form's outputs equal the fused form's bit for bit (one sum order per element)."""
    refused, _ = messages(TORCH_LINEAR, cpu(OVER_L2))
    fused, _ = messages(TORCH_LINEAR, cpu(IN_L2))
    assert native_mismatch(fused, refused) is None


@pytest.mark.parametrize("target", ["trn1", "inf2", "trn2"])
def test_neuron_targets_unchanged(target):
    """The Neuron targets have no such rule (`TargetHooks.pair_refusal` is None)."""
    _, msgs = messages(TORCH_LINEAR, Options(target=TARGETS[target], sb_size=BUDGET))
    assert not any(m.startswith("[STOP FUSION] a copy feeds") for m in msgs), msgs


# The rule on hand-written nests: a copy, then a product that sums in memory (the form fusion
# sees), and the product before a copy that rewrites the buffer it read.
NESTS = """func.func @k(%x: memref<16x64xf32>, %w: memref<96x64xf32>, %v: memref<96x64xf32>,
                    %y: memref<16x96xf32>, %z: memref<16x96xf32>) {
  %t = memref.alloc() : memref<64x96xf32>
  affine.for %a = 0 to 64 {
    affine.for %b = 0 to 96 {
      %e = affine.load %w[%b, %a] : memref<96x64xf32>
      affine.store %e, %t[%a, %b] : memref<64x96xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 96 {
      affine.for %q = 0 to 64 {
        %p = affine.load %x[%i, %q] : memref<16x64xf32>
        %s = affine.load %t[%q, %j] : memref<64x96xf32>
        %c = affine.load %y[%i, %j] : memref<16x96xf32>
        %u = arith.mulf %p, %s : f32
        %r = arith.addf %c, %u : f32
        affine.store %r, %y[%i, %j] : memref<16x96xf32>
      }
    }
  }
  affine.for %a = 0 to 64 {
    affine.for %b = 0 to 96 {
      %e = affine.load %v[%b, %a] : memref<96x64xf32>
      %n = arith.negf %e : f32
      affine.store %n, %t[%a, %b] : memref<64x96xf32>
    }
  }
  memref.dealloc %t : memref<64x96xf32>
  return
}
"""


def _loops(src: str):
    module = mlir.parse_module(src)
    fn = mlir.functions(module)[0]
    return module, [op for op in mlir.block_ops(fn.regions[0].blocks[0]) if op.name == "affine.for"]


def test_rule_on_nests():
    module, (copy, product, negated) = _loops(NESTS)
    with module.context:
        facts = Facts()
        assert copy_nest(copy) is not None
        assert copy_nest(negated) is None  # a negated copy computes: not a copy nest
        hit = copy_into_product(copy, product, facts.scope, 8 * 1024, 4 * 1024)
        assert hit is not None and hit.output_bytes == 16 * 96 * 4
        assert copy_into_product(product, copy, facts.scope, 8 * 1024, 4 * 1024) is not None  # either order
        assert copy_into_product(copy, product, facts.scope, 32 * 1024, 4 * 1024) is None  # copy within budget
        assert copy_into_product(copy, product, facts.scope, 8 * 1024, 8 * 1024) is None  # output in L2
        assert copy_into_product(product, negated, facts.scope, 8 * 1024, 4 * 1024) is None
        options = cpu(OVER_L2)
        assert CpuHooks().pair_refusal(copy, product, facts, options) is not None
        assert TargetHooks().pair_refusal(copy, product, facts, options) is None
