"""Adversarial review, round 4 (docs/reliability.md): hand-written programs against the newest cpu
steps' rules (pack-column-blocks, flat rows and the access analysis through collapse_shape views,
dead stores into arguments across a run-time check). Each compares the results of the input and
the output in the interpreter and natively (bit for bit), and asserts the step fired or refused
as expected. The first three reproduce what the review found broken:

* a program's own `memref.collapse_shape` of a strided buffer was read as contiguous (its own
  coordinates taken as strides in memory): the register tile put vector loads on a view whose
  last dimension has stride 2, which the lowering rejects;
* a call (to a function holding a check, or an external one) between an output's store and the
  later nest that writes it again did not keep the store: the call may abort and shows the output;
* two products sharing one transposed buffer, the second not packed and reading a row only the
  first copy wrote: the first copy was erased, the second product read garbage.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from loopopt import mlir, native
from loopopt.analysis.accesses import access_pattern
from loopopt.analysis.affine import Scope
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

sys.path.insert(0, str(Path(__file__).parent))
from test_checks import DEAD_OUTPUT, same_abort  # noqa: E402
from test_cpu_flat_rows import conv1x1  # noqa: E402
from test_cpu_pack_column_blocks import SMALL, linear  # noqa: E402

has_runner = find_tool("mlir-runner") is not None


def compile_(src: str, bits: int = 512, passes=None, **kw):
    res = optimize(src, Options(target=TARGETS["cpu"], vector_bits=bits, **kw), filename="t.mlir", passes=passes)
    messages = [r.message for r in res.remarks]
    assert not [m for m in messages if "[INTERNAL]" in m], messages
    return res.text, messages


def same_results(src: str, out: str) -> None:
    """Interpreter, mlir-opt's verifier, and natively bit for bit (NaN alike)."""
    assert_same_results(src, out, func="k")
    opt = find_tool("mlir-opt")
    if opt is not None:
        p = subprocess.run([opt, "-o", "/dev/null"], input=out, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    if has_runner:
        sizes = [None] * len(native.kernel_signature(src, "k").args)
        a = native.run_native(src, "k", sizes, reps=1, full_limit=200_000).outputs
        b = native.run_native(out, "k", sizes, reps=1, full_limit=200_000).outputs
        assert native.compare_outputs(list(a), list(b), rtol=0.0) is None


# --------------------------------------------------------------- collapse views the program has

STRIDED_VIEW = """func.func @k(%A: memref<8x6xf32>, %B: memref<2x3x64xf32>, %C: memref<8x32xf32>) {
  %z = arith.constant 0.0 : f32
  %S = memref.subview %B[0, 0, 0] [2, 3, 32] [1, 1, 2] : memref<2x3x64xf32> to memref<2x3x32xf32, strided<[192, 64, 2]>>
  %v = memref.collapse_shape %S [[0, 1], [2]] : memref<2x3x32xf32, strided<[192, 64, 2]>> into memref<6x32xf32, strided<[64, 2]>>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 32 {
      %s = affine.for %c = 0 to 6 iter_args(%a = %z) -> (f32) {
        %u = affine.load %A[%i, %c] : memref<8x6xf32>
        %w = affine.load %v[%c, %j] : memref<6x32xf32, strided<[64, 2]>>
        %p = arith.mulf %u, %w : f32
        %q = arith.addf %a, %p : f32
        affine.yield %q : f32
      }
      affine.store %s, %C[%i, %j] : memref<8x32xf32>
    }
  }
  return
}
"""


def test_a_collapse_of_a_strided_buffer_is_not_read_as_contiguous():
    """B read through the program's own collapse of a subview with stride 2 in its last
    dimension: its columns are not contiguous, so no vector load of the view (the lowering
    rejects one), and the results stay."""
    out, _ = compile_(STRIDED_VIEW)
    assert "affine.vector_load %collapse_shape" not in out
    same_results(STRIDED_VIEW, out)


def test_a_collapse_views_own_index_is_kept_only_for_a_row_major_view():
    m = mlir.parse_module(STRIDED_VIEW)
    fn = mlir.functions(m)[0]
    (load,) = [o for o in mlir.walk(fn) if o.name == "affine.load" and "6x32" in str(o.operands[0].type)]
    a = access_pattern(load, Scope())
    assert a.index is not None and a.view_index is None  # strides from B's coordinates: 2 per column
    contiguous = STRIDED_VIEW.replace("[1, 1, 2] : memref<2x3x64xf32> to memref<2x3x32xf32, strided<[192, 64, 2]>>",
                                      "[1, 1, 1] : memref<2x3x64xf32> to memref<2x3x32xf32, strided<[192, 64, 1]>>")
    m2 = mlir.parse_module(contiguous.replace("strided<[192, 64, 2]>", "strided<[192, 64, 1]>")
                           .replace("strided<[64, 2]>", "strided<[64, 1]>"))
    fn2 = mlir.functions(m2)[0]
    (load2,) = [o for o in mlir.walk(fn2) if o.name == "affine.load" and "6x32" in str(o.operands[0].type)]
    assert access_pattern(load2, Scope()).view_index is None  # rows 64 apart: not row-major either
    m3 = mlir.parse_module(VIEW_ROW_MAJOR)
    (load3,) = [o for o in mlir.walk(mlir.functions(m3)[0]) if o.name == "affine.load"]
    assert access_pattern(load3, Scope()).view_index is not None


VIEW_ROW_MAJOR = """func.func @k(%A: memref<2x3x4xf32>, %B: memref<2x12xf32>) {
  %v = memref.collapse_shape %A [[0], [1, 2]] : memref<2x3x4xf32> into memref<2x12xf32>
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 12 {
      %x = affine.load %v[%i, %j] : memref<2x12xf32>
      affine.store %x, %B[%i, %j] : memref<2x12xf32>
    }
  }
  return
}
"""


# ------------------------------------------------------------------------------- flat rows

def _flat(messages):
    return [m for m in messages if m.startswith("[FLAT ROWS]")]


OWN_VIEW = conv1x1(extra="          %o0 = affine.load %V[%n, %f, 5] : memref<2x12x42xf32>\n"
                         "          %g = arith.addf %o0, %r : f32\n", stored="%g").replace(
    "  %z = arith.constant 0.0 : f32\n",
    "  %z = arith.constant 0.0 : f32\n"
    "  %V = memref.collapse_shape %O [[0], [1], [2, 3]] : memref<2x12x3x14xf32> into memref<2x12x42xf32>\n")

SELF_READ = conv1x1(extra="          %o0 = affine.load %O[%n, %f, 0, 0] : memref<2x12x3x14xf32>\n"
                          "          %g = arith.addf %o0, %r : f32\n", stored="%g")

OWN_EXPAND = conv1x1().replace("%X: memref<2x5x3x14xf32>", "%XF: memref<2x5x42xf32>").replace(
    "  %z = arith.constant 0.0 : f32\n",
    "  %z = arith.constant 0.0 : f32\n  %X = memref.expand_shape %XF [[0], [1], [2, 3]] output_shape [2, 5, 3, 14] "
    ": memref<2x5x42xf32> into memref<2x5x3x14xf32>\n")

IN_PLACE = conv1x1(c=12).replace("%X: memref<2x12x3x14xf32>, ", "").replace("%X[", "%O[")


@pytest.mark.parametrize("name,src", [
    ("the output read in the nest through the program's own collapse view", OWN_VIEW),
    ("the output's element (0, 0) read back in every iteration", SELF_READ),
    ("the input read through the program's own expand_shape of a flat buffer", OWN_EXPAND),
    ("the input is the output (other channels read, written in place)", IN_PLACE),
])
def test_flat_rows_leave_a_buffer_seen_through_another_view_or_read_back(name, src):
    """The nest reads the buffer it writes (directly or through a view the program made), or reads
    its input through an expand_shape the analysis does not model: the rows stay rows (the
    dependences through the views are not joined), and the results are those of the input."""
    out, messages = compile_(src, 256)
    assert not _flat(messages), name
    same_results(src, out)


def test_flat_rows_join_when_the_program_reads_another_buffer_through_its_own_view():
    """Control for the four above: the plain 1x1 convolution is joined."""
    src = conv1x1()
    out, messages = compile_(src, 256)
    assert _flat(messages)
    same_results(src, out)


# ------------------------------------------------------------ dead stores across a call

CALL_CHECK = """affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    func.call @chk(%a) : (f32) -> ()
  }"""
CHECKING_CALLEE = """
func.func private @chk(%v: f32) {
  %z = arith.constant 0.0 : f32
  %c = arith.cmpf one, %v, %z : f32
  cf.assert %c, "zero"
  return
}
"""


@pytest.mark.parametrize("passes", [["dead-stores"], None])
def test_an_output_store_a_called_check_may_see_is_kept(passes):
    """`out = A; for i: chk(A[i]) (asserts A[i] != 0); out = 2 A`: the first write stays (an abort
    in the callee shows it), with the remark naming the call."""
    src = DEAD_OUTPUT.replace("CHECK_LOOP", CALL_CHECK) + CHECKING_CALLEE
    out, messages = compile_(src, 256, passes=passes)
    assert any(m.startswith("[DEAD STORE] store into an argument kept: func.call at") for m in messages), messages
    bad = [np.array([1, 2, 3, 0, 5, 6, 7, 8], np.float32), np.zeros(8, np.float32)]
    assert same_abort(src, out, bad) == "assertion failed: zero"
    assert same_abort(src, out, [np.arange(1, 9, dtype=np.float32), np.zeros(8, np.float32)]) is None


def test_an_output_store_before_an_external_call_is_kept():
    src = DEAD_OUTPUT.replace("CHECK_LOOP", "func.call @ext() : () -> ()") + "\nfunc.func private @ext()\n"
    out, messages = compile_(src, 256, passes=["dead-stores"])
    assert any(m.startswith("[DEAD STORE] store into an argument kept: func.call at t.mlir:9:3") for m in messages)
    assert out.count("affine.store") == 2


def test_an_output_store_with_a_pure_loop_between_is_still_removed():
    """Control: the same program with a loop of arithmetic between (no check, no call)."""
    src = DEAD_OUTPUT.replace("CHECK_LOOP", "")
    out, messages = compile_(src, 256, passes=["dead-stores"])
    assert any(m.startswith("[DEAD STORE] store into an argument removed") for m in messages)
    assert same_abort(src, out, [np.arange(1, 9, dtype=np.float32), np.zeros(8, np.float32)]) is None


# --------------------------------------------------------------- B packed per column block

def _copy(w: str, n: int, k: int) -> str:
    return f"""  affine.for %a = 0 to {k} {{
    affine.for %b = 0 to {n} {{
      %v = affine.load {w}[%b, %a] : memref<{n}x{k}xf32>
      affine.store %v, %t[%a, %b] : memref<128x320xf32>
    }}
  }}
"""


def _product(x: str, y: str, m: int, n: int, k: int, kx: int, xmap: str = "%q") -> str:
    return f"""  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %c = affine.load {y}[%i, %j] : memref<{m}x{n}xf32>
      %r = affine.for %q = 0 to {k} iter_args(%acc = %c) -> (f32) {{
        %p = affine.load {x}[%i, {xmap}] : memref<{m}x{kx}xf32>
        %s = affine.load %t[%q, %j] : memref<128x320xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }}
      affine.store %r, {y}[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
"""


def shared(k2: int) -> str:
    """Two products sharing one 128 x 320 transposed buffer: 24 x 320 x 128 (column blocks), then
    16 x 256 x k2 from a 256 x 96 weight copied into its first 96 rows and 256 columns (no column
    blocks); with k2 = 97 the second reads row 96, which only the first copy wrote."""
    return ("func.func @k(%x: memref<24x128xf32>, %w: memref<320x128xf32>, %y: memref<24x320xf32>, "
            "%x2: memref<16x96xf32>, %w2: memref<256x96xf32>, %y2: memref<16x256xf32>) {\n"
            "  %t = memref.alloc() : memref<128x320xf32>\n"
            + _copy("%w", 320, 128) + _product("%x", "%y", 24, 320, 128, 128)
            + _copy("%w2", 256, 96) + _product("%x2", "%y2", 16, 256, k2, 96, "%q mod 96")
            + "  memref.dealloc %t : memref<128x320xf32>\n  return\n}\n")


@pytest.mark.parametrize("k2", [96, 97])
def test_a_shared_transposed_buffer_with_an_unpacked_product_keeps_its_copies(k2):
    out, messages = compile_(shared(k2), cache_sizes=SMALL)
    pack = [m for m in messages if "PACK B" in m]
    assert pack and all(m.startswith("[STOP PACK B] the buffer is also read by a product that is not packed")
                        for m in pack), pack
    same_results(shared(k2), out)


def test_a_shared_buffer_whose_second_copy_is_partial_keeps_the_first_copy():
    """Both products have column blocks; the second copy writes rows 0..95 only and its product
    reads rows 0..127 (96..127 from the first copy): the second pair's clone is refused (PARTIAL)
    once built, so the first copy, whose rows the second product still reads, stays."""
    src = ("func.func @k(%x: memref<24x128xf32>, %w: memref<320x128xf32>, %y: memref<24x320xf32>, "
           "%x2: memref<24x128xf32>, %w2: memref<320x96xf32>, %y2: memref<24x320xf32>) {\n"
           "  %t = memref.alloc() : memref<128x320xf32>\n"
           + _copy("%w", 320, 128) + _product("%x", "%y", 24, 320, 128, 128)
           + _copy("%w2", 320, 96) + _product("%x2", "%y2", 24, 320, 128, 128)
           + "  memref.dealloc %t : memref<128x320xf32>\n  return\n}\n")
    out, messages = compile_(src, cache_sizes=SMALL)
    pack = [m for m in messages if "PACK B" in m]
    assert any(m.startswith("[STOP PACK B] the copy per block would not write exactly") for m in pack), pack
    same_results(src, out)


@pytest.mark.parametrize("row", [0, 127])
def test_an_epilogue_reading_the_transposed_buffer_is_packed_with_the_product(row):
    """The product's epilogue adds T[row, j]: a read of the pair inside the column block, packed
    with it (the clone writes every row of the block's columns)."""
    src = linear(24, 320, 128).replace(
        "      affine.store %r, %y[%i, %j]",
        f"      %e0 = affine.load %t[{row}, %j] : memref<128x320xf32>\n      %e1 = arith.addf %r, %e0 : f32\n"
        "      affine.store %e1, %y[%i, %j]")
    out, messages = compile_(src, cache_sizes=SMALL)
    assert any(m.startswith("[PACK B] the 128 x 320 transposed copy") for m in messages), messages
    same_results(src, out)


def test_a_transposed_buffer_read_again_after_the_product_is_refused():
    after = ("  affine.for %i2 = 0 to 320 {\n    %e = affine.load %t[3, %i2] : memref<128x320xf32>\n"
             "    affine.store %e, %y[0, %i2] : memref<24x320xf32>\n  }\n")
    src = linear(24, 320, 128, after=after)
    out, messages = compile_(src, cache_sizes=SMALL)
    assert any(m.startswith("[STOP PACK B]") for m in messages) and not any(m.startswith("[PACK B]") for m in messages)
    same_results(src, out)
