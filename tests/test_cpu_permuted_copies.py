"""Step `fold-permuted-copies` (codegen/cpu/fold_permuted_copies.py, rule in
codegen/cpu/plan/permuted_copies.py, docs/cpu_codegen.md section 46): a copy of a whole buffer by a
permutation of its dimensions folded into its one consumer or into its writers, proven in order
with isl; the refusals, each with its code; and the rows in lanes that then read the channels of
NCHW as one vector per column (also with --reassociate)."""
from __future__ import annotations

import pytest

import loopopt
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

# ConvNeXt's LayerNorm over channels as the lowering leaves it: NCHW -> NHWC, the mean over the
# channels, the centred values, NHWC -> NCHW.
CHANNELS_LN = """func.func @k(%x: memref<1x16x4x8xf32>, %o: memref<1x16x4x8xf32>) {
  %z = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %t = memref.alloc() : memref<1x4x8x16xf32>
  affine.for %b = 0 to 1 {
    affine.for %h = 0 to 4 {
      affine.for %w = 0 to 8 {
        affine.for %c = 0 to 16 {
          %v = affine.load %x[%b, %c, %h, %w] : memref<1x16x4x8xf32>
          affine.store %v, %t[%b, %h, %w, %c] : memref<1x4x8x16xf32>
        }
      }
    }
  }
  %y = memref.alloc() : memref<4x8x16xf32>
  affine.for %h = 0 to 4 {
    affine.for %w = 0 to 8 {
      %s = affine.for %c = 0 to 16 iter_args(%a = %z) -> (f32) {
        %v = affine.load %t[0, %h, %w, %c] : memref<1x4x8x16xf32>
        %b = arith.addf %a, %v : f32
        affine.yield %b : f32
      }
      %m = arith.divf %s, %n : f32
      affine.for %c = 0 to 16 {
        %v = affine.load %t[0, %h, %w, %c] : memref<1x4x8x16xf32>
        %d = arith.subf %v, %m : f32
        affine.store %d, %y[%h, %w, %c] : memref<4x8x16xf32>
      }
    }
  }
  affine.for %h = 0 to 4 {
    affine.for %w = 0 to 8 {
      affine.for %c = 0 to 16 {
        %v = affine.load %y[%h, %w, %c] : memref<4x8x16xf32>
        affine.store %v, %o[0, %c, %h, %w] : memref<1x16x4x8xf32>
      }
    }
  }
  memref.dealloc %t : memref<1x4x8x16xf32>
  memref.dealloc %y : memref<4x8x16xf32>
  return
}
"""


def messages(src: str, **kw):
    res = loopopt.optimize(src, target="cpu", **kw)
    return res.text, [r.message for r in res.remarks]


STEPS = ["fold-permuted-copies", "loop-order", "rows-in-lanes", "vectorize"]


def test_both_copies_fold_and_the_results_stay_bit_for_bit():
    c = optimize_and_compare(CHANNELS_LN, "k", passes=["fold-permuted-copies"], natively=False)
    folds = [m for m in c.messages if m.startswith("[FOLD COPY]")]
    assert len(folds) == 2, c.messages
    assert "permutation [0, 2, 3, 1] folded into its readers" in folds[0], folds
    assert "permutation [-, 2, 0, 1] folded into its writers" in folds[1], folds
    assert "memref<1x4x8x16xf32>" not in c.text and "memref<4x8x16xf32>" not in c.text, c.text


@pytest.mark.parametrize("reassociate", [False, True])
def test_the_channel_sums_run_in_lanes_along_the_row(reassociate):
    """Before: with --reassociate rows in lanes refused (REASSOCIATE), without it NO_ROWS; the sums
    walked the channels 32 elements apart one element at a time."""
    opts = Options(target=TARGETS["cpu"], reassociate=reassociate, vector_bits=256)
    c = optimize_and_compare(CHANNELS_LN, "k", opts, passes=STEPS, natively=False)
    assert any(m.startswith("[ROWS IN LANES] 8 rows in the lanes of vector<8xf32>") for m in c.messages), c.messages
    assert any("columns contiguous along the rows read as one vector each" in m for m in c.messages), c.messages
    assert "affine.vector_load %arg0[0, %arg" in c.text, c.text


@has_runner
@pytest.mark.parametrize("reassociate", [False, True])
def test_natively_bit_for_bit(reassociate):
    opts = Options(target=TARGETS["cpu"], reassociate=reassociate)
    assert optimize_and_compare(CHANNELS_LN, "k", opts, interpret=False, natively=True).native
    assert optimize_and_compare(CHANNELS_LN, "k", opts, passes=STEPS, interpret=False, natively=True).native


def _only_fold(src: str) -> list[str]:
    res = loopopt.optimize(src, target="cpu", passes=["fold-permuted-copies"])
    return [r.message for r in res.remarks if "FOLD COPY" in r.message], res.text


REFUSED = {
    # the NHWC copy read by two nests: each would walk the strided source
    "CONSUMERS": CHANNELS_LN.replace("""  memref.dealloc %t""", """  affine.for %h = 0 to 4 {
    affine.for %w = 0 to 8 {
      affine.for %c = 0 to 16 {
        %v = affine.load %t[0, %h, %w, %c] : memref<1x4x8x16xf32>
        %v2 = arith.mulf %v, %v : f32
        affine.store %v2, %y[%h, %w, %c] : memref<4x8x16xf32>
      }
    }
  }
  memref.dealloc %t"""),
    # a read of the destination before the copy fills it
    "READ_BEFORE_COPY": CHANNELS_LN.replace("""  %t = memref.alloc() : memref<1x4x8x16xf32>
""", """  %t = memref.alloc() : memref<1x4x8x16xf32>
  %early = affine.load %t[0, 1, 2, 3] : memref<1x4x8x16xf32>
  affine.store %early, %x[0, 0, 0, 0] : memref<1x16x4x8xf32>
"""),
    # the source overwritten after the copy, before the readers: they must see the old values
    "SOURCE_WRITTEN": CHANNELS_LN.replace("""  %y = memref.alloc() : memref<4x8x16xf32>
""", """  affine.store %z, %x[0, 3, 1, 2] : memref<1x16x4x8xf32>
  %y = memref.alloc() : memref<4x8x16xf32>
"""),
    # the output read before the copy back writes it: the writers may not use it as scratch
    "DESTINATION_USED": CHANNELS_LN.replace("""  %y = memref.alloc() : memref<4x8x16xf32>
""", """  %y = memref.alloc() : memref<4x8x16xf32>
  %old = affine.load %o[0, 1, 1, 1] : memref<1x16x4x8xf32>
  affine.store %old, %x[0, 0, 0, 0] : memref<1x16x4x8xf32>
"""),
}


@pytest.mark.parametrize("code", sorted(REFUSED))
def test_refusals_say_why_and_keep_results(code):
    src = REFUSED[code]
    res = loopopt.optimize(src, target="cpu", passes=["fold-permuted-copies"])
    stops = [r for r in res.remarks if r.message.startswith("[STOP FOLD COPY]")]
    assert any(r.args.get("code") == code for r in stops), [(r.message, r.args) for r in res.remarks]
    optimize_and_compare(src, "k", passes=["fold-permuted-copies"], natively=False)


def test_the_identity_copy_is_not_a_permuted_copy():
    src = """func.func @k(%x: memref<4x8xf32>, %o: memref<4x8xf32>) {
  %t = memref.alloc() : memref<4x8xf32>
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 8 {
      %v = affine.load %x[%i, %j] : memref<4x8xf32>
      affine.store %v, %t[%i, %j] : memref<4x8xf32>
    }
  }
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 8 {
      %v = affine.load %t[%i, %j] : memref<4x8xf32>
      affine.store %v, %o[%i, %j] : memref<4x8xf32>
    }
  }
  return
}
"""
    res = loopopt.optimize(src, target="cpu", passes=["fold-permuted-copies"])
    assert not any("FOLD COPY" in r.message for r in res.remarks)


def test_a_partial_copy_is_not_folded():
    """The copy covers 15 of the 16 channels: the destination's last channel is never written."""
    src = CHANNELS_LN.replace("""        affine.for %c = 0 to 16 {
          %v = affine.load %x[%b, %c, %h, %w]""", """        affine.for %c = 0 to 15 {
          %v = affine.load %x[%b, %c, %h, %w]""")
    res = loopopt.optimize(src, target="cpu", passes=["fold-permuted-copies"])
    msgs = [r.message for r in res.remarks if "FOLD COPY" in r.message]
    assert len(msgs) == 1 and "folded into its writers" in msgs[0], msgs


# One decoder step's attention scores: q (one row per head) times K^T, K as the cache holds it
# (keys by rows), the transposing copy torch-mlir makes of it read by the product.
ONE_ROW_SCORES = """func.func @k(%q: memref<4x16xf32>, %kc: memref<4x32x16xf32>, %o: memref<4x32xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x16x32xf32>
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %v = affine.load %kc[%b, %j, %d] : memref<4x32x16xf32>
        affine.store %v, %t[%b, %d, %j] : memref<4x16x32xf32>
      }
    }
  }
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.store %z, %o[%b, %j] : memref<4x32xf32>
    }
  }
  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %a = affine.load %q[%b, %d] : memref<4x16xf32>
        %k = affine.load %t[%b, %d, %j] : memref<4x16x32xf32>
        %c = affine.load %o[%b, %j] : memref<4x32xf32>
        %m = arith.mulf %a, %k : f32
        %s = arith.addf %c, %m : f32
        affine.store %s, %o[%b, %j] : memref<4x32xf32>
      }
    }
  }
  memref.dealloc %t : memref<4x16x32xf32>
  return
}
"""

# The same with three rows of queries: each element of the copy is read by three rows.
THREE_ROW_SCORES = ONE_ROW_SCORES.replace("memref<4x16xf32>", "memref<4x3x16xf32>") \
    .replace("memref<4x32xf32>", "memref<4x3x32xf32>") \
    .replace("""  affine.for %b = 0 to 4 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %a""", """  affine.for %b = 0 to 4 {
   affine.for %i = 0 to 3 {
    affine.for %j = 0 to 32 {
      affine.for %d = 0 to 16 {
        %a""").replace("%q[%b, %d]", "%q[%b, %i, %d]").replace("%o[%b, %j]", "%o[%b, %i, %j]") \
    .replace("""        affine.store %s, %o[%b, %i, %j] : memref<4x3x32xf32>
      }
    }
  }""", """        affine.store %s, %o[%b, %i, %j] : memref<4x3x32xf32>
      }
    }
   }
  }""").replace("""    affine.for %j = 0 to 32 {
      affine.store %z, %o[%b, %i, %j]""", """    affine.for %j = 0 to 32 {
      affine.store %z, %o[%b, 0, %j]""")


def test_a_product_of_one_row_reads_the_operand_in_place_of_its_transposing_copy():
    """Each element of the copy is read once by the product (every loop around the read indexes
    it): a packed copy buys no reuse, its pass over memory is as large as the product's own. The
    copy is folded into the product (before: refused as PRODUCT), bit for bit with the step alone;
    the whole pipeline's results natively within rounding (the dot products' sums vectorised)."""
    folds, text = _only_fold(ONE_ROW_SCORES)
    assert len(folds) == 1 and "folded into its readers" in folds[0], folds
    assert "memref<4x16x32xf32>" not in text and "affine.load %arg1[%arg3, %arg4, %arg5]" in text, text
    optimize_and_compare(ONE_ROW_SCORES, "k", passes=["fold-permuted-copies"], natively=False)


@has_runner
def test_a_product_of_one_row_natively():
    c = optimize_and_compare(ONE_ROW_SCORES, "k", interpret=False, natively=True, rtol=1e-5, normwise=True)
    assert c.native and any(m.startswith("[FOLD COPY]") for m in c.messages), c.messages


def test_a_product_of_several_rows_keeps_its_transposing_copy():
    """Three rows read each element of the copy: the copy stays for the product's packing steps,
    with the refusal's code."""
    res = loopopt.optimize(THREE_ROW_SCORES, target="cpu", passes=["fold-permuted-copies"])
    stops = [r for r in res.remarks if r.message.startswith("[STOP FOLD COPY]")]
    assert any(r.args.get("code") == "PRODUCT" for r in stops), [(r.message, r.args) for r in res.remarks]
    optimize_and_compare(THREE_ROW_SCORES, "k", passes=["fold-permuted-copies"], natively=False)
