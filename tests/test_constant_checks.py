"""Lowering step `loopopt-prove-constant-checks` (frontend/constant_checks.py): a run-time check in an
elementwise linalg.generic whose condition reads only constants (an eval-mode BatchNorm's
`sqrt(var + eps) != 0`) is computed at compile time and erased where it holds at every element.
Then fusion puts the BatchNorm and the ReLU after a convolution into the convolution's nest, and
the register tile applies them to the accumulators before the store (docs/cpu_codegen.md section
57). The IR, what is refused and why, and natively the same values as without the step."""
from __future__ import annotations

import os
import re

import pytest

import loopopt
from loopopt.testing import native_mismatch
from loopopt.toolchain import find_tool
from lowering_util import step_lowering

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not found")

STEP = "loopopt-prove-constant-checks"
LIT = os.path.join(os.path.dirname(__file__), "lit", "cpu", "constant-checks.mlir")

# Conv1d 8 -> 8 (pad 1), eval-mode BatchNorm1d and ReLU as torch-mlir writes them: the lit test's input.
BLOCK = open(LIT).read().split("// -----")[0]
VARIANCE = "[1.0, 0.5, 2.0, 0.25, 1.5, 0.75, 3.0, 0.1]"

lowered, note = step_lowering(STEP)


def block(var: str = VARIANCE) -> str:
    """BLOCK with another running variance."""
    assert BLOCK.count(VARIANCE) == 1
    return BLOCK.replace(VARIANCE, var)


def output_reads(text: str) -> int:
    """Loads of the output argument %arg2: the separate epilogue reads the convolution's result back."""
    return len(re.findall(r"affine\.(?:vector_)?load %(?:arg2|collapse_shape\w*)\[", text.split("func.func")[1]))


def test_the_check_is_proved_and_the_epilogue_runs_on_the_accumulators():
    low = lowered(BLOCK)
    assert note(low) == ('proved: the check "unimplemented: tensor with zero element" at <input>:63:5 holds '
                         'at all 8 elements'), note(low)
    assert "cf.assert" not in low.text
    assert "cf.assert" in lowered(BLOCK, step=False).text
    out = loopopt.optimize(BLOCK, target="cpu").text
    assert "cf.assert" not in out
    # one nest writes the output: the register tile's accumulators through the BatchNorm and the ReLU
    assert output_reads(out) == 0, out
    store = out.index("affine.vector_store")
    assert "arith.subf" in out[:store] and "arith.select" in out[:store] and "math.fma" in out[:store]
    # without the step the check keeps its order with the convolution's stores into the output:
    # the epilogue is a pass of its own that reads the convolution's result back
    before = loopopt.optimize(lowered(BLOCK, step=False).text, target="cpu").text
    assert output_reads(before) > 0, before


@has_runner
def test_the_same_values_natively():
    # without fused multiply-adds the same ops on the same values: bit for bit
    a = loopopt.optimize(lowered(BLOCK, step=False).text, target="cpu", contract=False).text
    b = loopopt.optimize(BLOCK, target="cpu", contract=False).text
    assert "arith.select" in b.split("affine.vector_store")[0]
    assert native_mismatch(a, b, kernel="conv_bn_relu") is None
    # with them (the default for a framework's input) the epilogue's multiply and add may be one
    a = loopopt.optimize(lowered(BLOCK, step=False).text, target="cpu").text
    b = loopopt.optimize(BLOCK, target="cpu").text
    assert native_mismatch(a, b, kernel="conv_bn_relu", rtol=1e-5) is None
    assert native_mismatch(lowered(BLOCK, step=False).text, lowered(BLOCK).text, kernel="conv_bn_relu") is None


def test_a_check_false_at_one_element_stays():
    # f32(-1e-5) + truncf(1e-5) is 0 exactly: sqrt is 0 at channel 3, the check fires at run time
    src = block("[1.0, 0.5, 2.0, -1.0e-05, 1.5, 0.75, 3.0, 0.1]")
    low = lowered(src)
    assert note(low) == ('kept: the check "unimplemented: tensor with zero element" at <input>:63:5: '
                         'false at 1 of 8 elements (the first at flat index 3)'), note(low)
    assert "cf.assert" in low.text


SCALE = """#map = affine_map<(d0) -> (d0)>
func.func @k(%v: tensor<8xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %c = arith.constant dense<[1.0, 0.5, 2.0, 0.25, 1.5, 0.75, 3.0, 0.1]> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(INPUT : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = OP
    %ok = arith.cmpf one, %r, %zero : f32
    cf.assert %ok, "zero"
    %q = arith.divf %one, %r : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}
"""


def scale(op: str = "math.sqrt %in : f32", input_: str = "%c") -> str:
    return SCALE.replace("OP", op).replace("INPUT", input_)


KEPT = {
    "argument": (scale(input_="%v"), "it reads a function argument"),
    "fast math": (scale("arith.addf %in, %one fastmath<fast> : f32"),
                  "arith.addf at <input>:9:10 has fast-math flags"),
    "not exact": (scale("math.exp %in : f32"), "math.exp at <input>:9:10 is not computed at compile time"),
    "rounding mode": (scale("arith.truncf %x to_nearest_away : f64 to f32").replace(
        "^bb0(%in: f32, %out: f32):", "^bb0(%in: f32, %out: f32):\n    %x = arith.constant 0.1 : f64"),
        "arith.truncf at <input>:10:10 has a rounding mode"),
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_what_is_not_computed_at_compile_time(name):
    src, why = KEPT[name]
    low = lowered(src)
    assert note(low) == f'kept: the check "zero" at <input>:{12 if name == "rounding mode" else 11}:5: {why}', note(low)
    assert "cf.assert" in low.text


def test_a_body_reading_its_output_is_refused():
    """Canonicalization makes a pointwise generic's read of its output an input; the step run on
    its own (another pipeline) refuses it."""
    assert_kept_as_reading_its_output(scale("arith.addf %in, %out : f32").replace("outs(%e", "outs(%d").replace(
        "%e = tensor.empty() : tensor<8xf32>", "%d = arith.constant dense<2.0> : tensor<8xf32>"))


def assert_kept_as_reading_its_output(src: str) -> None:
    """prove-constant-checks run on its own keeps the one check of `src` (its generic at 7:8, the
    check at 11:5), saying its condition reads the generic's output."""
    from loopopt.frontend import constant_checks
    from loopopt.mlir import parse_module

    module = parse_module(src)
    [d] = constant_checks.prove_checks(module, "<input>")
    assert d.text() == ('kept: the check "zero" at <input>:11:5: the linalg.generic at <input>:7:8 reads its '
                        "output's initial value"), d.text()
    assert "cf.assert" in str(module)


def test_exact_ops_are_computed():
    low = lowered(scale("arith.addf %in, %one : f32"))
    assert note(low).startswith('proved: the check "zero"'), note(low)
    low = lowered(scale("arith.truncf %d : f64 to f32").replace(
        "^bb0(%in: f32, %out: f32):", "^bb0(%in: f32, %out: f32):\n    %d = arith.extf %in : f32 to f64"))
    assert note(low).startswith('proved: the check "zero"'), note(low)


ROWS = """#row = affine_map<(d0, d1) -> (d0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @k() -> tensor<OUT> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant dense<1.0> : tensor<IN>
  %e = tensor.empty() : tensor<OUT>
  %s = linalg.generic {indexing_maps = [MAPS], iterator_types = ["parallel", "ITER"]} ins(%c : tensor<IN>) outs(%e : tensor<OUT>) {
  ^bb0(%in: f32, %out: f32):
    %ok = arith.cmpf one, %in, %zero : f32
    cf.assert %ok, "zero"
    linalg.yield %in : f32
  } -> tensor<OUT>
  return %s : tensor<OUT>
}
"""


def rows(in_shape: str, out_shape: str, maps: str, iterator: str) -> str:
    return ROWS.replace("IN", in_shape).replace("OUT", out_shape).replace("MAPS", maps).replace("ITER", iterator)


def test_a_broadcast_or_a_reduction_is_decided_on_its_iteration_space():
    """Section 84: MLIR's elementwise fusion puts BatchNorm's check into the generic that reads
    the convolution's result and broadcasts the variance along a channel dim: the check's
    condition, read through projected permutations, is computed at every point of the
    iteration space (the ops it does not depend on are not)."""
    low = lowered(rows("8xf32", "8x4xf32", "#row, #map", "parallel"))
    assert note(low).startswith('proved: the check "zero" at <input>:10:5 holds at all 32 elements'), note(low)
    assert "cf.assert" not in low.text
    low = lowered(rows("8x4xf32", "8xf32", "#map, #row", "reduction"))
    assert note(low).startswith('proved: the check "zero" at <input>:10:5 holds at all 32 elements'), note(low)
    low = lowered(rows("8x4xf32", "8x4xf32", "#map, #map", "parallel"))
    assert note(low).startswith('proved: the check "zero" at <input>:10:5 holds at all 32 elements'), note(low)


def test_a_broadcast_false_at_one_channel_stays():
    """A zero at element 2 of the broadcast constant is false at the 4 points of row 2: kept."""
    src = rows("8xf32", "8x4xf32", "#row, #map", "parallel").replace(
        "dense<1.0> : tensor<8xf32>", "dense<[1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>")
    low = lowered(src)
    assert note(low).endswith("false at 4 of 32 elements (the first at flat index 8)"), note(low)
    assert "cf.assert" in low.text


TRANSPOSED = """#t = affine_map<(d0, d1) -> (d1, d0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant dense<[[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %s = linalg.generic {indexing_maps = [#t, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%c, %x : tensor<3x2xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%in: f32, %v: f32, %out: f32):
    %ok = arith.cmpf one, %in, %zero : f32
    cf.assert %ok, "zero"
    %r = arith.divf %v, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
"""


def test_a_transposed_read_is_read_at_its_point():
    """The constant read through (d1, d0): its zero at [1, 1] is the point (1, 1); the argument
    %x, which the condition does not read, is not computed."""
    low = lowered(TRANSPOSED)
    assert note(low).endswith("false at 1 of 6 elements (the first at flat index 4)"), note(low)
    low = lowered(TRANSPOSED.replace("[1.0, 0.0]", "[1.0, 2.0]"))
    assert note(low).startswith('proved: the check "zero" at <input>:10:5 holds at all 6 elements'), note(low)


REDUCED = """#map = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>
func.func @k() -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant dense<[-2.0, 1.0]> : tensor<2xf32>
  %d = arith.constant dense<1.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [#map, #sum], iterator_types = ["reduction"]} ins(%c : tensor<2xf32>) outs(%d : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    %ok = arith.cmpf one, %a, %zero : f32
    cf.assert %ok, "zero"
    linalg.yield %a : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
"""


def test_a_condition_reading_a_reduced_output_stays():
    """The sum runs 1 - 2 = -1, then -1 + 1 = 0: the check fires at the second point. Its
    output's initial value (1 at both points) would give -1 and 2, never 0: a condition that
    reads an output is refused, not computed from its initial value (mutation entry)."""
    assert_kept_as_reading_its_output(REDUCED)


def test_a_map_that_is_no_projected_permutation_is_refused():
    src = rows("8xf32", "8x4xf32", "#row, #map", "parallel").replace(
        "#row = affine_map<(d0, d1) -> (d0)>", "#row = affine_map<(d0, d1) -> (d0 + d1)>").replace(
        "tensor<8xf32>", "tensor<11xf32>")
    from loopopt.frontend import constant_checks
    from loopopt.mlir import parse_module

    module = parse_module(src)
    [d] = constant_checks.prove_checks(module, "<input>")
    assert d.why.endswith("reads or writes through a map that is not a projected permutation"), d.text()


def test_the_decisions_are_remarks():
    res = loopopt.optimize(open(LIT).read(), target="cpu", filename="t.mlir")
    msgs = [r.message for r in res.remarks]
    assert any(m.startswith("[CONSTANT CHECK] the run-time check holds at every element of constant data") for m in msgs), msgs
    assert any(m.startswith("[STOP CONSTANT CHECK] the run-time check stays") for m in msgs), msgs


def test_integer_values_are_not_computed():
    """Only float and i1 values are computed (an integer op may wrap or trap): kept."""
    src = """#map = affine_map<(d0) -> (d0)>
func.func @k() -> tensor<4xi32> {
  %z = arith.constant 0 : i32
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %e = tensor.empty() : tensor<4xi32>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%c : tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%in: i32, %out: i32):
    %ok = arith.cmpi ne, %in, %z : i32
    cf.assert %ok, "zero"
    linalg.yield %in : i32
  } -> tensor<4xi32>
  return %s : tensor<4xi32>
}
"""
    low = lowered(src)
    assert note(low) == 'kept: the check "zero" at <input>:9:5: its values are of type i32', note(low)
    assert "cf.assert" in low.text


PRODUCED = """#row = affine_map<(d0, d1) -> (d0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @k() -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant dense<1.0> : tensor<IN>
  %e = tensor.empty() : tensor<8x4xf32>
  PRODUCER
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %ok = arith.cmpf one, %in, %zero : f32
    cf.assert %ok, "zero"
    linalg.yield %in : f32
  } -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
"""

BROADCAST = """%p = linalg.generic {indexing_maps = [#row, #map], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x4xf32>"""

SUMMED = """%f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c : tensor<8x4x2xf32>) outs(%f : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<8x4xf32>"""


@pytest.mark.parametrize("name,producer,in_type,why", [
    ("broadcast", BROADCAST, "tensor<8xf32>", "reads or writes through a map other than the identity"),
    ("reduction", SUMMED, "tensor<8x4x2xf32>", "has a reduction loop"),
], ids=["broadcast", "reduction"])
def test_a_producer_read_by_a_condition_stays_pointwise(name, producer, in_type, why):
    """The generics whose results a condition reads keep section 57's rule (identity maps, every
    loop parallel): only the check's own generic is read through projected permutations."""
    from loopopt.frontend import constant_checks
    from loopopt.mlir import parse_module

    src = PRODUCED.replace("PRODUCER", producer).replace("tensor<IN>", in_type)
    module = parse_module(src)
    [d] = constant_checks.prove_checks(module, "<input>")
    assert d.why.endswith(why), d.text()
    assert "cf.assert" in str(module)
