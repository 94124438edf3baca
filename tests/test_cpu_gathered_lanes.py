"""Issue 35, gpt2_layer's causal mask: a load of i1 on a register tile's lanes is gathered, one
scalar load per lane and `vector.from_elements` (cpu_plan.lane_width_refusal's `gathered`,
register_tile.gathered_load; docs/cpu_codegen.md section 17).

A vector of i1 is bit-packed while the buffer holds a byte per element, so a vector load of it
reads the wrong bits (the miscompile tests/test_cpu_powers.py guards against). Before, such a load
kept the whole tile scalar; now Q K^T with a mask is tiled. Each program runs through the default
cpu pipeline and is compared natively with its input bit for bit and in the reference interpreter
(which checks every element a load reads is in bounds): the mask with and without a row maximum
fused, a column count that leaves a tail (no masked tail: a gathered load reads every lane), and a
transposed mask or one of stride 2 (not contiguous along the lanes: no lanes at all).
"""
from __future__ import annotations

import pytest

from loopopt import native
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

CPU = Options(target=TARGETS["cpu"], vector_bits=256)


def masked_scores(m: int = 16, n: int = 32, k: int = 8, rowmax: bool = False, transposed: bool = False,
                  every_second: bool = False) -> str:
    """S = select(mask, Q K^T, -3e38), optionally with each row's maximum carried by the loop over
    columns; the mask indexed [i, j], (transposed) [j, i] or (every_second) [i, 2 j]."""
    ms = f"memref<{n}x{m}xi1>" if transposed else f"memref<{m}x{2 * n if every_second else n}xi1>"
    idx = "%j, %i" if transposed else "%i, %j * 2" if every_second else "%i, %j"
    head = "%mx = affine.for %j = 0 to {n} iter_args(%run = %ninf) -> (f32) {{" if rowmax else \
        "affine.for %j = 0 to {n} {{"
    tail = "%nm = arith.maximumf %run, %v : f32\n      affine.yield %nm : f32\n    }}\n    affine.store %mx, %R[%i] : " \
        "memref<{m}xf32>" if rowmax else "}}"
    return f"""func.func @k(%Q: memref<{m}x{k}xf32>, %K: memref<{k}x{n}xf32>, %mask: {ms}, %S: memref<{m}x{n}xf32>,
             %R: memref<{m}xf32>) {{
  %z = arith.constant 0.0 : f32
  %low = arith.constant -3.0e+38 : f32
  %ninf = arith.constant 0xFF800000 : f32
  affine.for %i = 0 to {m} {{
    {head.format(n=n)}
      %s = affine.for %r = 0 to {k} iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %Q[%i, %r] : memref<{m}x{k}xf32>
        %b = affine.load %K[%r, %j] : memref<{k}x{n}xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %acc, %p : f32
        affine.yield %t : f32
      }}
      %keep = affine.load %mask[{idx}] : {ms}
      %v = arith.select %keep, %s, %low : f32
      affine.store %v, %S[%i, %j] : memref<{m}x{n}xf32>
    {tail.format(m=m)}
  }}
  return
}}
"""


def run(src: str) -> tuple[str, list[str]]:
    res = optimize(src, CPU, filename="t.mlir")
    messages = [r.message for r in res.remarks]
    assert not [m for m in messages if "[INTERNAL]" in m], messages
    assert_same_results(src, res.text, func="k")
    if find_tool("mlir-runner") is not None:
        sizes = [None] * 5
        a = native.run_native(src, "k", sizes, reps=1, full_limit=100_000).outputs
        b = native.run_native(res.text, "k", sizes, reps=1, full_limit=100_000).outputs
        assert native.compare_outputs(list(a), list(b)) is None
    assert not [ln for ln in res.text.splitlines() if "vector_load" in ln and "xi1>" in ln]
    return res.text, messages


def tiled(messages: list[str]) -> list[str]:
    return [m for m in messages if m.startswith("[REGISTER TILING]") and "vector accumulators" in m]


@pytest.mark.parametrize("rowmax", [False, True])
def test_a_mask_of_i1_is_gathered_into_the_tile(rowmax):
    out, messages = run(masked_scores(rowmax=rowmax))
    assert tiled(messages), messages
    assert "vector.from_elements" in out and "vector<8xi1>" in out


def test_a_tail_of_columns_is_not_masked_with_a_gathered_load():
    """36 columns at 8 lanes: a masked tail would load the mask past the row's end (the
    interpreter checks it); the 4 columns left run one at a time."""
    out, messages = run(masked_scores(n=36))
    assert tiled(messages), messages
    assert "vector.maskedload" not in out and "vector.from_elements" in out


@pytest.mark.parametrize("shape", ["transposed", "every_second"])
def test_a_mask_not_contiguous_along_the_lanes_gives_no_lanes(shape):
    """Not the next element per lane: no gathered load, and a stride-2 mask is not read as two
    vectors and a shuffle either (the form of stride-2 float loads)."""
    out, messages = run(masked_scores(**{shape: True}))
    assert "vector.from_elements" not in out
