"""Issue 3's headline case: a 3-loop elementwise chain over 4M f32 elements with two placed
intermediates becomes one loop with no intermediate buffer and computes the same results
(checked natively with mlir-runner: the interpreter would take minutes at this size)."""
import pytest

from loopopt import driver
from loopopt.options import TARGETS, Options
from loopopt.toolchain import find_tool, verify_with_mlir_opt

N = 4 * 1024 * 1024
CHAIN = f"""
func.func @chain(%a: memref<{N}xf32>, %b: memref<{N}xf32>, %out: memref<{N}xf32>) {{
  %t0 = memref.alloc() : memref<{N}xf32>
  %t1 = memref.alloc() : memref<{N}xf32>
  %c = arith.constant 0.5 : f32
  affine.for %i = 0 to {N} {{
    %x = affine.load %a[%i] : memref<{N}xf32>
    %y = affine.load %b[%i] : memref<{N}xf32>
    %z = arith.addf %x, %y : f32
    affine.store %z, %t0[%i] : memref<{N}xf32>
  }}
  affine.for %i = 0 to {N} {{
    %x = affine.load %t0[%i] : memref<{N}xf32>
    %z = arith.mulf %x, %c : f32
    affine.store %z, %t1[%i] : memref<{N}xf32>
  }}
  affine.for %i = 0 to {N} {{
    %x = affine.load %t1[%i] : memref<{N}xf32>
    %y = affine.load %t0[%i] : memref<{N}xf32>
    %z = arith.subf %x, %y : f32
    affine.store %z, %out[%i] : memref<{N}xf32>
  }}
  memref.dealloc %t0 : memref<{N}xf32>
  memref.dealloc %t1 : memref<{N}xf32>
  return
}}
"""


@pytest.mark.toolchain
@pytest.mark.parametrize("target", ["trn1", "cpu"])
def test_4m_chain_one_loop_no_intermediate_same_results(target):
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, run_native

    res = driver.optimize(CHAIN, Options(target=TARGETS[target]), "chain.mlir")
    assert res.text.count("affine.for") == 1
    assert "memref.alloc" not in res.text and "memref.dealloc" not in res.text
    assert verify_with_mlir_opt(res.text) is None
    before = run_native(CHAIN, "chain", [None, None, None], reps=1, warmup=0)
    after = run_native(res.text, "chain", [None, None, None], reps=1, warmup=0)
    assert compare_outputs(before.outputs, after.outputs) is None
    assert before.outputs and all(o.numel == N for o in before.outputs)
