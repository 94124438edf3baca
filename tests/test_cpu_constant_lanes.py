"""Steps `fold-result-copies` and `constant-lanes` (codegen/cpu/fold_permuted_copies.py,
codegen/cpu/constant_lanes.py, rule in codegen/cpu/plan/constant_lanes.py; docs/cpu_codegen.md
section 50): a convolution whose result is stored channels-last (a torch graph ending with
`.permute(0, 2, 3, 1)`) gets its register tile's lanes along the output channels, its constant
weight laid out with the output channels last; results equal the unoptimised program's."""
from __future__ import annotations

import numpy as np
import pytest

import loopopt
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")


def _blob(a: np.ndarray) -> str:
    return "0x04000000" + a.astype(np.float32).tobytes().hex().upper()


WEIGHT = np.random.default_rng(0).standard_normal((16, 4, 3, 3)).astype(np.float32)

# Y[0, oh, ow, co] = sum W[co, ci, kh, kw] * X[0, ci, oh + kh, ow + kw]: a 3x3 convolution of 4
# channels into 16 stored in NHWC order, the weight a constant in torch's [co, ci, kh, kw].
NHWC_CONV = """module {
  memref.global "private" constant @w : memref<16x4x3x3xf32> = dense_resource<w_blob>
  func.func @k(%x: memref<1x4x10x10xf32>, %y: memref<1x8x8x16xf32>) {
    %z = arith.constant 0.0 : f32
    %w = memref.get_global @w : memref<16x4x3x3xf32>
    affine.for %co = 0 to 16 {
      affine.for %oh = 0 to 8 {
        affine.for %ow = 0 to 8 {
          %s = affine.for %ci = 0 to 4 iter_args(%a0 = %z) -> (f32) {
            %s1 = affine.for %kh = 0 to 3 iter_args(%a1 = %a0) -> (f32) {
              %s2 = affine.for %kw = 0 to 3 iter_args(%a2 = %a1) -> (f32) {
                %u = affine.load %x[0, %ci, %oh + %kh, %ow + %kw] : memref<1x4x10x10xf32>
                %v = affine.load %w[%co, %ci, %kh, %kw] : memref<16x4x3x3xf32>
                %m = arith.mulf %u, %v : f32
                %n = arith.addf %a2, %m : f32
                affine.yield %n : f32
              }
              affine.yield %s2 : f32
            }
            affine.yield %s1 : f32
          }
          affine.store %s, %y[0, %oh, %ow, %co] : memref<1x8x8x16xf32>
        }
      }
    }
    return
  }
}
{-#
  dialect_resources: {
    builtin: {
      w_blob: "BLOB"
    }
  }
#-}
""".replace("BLOB", _blob(WEIGHT))

# The same with the weight an argument: no constant to lay out, the lanes stay refused.
ARGUMENT_WEIGHT = NHWC_CONV.replace('  memref.global "private" constant @w : memref<16x4x3x3xf32> = dense_resource<w_blob>\n', "") \
    .replace("%y: memref<1x8x8x16xf32>) {", "%w: memref<16x4x3x3xf32>, %y: memref<1x8x8x16xf32>) {") \
    .replace("    %w = memref.get_global @w : memref<16x4x3x3xf32>\n", "")

# As the lowering leaves a torch graph `conv(x).permute(0, 2, 3, 1)`: the result built in a
# buffer of NCHW, then copied into the NHWC result by the permutation.
COPIED_RESULT = NHWC_CONV.replace("%y: memref<1x8x8x16xf32>) {", "%y: memref<1x8x8x16xf32>) {\n"
                                  "    %t = memref.alloc() : memref<1x16x8x8xf32>") \
    .replace("affine.store %s, %y[0, %oh, %ow, %co] : memref<1x8x8x16xf32>",
             "affine.store %s, %t[0, %co, %oh, %ow] : memref<1x16x8x8xf32>") \
    .replace("""    return
  }
}""", """    affine.for %a = 0 to 16 {
      affine.for %b = 0 to 8 {
        affine.for %c = 0 to 8 {
          %v = affine.load %t[0, %a, %b, %c] : memref<1x16x8x8xf32>
          affine.store %v, %y[0, %b, %c, %a] : memref<1x8x8x16xf32>
        }
      }
    }
    memref.dealloc %t : memref<1x16x8x8xf32>
    return
  }
}""")

OPTS = Options(target=TARGETS["cpu"], reassociate=True, vector_bits=256)  # each sum in order: bit for bit


def test_the_weight_is_laid_out_along_the_output_channels_and_the_tile_takes_them():
    """Before: `[STOP REGISTER TILING] no gain ... lanes refused (affine.store ... moves by [0, 0,
    1, 0] ...)`: the convolution ran one output at a time."""
    c = optimize_and_compare(NHWC_CONV, "k", OPTS, natively=False)
    lanes = [m for m in c.messages if m.startswith("[CONSTANT LANES]")]
    assert len(lanes) == 1 and "laid out with its dimension 0 last as @w_lanes0 (4x3x3x16)" in lanes[0], c.messages
    assert any(m.startswith("[LOOP ORDER]") and "lanes along the loop" in m for m in c.messages), c.messages
    assert any(m.startswith("[REGISTER TILING]") and "x 16 tile" in m for m in c.messages), c.messages
    assert "affine.vector_store" in c.text and "@w :" not in c.text, c.text  # the source global erased


def test_a_weight_read_from_an_argument_is_left_alone():
    c = optimize_and_compare(ARGUMENT_WEIGHT, "k", OPTS, natively=False)
    assert not any(m.startswith("[CONSTANT LANES]") for m in c.messages), c.messages
    assert not any(m.startswith("[REGISTER TILING]") for m in c.messages), c.messages


def test_the_result_copy_folds_into_its_writers_before_fusion():
    c = optimize_and_compare(COPIED_RESULT, "k", OPTS, natively=False)
    remarks = loopopt.optimize(COPIED_RESULT, target="cpu", reassociate=True).remarks
    folded = [r for r in remarks if r.message.startswith("[FOLD COPY]")]
    assert folded and folded[0].pass_name == "fold-result-copies" and "into its writers" in folded[0].message, \
        [(r.pass_name, r.message) for r in remarks]
    assert any(m.startswith("[REGISTER TILING]") and "x 16 tile" in m for m in c.messages), c.messages
    assert "memref<1x16x8x8xf32>" not in c.text, c.text


@has_runner
@pytest.mark.parametrize("src", [NHWC_CONV, COPIED_RESULT], ids=["stored", "copied"])
def test_natively(src):
    assert optimize_and_compare(src, "k", OPTS, interpret=False, natively=True).native
