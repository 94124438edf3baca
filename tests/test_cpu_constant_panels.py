"""Issue 24: constants laid out in column panels for the products that read them
(codegen/cpu/plan/constant_panels.py, codegen/cpu/pack_constant_panels.py, step pack-constant-panels).

The re-indexed loads are checked on the IR and for their results (reference interpreter and
mlir-runner), including a last panel padded with zeros; each refusal leaves the load as it was;
and the rule that J's lower bound is a multiple of the panel is shown to be needed: without it
the re-indexed load reads other columns.
"""
from __future__ import annotations

import struct

import pytest

import loopopt
from loopopt import mlir, native
from loopopt.codegen.cpu.plan.constant_panels import PanelLoad, plan_constant_panels
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool
from loopopt.codegen.cpu import pack_constant_panels
from loopopt.codegen.cpu.pack_constant_panels import pack_constant_panels_function, panel_bytes

CPU = Options(target=TARGETS["cpu"])
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def blob(values) -> str:
    return "0x04000000" + struct.pack(f"<{len(values)}f", *values).hex().upper()


def module(body: str, n: int = 128, rows: int = 8, constant: str = " constant", args: str = "") -> str:
    vals = [((k * 37) % 19) * 0.125 - 1.0 for k in range(rows * n)]
    return f"""module {{
  memref.global "private"{constant} @b : memref<{rows}x{n}xf32> = dense_resource<b_blob> {{alignment = 64 : i64}}
  func.func @f(%out: memref<4x{n}xf32>{args}) {{
    %b = memref.get_global @b : memref<{rows}x{n}xf32>
{body}
    return
  }}
}}

{{-#
  dialect_resources: {{
    builtin: {{
      b_blob: "{blob(vals)}"
    }}
  }}
#-}}
"""


def panel_walk(n=128, lo=0, step=32, offset=8, row="%k", width=8) -> str:
    """out[0, j + offset ...] = sum over k of b[row, j + offset ...] (a vector per j step)."""
    return f"""    %z = arith.constant dense<0.0> : vector<{width}xf32>
    affine.for %j = {lo} to {n - step} step {step} {{
      %s = affine.for %k = 0 to 8 iter_args(%acc = %z) -> (vector<{width}xf32>) {{
        %v = affine.vector_load %b[{row}, %j + {offset}] : memref<8x{n}xf32>, vector<{width}xf32>
        %a = arith.addf %acc, %v : vector<{width}xf32>
        affine.yield %a : vector<{width}xf32>
      }}
      affine.vector_store %s, %out[0, %j + {offset}] : memref<4x{n}xf32>, vector<{width}xf32>
    }}"""


def pack(src: str) -> tuple[str, list[str]]:
    m = mlir.parse_module(src)
    log = RemarkLog()
    with m.context:
        for fn in mlir.functions(m):
            pack_constant_panels_function(fn, CPU, log, "t.mlir")
        assert mlir.verify(m.operation) is None
        return m.operation.get_asm(large_resource_limit=None), log.messages()


def test_panel_bytes_lays_columns_out_panel_by_panel_with_zero_padding():
    data = struct.pack("<6I", 0, 1, 2, 3, 4, 5)  # 2 x 3
    assert struct.unpack("<8I", panel_bytes(data, [2, 3], 2, 4)) == (0, 1, 3, 4, 2, 0, 5, 0)


def test_a_panel_walk_reads_the_panel_global_and_keeps_its_results():
    src = module(panel_walk())
    out, remarks = pack(src)
    assert 'memref.global "private" constant @b_panels32 : memref<4x8x32xf32> = dense_resource<b_blob_panels32>' in out
    head = out.split("{-#")[0]
    assert "affine.vector_load %0[%arg1 floordiv 32, %arg2, 8] : memref<4x8x32xf32>, vector<8xf32>" in head, head
    assert "memref.get_global @b :" not in head, head  # the old load is gone
    assert any("[PACK CONSTANT] 1 load(s) of @b (8 x 128) read column panels of 32: @b_panels32 (4 x 8 x 32)" in r
               for r in remarks), remarks
    assert_same_results(src, out)
    if find_tool("mlir-runner") is not None:
        want = native.run_native(src, "f", [None], reps=1).outputs
        got = native.run_native(out, "f", [None], reps=1).outputs
        assert native.compare_outputs(want, got) is None


def test_a_last_panel_past_the_columns_is_padded():
    src = module(panel_walk(n=112, step=32, offset=0), n=112)  # 112 = 3.5 panels of 32
    out, _ = pack(src)
    assert "memref<4x8x32xf32>" in out
    assert_same_results(src, out)


REFUSED = {
    "lower bound not a multiple of the panel": dict(lo=8),
    "the vector leaves the panel": dict(offset=28),
    "rows not walked inside the panel loop": dict(row="0"),
    "no more columns than one panel": dict(n=64, step=64, offset=0),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_keep_the_load(name):
    kw = REFUSED[name]
    n = kw.get("n", 128)
    src = module(panel_walk(**kw), n=n)
    out, remarks = pack(src)
    assert "panels" not in out and not remarks, (name, remarks)


def test_a_load_through_a_cast_or_a_lower_bound_of_two_results_keeps_its_load():
    cast = panel_walk().replace("affine.vector_load %b[", "affine.vector_load %bc[").replace(
        "    %z = arith.constant", "    %bc = memref.cast %b : memref<8x128xf32> to memref<8x128xf32>\n    %z = arith.constant", 1)
    two = panel_walk().replace("affine.for %j = 0 to 96 step 32", "affine.for %j = max affine_map<() -> (0, 0)>() to 96 step 32")
    for body in (cast, two):
        src = module(body)
        out, remarks = pack(src)
        assert "panels" not in out and not remarks, body


def test_a_global_that_is_not_constant_keeps_its_loads():
    src = module(panel_walk(), constant="")
    out, remarks = pack(src)
    assert "panels" not in out and not remarks


def test_the_lower_bound_rule_is_needed():
    """Re-indexing a walk whose J starts at 8 (not a multiple of 32) reads other columns."""
    src = module(panel_walk(lo=8))
    m = mlir.parse_module(src)
    with m.context:
        fn = mlir.functions(m)[0]
        load = next(op for op in mlir.walk(fn) if op.name == "affine.vector_load")
        j_loop = next(op for op in mlir.walk(fn) if op.name == "affine.for")
        gop = next(op for op in mlir.block_ops(m.body) if op.name == "memref.global")
        plan = PanelLoad(load, gop, j_loop, 32, 8)
        monkey = [plan]
        original = pack_constant_panels.plan_constant_panels
        pack_constant_panels.plan_constant_panels = lambda fn: monkey
        try:
            assert pack_constant_panels_function(fn, CPU, RemarkLog(), "t.mlir") == 1
        finally:
            pack_constant_panels.plan_constant_panels = original
        assert plan_constant_panels(fn) == []  # the real rule refuses it
        mutated = m.operation.get_asm(large_resource_limit=None)
    with pytest.raises(AssertionError):
        assert_same_results(src, mutated)


def test_the_cpu_pipeline_packs_a_constant_weight_of_a_linear_layer():
    """aten.linear's weight: its transpose is folded (fold-constant-copies), then the register
    tiled product reads it in column panels."""
    from loopopt.frontend import fixtures

    fx = fixtures.load_fixture("mlp_relu_small")
    res = loopopt.optimize(fx.text, target="cpu", filename="mlp_relu_small.mlir", vector_bits=128)
    packed = [r.message for r in res.remarks if "[PACK CONSTANT]" in r.message]
    assert packed, [r.message for r in res.remarks][:40]
    assert "_panels" in res.text
    from loopopt import frontend

    lowered = frontend.lower(fx.text, filename="mlp_relu_small.mlir").text
    assert_same_results(lowered, res.text, rtol=1e-5, atol=1e-6)  # framework input: FMA contraction on


def test_other_targets_keep_their_loads():
    """The step table runs pack-constant-panels on the cpu target only, also when --passes names it."""
    from loopopt import driver

    res = driver.optimize(module(panel_walk()), Options(target=TARGETS["trn1"]), passes=["pack-constant-panels"])
    assert "_panels" not in res.text and not [r for r in res.remarks.remarks if r.pass_name == "pack-constant-panels"]


def column_block_walk(outer_step=32, shift=0, step=32, offset=8, n=128) -> str:
    """`panel_walk` inside a cache tile's column blocks: J runs from `%jc + shift` by `step`
    within blocks `%jc` of `outer_step` columns (cache_tile's `columns in blocks`)."""
    return f"""    %z = arith.constant dense<0.0> : vector<8xf32>
    affine.for %jc = 0 to {n - outer_step} step {outer_step} {{
      affine.for %j = affine_map<(d0) -> (d0 + {shift})>(%jc) to affine_map<(d0) -> (d0 + {outer_step})>(%jc) step {step} {{
        %s = affine.for %k = 0 to 8 iter_args(%acc = %z) -> (vector<8xf32>) {{
          %v = affine.vector_load %b[%k, %j + {offset}] : memref<8x{n}xf32>, vector<8xf32>
          %a = arith.addf %acc, %v : vector<8xf32>
          affine.yield %a : vector<8xf32>
        }}
        affine.vector_store %s, %out[0, %j + {offset}] : memref<4x{n}xf32>, vector<8xf32>
      }}
    }}"""


@pytest.mark.parametrize("outer_step", [32, 64])
def test_a_walk_inside_column_blocks_reads_panels(outer_step):
    """`starts_on_panels`: J's lower bound is the IV of a loop whose every value is a multiple of
    the panel (a step that is a multiple of it, from 0): J is one too, and the load reads the
    panels (before, only a constant lower bound was taken). Same results, interpreted and native."""
    src = module(column_block_walk(outer_step=outer_step))
    out, remarks = pack(src)
    head = out.split("{-#")[0]
    assert "memref<4x8x32xf32>" in head and "memref.get_global @b :" not in head, head
    assert any("read column panels of 32" in r for r in remarks), remarks
    assert_same_results(src, out)
    if find_tool("mlir-runner") is not None:
        want = native.run_native(src, "f", [None], reps=1).outputs
        got = native.run_native(out, "f", [None], reps=1).outputs
        assert native.compare_outputs(want, got) is None


@pytest.mark.parametrize("kw", [dict(outer_step=16, step=32), dict(shift=8, outer_step=64), dict(shift=16, outer_step=48)],
                         ids=["outer step not a multiple", "start off a panel", "outer step and start off"])
def test_column_blocks_off_the_panels_keep_the_load(kw):
    """A block start that is not a multiple of the panel (an outer step of 16 for panels of 32,
    or J from %jc + 8) keeps the load: re-indexed, it would read other columns."""
    src = module(column_block_walk(**kw))
    out, remarks = pack(src)
    assert "panels" not in out and not remarks, (kw, remarks)


@has_runner
def test_a_cache_tiled_product_reads_its_constant_weight_from_panels_bit_for_bit():
    """Through the cpu pipeline at 256 bits with a 4 KiB L2: B (8 x 128, a blob) exceeds half of
    L2, the 4 x 24 tile sweeps the columns one tile at a time, and its loads read @b_panels24
    (`starts_on_panels`); the results are the same bit for bit, interpreted and natively."""
    from loopopt.testing import optimize_and_compare
    body = """    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 128 {
        %z = arith.constant 0.0 : f32
        %r = affine.for %k = 0 to 8 iter_args(%acc = %z) -> (f32) {
          %x = affine.load %a[%i, %k] : memref<4x8xf32>
          %y = affine.load %b[%k, %j] : memref<8x128xf32>
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %acc, %p : f32
          affine.yield %s : f32
        }
        affine.store %r, %out[%i, %j] : memref<4x128xf32>
      }
    }"""
    src = module(body, args=", %a: memref<4x8xf32>")
    opts = Options(target=TARGETS["cpu"], vector_bits=256, cache_sizes=(1024, 4096, 16384))
    got = optimize_and_compare(src, "f", opts, natively=True)
    assert any("read column panels of 24: @b_panels24" in r.message for r in got.remarks), \
        [r.message for r in got.remarks]
