"""B packed per column block (docs/cpu_codegen.md section 26): a transposed weight's copy made at
the head of each column block of the register tile into one small buffer; its refusals with
their remarks; results bit for bit against the pipeline without the step, in the interpreter
and natively."""
from __future__ import annotations

import pytest

from loopopt import native
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.pipeline import default_pipeline, pipeline_text, resolve_options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

# Small caches so that small products take the tile's column blocks (B's panel over half of L2)
# and no reduction blocks (kc up to 128).
SMALL = (32 * 1024, 256 * 1024, 8 * 1024 * 1024)


def cpu(bits: int = 512, **kw) -> Options:
    kw.setdefault("cache_sizes", SMALL)
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


def linear(m: int, n: int, k: int, between: str = "", after: str = "", extra_args: str = "",
           store: str = "%t[%a, %b]", copy_n: int | None = None) -> str:
    """y = x W^T + y, W (n x k) an argument transposed into %t first; `between` runs after the
    copy and before the product, `after` after it."""
    copy_n = n if copy_n is None else copy_n
    return f"""func.func @k(%x: memref<{m}x{k}xf32>, %w: memref<{n}x{k}xf32>, %y: memref<{m}x{n}xf32>{extra_args}) {{
  %t = memref.alloc() : memref<{k}x{n}xf32>
  affine.for %a = 0 to {k} {{
    affine.for %b = 0 to {copy_n} {{
      %v = affine.load %w[%b, %a] : memref<{n}x{k}xf32>
      affine.store %v, {store} : memref<{k}x{n}xf32>
    }}
  }}
{between}  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %c = affine.load %y[%i, %j] : memref<{m}x{n}xf32>
      %r = affine.for %q = 0 to {k} iter_args(%acc = %c) -> (f32) {{
        %p = affine.load %x[%i, %q] : memref<{m}x{k}xf32>
        %s = affine.load %t[%q, %j] : memref<{k}x{n}xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }}
      affine.store %r, %y[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
{after}  memref.dealloc %t : memref<{k}x{n}xf32>
  return
}}
"""


def without_step(options: Options) -> list[str]:
    steps = default_pipeline(resolve_options(options, False))
    return [s.name for s in steps if s.name != "pack-column-blocks"]


def same_natively(src: str, packed: str, options: Options) -> None:
    """`packed` computes what the pipeline without the step and the input compute, bit for bit."""
    whole, _ = compile_(src, options, passes=without_step(options))
    sizes = [None, None, None]
    got = native.run_native(packed, "k", sizes, reps=1, full_limit=200_000).outputs
    for other in (whole, src):
        assert native.compare_outputs(native.run_native(other, "k", sizes, reps=1, full_limit=200_000).outputs,
                                      got) is None


def compile_(src: str, options: Options, passes=None):
    res = optimize(src, options, filename="t.mlir", passes=passes)
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message], [r.message for r in res.remarks]
    return res.text, [r.message for r in res.remarks if "PACK B" in r.message]


def test_the_copy_moves_into_the_column_blocks():
    """The copy runs at the head of each block of 64 columns into one 128 x 64 buffer; no buffer
    of the whole transposed weight is left; the clone's tiles are vector transposes."""
    out, remarks = compile_(linear(24, 320, 128), cpu())
    assert remarks == ["[PACK B] the 128 x 320 transposed copy is made per column block of 64 at t.mlir:10:5 "
                       "into one 128 x 64 buffer (32 KiB): the source is read once, in the product's order, "
                       "and the whole copy is gone"], remarks
    assert "memref<128x320xf32>" not in out and "memref.alloc() {alignment = 64 : i64} : memref<128x64xf32>" in out
    assert "vector.shuffle" in out


@pytest.mark.parametrize("m, n, k", [(24, 320, 128), (13, 384, 96), (7, 512, 128), (12, 320, 256)])
def test_results_are_bit_for_bit_those_without_the_step_in_the_interpreter(m, n, k):
    src = linear(m, n, k)
    options = cpu(512)
    packed, remarks = compile_(src, options)
    assert remarks and remarks[0].startswith("[PACK B]"), remarks
    whole, _ = compile_(src, options, passes=without_step(options))
    assert_same_results(whole, packed, seed=3, trials=2)
    assert_same_results(src, packed, seed=5, trials=1)


def test_a_blocked_reduction_packs_per_reduction_and_column_block():
    """Cache tiling cuts the reduction in blocks of 128 (L2 256K) around the column blocks: the
    copy runs per (reduction block, column block) into one 128 x 64 buffer."""
    out, remarks = compile_(linear(24, 320, 256), cpu())
    assert remarks == ["[PACK B] the 256 x 320 transposed copy is made per reduction and column block of 64 at "
                       "t.mlir:10:5 into one 128 x 64 buffer (32 KiB): the source is read once, in the product's "
                       "order, and the whole copy is gone"], remarks
    assert "memref<256x320xf32>" not in out


@has_runner
@pytest.mark.parametrize("m, n, k", [(37, 384, 128), (30, 320, 256)])
def test_results_are_bit_for_bit_natively(m, n, k):
    """The default pipeline with and without the step, natively; and against the input."""
    bits = 512
    src = linear(m, n, k)
    options = cpu(bits)
    packed, remarks = compile_(src, options)
    assert remarks and remarks[0].startswith("[PACK B]"), remarks
    same_natively(src, packed, options)


TORCH_LINEAR = """#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @k(%x: tensor<64x256xf32>, %w: tensor<512x256xf32>) -> tensor<64x512xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<256x512xf32>
    %t = linalg.transpose ins(%w : tensor<512x256xf32>) outs(%e : tensor<256x512xf32>) permutation = [1, 0]
    %o = tensor.empty() : tensor<64x512xf32>
    %f = linalg.fill ins(%cst : f32) outs(%o : tensor<64x512xf32>) -> tensor<64x512xf32>
    %r = linalg.matmul ins(%x, %t : tensor<64x256xf32>, tensor<256x512xf32>) outs(%f : tensor<64x512xf32>) -> tensor<64x512xf32>
    return %r : tensor<64x512xf32>
  }
}
"""


@has_runner
def test_torch_linear_natively_through_strips():
    """torch-mlir's form of x @ W^T (a fresh transposed buffer, then the matmul), with the
    isolation budget small enough to cut strips: one packing per strip, natively bit for bit."""
    options = cpu(512, sb_size=256 * 1024)
    packed, remarks = compile_(TORCH_LINEAR, options)
    assert remarks and all(r.startswith("[PACK B]") for r in remarks), remarks
    whole, _ = compile_(TORCH_LINEAR, options, passes=without_step(options))
    want = native.run_native(whole, "k", [None, None, None], reps=1, full_limit=200_000).outputs
    got = native.run_native(packed, "k", [None, None, None], reps=1, full_limit=200_000).outputs
    assert native.compare_outputs(want, got) is None


# Refusals: each with its remark in the default remarks, the buffer kept whole.

STEPS = ["cache-tile", "register-tile", "pack-column-blocks"]


def refused(src: str, options: Options | None = None) -> list[str]:
    """The step after the register tile alone (no fusion to move the ops the tests place)."""
    out, remarks = compile_(src, options or cpu(), passes=STEPS)
    assert remarks and all(r.startswith("[STOP PACK B]") for r in remarks), remarks
    assert "memref<128x320xf32>" in out or "x320xf32>" in out
    return remarks


def test_a_product_writing_the_source_refuses():
    """The product's output may be the weight: a function whose arguments are not assumed apart
    (LOOPOPT's noalias assumption covers public functions only; this one has a caller passing
    one buffer as both)."""
    src = linear(24, 320, 128).replace("func.func @k(", "func.func private @k(")
    src += """func.func @main(%x: memref<24x128xf32>, %b: memref<40960xf32>) {
  %w = memref.reinterpret_cast %b to offset: [0], sizes: [320, 128], strides: [128, 1] : memref<40960xf32> to memref<320x128xf32>
  %y = memref.reinterpret_cast %b to offset: [0], sizes: [24, 320], strides: [320, 1] : memref<40960xf32> to memref<24x320xf32>
  func.call @k(%x, %w, %y) : (memref<24x128xf32>, memref<320x128xf32>, memref<24x320xf32>) -> ()
  return
}
"""
    remarks = refused(src)
    assert remarks[0].startswith("[STOP PACK B] the copy's source may be written before the product's last read")


def test_a_write_of_the_source_between_copy_and_product_refuses():
    between = """  affine.for %z = 0 to 128 {
    %zero = arith.constant 0.0 : f32
    affine.store %zero, %w[0, %z] : memref<320x128xf32>
  }
"""
    remarks = refused(linear(24, 320, 128, between=between))
    assert remarks[0].startswith("[STOP PACK B] the copy's source may be written before the product's last read")


def test_another_reader_refuses():
    after = """  %o0 = affine.load %t[3, 5] : memref<128x320xf32>
  affine.store %o0, %extra[0] : memref<1xf32>
"""
    remarks = refused(linear(24, 320, 128, after=after, extra_args=", %extra: memref<1xf32>"))
    assert remarks[0].startswith("[STOP PACK B] no column-block loop beside the copy holds every read of the buffer"), remarks


def test_another_writer_refuses():
    """A store to the buffer that is not a copy's (a constant, outside any loop)."""
    between = """  %one = arith.constant 1.0 : f32
  affine.store %one, %t[3, 5] : memref<128x320xf32>
"""
    remarks = refused(linear(24, 320, 128, between=between))
    assert remarks[0].startswith("[STOP PACK B] the nest that fills the buffer is not a plain copy"), remarks


def test_another_use_refuses():
    """The buffer passed to a call (which may read or write it)."""
    after = """  func.call @peek(%t) : (memref<128x320xf32>) -> ()
"""
    src = linear(24, 320, 128, after=after) + "func.func private @peek(memref<128x320xf32>)\n"
    remarks = refused(src)
    assert remarks[0].startswith("[STOP PACK B] the buffer has a use other than the copy, the product's loads "
                                 "and its dealloc"), remarks


def test_a_partial_copy_refuses():
    """The copy writes columns 0 .. 304 only: the last block reads what no copy wrote."""
    remarks = refused(linear(24, 320, 128, copy_n=304))
    assert remarks[0].startswith("[STOP PACK B] the copy per block would not write exactly what the block reads")


def test_a_copy_that_computes_refuses():
    src = linear(24, 320, 128).replace(
        "      affine.store %v, %t[%a, %b] : memref<128x320xf32>",
        "      %v2 = arith.negf %v : f32\n      affine.store %v2, %t[%a, %b] : memref<128x320xf32>")
    remarks = refused(src)
    assert remarks[0].startswith("[STOP PACK B] the nest that fills the buffer is not a plain copy"), remarks


def test_column_blocks_that_split_the_copys_tiles_cut_the_tiles():
    """At 256 bits the tile's column blocks are 24 wide and the copy's tiles 16: the clone's
    column tiles are cut to gcd(16, 24) = 8 (its column loop `0 to 24 step 8`, the point loop
    `0 to 8`), so each block's copy moves exactly the block's columns; the transposing tiles are
    16 x 8. Results bit for bit those of the pipeline without the step."""
    src = linear(13, 384, 96)
    options = cpu(256)
    out, remarks = compile_(src, options)
    assert remarks == ["[PACK B] the 96 x 384 transposed copy is made per column block of 24 at t.mlir:10:5 "
                       "into one 96 x 24 buffer (9 KiB): the source is read once, in the product's order, "
                       "and the whole copy is gone"], remarks
    assert "memref<96x384xf32>" not in out and "memref<96x24xf32>" in out
    assert "vector.shuffle" in out
    whole, _ = compile_(src, options, passes=without_step(options))
    assert_same_results(whole, out, seed=2, trials=1)
    assert_same_results(src, out, seed=2, trials=1)


@pytest.mark.parametrize("step, extent, inner, want", [
    (16, 24, (0, 16, 1), 8), (16, 64, (0, 16, 1), None), (16, 24, (0, 8, 1), None),
    (16, 24, (0, 16, 16), None), (16, 40, (0, 16, 8), 8), (12, 20, (0, 12, 1), 4)])
def test_tile_split(step, extent, inner, want):
    """A loop of `step` cut to gcd(step, extent) only when the step does not divide the block
    and its point loop runs 0 to step in steps dividing the cut."""
    from loopopt.codegen.cpu.pack_column_blocks import tile_split
    assert tile_split(step, extent, inner) == want


@has_runner
def test_cut_tiles_are_bit_for_bit_natively():
    """The cut tiles at 256 bits (blocks of 24, tiles of 16), natively, against the pipeline
    without the step and against the input."""
    src = linear(13, 384, 96)
    options = cpu(256)
    packed, remarks = compile_(src, options)
    assert remarks and remarks[0].startswith("[PACK B]"), remarks
    same_natively(src, packed, options)


def test_a_product_without_column_blocks_is_left_silently():
    """B's panel fits half of L2: the tile sweeps rows outside, nothing to pack per block."""
    out, remarks = compile_(linear(24, 64, 32), cpu())
    assert remarks == [] and "memref<32x64xf32>" in out


OVERLAPPING = """func.func @k(%x: memref<24x128xf32>, %w: memref<320x128xf32>, %y: memref<24x320xf32>) {
  %t = memref.alloc() : memref<128x352xf32>
  affine.for %n0 = 0 to 320 step 16 {
    affine.for %a = 0 to 128 {
      affine.for %n = 0 to 32 {
        %v = affine.load %w[%n, %a] : memref<320x128xf32>
        affine.store %v, %t[%a, %n0 + %n] : memref<128x352xf32>
      }
    }
  }
  affine.for %i = 0 to 24 {
    affine.for %j = 0 to 320 {
      %c = affine.load %y[%i, %j] : memref<24x320xf32>
      %r = affine.for %q = 0 to 128 iter_args(%acc = %c) -> (f32) {
        %p = affine.load %x[%i, %q] : memref<24x128xf32>
        %s = affine.load %t[%q, %j] : memref<128x352xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }
      affine.store %r, %y[%i, %j] : memref<24x320xf32>
    }
  }
  memref.dealloc %t : memref<128x352xf32>
  return
}
"""


def test_a_copy_writing_elements_twice_refuses():
    """Tiles of 32 columns every 16 (into a buffer wider than the product reads): two iterations
    write one element, and a block's copy would write 16 columns past its block; refused,
    results kept."""
    remarks = refused(OVERLAPPING)
    assert remarks[0].startswith("[STOP PACK B] the copy per block would not write exactly what the block reads")
    out, _ = compile_(OVERLAPPING, cpu(), passes=STEPS)
    assert_same_results(OVERLAPPING, out, seed=1, trials=1)


def test_a_copy_of_part_of_the_rows_refuses():
    """The copy fills rows 0 .. 120 of 128: the product reads rows no copy wrote (every block's
    copy runs only iterations of the copy and writes within its columns; the reads are not
    covered)."""
    src = linear(24, 320, 128).replace("  affine.for %a = 0 to 128 {", "  affine.for %a = 0 to 120 {", 1)
    remarks = refused(src)
    assert remarks == ["[STOP PACK B] the copy per block would not write exactly what the block reads"], remarks


# Row-blocked products (cache tiling's row blocks around the column blocks, and the remainder
# nest after them): the copy would be made once per row block and nest; measured slower than the
# whole copy, so refused. The form itself (PACK_PER_ROW_BLOCK) stays exact.

ROW_BLOCKED = (300, 320, 128)  # row blocks of 150 around the column blocks of 64
REMAINDER = (310, 320, 128)  # two nests after the copy (rows 0 .. 306 and the remainder)


@pytest.mark.parametrize("shape, detail", [(ROW_BLOCKED, "the row-block loop at t.mlir:9:3 (step 150) lies around "
                                            "the column blocks"),
                                           (REMAINDER, "2 loop nests after the copy at t.mlir:4:5 read it")])
def test_row_blocked_products_refuse(shape, detail):
    """One remark per buffer, the text that the pipeline without the step gives."""
    src = linear(*shape)
    options = cpu()
    res = optimize(src, options, filename="t.mlir")
    got = [(r.message, r.args.get("detail", "")) for r in res.remarks if "PACK B" in r.message]
    assert len(got) == 1 and got[0][0] == (
        "[STOP PACK B] the product's rows are split around its column blocks (row blocks or a remainder nest): "
        "the copy would be made once per row block") and got[0][1].startswith(detail), got
    whole, _ = compile_(src, options, passes=without_step(options))
    assert res.text == whole


@pytest.fixture
def per_row_block(monkeypatch):
    from loopopt.codegen.cpu.plan import column_block_packing

    monkeypatch.setattr(column_block_packing, "PACK_PER_ROW_BLOCK", True)


@pytest.mark.parametrize("shape, remarks", [(ROW_BLOCKED, 1), (REMAINDER, 2)])
def test_packing_per_row_block_packs_each_row_block(per_row_block, shape, remarks):
    """Turned on, each row block's column blocks (and each nest's) pack their own copy; the whole
    copy goes only when every nest that reads it is packed."""
    packed, got = compile_(linear(*shape), cpu())
    assert len(got) == remarks and all(r.startswith("[PACK B]") for r in got), got
    assert f"memref<{shape[2]}x{shape[1]}xf32>" not in packed
    if shape == ROW_BLOCKED:
        assert "per row block of 150 and column block of 64" in got[0] and "read once per row block" in got[0]


@pytest.mark.long  # 40 s each in the interpreter; the native test below runs by default
@pytest.mark.parametrize("shape", [ROW_BLOCKED, REMAINDER])
def test_packing_per_row_block_is_bit_for_bit_in_the_interpreter(per_row_block, shape):
    src = linear(*shape)
    options = cpu()
    packed, got = compile_(src, options)
    assert got and got[0].startswith("[PACK B]"), got
    whole, _ = compile_(src, options, passes=without_step(options))
    assert_same_results(whole, packed, seed=3, trials=1)


@has_runner
@pytest.mark.parametrize("shape", [ROW_BLOCKED, REMAINDER])
def test_packing_per_row_block_is_bit_for_bit_natively(per_row_block, shape):
    src = linear(*shape)
    options = cpu()
    packed, got = compile_(src, options)
    assert got and got[0].startswith("[PACK B]"), got
    whole, _ = compile_(src, options, passes=without_step(options))
    want = native.run_native(whole, "k", [None, None, None], reps=1, full_limit=200_000).outputs
    out = native.run_native(packed, "k", [None, None, None], reps=1, full_limit=200_000).outputs
    assert native.compare_outputs(want, out) is None


# The columns the column blocks leave over (section 76): their nest reads one window of at most a
# block's columns, and the copy is cloned just before it, restricted to them, into the same buffer.

TAIL_CACHES = (32 * 1024, 48 * 1024, 8 * 1024 * 1024)


@pytest.mark.parametrize("bits, shape, caches, remark", [
    (256, (8, 104, 64), TAIL_CACHES, "[PACK B] the 64 x 104 transposed copy is made per column block of 24 at "
     "t.mlir:10:5 into one 64 x 24 buffer (6 KiB): the source is read once, in the product's order, and the whole "
     "copy is gone; the 8 columns left over (96 .. 103) are copied into it before their nest at t.mlir:9:3"),
    (512, (24, 336, 128), SMALL, "[PACK B] the 128 x 336 transposed copy is made per column block of 64 at "
     "t.mlir:10:5 into one 128 x 64 buffer (32 KiB): the source is read once, in the product's order, and the "
     "whole copy is gone; the 16 columns left over (320 .. 335) are copied into it before their nest at t.mlir:9:3")])
def test_the_columns_left_over_are_packed_into_the_same_buffer(bits, shape, caches, remark):
    """N is no multiple of the block (104 = 4 x 24 + 8, 336 = 5 x 64 + 16): the tile's nest of the
    columns left over read the whole copy, so the copy stayed whole (`2 loop nests after the copy
    read it`); now their own clone fills the block's buffer before them. Fails before."""
    m, n, k = shape
    src = linear(m, n, k)
    options = cpu(bits, cache_sizes=caches)
    out, remarks = compile_(src, options)
    assert remarks == [remark], remarks
    assert f"memref<{k}x{n}xf32>" not in out
    whole, _ = compile_(src, options, passes=without_step(options))
    assert_same_results(whole, out, seed=4, trials=1)


@has_runner
@pytest.mark.parametrize("bits, shape, caches", [(256, (8, 104, 64), TAIL_CACHES), (256, (13, 392, 96), SMALL),
                                                 (512, (24, 336, 128), SMALL)])
def test_the_columns_left_over_are_bit_for_bit_natively(bits, shape, caches):
    src = linear(*shape)
    options = cpu(bits, cache_sizes=caches)
    packed, remarks = compile_(src, options)
    assert remarks and "columns left over" in remarks[0], remarks
    same_natively(src, packed, options)


def tail_nest(first: int, last: int, before: str = "") -> str:
    """A nest after the product that sums columns first .. last of T over its rows into %z."""
    return f"""{before}  affine.for %q2 = 0 to 128 {{
    affine.for %c2 = {first} to {last} {{
      %v3 = affine.load %t[%q2, %c2] : memref<128x320xf32>
      %o3 = affine.load %z[%c2 - {first}] : memref<128xf32>
      %s3 = arith.addf %o3, %v3 : f32
      affine.store %s3, %z[%c2 - {first}] : memref<128xf32>
    }}
  }}
"""


def tail_program(first: int, last: int, before: str = "") -> str:
    return linear(24, 320, 128, after=tail_nest(first, last, before), extra_args=", %z: memref<128xf32>")


def test_a_nest_reading_the_last_blocks_columns_is_packed_as_columns_left_over():
    """Any nest after the product whose reads lie in one window of a block's width is packed so,
    results kept (the step after the register tile alone)."""
    src = tail_program(256, 320)
    out, remarks = compile_(src, cpu(), passes=STEPS)
    assert len(remarks) == 1 and "the 64 columns left over (256 .. 319)" in remarks[0], remarks
    assert "memref<128x320xf32>" not in out
    assert_same_results(src, out, seed=1, trials=1)


@pytest.mark.parametrize("first, before, why", [
    (192, "", "a window of 128 columns is wider than the block"),
    (256, "  %zero = arith.constant 0.0 : f32\n  affine.store %zero, %w[300, 5] : memref<320x128xf32>\n",
     "the source is written between the copy and the nest")])
def test_a_nest_that_is_not_a_tail_keeps_the_whole_copy(first, before, why):
    """The other nest reads more columns than a block holds, or the source changes before it (its
    clone would read the new value): the copy stays whole for both products, as before."""
    src = tail_program(first, 320, before)
    res = optimize(src, cpu(), filename="t.mlir", passes=STEPS)
    got = [r.message for r in res.remarks if "PACK B" in r.message]
    assert got == ["[STOP PACK B] the product's rows are split around its column blocks (row blocks or a remainder "
                   "nest): the copy would be made once per row block"], (why, got)
    whole = optimize(src, cpu(), filename="t.mlir", passes=STEPS[:2]).text
    assert res.text == whole, why


NC_CACHES = (32 * 1024, 48 * 1024, 60 * 1024)  # L3 share 60K: cache tiling's columns in blocks of 120


def test_column_blocks_inside_cache_tilings_column_blocks_pack():
    """Cache tiling cuts 240 columns in blocks of 120 (nc) and the tile sweeps each in blocks of
    24: 120 is a multiple of 24, so no nest of columns left over is built inside the block (it
    read the buffer with masked loads: `the buffer has a use other than ..`), and the nc loop,
    whose iterations read their own columns, is no row block: the copy is made per block of 24,
    each column once. Fails before."""
    src = linear(8, 240, 64)
    options = cpu(256, cache_sizes=NC_CACHES)
    out, remarks = compile_(src, options)
    assert remarks == ["[PACK B] the 64 x 240 transposed copy is made per column block of 24 at t.mlir:10:5 "
                       "into one 64 x 24 buffer (6 KiB): the source is read once, in the product's order, and the "
                       "whole copy is gone"], remarks
    assert "vector.maskedload" not in out and "memref<64x240xf32>" not in out
    whole, _ = compile_(src, options, passes=without_step(options))
    assert_same_results(whole, out, seed=5, trials=1)


@has_runner
@pytest.mark.parametrize("shape", [(8, 240, 64), (9, 256, 64), (8, 260, 64)])
def test_column_blocks_inside_cache_tilings_column_blocks_natively(shape):
    """Blocks of 120 over 240 (none left over), 256 (the 16 columns after the last block of 120:
    cache tiling's own nest, its columns no multiple of 24) and 260, natively bit for bit."""
    src = linear(*shape)
    options = cpu(256, cache_sizes=NC_CACHES)
    packed, _ = compile_(src, options)
    same_natively(src, packed, options)
