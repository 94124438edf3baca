"""Issue 33: a step that creates a symbol names it fresh (mlir.fresh_symbol_name) and never takes
an existing symbol for its own by its name.

Each program below already holds a symbol under the name a step would give its new global (a
global of other data that another function reads, a private function, a symbol of a nested
module): the output must verify (ours and mlir-opt 22), keep the other symbol as it was, and
compute the input's results natively (mlir-runner) and in the reference interpreter. Before the
fix, constant panels read the other global's data in place of the panels (a wrong result), or
added a second symbol of the name (invalid IR, the module rolled back).
"""
from __future__ import annotations

import struct

import pytest

from loopopt import api, mlir, native
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.codegen.cpu import pack_constant_panels
from loopopt.codegen.cpu.fold_constant_copies import fold_constant_copies_function
from loopopt.codegen.cpu.pack_constant_panels import pack_constant_panels_function

CPU = Options(target=TARGETS["cpu"])
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def blob(values) -> str:
    return "0x04000000" + struct.pack(f"<{len(values)}f", *values).hex().upper()


B_VALUES = [((k * 37) % 19) * 0.125 - 1.0 for k in range(8 * 128)]
OTHER_VALUES = [((k * 11) % 7) * 0.5 + 3.0 for k in range(4 * 8 * 32)]


def panel_walk(fn: str = "f") -> str:
    """out[0, j + 8 ...] = sum over k of b[k, j + 8 ...]: a load pack-constant-panels re-indexes."""
    return f"""  func.func @{fn}(%out: memref<4x128xf32>) {{
    %b = memref.get_global @b : memref<8x128xf32>
    %z = arith.constant dense<0.0> : vector<8xf32>
    affine.for %j = 0 to 96 step 32 {{
      %s = affine.for %k = 0 to 8 iter_args(%acc = %z) -> (vector<8xf32>) {{
        %v = affine.vector_load %b[%k, %j + 8] : memref<8x128xf32>, vector<8xf32>
        %a = arith.addf %acc, %v : vector<8xf32>
        affine.yield %a : vector<8xf32>
      }}
      affine.vector_store %s, %out[0, %j + 8] : memref<4x128xf32>, vector<8xf32>
    }}
    return
  }}"""


# A global of the panels' very type under the panels' name, holding other data, read by @g.
OTHER_GLOBAL = """  memref.global "private" constant @b_panels32 : memref<4x8x32xf32> = dense_resource<other_blob> {alignment = 64 : i64}
  func.func @g(%out: memref<4xf32>) {
    %p = memref.get_global @b_panels32 : memref<4x8x32xf32>
    affine.for %i = 0 to 4 {
      %v = affine.load %p[%i, 3, 5] : memref<4x8x32xf32>
      affine.store %v, %out[%i] : memref<4xf32>
    }
    return
  }"""

PRIVATE_FUNCTION = """  func.func private @b_panels32(%x: f32) -> f32 {
    return %x : f32
  }
  func.func @g(%out: memref<4xf32>) {
    %c = arith.constant 1.5 : f32
    %r = func.call @b_panels32(%c) : (f32) -> f32
    affine.store %r, %out[0] : memref<4xf32>
    return
  }"""


def program(*parts: str, resources: bool = True) -> str:
    trailer = f"""
{{-#
  dialect_resources: {{
    builtin: {{
      b_blob: "{blob(B_VALUES)}",
      other_blob: "{blob(OTHER_VALUES)}"
    }}
  }}
#-}}
""" if resources else "\n"
    return ("module {\n"
            '  memref.global "private" constant @b : memref<8x128xf32> = dense_resource<b_blob> {alignment = 64 : i64}\n'
            + "\n".join(parts) + "\n}\n" + trailer)


def pack(src: str) -> str:
    """pack-constant-panels on every function of every module of `src`; verified output."""
    m = mlir.parse_module(src)
    with m.context:
        for fn in mlir.all_functions(m):
            pack_constant_panels_function(fn, CPU, RemarkLog(), "t.mlir")
        assert mlir.verify(m.operation) is None
        out = m.operation.get_asm(large_resource_limit=None)
    if find_tool("mlir-opt") is not None:
        assert verify_with_mlir_opt(out) is None
    return out


def native_same(src: str, out: str, kernels) -> None:
    if find_tool("mlir-runner") is None:
        return
    for kernel in kernels:
        want = native.run_native(src, kernel, [None], reps=1).outputs
        got = native.run_native(out, kernel, [None], reps=1).outputs
        assert native.compare_outputs(want, got) is None, kernel


def head(text: str) -> str:
    return text.split("{-#")[0]


@has_runner
def test_a_global_of_the_panels_name_holding_other_data_is_not_taken_for_the_panels():
    src = program(OTHER_GLOBAL, panel_walk())
    out = pack(src)
    native_same(src, out, ["f", "g"])
    assert_same_results(src, out)
    h = head(out)
    assert "memref.global \"private\" constant @b_panels32 : memref<4x8x32xf32> = dense_resource<other_blob>" in h
    assert "@b_panels32_1 : memref<4x8x32xf32> = dense_resource<b_blob_panels32>" in h, h
    assert "memref.get_global @b_panels32_1" in h and h.count("memref.get_global @b_panels32 ") == 1, h


@has_runner
def test_the_driver_keeps_the_source_and_the_other_global():
    """The whole pass: the source's last reader now reads the new panels, so the source goes;
    the other global and its reader stay as they were."""
    src = program(OTHER_GLOBAL, panel_walk())
    result = api.optimize(src, "cpu", passes=["pack-constant-panels"])
    text = result.text
    native_same(src, text, ["f", "g"])
    assert not any("[INTERNAL]" in r.message for r in result.remarks)
    assert "dense_resource<other_blob>" in head(text) and "@b_panels32_1" in head(text)


@has_runner
def test_a_private_function_of_the_panels_name_keeps_its_name_and_the_panels_get_another():
    src = program(PRIVATE_FUNCTION, panel_walk())
    result = api.optimize(src, "cpu", passes=["pack-constant-panels"])
    assert not any("[INTERNAL]" in r.message for r in result.remarks), result.remarks
    out = pack(src)
    native_same(src, out, ["f", "g"])
    assert_same_results(src, out)
    h = head(out)
    assert "func.func private @b_panels32(" in h and "@b_panels32_1 : memref<4x8x32xf32>" in h, h


def test_two_functions_share_the_panels_this_step_made():
    """Dedup by contents: the second function finds the global the first one's packing made."""
    src = program(OTHER_GLOBAL, panel_walk("f"), panel_walk("f2"))
    h = head(pack(src))
    assert h.count("memref.global \"private\" constant @b_panels32_1 ") == 1 and "@b_panels32_2" not in h, h
    assert h.count("memref.get_global @b_panels32_1") == 2, h


def test_a_global_of_equal_type_named_as_made_before_but_holding_other_data_is_not_reused():
    """The name of a fresh variant (`_1`) proves nothing either: its contents are compared."""
    src = program(OTHER_GLOBAL.replace("@b_panels32", "@b_panels32_1"), panel_walk())
    h = head(pack(src))
    assert "@b_panels32_1 : memref<4x8x32xf32> = dense_resource<other_blob>" in h
    assert "memref.global \"private\" constant @b_panels32 : memref<4x8x32xf32> = dense_resource<b_blob_panels32>" in h, h


def test_a_nested_module_names_its_panels_in_its_own_symbol_table():
    """The nested module holds a global of the panels' name: its panels get a fresh name there,
    while the outer module's panels (another symbol table) keep theirs. (Splat constants: the
    blobs of a nested module's globals are not read, docs/cpu_codegen.md 11d.)"""
    inner = ("  module @inner {\n"
             '    memref.global "private" constant @b : memref<8x128xf32> = dense<1.5> {alignment = 64 : i64}\n'
             + OTHER_GLOBAL.replace("\n", "\n  ").replace("  memref.global", "    memref.global", 1)
             .replace("dense_resource<other_blob>", "dense<-4.0>") + "\n"
             + panel_walk("inner_f").replace("\n", "\n  ") + "\n  }")
    src = program(panel_walk(), inner)
    out = pack(src)
    h = head(out)
    outer, nested = h.split("module @inner")
    assert "@b_panels32 : memref<4x8x32xf32> = dense_resource<b_blob_panels32" in outer, outer
    assert "@b_panels32_1 : memref<4x8x32xf32> = dense<1.500000e+00>" in nested, nested
    assert "@b_panels32 : memref<4x8x32xf32> = dense<-4.000000e+00>" in nested, nested
    assert "memref.get_global @b_panels32_1" in nested, nested
    assert_same_results(src, out)


COPY = """  memref.global "private" constant @w : memref<4x8xf32> = dense_resource<w_blob> {alignment = 64 : i64}
  memref.global "private" constant @w_folded0 : memref<8x4xf32> = dense_resource<other_blob> {alignment = 64 : i64}
  func.func @g(%out: memref<4xf32>) {
    %p = memref.get_global @w_folded0 : memref<8x4xf32>
    affine.for %i = 0 to 4 {
      %v = affine.load %p[%i, 3] : memref<8x4xf32>
      affine.store %v, %out[%i] : memref<4xf32>
    }
    return
  }
  func.func @f(%out: memref<8x4xf32>) {
    %w = memref.get_global @w : memref<4x8xf32>
    %t = memref.alloc() : memref<8x4xf32>
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 4 {
        %v = affine.load %w[%j, %i] : memref<4x8xf32>
        affine.store %v, %t[%i, %j] : memref<8x4xf32>
      }
    }
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 4 {
        %v = affine.load %t[%i, %j] : memref<8x4xf32>
        %d = arith.addf %v, %v : f32
        affine.store %d, %out[%i, %j] : memref<8x4xf32>
      }
    }
    memref.dealloc %t : memref<8x4xf32>
    return
  }"""


@has_runner
def test_a_folded_copy_is_named_fresh_past_a_global_of_its_name():
    src = f"""module {{
{COPY}
}}

{{-#
  dialect_resources: {{
    builtin: {{
      w_blob: "{blob([k * 0.25 for k in range(32)])}",
      other_blob: "{blob([7.0 + k for k in range(32)])}"
    }}
  }}
#-}}
"""
    m = mlir.parse_module(src)
    with m.context:
        fn = [f for f in mlir.functions(m) if mlir.func_name(f) == "f"][0]
        assert fold_constant_copies_function(fn, CPU, RemarkLog(), "t.mlir") == 1
        assert mlir.verify(m.operation) is None
        out = m.operation.get_asm(large_resource_limit=None)
    h = head(out)
    assert "@w_folded0 : memref<8x4xf32> = dense_resource<other_blob>" in h
    assert "@w_folded1 : memref<8x4xf32>" in h and "memref.get_global @w_folded1" in h, h
    if find_tool("mlir-opt") is not None:
        assert verify_with_mlir_opt(out) is None
    assert_same_results(src, out)
    native_same(src, out, ["f", "g"])


def test_fresh_symbol_name_skips_every_kind_of_symbol():
    m = mlir.parse_module("""module {
  memref.global "private" @x : memref<1xf32>
  func.func private @x_1()
  module @x_2 {}
  memref.global "private" @y0 : memref<1xf32>
}""")
    assert mlir.fresh_symbol_name(m.operation, "x") == "x_3"
    assert mlir.fresh_symbol_name(m.operation, "z") == "z"
    assert mlir.fresh_symbol_name(m.operation, "y", numbered=True) == "y1"
