"""Classifier heads (docs/cpu_codegen.md section 32): a Linear whose weight is scaled on its way
(`F.linear(x, w * c)`), after fusion and contraction, is a product reading the scaled weight's
column per iteration of the loop over its rows (512x1 for 1000 rows). Product isolation expands
that buffer in its layout before fusion (the iteration in its unit dimension: 512x1000, the
transposed weight), loop order puts the loop along the product's columns innermost of the band
around the reduction (the register tile's lanes), and the scaled transposing copy moves in
vector tiles, the scale applied to each row vector. Checked on the IR and bit for bit in the
interpreter and natively."""
from __future__ import annotations

import pytest

import loopopt
from loopopt import mlir, native
from loopopt.codegen.cpu.isolate_products import unit_dim_to_replace
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def scaled_head(m=16, n=40, k=24, scale="arith.mulf %w, %c : f32") -> str:
    """What fusion and contraction leave of `x @ (w * c)^T`: per row j of the weight, its scaled
    elements into a K x 1 buffer, then every row i's dot product with it."""
    return f"""func.func @head(%W: memref<{n}x{k}xf32>, %X: memref<{m}x{k}xf32>, %C: memref<{m}x{n}xf32>) {{
  %c = arith.constant 0.125 : f32
  %t = memref.alloc() : memref<{k}x1xf32>
  affine.for %j = 0 to {n} {{
    affine.for %k = 0 to {k} {{
      %w = affine.load %W[%j, %k] : memref<{n}x{k}xf32>
      %s = {scale}
      affine.store %s, %t[%k, 0] : memref<{k}x1xf32>
    }}
    affine.for %i = 0 to {m} {{
      %c0 = affine.load %C[%i, %j] : memref<{m}x{n}xf32>
      %r = affine.for %k = 0 to {k} iter_args(%acc = %c0) -> (f32) {{
        %x = affine.load %X[%i, %k] : memref<{m}x{k}xf32>
        %b = affine.load %t[%k, 0] : memref<{k}x1xf32>
        %p = arith.mulf %x, %b : f32
        %a = arith.addf %acc, %p : f32
        affine.yield %a : f32
      }}
      affine.store %r, %C[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  memref.dealloc %t : memref<{k}x1xf32>
  return
}}
"""


def messages(res, *passes):
    return [r.message for r in res.remarks if r.pass_name in passes]


@pytest.mark.parametrize("m, n, k", [(16, 40, 24), (5, 37, 19), (32, 64, 32)])
def test_a_scaled_weight_is_expanded_transposed_and_the_product_tiled_in_lanes(m, n, k):
    src = scaled_head(m, n, k)
    res = loopopt.optimize(src, target="cpu")
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message]
    assert messages(res, "isolate-products") == [
        f"[PRODUCT ISOLATION] loop split into 2 loops: a matrix product in a nest of its own (buffer expanded per "
        f"iteration to {k}x{n})"]
    assert messages(res, "loop-order")[0].startswith("[LOOP ORDER] 1:0: lanes along the loop at ")
    assert "vector accumulators" in messages(res, "register-tile")[0]
    tile = messages(res, "transpose-tiles")[0]
    assert tile.startswith(f"[TRANSPOSE TILE] a {k} x {n} transposing copy through arith.mulf in "), tile
    assert "vector.broadcast" in res.text and f"memref<{k}x{n}xf32>" in res.text
    assert_same_results(src, res.text, seed=m)


@has_runner
@pytest.mark.parametrize("m, n, k", [(32, 1000, 64), (7, 37, 45)])
def test_a_scaled_head_natively_bit_for_bit(m, n, k):
    src = scaled_head(m, n, k)
    res = loopopt.optimize(src, target="cpu")
    want = native.run_native(src, "head", [None] * 3, reps=1, full_limit=200_000).outputs
    got = native.run_native(res.text, "head", [None] * 3, reps=1, full_limit=200_000).outputs
    assert native.compare_outputs(want, got) is None


def test_the_unit_dimension_replaced_is_one_every_access_indexes_by_zero():
    ir = mlir.ir
    with ir.Context():
        d0, zero = ir.AffineDimExpr.get(0), ir.AffineConstantExpr.get(0)

        def amap(*results):
            return ir.AffineMap.get(1, 0, list(results))
        assert unit_dim_to_replace([24, 1], [amap(d0, zero)]) == 1
        assert unit_dim_to_replace([1, 24], [amap(zero, d0)]) == 0
        assert unit_dim_to_replace([24, 8], [amap(d0, zero)]) is None
        assert unit_dim_to_replace([24, 1], [amap(d0, zero), amap(d0, d0)]) is None


def test_a_product_reading_its_weight_along_rows_keeps_the_weight_rows_outside():
    """x @ W^T reading W[j, k] in place (no scale to isolate; one row): the loop over W's rows
    stays outside the rows of x (each row of W read from L1 by every row of x): the band above
    the reduction is reordered only to put a loop of contiguous or invariant walks innermost."""
    src = scaled_head(8, 40, 24).replace("%t[%k, 0] : memref<24x1xf32>", "%W[%j, %k] : memref<40x24xf32>")
    src = src.replace("""      %s = arith.mulf %w, %c : f32
      affine.store %s, %W[%j, %k] : memref<40x24xf32>
""", "").replace("""    affine.for %k = 0 to 24 {
      %w = affine.load %W[%j, %k] : memref<40x24xf32>
    }
""", "")
    res = loopopt.optimize(src, target="cpu", passes=["loop-order"])
    assert not [r.message for r in res.remarks if r.message.startswith("[LOOP ORDER]")], res.text


# ----------------------------------------------------------------------------- global pooling

def pooling(n=2, c=8, h=7, w=7, op="arith.addf %x, %acc1 : f32", init="0.0", out="%s") -> str:
    """x[n, c, h, w] reduced over h and w per (n, c) (a global pooling window), as scalar
    replacement leaves it: the sum carried through both loops in iter_args."""
    return f"""func.func @pool(%X: memref<{n}x{c}x{h}x{w}xf32>, %Y: memref<{n}x{c}xf32>) {{
  %z = arith.constant {init} : f32
  affine.for %a = 0 to {n} {{
    affine.for %b = 0 to {c} {{
      %s = affine.for %i = 0 to {h} iter_args(%acc0 = %z) -> (f32) {{
        %t = affine.for %j = 0 to {w} iter_args(%acc1 = %acc0) -> (f32) {{
          %x = affine.load %X[%a, %b, %i, %j] : memref<{n}x{c}x{h}x{w}xf32>
          %y = {op}
          affine.yield %y : f32
        }}
        affine.yield %t : f32
      }}
      affine.store {out}, %Y[%a, %b] : memref<{n}x{c}xf32>
    }}
  }}
  return
}}
"""


def flat(src: str, reassociate: bool, bits: int = 512):
    from loopopt.driver import optimize
    res = optimize(src, Options(target=TARGETS["cpu"], vector_bits=bits, reassociate=reassociate),
                   filename="t.mlir", passes=["flat-reductions"])
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message]
    return res.text, [r.message for r in res.remarks if "FLAT REDUCTION" in r.message]


@pytest.mark.parametrize("h, w, op, reassociate, how", [
    (7, 7, "arith.addf %x, %acc1 : f32", True, ", in vector partial sums of 16 lanes (3 vectors, then 1 in order)"),
    (7, 7, "arith.addf %x, %acc1 : f32", False, ", in order"),
    (7, 7, "arith.maximumf %acc1, %x : f32", False, ", in vector partial sums of 16 lanes (3 vectors, then 1 in order)"),
    (5, 3, "arith.addf %x, %acc1 : f32", True, ", in order"),  # 15 elements: less than one vector
    (3, 11, "arith.minimumf %x, %acc1 : f32", False, ", in vector partial sums of 16 lanes (2 vectors, then 1 in order)"),
    # rows of whole vectors too (section 41: LLVM would unroll w whole and gather across rows)
    (3, 16, "arith.addf %x, %acc1 : f32", True, ", in vector partial sums of 16 lanes (3 vectors)"),
], ids=["sum", "sum-in-order", "max", "short", "min-odd", "whole-rows"])
def test_a_global_pooling_window_runs_as_one_loop(h, w, op, reassociate, how):
    """Both reduction loops as one of h * w elements through a view; partial sums in lanes where
    the reduction may be reordered: max and min always (exact), a sum with --reassociate. In order,
    bit for bit; reordered, a sum within rounding."""
    src = pooling(h=h, w=w, op=op, init="0xFF800000" if "max" in op else "0x7F800000" if "min" in op else "0.0")
    out, remarks = flat(src, reassociate)
    assert remarks == [f"[FLAT REDUCTION] the reduction loops over {h} rows and {w} columns run as one loop of {h * w} "
                       f"elements through a view joining the buffer's last two dimensions{how}"], remarks
    assert "memref.collapse_shape" in out and f"memref<2x8x{h * w}xf32>" in out
    exact = "in order" in how and "vector" not in how or "max" in op or "min" in op
    assert_same_results(src, out, seed=h * w, rtol=0.0 if exact else 1e-5, atol=0.0 if exact else 1e-5)
    assert ("vector.reduction" in out) == ("vector" in how)


@pytest.mark.parametrize("src, why", [
    # the inner loop starts afresh in each row: the result is the last row's sum alone
    (pooling().replace("iter_args(%acc1 = %acc0)", "iter_args(%acc1 = %z)"),
     "the inner loop does not carry exactly the outer loop's values, in order"),
    # a window of an image, not all of it: the buffer does not end in the loops' extents
    (pooling().replace("memref<2x8x7x7xf32>", "memref<2x8x9x9xf32>"),
     "its buffer does not end in 7 x 7 contiguous elements"),
], ids=["restarted", "window"])
def test_a_pair_the_rule_refuses_says_why(src, why):
    out, remarks = flat(src, True)
    assert len(remarks) == 1 and remarks[0].startswith("[STOP FLAT REDUCTION]") and why in remarks[0], remarks
    assert "collapse_shape" not in out
    assert_same_results(src, out, seed=9)


@has_runner
def test_global_average_pooling_natively():
    src = pooling(n=4, c=64, op="arith.addf %x, %acc1 : f32")
    res = loopopt.optimize(src, target="cpu", reassociate=True)
    assert "vector.reduction" in res.text
    want = native.run_native(src, "pool", [None] * 2, reps=1).outputs
    got = native.run_native(res.text, "pool", [None] * 2, reps=1).outputs
    assert native.compare_outputs(want, got, rtol=1e-5) is None


def test_a_pair_carrying_vectors_says_so():
    """A pair whose loops carry vectors (the register tile's accumulators across a convolution's
    taps: section 37's 1-D conv) is not split into lanes; the refusal names the carried type (it
    read "5 columns are whole vectors of 0 lanes")."""
    from loopopt.codegen.cpu.flat_reductions import plan_flat_reductions

    m = mlir.parse_module("""
func.func @f(%a: memref<4x5xf32>, %o: memref<16xf32>) {
  %z = arith.constant dense<0.0> : vector<16xf32>
  %r = affine.for %i = 0 to 4 iter_args(%x = %z) -> (vector<16xf32>) {
    %s = affine.for %j = 0 to 5 iter_args(%y = %x) -> (vector<16xf32>) {
      %e = affine.load %a[%i, %j] : memref<4x5xf32>
      %v = vector.broadcast %e : f32 to vector<16xf32>
      %t = arith.addf %y, %v : vector<16xf32>
      affine.yield %t : vector<16xf32>
    }
    affine.yield %s : vector<16xf32>
  }
  affine.vector_store %r, %o[0] : memref<16xf32>, vector<16xf32>
  return
}""")
    (fn,) = mlir.functions(m)
    (plan, why), = plan_flat_reductions(fn, Options(target=TARGETS["cpu"], vector_bits=512))
    assert why == "the loops carry vector<16xf32>, not a scalar a vector's lanes could split"
