"""Transposing copies in vector registers (codegen/cpu/plan/transpose_tiles.py,
codegen/cpu/transpose_tiles.py): the network, the plan and its refusals, and results kept bit for
bit in the interpreter and natively."""
from __future__ import annotations

import numpy as np
import pytest

from loopopt import native
from loopopt.codegen.cpu.plan.transpose_tiles import transpose_by_network, transpose_network, zip_mask
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def cpu(bits: int = 512, **kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


def transpose(m=64, n=48, elem="f32", store="%dst[%i, %j]", dst_shape=None, src="%src") -> str:
    """dst[i, j] = src[j, i] (the lowering of linalg.transpose); src n x m."""
    dst_shape = dst_shape or f"{m}x{n}"
    args = f"%src: memref<{n}x{m}x{elem}>, %dst: memref<{dst_shape}x{elem}>" if src == "%src" else \
        f"%dst: memref<{dst_shape}x{elem}>"
    return f"""func.func @k({args}) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %v = affine.load {src}[%j, %i] : memref<{n}x{m}x{elem}>
      affine.store %v, {store} : memref<{dst_shape}x{elem}>
    }}
  }}
  return
}}
"""


def run(src: str, options: Options, passes=None):
    res = optimize(src, options, filename="t.mlir", passes=passes)
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message], [r.message for r in res.remarks]
    return res.text, [r.message for r in res.remarks if "TRANSPOSE TILE" in r.message]


@pytest.mark.parametrize("lanes", [2, 4, 8, 16, 32])
def test_the_network_turns_rows_into_columns(lanes):
    rows = np.arange(lanes * lanes).reshape(lanes, lanes)
    assert np.array_equal(np.array(transpose_by_network(rows.tolist())), rows.T)
    assert len(transpose_network(lanes)) == lanes.bit_length() - 1
    assert zip_mask(4, False) == [0, 4, 1, 5] and zip_mask(4, True) == [2, 6, 3, 7]


@pytest.mark.parametrize("bits, lanes, elem", [(512, 16, "f32"), (256, 8, "f32"), (512, 8, "f64"), (256, 16, "f16"),
                                               (512, 16, "i32")])
def test_a_transposing_copy_moves_in_vector_tiles_and_keeps_its_results(bits, lanes, elem):
    """After block-transposes' 16 x 16 tiles (8 x 8 for f64) each band moves in lanes x lanes tiles:
    lanes row loads, lanes * log2(lanes) shuffles, lanes row stores; bit for bit in the interpreter."""
    src = transpose(elem=elem)
    out, remarks = run(src, cpu(bits))
    assert out.count("vector.shuffle") == lanes * (lanes.bit_length() - 1), out
    assert out.count("affine.vector_load") == lanes and out.count("affine.vector_store") == lanes, out
    assert f"vector<{lanes}x{elem}>" in out and "affine.load" not in out and "affine.store" not in out, out
    # f16's cache line is 32 elements, which 48 is not a multiple of: the band is not blocked, and
    # moves 64 x 48 in tiles of 16 (its loops step by the tile)
    size = "64 x 48" if elem == "f16" else "8 x 8" if elem == "f64" else "16 x 16"
    assert remarks == [f"[TRANSPOSE TILE] a {size} transposing copy in {lanes} x {lanes} tiles, each {lanes} vector "
                       f"loads, {lanes * (lanes.bit_length() - 1)} shuffles and {lanes} vector stores"], remarks
    assert_same_results(src, out, seed=1)


def test_the_band_in_the_other_loop_order_and_inside_a_batch_loop():
    """dst[b, j, i] = src[b, i, j] with j outer: the load walks its rows along the inner loop; the
    tile is the same with the loops' roles swapped."""
    src = """func.func @k(%src: memref<2x32x48xf32>, %dst: memref<2x48x32xf32>) {
  affine.for %b = 0 to 2 {
    affine.for %j = 0 to 48 {
      affine.for %i = 0 to 32 {
        %v = affine.load %src[%b, %i, %j] : memref<2x32x48xf32>
        affine.store %v, %dst[%b, %j, %i] : memref<2x48x32xf32>
      }
    }
  }
  return
}
"""
    out, remarks = run(src, cpu(512), passes=["transpose-tiles"])
    assert "step 16" in out and out.count("vector.shuffle") == 64 and remarks, (out, remarks)
    assert_same_results(src, out, seed=2)


@pytest.mark.parametrize("src, bits, code", [
    # a loop shorter than the smallest edge tile (MIN_EDGE_LANES)
    (transpose(m=16, n=3), 512, "a loop of the copy runs fewer iterations than one vector tile"),
    # a partial tile whose loop's bounds are not constants: the edge bands cut them
    (transpose(m=32, n=20).replace("affine.for %j = 0 to 20", "affine.for %j = %o to affine_map<()[s] -> (s + 20)>()[%o]")
     .replace("%src[%j, %i]", "%src[%j - %o, %i]").replace("%dst[%i, %j]", "%dst[%i, %j - %o]")
     .replace("%dst: memref<32x20xf32>", "%dst: memref<32x20xf32>, %o: index"), 512,
     "a loop of the copy with a partial tile has bounds that are not constant"),
    # i8 in 512 bits: 64 lanes, a tile too large to unroll
    (transpose(m=64, n=64, elem="i8"), 512, "the element gives no vector tile"),
    # one buffer: the tile would read elements the band wrote earlier (an in-place transpose)
    (transpose(m=16, n=16, store="%dst[%i, %j]", dst_shape="16x16", src="%dst"), 512,
     "the copy's source and destination may be one buffer"),
], ids=["short", "symbolic bounds", "i8", "in place"])
def test_a_transposing_copy_left_element_by_element_says_why(src, bits, code):
    out, remarks = run(src, cpu(bits), passes=["transpose-tiles"])
    assert remarks == [r for r in remarks if code in r] and len(remarks) == 1, remarks
    assert "vector.shuffle" not in out
    assert_same_results(src, out, seed=3)


@pytest.mark.parametrize("m, n, bits, edges", [
    (16, 24, 512, "; 16 x 8 in 8 x 8 tiles"),
    (37, 21, 512, "; 4 x 20 in 4 x 4 tiles; 1 x 21 element by element; 4 x 1 element by element; "
                  "32 x 4 in 4 x 4 tiles; 32 x 1 element by element"),
    (1000, 512, 512, "; 8 x 512 in 8 x 8 tiles"),
    (10, 768, 512, "; 2 x 768 element by element"),
    (30, 7, 256, " in 4 x 4 tiles, each 4 vector loads, 8 shuffles and 4 vector stores; 2 x 7 element by element; "
                 "28 x 3 element by element"),
], ids=["16x24", "37x21", "1000x512", "10x768", "30x7-256"])
def test_a_copy_with_partial_tiles_runs_its_edges_after_the_whole_tiles(m, n, bits, edges):
    """dst[i, j] = src[j, i], i < m along the store's rows: the whole tiles as before, then the
    edges (a loop's last partial tile) in the largest tiles that fit them or element by element;
    a loop shorter than the vector (10 at 16 lanes) is tiled by the widest that fits. Every
    element once, bit for bit in the interpreter."""
    src = transpose(m=m, n=n)
    out, remarks = run(src, cpu(bits), passes=["transpose-tiles"])
    assert len(remarks) == 1 and remarks[0].startswith("[TRANSPOSE TILE]") and remarks[0].endswith(edges), remarks
    assert_same_results(src, out, seed=5)


def test_edge_bands_cover_the_band_once():
    from loopopt.codegen.cpu.plan.transpose_tiles import edge_bands
    for a, b, lanes in [(37, 21, 16), (1000, 512, 16), (16, 16, 16), (5, 130, 8), (3, 9, 4)]:
        seen = np.zeros((a, b), int)
        for band in edge_bands((0, a), (0, b), lanes):
            (a0, a1), (b0, b1) = band.a_range, band.b_range
            if band.lanes:
                assert (a1 - a0) % band.lanes == 0 and (b1 - b0) % band.lanes == 0, band
            seen[a0:a1, b0:b1] += 1
        assert (seen == 1).all(), (a, b, lanes)


@pytest.mark.parametrize("store, shape", [
    ("%dst[%i, %i + %j]", "16x32"),  # the store moves its last dimension along both loops: collisions
    ("%dst[0, %j]", "1x16"),  # every row of the band writes one row
    ("%dst[%i, %j floordiv 2]", "16x8"),  # not contiguous along j
])
def test_copies_that_are_not_transposes_are_not_planned(store, shape):
    src = transpose(m=16, n=16, store=store, dst_shape=shape)
    out, remarks = run(src, cpu(512), passes=["transpose-tiles"])
    assert remarks == [] and "vector" not in out, (out, remarks)


COLLIDING = """func.func @k(%src: memref<16x16xf32>, %dst: memref<1x32xf32>) {
  affine.for %j = 0 to 16 {
    affine.for %i = 0 to 16 {
      %v = affine.load %src[%j, %i] : memref<16x16xf32>
      affine.store %v, %dst[0, %i + %j] : memref<1x32xf32>
    }
  }
  return
}
"""


def test_colliding_stores_are_not_planned():
    """dst[0, i + j] along both loops: two iterations store to one element, and the last of them
    (largest j) must stay the last."""
    out, remarks = run(COLLIDING, cpu(512), passes=["transpose-tiles"])
    assert remarks == [] and "vector" not in out, (out, remarks)


@pytest.mark.parametrize("src", [COLLIDING, transpose(m=16, n=16, store="%dst[%i, %j]", dst_shape="16x16",
                                                                src="%dst")], ids=["collisions", "in place"])
def test_the_guards_are_needed(src):
    """What the guards prevent, on the reference interpreter: the colliding stores and the
    in-place transpose change their results when tiled anyway (mutation_check's entries remove
    the guards; the refusal tests above then fail)."""
    from loopopt import mlir
    from loopopt.codegen.cpu.plan import transpose_tiles as plan_mod
    from loopopt.codegen.cpu.transpose_tiles import build_tile

    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        outer = next(op for op in mlir.walk(fn) if op.name == "affine.for")
        inner, load, store = plan_mod.copy_band(outer)
        a, b = (inner, outer) if "%i + %j" in src else (outer, inner)  # the loop the load walks its row along
        build_tile(plan_mod.TransposeTile(outer, inner, a, b, load, store, 16, (16, 16)))
        tiled = mlir.print_module(module)
    with pytest.raises(AssertionError):
        assert_same_results(src, tiled, seed=4)


@has_runner
@pytest.mark.parametrize("bits, m, n, k", [(512, 96, 512, 256), (256, 96, 512, 256), (512, 32, 1000, 512),
                                           (512, 32, 10, 768), (256, 7, 37, 45)])
def test_transposed_weights_of_a_product_natively_bit_for_bit(bits, m, n, k):
    """torch's Linear: y = x W^T with W an argument, the transpose copied, blocked, tiled (odd
    widths with their edges), laid out in panels; the default pipeline natively against the input
    program."""
    src = LINEAR.replace("96", "M").replace("512", "N").replace("256", "K") \
        .replace("M", str(m)).replace("N", str(n)).replace("K", str(k))
    options = cpu(bits, cache_sizes=(32 * 1024, 256 * 1024, 8 * 1024 * 1024))
    out, remarks = run(src, options)
    assert remarks and "vector.shuffle" in out and "STOP" not in remarks[0], remarks
    sizes = [None, None, None]
    want = native.run_native(src, "k", sizes, reps=1, full_limit=200_000).outputs
    got = native.run_native(out, "k", sizes, reps=1, full_limit=200_000).outputs
    assert native.compare_outputs(want, got) is None


LINEAR = """func.func @k(%x: memref<96x256xf32>, %w: memref<512x256xf32>, %y: memref<96x512xf32>) {
  %t = memref.alloc() : memref<256x512xf32>
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 512 {
      %v = affine.load %w[%j, %i] : memref<512x256xf32>
      affine.store %v, %t[%i, %j] : memref<256x512xf32>
    }
  }
  affine.for %i = 0 to 96 {
    affine.for %j = 0 to 512 {
      affine.for %k = 0 to 256 {
        %a = affine.load %x[%i, %k] : memref<96x256xf32>
        %b = affine.load %t[%k, %j] : memref<256x512xf32>
        %c = affine.load %y[%i, %j] : memref<96x512xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %y[%i, %j] : memref<96x512xf32>
      }
    }
  }
  memref.dealloc %t : memref<256x512xf32>
  return
}
"""


def mapped(m=32, n=48, body="%y = arith.mulf %v, %c : f32", extra="") -> str:
    """dst[i, j] = f(src[j, i]) with f given by `body` (its result %y), %c a scale from outside."""
    return f"""{extra}func.func @k(%src: memref<{n}x{m}xf32>, %dst: memref<{m}x{n}xf32>, %c: f32) {{
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %v = affine.load %src[%j, %i] : memref<{n}x{m}xf32>
      {body}
      affine.store %y, %dst[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  return
}}
"""


@pytest.mark.parametrize("body, through", [
    ("%y = arith.mulf %v, %c : f32", "arith.mulf"),
    ("%u = arith.mulf %v, %c : f32\n      %y = arith.subf %two, %u : f32", "arith.mulf, arith.subf"),
    ("%y = arith.negf %v : f32", "arith.negf"),
])
@pytest.mark.parametrize("m, n", [(32, 48), (20, 37)])
def test_a_scaled_transposing_copy_maps_its_row_vectors(body, through, m, n):
    """A copy that maps each element on its way (a weight scaled in the forward, `w * c`): the
    tile applies the map to each row vector (the scale broadcast once per tile), then the
    network; every lane computes what the scalar op computed: bit for bit."""
    src = mapped(m, n, body)
    out, remarks = run(src, cpu(512), passes=["transpose-tiles"])
    assert len(remarks) == 1 and remarks[0].startswith(f"[TRANSPOSE TILE] a {m} x {n} transposing copy through "
                                                       f"{through} in 16 x 16 tiles"), remarks
    assert "affine.vector_load" in out and "vector.shuffle" in out
    if "%c" in body:
        assert "vector.broadcast" in out
    assert_same_results(src, out, seed=6)


@pytest.mark.parametrize("body, extra", [
    # %v feeds two ops of the map: the map is not one chain from the load
    ("%u = arith.mulf %v, %c : f32\n      %y = arith.addf %u, %v : f32", ""),
    # a call has no lane form
    ("%y = func.call @f(%v) : (f32) -> f32", "func.func private @f(%x: f32) -> f32 {\n  return %x : f32\n}\n"),
    # two copies in one band: no chain from the first load to the last store
    ("affine.store %v, %dst[%i, %j] : memref<32x32xf32>\n      %y = affine.load %src[%j, %i] : memref<32x32xf32>", ""),
], ids=["two uses", "call", "two copies"])
def test_a_copy_through_ops_without_a_lane_form_is_not_planned(body, extra):
    src = mapped(32, 32, body, extra)
    out, remarks = run(src, cpu(512), passes=["transpose-tiles"])
    assert remarks == [] and "vector" not in out, (out, remarks)
    assert_same_results(src, out, seed=7)


def heads(n=16, h=3, d=16, store="%kt[%h, %d, %i]", kt=None, bias="%b[%c]", bshape=None, order=("i", "h", "d")) -> str:
    """torch-mlir's head split of K after its projection, fused with the bias: kt[h, d, i] =
    k[i, h * D + d] + b[h * D + d], the loops in `order` (bert_attention's is i, h, d)."""
    kt = kt or f"{h}x{d}x{n}"
    bshape = bshape or f"{h * d}"
    trips = {"i": n, "h": h, "d": d}
    head = "\n".join(f"{'  ' * (k + 1)}affine.for %{v} = 0 to {trips[v]} {{" for k, v in enumerate(order))
    tail = "\n".join(f"{'  ' * (k + 1)}}}" for k in reversed(range(len(order))))
    pad = "  " * (len(order) + 1)
    return f"""func.func @k(%k: memref<{n}x{h * d}xf32>, %b: memref<{bshape}xf32>, %kt: memref<{kt}xf32>) {{
{head}
{pad}%c = affine.apply affine_map<(d0, d1) -> (d0 * {d} + d1)>(%h, %d)
{pad}%v = affine.load %k[%i, %c] : memref<{n}x{h * d}xf32>
{pad}%w = affine.load {bias} : memref<{bshape}xf32>
{pad}%y = arith.addf %v, %w : f32
{pad}affine.store %y, {store} : memref<{kt}xf32>
{tail}
  return
}}
"""


@pytest.mark.parametrize("bits, lanes", [(256, 8), (512, 16)])
def test_a_head_split_with_its_bias_moves_in_vector_tiles_at_each_head(bits, lanes):
    """kt[h, d, i] = k[i, h * D + d] + b[h * D + d] (i outer, h between, d inner): the loop between
    the two walks stays, i and d step by the tile, the bias is one vector load per tile added to
    every row before the network; bit for bit in the interpreter (fails before: element by element,
    no remark)."""
    src = heads(n=32, h=3, d=32)
    out, remarks = run(src, cpu(bits), passes=["transpose-tiles"])
    assert remarks == [f"[TRANSPOSE TILE] a 32 x 32 transposing copy through arith.addf with 1 operand(s) read once "
                       f"per tile, at each of the 3 iterations of the loop between, in {lanes} x {lanes} tiles, each "
                       f"{lanes} vector loads, {lanes * (lanes.bit_length() - 1)} shuffles and {lanes} vector stores"], \
        remarks
    assert out.count("affine.vector_load") == lanes + 1 and out.count("affine.vector_store") == lanes, out
    assert out.count("arith.addf") == lanes and "affine.load" not in out and "affine.store" not in out, out
    assert f"step {lanes}" in out and "affine.for %arg4 = 0 to 3 {" in out, out
    assert_same_results(src, out, seed=2)


def test_a_head_split_natively_bit_for_bit():
    """The step alone and the default pipeline, natively against the input program (rtol 0)."""
    src = heads(n=32, h=4, d=16)
    for passes in (["transpose-tiles"], None):
        out, _ = run(src, cpu(256), passes=passes)
        want = native.run_native(src, "k", [None] * 3, reps=1, full_limit=200_000).outputs
        got = native.run_native(out, "k", [None] * 3, reps=1, full_limit=200_000).outputs
        assert native.compare_outputs(want, got) is None, passes


HEAD_COLLISIONS = heads(n=16, h=3, d=8, store="%kt[%d, %h + %i]", kt="8x18")


@pytest.mark.parametrize("src, code", [
    (HEAD_COLLISIONS, "[STOP TRANSPOSE TILE] two iterations of the copy may store to one element"),
    (heads(n=12, h=3, d=16), "[STOP TRANSPOSE TILE] a copy with a loop between its two walks is not a whole number "
                             "of vector tiles"),
], ids=["collisions", "partial"])
def test_a_head_split_left_element_by_element_says_why(src, code):
    """kt[d, h + i]: iterations (i, h) and (i - 1, h + 1) store to one element, and the tiles would
    store the earlier one last; 12 rows are not whole tiles of 8 (no edges for this form)."""
    out, remarks = run(src, cpu(256), passes=["transpose-tiles"])
    assert len(remarks) == 1 and remarks[0].startswith(code), remarks
    assert "vector" not in out, out
    assert_same_results(src, out, seed=3)


@pytest.mark.parametrize("bias, bshape", [("%b[%i]", "16"), ("%b[%i, %c]", "16x48")], ids=["along rows", "both"])
def test_a_head_split_whose_operand_moves_with_the_rows_is_not_planned(bias, bshape):
    """An operand that moves along the store's lanes (b[i]) has no one vector per tile."""
    src = heads(n=16, h=3, d=16, bias=bias, bshape=bshape)
    out, remarks = run(src, cpu(256), passes=["transpose-tiles"])
    assert remarks == [] and "vector" not in out, (out, remarks)


def test_the_head_split_collision_guard_is_needed():
    """Tiled anyway (the injectivity guard off), kt[d, h + i] keeps the wrong one of two stores
    to one element: the interpreter's results differ (mutation_check's entry removes the guard)."""
    from loopopt import mlir
    from loopopt.analysis.affine import Scope
    from loopopt.codegen.cpu.plan import transpose_tiles as plan_mod
    from loopopt.codegen.cpu.transpose_tiles import build_tile

    module = mlir.parse_module(HEAD_COLLISIONS)
    with module.context:
        fn = mlir.functions(module)[0]
        outer = next(op for op in mlir.walk(fn) if op.name == "affine.for")
        plan = plan_mod.plan_deep_tile(outer, cpu(256), Scope())
        assert plan is not None and plan.refusal is not None
        band = plan_mod.deep_copy_band(outer)
        operands = ((band.loads[1], True),)
        build_tile(plan_mod.TransposeTile(band.outer, band.inner, band.inner, band.outer, band.loads[0], band.store, 8,
                                          (8, 16), None, band.maps, band.mid, operands))
        tiled = mlir.print_module(module)
    with pytest.raises(AssertionError):
        assert_same_results(HEAD_COLLISIONS, tiled, seed=4)


def test_a_head_split_through_an_op_without_a_lane_form_is_not_planned():
    """A map op outside MAP_OPS (math.exp of the biased value) keeps the band element by element."""
    src = heads(n=16, h=2, d=16).replace("%y = arith.addf %v, %w : f32",
                                         "%x = arith.addf %v, %w : f32\n        %y = math.exp %x : f32")
    out, remarks = run(src, cpu(256), passes=["transpose-tiles"])
    assert remarks == [] and "vector" not in out, (out, remarks)
    assert_same_results(src, out, seed=5)
