"""Lowering step `loopopt-recompute-casts` (frontend/cast_recompute.py): a linalg.generic that only
widens its input (torch-mlir's f64 copy for a norm's mean and variance) is cast again in each
reader instead of materialised. The IR, what is refused and why, and natively the same values
bit for bit as the lowering without the step (docs/cpu_codegen.md section 41)."""
from __future__ import annotations

import os

import pytest

import loopopt
from loopopt.testing import native_mismatch
from lowering_util import step_lowering
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

STEP = "loopopt-recompute-casts"
LIT = os.path.join(os.path.dirname(__file__), "lit", "cpu", "recompute-casts.mlir")

# A row's mean and variance in f64 of an f32 input, as torch-mlir writes them (the lit test's @variance).
VARIANCE = open(LIT).read().split("#a = affine_map")[0]

COPY = """#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @k(%x: tensor<4x64xSRC>) -> tensor<4xDST> {
  %zero = arith.constant ZERO : DST
  %e = tensor.empty() : tensor<4x64xDST>
  %w = linalg.generic {indexing_maps = [IN, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xSRC>) outs(%e : tensor<4x64xDST>) {
  ^bb0(%a: SRC, %o: DST):
    %r = CAST %a : SRC to DST
    linalg.yield %r : DST
  } -> tensor<4x64xDST>
  %e4 = tensor.empty() : tensor<4xDST>
  %z = linalg.fill ins(%zero : DST) outs(%e4 : tensor<4xDST>) -> tensor<4xDST>
  %s = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%w : tensor<4x64xDST>) outs(%z : tensor<4xDST>) {
  ^bb0(%a: DST, %acc: DST):
    %r = ADD %a, %acc : DST
    linalg.yield %r : DST
  } -> tensor<4xDST>
  return %s : tensor<4xDST>
}
"""


def copy_program(src="f32", dst="f64", cast="arith.extf", in_map="#map", zero="0.0", add="arith.addf") -> str:
    return (COPY.replace("SRC", src).replace("DST", dst).replace("CAST", cast).replace("IN", in_map)
            .replace("ZERO", zero).replace("ADD", add))


lowered, note = step_lowering(STEP)


def test_the_f64_statistics_read_the_f32_input():
    low = lowered(VARIANCE)
    assert note(low) == "recomputed: the f32 -> f64 copy at <input>:30:8 in its 2 reader(s)", note(low)
    # each statistic's loop reads the f32 input and casts it (before: one loop wrote the f64 copy)
    assert low.text.count("arith.extf") == 2 and low.text.count("affine.load %arg0") == 2, low.text
    before = lowered(VARIANCE, step=False).text
    assert before.count("arith.extf") == 1 and before.count("affine.load %arg0") == 1, before
    # and loopopt's output keeps no buffer of 256 doubles (the deviations are forwarded in registers)
    assert "256xf64" not in loopopt.optimize(VARIANCE, target="cpu").text


@has_runner
def test_the_statistics_are_the_same_bit_for_bit():
    # the plain lowerings with and without the step: every output equal (rtol 0)
    assert native_mismatch(lowered(VARIANCE, step=False).text, lowered(VARIANCE).text, kernel="variance") is None
    # and loopopt's output of each (the optimizer's own flags, the same on both)
    a = loopopt.optimize(lowered(VARIANCE, step=False).text, target="cpu").text
    b = loopopt.optimize(VARIANCE, target="cpu").text
    assert native_mismatch(a, b, kernel="variance") is None


@has_runner
@pytest.mark.parametrize("src,dst,cast,zero,add", [("f16", "f32", "arith.extf", "0.0", "arith.addf"),
                                                   ("i8", "i32", "arith.extsi", "0", "arith.addi"),
                                                   ("i8", "i32", "arith.extui", "0", "arith.addi")])
def test_other_widening_casts(src, dst, cast, zero, add):
    prog = copy_program(src, dst, cast, zero=zero, add=add)
    low = lowered(prog)
    assert note(low).startswith(f"recomputed: the {src} -> {dst} copy"), note(low)
    assert f"64x{dst}" not in low.text.split("func.func")[1].split("{", 1)[1], low.text
    assert native_mismatch(lowered(prog, step=False).text, low.text, kernel="k") is None


LEFT = {
    # a narrowing cast: the copy has fewer bytes than its input, reading it is cheaper
    "narrowing": (copy_program("f64", "f32", "arith.truncf"), None),
    # the copy is a transpose as well as a cast: its element at a point is not the input's there
    "transposed": (copy_program(in_map="affine_map<(d0, d1) -> (d1, d0)>").replace("4x64x", "64x64x").replace(
        "tensor<4xf64>", "tensor<64xf64>"), None),
}


@pytest.mark.parametrize("name", sorted(LEFT))
def test_what_is_not_a_widening_copy(name):
    src, _ = LEFT[name]
    low = lowered(src)
    assert note(low) == "", note(low)
    if find_tool("mlir-runner") is not None:
        assert native_mismatch(lowered(src, step=False).text, low.text, kernel="k") is None


def test_a_reader_that_accumulates_into_the_copy_keeps_it():
    """A reduction taking the copy as its output's initial value (sums added onto it): the copy
    stays, and the other reader, an input reader, still casts the input itself."""
    src = copy_program().replace("func.func @k(%x: tensor<4x64xf32>) -> tensor<4xf64> {", """func.func @k(%x: tensor<4x64xf32>, %y: tensor<4x64x3xf64>) -> (tensor<4xf64>, tensor<4x64xf64>) {""")
    src = src.replace("  return %s : tensor<4xf64>\n}", """  %u = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel", "reduction"]} ins(%y : tensor<4x64x3xf64>) outs(%w : tensor<4x64xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = arith.addf %a, %o : f64
    linalg.yield %r : f64
  } -> tensor<4x64xf64>
  return %s, %u : tensor<4xf64>, tensor<4x64xf64>
}""")
    low = lowered(src)
    assert note(low).startswith("kept: the f32 -> f64 copy at <input>:6:8: linalg.generic at <input>:20:8 writes into it"), note(low)
    assert note(low).endswith("; recomputed in 1 other reader(s)"), note(low)
    if find_tool("mlir-runner") is not None:
        assert native_mismatch(lowered(src, step=False).text, low.text, kernel="k") is None


def test_a_product_reading_each_element_many_times_keeps_the_copy():
    low = lowered(open(LIT).read())
    kept = note(low).split(" | ")[1]
    assert kept.startswith("kept: the f32 -> f64 copy at <input>:81:8: linalg.generic at <input>:88:8 runs 512 "
                           "iterations, more than the copy's 64 elements"), kept


def test_the_decisions_are_remarks():
    res = loopopt.optimize(open(LIT).read(), target="cpu", filename="t.mlir")
    msgs = [r.message for r in res.remarks]
    assert any(m.startswith("[RECOMPUTE CAST] a widening copy is cast again in each reader") for m in msgs), msgs
    assert any(m.startswith("[STOP RECOMPUTE CAST] the widened copy is materialised") for m in msgs), msgs
