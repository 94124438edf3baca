"""A product's B read in place from an argument, copied per column block of its register tile
into one contiguous panel (docs/cpu_codegen.md section 55; codegen/cpu/plan/argument_panels.py,
codegen/cpu/pack_argument_panels.py, step pack-argument-panels): the packed form and its remark
through the cpu pipeline (GPT-2's Conv1D layout, `x @ W + b` with W an argument), results bit
for bit against the pipeline without the step in the interpreter and natively, and every refusal
on hand-written tiled nests, each of which would compute something else without its guard."""
from __future__ import annotations

import pytest

from loopopt import mlir, native
from loopopt.codegen.cpu.pack_argument_panels import pack_argument_panels_function
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.pipeline import default_pipeline, resolve_options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

# Small caches so that small products take the tile's column blocks (B's panel over half of L2).
SMALL = (32 * 1024, 256 * 1024, 8 * 1024 * 1024)


def cpu(bits: int = 256, **kw) -> Options:
    kw.setdefault("cache_sizes", SMALL)
    return Options(target=TARGETS["cpu"], vector_bits=bits, **kw)


def conv1d_linear(m: int, n: int, k: int) -> str:
    """y = x @ W + b + y with W (k x n) and b arguments: GPT-2's Conv1D layout, B read in place."""
    return f"""func.func @k(%x: memref<{m}x{k}xf32>, %w: memref<{k}x{n}xf32>, %b: memref<{n}xf32>, %y: memref<{m}x{n}xf32>) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %c = affine.load %y[%i, %j] : memref<{m}x{n}xf32>
      %r = affine.for %q = 0 to {k} iter_args(%acc = %c) -> (f32) {{
        %p = affine.load %x[%i, %q] : memref<{m}x{k}xf32>
        %s = affine.load %w[%q, %j] : memref<{k}x{n}xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }}
      %bj = affine.load %b[%j] : memref<{n}xf32>
      %o = arith.addf %r, %bj : f32
      affine.store %o, %y[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  return
}}
"""


def accumulate(m: int, n: int, k: int) -> str:
    """y += x @ W with W (k x n) an argument and the sum in memory (cache tiling blocks its
    reduction)."""
    return f"""func.func @k(%x: memref<{m}x{k}xf32>, %w: memref<{k}x{n}xf32>, %y: memref<{m}x{n}xf32>) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      affine.for %q = 0 to {k} {{
        %c = affine.load %y[%i, %j] : memref<{m}x{n}xf32>
        %p = affine.load %x[%i, %q] : memref<{m}x{k}xf32>
        %s = affine.load %w[%q, %j] : memref<{k}x{n}xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %c, %u : f32
        affine.store %v2, %y[%i, %j] : memref<{m}x{n}xf32>
      }}
    }}
  }}
  return
}}
"""


def compile_(src: str, options: Options, passes=None):
    res = optimize(src, options, filename="t.mlir", passes=passes)
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message], [r.message for r in res.remarks]
    return res.text, [r.message for r in res.remarks if "PACK PANEL" in r.message]


def without_step(options: Options) -> list[str]:
    steps = default_pipeline(resolve_options(options, False))
    return [s.name for s in steps if s.name != "pack-argument-panels"]


def test_an_argument_read_in_column_blocks_is_copied_per_block_fails_before():
    """The 128 x 320 weight, read by a 4 x 24 tile in column blocks of 24, is copied at the head
    of each block into one 128 x 24 panel; the tile reads only the panel (before: it read W in
    place, rows 1280 bytes apart)."""
    out, remarks = compile_(conv1d_linear(24, 320, 128), cpu())
    assert remarks == ["[PACK PANEL] argument %arg1 (128 x 320) is copied per column block of 24 into one "
                       "contiguous 128 x 24 panel (12 KiB), read by 6 row tiles per copy"], remarks
    assert "memref.alloc() {alignment = 64 : i64} : memref<128x24xf32>" in out
    reads_of_w = [ln for ln in out.splitlines() if "%arg1[" in ln]
    # the copy's load and the 13 tail columns' loads (outside the column blocks) read W in place
    assert any("vector_load %arg1[%arg" in ln and "+ %arg" in ln for ln in reads_of_w), reads_of_w


@pytest.mark.parametrize("m, n, k", [(24, 320, 128), (17, 384, 96), (36, 336, 128)])
def test_results_are_bit_for_bit_those_without_the_step_in_the_interpreter(m, n, k):
    src = conv1d_linear(m, n, k)
    options = cpu()
    packed, remarks = compile_(src, options)
    assert remarks and remarks[0].startswith("[PACK PANEL]"), remarks
    whole, _ = compile_(src, options, passes=without_step(options))
    assert whole != packed
    assert_same_results(whole, packed, seed=3, trials=2)
    assert_same_results(src, packed, seed=5, trials=1)


def test_a_blocked_reduction_copies_per_reduction_and_column_block():
    """Cache tiling cuts the 1024-deep reduction in blocks of 256 (L2 256K) around the column
    blocks: the panel holds one reduction block's rows, r0 the block's counter."""
    out, remarks = compile_(accumulate(16, 256, 1024), cpu())
    assert remarks == ["[PACK PANEL] argument %arg1 (1024 x 256) is copied per reduction and column block of 24 "
                       "into one contiguous 256 x 24 panel (24 KiB), read by 4 row tiles per copy"], remarks
    assert "memref<256x24xf32>" in out
    assert_same_results(accumulate(16, 256, 1024), out, seed=1, trials=1)


def assert_same_natively(packed: str, *others: str) -> None:
    """`packed` and each of `others` give the same bits natively (mlir-runner, rtol 0)."""
    sizes = [None] * len(native.kernel_signature(packed, "k").args)
    got = native.run_native(packed, "k", sizes, reps=1, full_limit=400_000).outputs
    for other in others:
        assert native.compare_outputs(native.run_native(other, "k", sizes, reps=1, full_limit=400_000).outputs,
                                      got) is None


@has_runner
@pytest.mark.parametrize("form, m, n, k, bits", [(conv1d_linear, 37, 320, 128, 256), (conv1d_linear, 32, 1024, 256, 512),
                                                  (accumulate, 32, 256, 1024, 256)])
def test_results_are_bit_for_bit_natively(form, m, n, k, bits):
    """The default pipeline with and without the step, natively (rtol 0); and against the input."""
    src = form(m, n, k)
    options = cpu(bits)
    packed, remarks = compile_(src, options)
    assert remarks and remarks[0].startswith("[PACK PANEL]"), remarks
    whole, _ = compile_(src, options, passes=without_step(options))
    assert_same_natively(packed, whole, src)


def dynamic_batch(n: int, k: int) -> str:
    """conv1d_linear with a batch known at run time only (memref.dim)."""
    src = conv1d_linear(64, n, k).replace("memref<64x", "memref<?x")
    return src.replace("  affine.for %i = 0 to 64 {", f"""  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x{k}xf32>
  affine.for %i = 0 to %m {{""")


@has_runner
@pytest.mark.parametrize("m", [3, 133, 256])
def test_a_dynamic_batch_packs_its_row_blocks_natively(m):
    """Cache tiling cuts a dynamic batch in row blocks of 128 (L2 256K) and a nest of the rows left
    over: the blocks' nest is packed (32 row tiles per copy; per row block: their count is known
    at run time only, section 62), the left-over nest refused (for a batch that is a multiple of
    128 it reads nothing, so its window is not read exactly).
    Natively, bit for bit with the pipeline without the step, at batches below one block, over
    one, and of two whole blocks."""
    src = dynamic_batch(1024, 256)
    options = cpu()
    res = optimize(src, options, filename="t.mlir")
    remarks = [(r.message, r.args.get("reason")) for r in res.remarks if "PACK PANEL" in r.message]
    assert remarks == [
        ("[PACK PANEL] argument %arg1 (256 x 1024) is copied per column block of 24 into one contiguous 256 x 24 "
         "panel (24 KiB), read by 32 row tiles per copy", None),
        ("[STOP PACK PANEL] the column block does not read a window of whole rows and its columns",
         "the block leaves part of its window unread: the copy would read what the product does not")], remarks
    whole, _ = compile_(src, options, passes=without_step(options))
    sizes = [(m, 256), (256, 1024), (1024,), (m, 1024)]
    got = native.run_native(res.text, "k", sizes, reps=1, full_limit=400_000).outputs
    assert native.compare_outputs(native.run_native(whole, "k", sizes, reps=1, full_limit=400_000).outputs,
                                  got) is None


# ---- the step alone on tiled nests: the register tile's form, written by hand

def tiled(body_before: str = "", extra_read: str = "", rows: int = 16, k: int = 64, n: int = 96,
          block_ub: str | None = None, j_ub: str = "affine_map<(d0) -> (d0 + 16)>(%jb)") -> str:
    """y[i, jb .. jb + 16] = sum over q of x[i, q] * w[q, jb .. jb + 16] in column blocks of 16
    (two vectors of 8), `rows` row tiles of one row per block; `body_before` runs in the row loop
    before the product, `extra_read` in the reduction (its value %e added to the first sum)."""
    ub = block_ub if block_ub is not None else str(n)
    add_extra = "%t0 = arith.addf %m0, %e : vector<8xf32>" if extra_read else "%t0 = arith.addf %m0, %z : vector<8xf32>"
    return f"""func.func @k(%x: memref<{rows}x{k}xf32>, %w: memref<{k}x{n}xf32>, %y: memref<{rows}x{n}xf32>) {{
  %z = arith.constant dense<0.0> : vector<8xf32>
  affine.for %jb = 0 to {ub} step 16 {{
    affine.for %i = 0 to {rows} {{
{body_before}      affine.for %j = affine_map<(d0) -> (d0)>(%jb) to {j_ub} step 16 {{
        %s:2 = affine.for %q = 0 to {k} iter_args(%a0 = %z, %a1 = %z) -> (vector<8xf32>, vector<8xf32>) {{
          %p = affine.load %x[%i, %q] : memref<{rows}x{k}xf32>
          %pb = vector.broadcast %p : f32 to vector<8xf32>
          %b0 = affine.vector_load %w[%q, %j] : memref<{k}x{n}xf32>, vector<8xf32>
          %b1 = affine.vector_load %w[%q, %j + 8] : memref<{k}x{n}xf32>, vector<8xf32>
{extra_read}          %u0 = arith.mulf %pb, %b0 : vector<8xf32>
          %m0 = arith.addf %a0, %u0 : vector<8xf32>
          {add_extra}
          %u1 = arith.mulf %pb, %b1 : vector<8xf32>
          %m1 = arith.addf %a1, %u1 : vector<8xf32>
          affine.yield %t0, %m1 : vector<8xf32>, vector<8xf32>
        }}
        affine.vector_store %s#0, %y[%i, %j] : memref<{rows}x{n}xf32>, vector<8xf32>
        affine.vector_store %s#1, %y[%i, %j + 8] : memref<{rows}x{n}xf32>, vector<8xf32>
      }}
    }}
  }}
  return
}}
"""


def pack(src: str, bits: int = 256) -> tuple[str, list[str]]:
    m = mlir.parse_module(src)
    log = RemarkLog()
    with m.context:
        for fn in mlir.functions(m):
            pack_argument_panels_function(fn, cpu(bits), log, "t.mlir")
        assert mlir.verify(m.operation) is None
        return str(m.operation), [r.message + (f": {r.args['reason']}" if r.args and r.args.get("reason") else "")
                                  for r in log.remarks]


def test_the_step_alone_packs_a_tiled_nest():
    src = tiled()
    out, remarks = pack(src)
    assert remarks == ["[PACK PANEL] argument %arg1 (64 x 96) is copied per column block of 16 into one "
                       "contiguous 64 x 16 panel (4 KiB), read by 16 row tiles per copy"], remarks
    assert "memref<64x16xf32>" in out
    assert_same_results(src, out, seed=2, trials=2)


def test_a_write_of_the_argument_in_the_block_refuses():
    """Each row tile writes W[i, jb] before its product, which later row tiles read: a copy at the
    head of the block would hold the old values."""
    src = tiled(body_before="""      %one = arith.constant 1.0 : f32
      affine.store %one, %w[%i, %jb] : memref<64x96xf32>
""")
    out, remarks = pack(src)
    assert len(remarks) == 1 and remarks[0].startswith("[STOP PACK PANEL] the column block may write the argument"), \
        remarks
    assert_same_results(src, out, seed=2, trials=2)


def test_a_read_outside_the_block_columns_refuses():
    """A read of the next block's columns (w[q, j + 16]) is not in the panel of 16 columns."""
    src = tiled(extra_read="          %e = affine.vector_load %w[%q, %j + 16] : memref<64x112xf32>, vector<8xf32>\n",
                n=112, block_ub="96")
    out, remarks = pack(src)
    assert len(remarks) == 1 and remarks[0].startswith("[STOP PACK PANEL] the column block does not read a window"), \
        remarks
    assert_same_results(src, out, seed=2, trials=2)


def test_a_last_block_that_reads_part_of_its_columns_refuses():
    """Blocks of 16 over 104 columns: the last block reads columns 96 .. 104 only, so a copy of
    its 16 columns would read past W's rows."""
    src = tiled(n=104, block_ub="104", j_ub="min affine_map<(d0) -> (d0 + 16, 104)>(%jb)").replace(
        "%b1 = affine.vector_load %w[%q, %j + 8] : memref<64x104xf32>, vector<8xf32>",
        "%b1 = affine.vector_load %w[%q, %j] : memref<64x104xf32>, vector<8xf32>").replace(
        "affine.vector_store %s#1, %y[%i, %j + 8] : memref<16x104xf32>, vector<8xf32>",
        "affine.vector_store %s#1, %y[%i, %j] : memref<16x104xf32>, vector<8xf32>")
    src = src.replace("step 16 {\n        %s:2", "step 8 {\n        %s:2")
    out, remarks = pack(src)
    assert len(remarks) == 1 and "leaves part of its window unread" in remarks[0], remarks
    assert_same_results(src, out, seed=2, trials=1)


def test_one_row_tile_refuses_and_two_pack():
    """One row tile per block reads the panel once: its copy would only add to that."""
    out, remarks = pack(tiled(rows=1))
    assert remarks == ["[STOP PACK PANEL] too few row tiles read the column block's panel to pay for its copy: "
                       "1 row tile(s) per block, fewer than 2"], remarks
    assert pack(tiled(rows=2))[1][0].startswith("[PACK PANEL]")


def test_a_local_buffer_or_a_narrow_argument_is_left_silently():
    """A buffer the function fills is panel-layout's; an argument no wider than the block has
    nothing to gain."""
    local = tiled().replace("%w: memref<64x96xf32>, ", "").replace(
        "%z = arith.constant", "%w = memref.alloc() : memref<64x96xf32>\n  %z = arith.constant")
    assert pack(local)[1] == []
    narrow = tiled(n=16)
    assert pack(narrow)[1] == []


# ---- row blocks around the column blocks: the whole panel layout (docs/cpu_codegen.md section 62)

def row_blocked(rows: int = 16, rb: int = 8, k: int = 64, n: int = 96, jc: int | None = None, jw: int | None = None,
                jc_inside: bool = False, after_blocks: str = "") -> str:
    """`tiled`'s product in row blocks of `rb` (`for ib step rb`) around the column blocks of 16;
    with `jc`, a loop of column blocks of `jc` (each `jw` wide, default `jc`) around them, outside
    the row blocks (cache tiling's order) or inside (`jc_inside`); `after_blocks` runs in the row
    block after its column blocks."""
    jw = jw or jc
    col = (f"affine.for %jc = 0 to {n} step {jc} {{\n", "}\n") if jc else ("", "")
    jb_lb, jb_ub = ("affine_map<(d0) -> (d0)>(%jc)", f"affine_map<(d0) -> (d0 + {jw})>(%jc)") if jc else ("0", str(n))
    row = (f"affine.for %ib = 0 to {rows} step {rb} {{\n", "}\n")
    outer, inner = (row, col) if jc_inside else (col, row)
    return f"""func.func @k(%x: memref<{rows}x{k}xf32>, %w: memref<{k}x{n}xf32>, %y: memref<{rows}x{n}xf32>) {{
  %z = arith.constant dense<0.0> : vector<8xf32>
  {outer[0]}  {inner[0]}
  affine.for %jb = {jb_lb} to {jb_ub} step 16 {{
    affine.for %i = affine_map<(d0) -> (d0)>(%ib) to affine_map<(d0) -> (d0 + {rb})>(%ib) {{
      affine.for %j = affine_map<(d0) -> (d0)>(%jb) to affine_map<(d0) -> (d0 + 16)>(%jb) step 16 {{
        %s:2 = affine.for %q = 0 to {k} iter_args(%a0 = %z, %a1 = %z) -> (vector<8xf32>, vector<8xf32>) {{
          %p = affine.load %x[%i, %q] : memref<{rows}x{k}xf32>
          %pb = vector.broadcast %p : f32 to vector<8xf32>
          %b0 = affine.vector_load %w[%q, %j] : memref<{k}x{n}xf32>, vector<8xf32>
          %b1 = affine.vector_load %w[%q, %j + 8] : memref<{k}x{n}xf32>, vector<8xf32>
          %u0 = arith.mulf %pb, %b0 : vector<8xf32>
          %m0 = arith.addf %a0, %u0 : vector<8xf32>
          %u1 = arith.mulf %pb, %b1 : vector<8xf32>
          %m1 = arith.addf %a1, %u1 : vector<8xf32>
          affine.yield %m0, %m1 : vector<8xf32>, vector<8xf32>
        }}
        affine.vector_store %s#0, %y[%i, %j] : memref<{rows}x{n}xf32>, vector<8xf32>
        affine.vector_store %s#1, %y[%i, %j + 8] : memref<{rows}x{n}xf32>, vector<8xf32>
      }}
    }}
  }}
  {"" if jc_inside else after_blocks}{inner[1]}{after_blocks if jc_inside else ""}{outer[1]}
  return
}}
"""


def pack_with(src: str, l3: int = 8 * 1024 * 1024) -> tuple[str, list[str]]:
    m = mlir.parse_module(src)
    log = RemarkLog()
    with m.context:
        for fn in mlir.functions(m):
            pack_argument_panels_function(fn, cpu(cache_sizes=(SMALL[0], SMALL[1], l3)), log, "t.mlir")
        assert mlir.verify(m.operation) is None
        return str(m.operation), [r.message + (f": {r.args['reason']}" if r.args and r.args.get("reason") else "")
                                  for r in log.remarks]


def test_row_blocks_copy_each_panel_once_into_the_whole_layout_fails_before():
    """Two row blocks of 8 around the column blocks: the copy runs in the first row block only
    (affine.if on its counter), into 6 panels of 64 x 16 that the second row block reads
    (before: a 64 x 16 panel copied again in each row block)."""
    src = row_blocked()
    out, remarks = pack_with(src)
    assert remarks == ["[PACK PANEL] argument %arg1 (64 x 96) is copied per column block of 16 into one contiguous "
                       "64 x 16 panel (4 KiB), read by 8 row tiles per copy, in the first row block only, into a "
                       "whole layout of 6 panels (24 KiB) that later row blocks read"], remarks
    assert "memref<6x64x16xf32>" in out and "affine.if" in out
    assert "floordiv 16" in out
    assert_same_results(src, out, seed=2, trials=2)


def test_a_column_loop_around_the_row_blocks_keeps_copying_in_each_iteration():
    """Cache tiling's order: column blocks of 48 around the row blocks. The row-block loop
    repeats the windows, the loop of 48 moves them: the copy is guarded by the row block only."""
    src = row_blocked(jc=48)
    out, remarks = pack_with(src)
    assert remarks[0].startswith("[PACK PANEL]") and "whole layout of 6 panels" in remarks[0], remarks
    assert "affine.if #set(%arg4)" in out, out
    assert_same_results(src, out, seed=2, trials=2)


def test_blocks_that_do_not_start_on_panels_keep_the_copy_per_row_block():
    """Column blocks of 16 starting at 0, 16 (jc = 0) and 24, 40 (jc = 24), the loop of 24 inside
    the row blocks: `jb floordiv 16` would put 16 and 24 in one panel, the second copy
    overwriting the first before the next row block reads it."""
    src = row_blocked(n=64, jc=24, jw=32, jc_inside=True).replace("affine.for %jc = 0 to 64 step 24",
                                                                  "affine.for %jc = 0 to 48 step 24")
    out, remarks = pack_with(src)
    assert remarks[0] == ("[STOP WHOLE PANEL] the row blocks around the column blocks are not shown to read the "
                          "same panels: a column block does not start on a multiple of 16 inside the argument"), remarks
    assert remarks[1].startswith("[PACK PANEL]") and "whole" not in remarks[1], remarks
    assert_same_results(src, out, seed=2, trials=2)


def test_a_write_of_the_argument_between_row_blocks_keeps_the_copy_per_row_block():
    """The row block writes W[ib, 0] after its column blocks: the next row block reads the new
    value, which a panel copied in the first row block would not hold."""
    src = row_blocked(after_blocks="""  %one = arith.constant 1.0 : f32
  affine.store %one, %w[%ib, 0] : memref<64x96xf32>
""")
    out, remarks = pack_with(src)
    assert remarks[0].startswith("[STOP WHOLE PANEL] the row blocks around the column blocks may write the argument"), \
        remarks
    assert remarks[1].startswith("[PACK PANEL]") and "whole" not in remarks[1], remarks
    assert_same_results(src, out, seed=2, trials=2)


def test_a_whole_layout_over_the_l3_share_keeps_the_copy_per_row_block():
    out, remarks = pack_with(row_blocked(), l3=16 * 1024)
    assert remarks[0] == "[STOP WHOLE PANEL] the whole panel layout exceeds the L3 share: 24 KiB over 16 KiB", remarks
    assert "memref<64x16xf32>" in out and "affine.if" not in out


@has_runner
def test_the_whole_layout_through_the_pipeline_is_bit_exact_natively():
    """384 x 120 x 64 (L2 48K): cache tiling's row blocks of 96 around the column blocks (A's
    96 x 64 block in half of L2; the sum's whole 64 x 24 micro-panel, 6 KiB, within an eighth of
    it, so the rows are blocked: section 65), 24 row tiles a copy over 4 row blocks: the copy runs
    in the first row block only. Natively, bit for bit with the pipeline without the step and
    with the input; and in the interpreter."""
    src = conv1d_linear(384, 120, 64)
    options = cpu(cache_sizes=(32 * 1024, 48 * 1024, 8 << 20))
    packed, remarks = compile_(src, options)
    assert remarks == ["[PACK PANEL] argument %arg1 (64 x 120) is copied per column block of 24 into one contiguous "
                       "64 x 24 panel (6 KiB), read by 24 row tiles per copy, in the first row block only, into a "
                       "whole layout of 5 panels (30 KiB) that later row blocks read"], remarks
    assert "memref<5x64x24xf32>" in packed and "affine.if" in packed
    whole, _ = compile_(src, options, passes=without_step(options))
    assert_same_natively(packed, whole, src)
    assert_same_results(whole, packed, seed=4, trials=1)


def test_a_row_block_loop_of_one_iteration_repeats_nothing():
    """One row block: the copy per block, no whole layout and no remark about one."""
    out, remarks = pack_with(row_blocked(rows=8, rb=8))
    assert remarks == ["[PACK PANEL] argument %arg1 (64 x 96) is copied per column block of 16 into one contiguous "
                       "64 x 16 panel (4 KiB), read by 8 row tiles per copy"], remarks
    assert "affine.if" not in out
