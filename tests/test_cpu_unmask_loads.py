"""Step `unmask-loads` (codegen/cpu/unmask_loads.py, rule in codegen/cpu/plan/unmask_loads.py;
docs/cpu_codegen.md section 58): a masked vector load whose whole vector lies inside its buffer
on every iteration reads the whole vector and selects the masked lanes away; where only the
outermost loop's last iteration passes the buffer's end, that iteration is split off. Results
equal the input's, in the interpreter (which checks every element a vector load reads is in
bounds) and natively."""
from __future__ import annotations

import numpy as np
import pytest

from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")


def _blob(a: np.ndarray) -> str:
    return "0x04000000" + a.astype(np.float32).tobytes().hex().upper()


def conv(n: int, c: int, f: int, h: int, relu: bool = False, pad_rows: int = 0) -> str:
    """A 3x3 NCHW convolution of `c` channels into `f` on `n` images of h x h outputs, as
    torch-mlir's lowering leaves it: the input padded (h + 2 square, `pad_rows` more rows below),
    the weight a constant in [f, c, kh, kw], the result's elements summed from 0 (a ReLU after it
    with `relu`)."""
    hp, hr = h + 2, h + 2 + pad_rows
    w = np.random.default_rng(1).standard_normal((f, c, 3, 3)).astype(np.float32)
    store = "%r = arith.maximumf %s, %z : f32\n          affine.store %r" if relu else "affine.store %s"
    return f"""module {{
  memref.global "private" constant @w : memref<{f}x{c}x3x3xf32> = dense_resource<w_blob>
  func.func @k(%x: memref<{n}x{c}x{hr}x{hp}xf32>, %y: memref<{n}x{f}x{h}x{h}xf32>) {{
    %z = arith.constant 0.0 : f32
    %w = memref.get_global @w : memref<{f}x{c}x3x3xf32>
    affine.for %n = 0 to {n} {{
      affine.for %f = 0 to {f} {{
        affine.for %oh = 0 to {h} {{
          affine.for %ow = 0 to {h} {{
            %s = affine.for %ci = 0 to {c} iter_args(%a0 = %z) -> (f32) {{
              %s1 = affine.for %kh = 0 to 3 iter_args(%a1 = %a0) -> (f32) {{
                %s2 = affine.for %kw = 0 to 3 iter_args(%a2 = %a1) -> (f32) {{
                  %u = affine.load %x[%n, %ci, %oh + %kh, %ow + %kw] : memref<{n}x{c}x{hr}x{hp}xf32>
                  %v = affine.load %w[%f, %ci, %kh, %kw] : memref<{f}x{c}x3x3xf32>
                  %m = arith.mulf %u, %v : f32
                  %q = arith.addf %a2, %m : f32
                  affine.yield %q : f32
                }}
                affine.yield %s2 : f32
              }}
              affine.yield %s1 : f32
            }}
            {store}, %y[%n, %f, %oh, %ow] : memref<{n}x{f}x{h}x{h}xf32>
          }}
        }}
      }}
    }}
    return
  }}
}}
{{-#
  dialect_resources: {{
    builtin: {{
      w_blob: "{_blob(w)}"
    }}
  }}
#-}}
"""


OPTS = Options(target=TARGETS["cpu"], vector_bits=256)  # each sum in order: bit for bit


def _remarks(c, prefix: str) -> list[str]:
    return [m for m in c.messages if m.startswith(prefix)]


def test_a_narrow_rows_input_reads_whole_vectors_and_the_last_image_keeps_its_masks():
    """7 output columns in one vector<8>: before, every input load was `vector.maskedload` (the
    step did not exist); now the first images read whole vectors and the last keeps its masks
    (its last row's vector passes the buffer's end by one element)."""
    c = optimize_and_compare(conv(2, 8, 8, 7), "k", OPTS)
    assert any("8 x 8 tile" in m for m in _remarks(c, "[REGISTER TILING]")), c.messages
    done = _remarks(c, "[UNMASK LOADS]")
    assert len(done) == 1 and "9 masked loads" in done[0] and "split off" in done[0], c.messages
    assert "memref.collapse_shape %arg0 [[0, 1, 2, 3]]" in c.text and c.text.count("vector.load %collapse") == 9
    assert c.text.count("vector.maskedload") == 9, c.text  # the last image's
    assert "affine.for %arg2 = 0 to 1 {" in c.text and "affine.for %arg2 = 1 to 2 {" in c.text, c.text


def test_rows_below_the_last_read_row_need_no_split():
    """Two rows of padding below: the last vector ends inside the buffer, no iteration is split off."""
    c = optimize_and_compare(conv(2, 8, 8, 7, pad_rows=2), "k", OPTS)
    done = _remarks(c, "[UNMASK LOADS]")
    assert len(done) == 1 and "split off" not in done[0], c.messages
    assert "vector.maskedload" not in c.text, c.text


def test_one_image_is_not_split_and_says_why():
    """A batch of one: the outermost loop is the output channels' and every channel's vector at
    the kernel's last column (kw = 2) passes the end in the last input channel: nothing is split,
    those loads keep their masks, the other 8 read whole vectors."""
    c = optimize_and_compare(conv(1, 8, 8, 7), "k", OPTS)
    done = _remarks(c, "[UNMASK LOADS]")
    assert len(done) == 1 and "8 masked loads" in done[0] and "split off" not in done[0], c.messages
    assert c.text.count("vector.maskedload") == 1, c.text
    from loopopt import optimize

    remarks = optimize(conv(1, 8, 8, 7), target="cpu", vector_bits=256,
                       passes="unit-loops,register-tile,unmask-loads").remarks
    stops = [r.message for r in remarks if r.message.startswith("[STOP UNMASK LOADS]")]
    assert stops and "the outermost loop has no constant bounds of step 1 and two iterations" in stops[0], \
        [r.message for r in remarks]


def test_a_relu_epilogue_and_fourteen_columns():
    """14 columns: a whole vector and a masked one per row; the masked one reads whole."""
    c = optimize_and_compare(conv(2, 8, 8, 14, relu=True), "k", OPTS)
    assert _remarks(c, "[UNMASK LOADS]"), c.messages


def test_wide_rows_have_no_masked_loads_and_stay_as_they_were():
    """16 columns: whole vectors only; the step finds nothing."""
    c = optimize_and_compare(conv(2, 8, 8, 16), "k", OPTS)
    assert not _remarks(c, "[UNMASK LOADS]") and "vector.maskedload" not in c.text


def test_an_input_of_rows_apart_in_memory_keeps_its_masks():
    """The input a view whose rows are 12 elements apart (strided layout): its linear offset is
    not the row-major one of its shape, so its masked loads stay."""
    program = conv(2, 8, 8, 7).replace("memref<2x8x9x9xf32>", "memref<2x8x9x9xf32, strided<[1080, 108, 12, 1]>>")
    c = optimize_and_compare(program, "k", OPTS, natively=False)  # the harness allocates identity layouts
    assert any("8 x 8 tile" in m for m in _remarks(c, "[REGISTER TILING]")), c.messages
    assert not _remarks(c, "[UNMASK LOADS]") and "vector.maskedload" in c.text, c.messages


@has_runner
def test_natively_bit_for_bit():
    for program in (conv(2, 8, 8, 7), conv(3, 16, 16, 14, relu=True)):
        c = optimize_and_compare(program, "k", OPTS, interpret=False, natively=True)
        assert _remarks(c, "[UNMASK LOADS]"), c.messages
