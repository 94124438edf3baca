"""loopopt-skip-inserted-zeros (frontend/zero_phases.py): a convolution over a zero-inserted input
(a transposed convolution as torch-mlir and StableHLO lower it) runs as phase convolutions.

Checked: the phase arithmetic against a direct enumeration of the taps that meet a written input
element; the op table against each named convolution's generalized indexing maps; on the
torch-mlir fixtures of tests/fixtures/transposed_conv/ and on hand-written programs, compiled and
run natively, the results against the same program lowered without the step, bit for bit,
including weights holding inf or NaN and accumulators starting at -0 (where the run-time check
sends the call to the original convolution); and the remarks, done and refused."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import loopopt
from loopopt import frontend
from loopopt.frontend import zero_phases as zp
from loopopt.frontend.fixtures import load_fixture
from loopopt.mlir import ir, new_context, parse_module, passmanager, walk

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "transposed_conv")
WITHOUT_STEP = frontend.join_pipeline([s for s in frontend.split_pipeline(frontend.lowering_pipeline())
                                       if s != zp.STEP])


# ----------------------------------------------------------------------------- the arithmetic

@settings(max_examples=300, deadline=None)
@given(stride=st.integers(1, 5), offset=st.integers(0, 9), extent=st.integers(1, 7), taps=st.integers(1, 9),
       extra=st.integers(0, 6))
def test_phases_meet_exactly_the_written_elements(stride, offset, extent, taps, extra):
    """For every output o, the phases' (tap, x index) pairs are exactly the taps k whose input
    element o + k is one x wrote (o + k = offset + stride * i, 0 <= i < extent), and the padding
    holds every phase's window."""
    size = max(offset + stride * (extent - 1) + 1, taps) + extra  # the zero-inserted dimension
    outputs = size - taps + 1
    dim = zp.InsertedDim(stride, offset, extent, taps, outputs)
    pad = zp.padding_of(dim)
    seen = {}
    for p in zp.phases_of(dim):
        for a in range(p.outputs):
            o = stride * a + p.residue
            assert o < outputs
            pairs = []
            for m in range(p.taps):
                i = a + m + p.shift
                assert 0 <= pad.low + i < pad.size  # inside the padded copy
                if 0 <= i < extent:
                    pairs.append((stride * m + p.first_tap, i))
            seen[o] = pairs
    assert sorted(seen) == list(range(outputs))
    for o, pairs in seen.items():
        direct = [(k, (o + k - offset) // stride) for k in range(taps)
                  if (o + k - offset) % stride == 0 and 0 <= (o + k - offset) // stride < extent]
        assert pairs == direct


def test_products_count_the_skipped_zeros():
    dim = zp.InsertedDim(stride=2, offset=2, extent=32, taps=4, outputs=64)  # ConvTranspose k4 s2 p1
    assert zp.products([dim, dim]) == (65536, 16384)


def _generalized_maps(name: str, shapes: tuple[str, str, str]) -> list[ir.AffineMap]:
    a, b, c = shapes
    ctx = new_context()
    text = (f"func.func @f(%a: tensor<{a}xf32>, %b: tensor<{b}xf32>, %c: tensor<{c}xf32>) -> tensor<{c}xf32> {{\n"
            f"  %0 = {name} ins(%a, %b : tensor<{a}xf32>, tensor<{b}xf32>) outs(%c : tensor<{c}xf32>) -> tensor<{c}xf32>\n"
            f"  return %0 : tensor<{c}xf32>\n}}")
    module = ir.Module.parse(text, ctx)
    passmanager.PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))", ctx).run(module.operation)
    generic = next(op for op in module.body.operations[0].regions[0].blocks[0].operations
                   if op.operation.name == "linalg.generic")
    return [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(generic.attributes["indexing_maps"])]


SHAPES = {  # distinct sizes per dimension, consistent with each op's layout
    "linalg.conv_1d_ncw_fcw": ("2x3x20", "5x3x4", "2x5x17"),
    "linalg.conv_1d_nwc_wcf": ("2x20x3", "4x3x5", "2x17x5"),
    "linalg.conv_2d_nchw_fchw": ("2x3x20x21", "5x3x4x6", "2x5x17x16"),
    "linalg.conv_2d_nhwc_hwcf": ("2x20x21x3", "4x6x3x5", "2x17x16x5"),
    "linalg.conv_2d_nhwc_fhwc": ("2x20x21x3", "5x4x6x3", "2x17x16x5"),
    "linalg.conv_2d_ngchw_fgchw": ("2x7x3x20x21", "5x7x3x4x6", "2x7x5x17x16"),
    "linalg.conv_2d_ngchw_gfchw": ("2x7x3x20x21", "7x5x3x4x6", "2x7x5x17x16"),
    "linalg.conv_3d_ncdhw_fcdhw": ("2x3x20x21x22", "5x3x4x6x8", "2x5x17x16x15"),
    "linalg.depthwise_conv_1d_ncw_cw": ("2x3x20", "3x4", "2x3x17"),
    "linalg.depthwise_conv_2d_nchw_chw": ("2x3x20x21", "3x4x6", "2x3x17x16"),
}


@pytest.mark.parametrize("name", sorted(zp.CONV_SPATIAL_DIMS))
def test_spatial_dims_table_matches_the_ops_indexing_maps(name):
    """Each row: the input's spatial result is (output's loop) + (filter's loop), in order."""
    in_map, f_map, o_map = _generalized_maps(name, SHAPES[name])
    ins, fs, outs = zp.CONV_SPATIAL_DIMS[name]
    for i, f, o in zip(ins, fs, outs):
        expected = f"{o_map.results[o]} + {f_map.results[f]}"
        assert str(in_map.results[i]) == expected, (name, str(in_map), str(f_map), str(o_map))
    spatial_in = [k for k, r in enumerate(in_map.results) if "+" in str(r)]
    assert spatial_in == list(ins)


# ----------------------------------------------------------------------------- native results

def _arrays(kernel, seed: int):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(p.shape).astype(np.float32) for p in kernel.spec.params[:kernel.spec.n_inputs]]


def _compiled(text: str, with_step: bool, **knobs):
    """Compiled with sums in source order and no fused multiply-add (reassociate=False,
    contract=False, affine input's defaults: the two programs' reductions then add the same
    products in the same order, where the phases skip only zero products; a contraction to FMA
    is LLVM's choice per code shape, so two shapes may round differently)."""
    knobs.setdefault("reassociate", False)
    knobs.setdefault("contract", False)
    if not with_step:
        knobs["lowering_pipeline"] = WITHOUT_STEP
    return loopopt.compile(text, target="cpu", **knobs)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.int32)


def _outputs(kernel, args):
    r = kernel(*args)
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _same_bits(a_kernel, b_kernel, args) -> None:
    for x, y in zip(_outputs(a_kernel, args), _outputs(b_kernel, args)):
        assert x.shape == y.shape
        np.testing.assert_array_equal(_bits(x), _bits(y))


def check_against_original(text: str, seed: int = 0):
    """The step's program and the step-less one agree bit for bit: on random inputs, with an
    inf and a NaN weight, and with the accumulators' source at -0 where there is one (a bias);
    returns the step's remarks."""
    phased, original = _compiled(text, True), _compiled(text, False)
    args = _arrays(phased, seed)
    _same_bits(phased, original, args)
    w = 1  # the weights: the second argument (x, w, ...) of every program here
    for bad in (np.inf, np.nan):
        a = [x.copy() for x in args]
        a[w].flat[len(a[w].flat) // 3] = bad
        _same_bits(phased, original, a)
        assert any(np.isnan(o).any() for o in _outputs(original, a))  # the zeros' products were there
    if len(args) > 2:  # a bias: one element -0
        a = [x.copy() for x in args]
        a[2].flat[0] = -0.0
        _same_bits(phased, original, a)
    # with the framework defaults (sums reassociated): the same results up to rounding
    fast = _compiled(text, True, reassociate=True, contract=True)
    for x, y in zip(_outputs(fast, args), _outputs(original, args)):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-5)
    return loopopt.optimize(text, target="cpu").remarks_text()


PHASED = ["convt1d_k3_s2_p1_op1", "convt2d_k3_s2_p1_op1_bias", "convt2d_k5_s3_p2", "convt2d_k2_s2_p0",
          "convt2d_k1_s2_bias", "convt2d_k4_s2_p1_g2",  # grouped: through the input's expand_shape
          "convt2d_k4_s2_p1_g2_bias"]  # and the bias broadcast, expand_shape'd into groups


@pytest.mark.parametrize("name", PHASED)
def test_fixture_runs_as_phases_with_the_original_results(name):
    """(torch's own results: tests/test_transposed_conv_fixtures.py, through the same compile)"""
    remarks = check_against_original(load_fixture(name, FIXTURES).text)
    assert "[SKIP INSERTED ZEROS]" in remarks, remarks


def test_a_grouped_bias_is_broadcast_again_per_phase_and_checked_alone():
    """The init of the grouped fixture with a bias: expand_shape(broadcast(b)). The -0 check
    reads b (6 elements, not the 864 of the init) and each phase's init is b broadcast at the
    phase's sizes and grouped as the init is, not a strided copy of the init (section 42)."""
    module = parse_module(load_fixture("convt2d_k4_s2_p1_g2_bias", FIXTURES).text)
    [conv] = [op for op in walk(module.operation) if op.name == "linalg.conv_2d_ngchw_gfchw"]
    m = zp.match(conv)
    assert str(m.init_check.type) == "tensor<6xf32>"
    text, count = zp.rewrite_text(m, str(conv.location))
    assert count == 4
    assert text.count("linalg.broadcast ins(%check : tensor<6xf32>) outs(%e") == 4
    assert text.count("tensor.expand_shape %b") == 4
    assert "tensor.extract_slice %init" not in text


def test_dilated_fixture_is_refused_with_its_reason():
    text = load_fixture("convt2d_k3_s2_d2", FIXTURES).text
    remarks = check_against_original(text)
    assert "[STOP SKIP INSERTED ZEROS]" in remarks and "a stride or a dilation" in remarks, remarks
    assert "[SKIP INSERTED ZEROS]" not in remarks.replace("[STOP SKIP INSERTED ZEROS]", "")


CONV1D = """
func.func @up(%x: tensor<2x4x7xf32>, %w: tensor<3x4x{K}xf32>, %b: tensor<3xf32>) -> tensor<2x3x{O}xf32> {{
  %zero = arith.constant {ZERO} : f32
  %e = tensor.empty() : tensor<2x4x{Z}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x{Z}xf32>) -> tensor<2x4x{Z}xf32>
  %z = tensor.insert_slice %x into %f[0, 0, {P}] [2, 4, 7] [1, 1, {S}] : tensor<2x4x7xf32> into tensor<2x4x{Z}xf32>
  %eo = tensor.empty() : tensor<2x3x{O}xf32>
  {INIT}
  %y = linalg.conv_1d_ncw_fcw {{dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}}
      ins(%z, %w : tensor<2x4x{Z}xf32>, tensor<3x4x{K}xf32>) outs(%i : tensor<2x3x{O}xf32>) -> tensor<2x3x{O}xf32>
  return %y : tensor<2x3x{O}xf32>
}}
"""
BROADCAST = "%i = linalg.broadcast ins(%b : tensor<3xf32>) outs(%eo : tensor<2x3x{O}xf32>) dimensions = [0, 2]"
FILL = "%c = arith.constant {C} : f32\n  %i = linalg.fill ins(%c : f32) outs(%eo : tensor<2x3x{O}xf32>) -> tensor<2x3x{O}xf32>"
# any other init: the bias added to a tensor computed elementwise (checked whole for -0)
GENERAL = ("%i = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], "
           "iterator_types = [\"parallel\", \"parallel\", \"parallel\"]}} ins(%b : tensor<3xf32>) outs(%eo : tensor<2x3x{O}xf32>) {{\n"
           "  ^bb0(%v: f32, %o: f32):\n    %t = arith.mulf %v, %v : f32\n    %n = arith.negf %t : f32\n"
           "    linalg.yield %n : f32\n  }} -> tensor<2x3x{O}xf32>")


def conv1d(stride: int, offset: int, taps: int, extra: int, init: str, zero: str = "0.0", c: str = "0.0") -> str:
    size = max(offset + stride * 6 + 1, taps) + extra
    o = size - taps + 1
    init_text = init.format(O=o, C=c)
    return CONV1D.format(K=taps, O=o, Z=size, P=offset, S=stride, ZERO=zero, INIT=init_text)


@pytest.mark.parametrize("stride,offset,taps,extra,init", [
    (2, 1, 3, 1, BROADCAST),  # output padding
    (3, 2, 5, 0, FILL),  # two zeros between elements
    (4, 5, 8, 2, BROADCAST),  # a vocoder's k8 s4
    (2, 0, 1, 0, GENERAL),  # kernel below the stride: odd outputs are the init alone
    (3, 0, 2, 4, GENERAL),  # taps < stride and a long zero tail
    (2, 3, 4, 0, FILL),  # offset beyond the taps: phases shifted past x's start
])
def test_hand_written_1d_runs_as_phases_bit_exact(stride, offset, taps, extra, init):
    remarks = check_against_original(conv1d(stride, offset, taps, extra, init), seed=stride * 7 + taps)
    assert "[SKIP INSERTED ZEROS]" in remarks, remarks


def test_negative_zero_fill_is_refused():
    """An init filled with the constant -0: every phase would start at -0 where the original may
    end at +0; refused at compile time, and says so."""
    text = conv1d(2, 1, 3, 0, FILL, c="-0.0")
    remarks = check_against_original(text)
    assert "start at -0" in remarks, remarks


def test_nonzero_fill_is_refused():
    text = conv1d(2, 1, 3, 0, BROADCAST, zero="1.0")
    remarks = loopopt.optimize(text, target="cpu").remarks_text()
    assert "[STOP SKIP INSERTED ZEROS]" in remarks and "not a constant zero" in remarks, remarks


def test_no_stride_is_left_alone():
    """A padded input (stride 1 everywhere) is an ordinary padded convolution: no decision."""
    text = conv1d(1, 2, 3, 2, BROADCAST)
    remarks = loopopt.optimize(text, target="cpu").remarks_text()
    assert "INSERTED ZEROS" not in remarks


def test_lowered_program_holds_the_guard_and_the_phases():
    """The IR: the finiteness check, the phases (taps 2 of K 4 at stride 2), one branch."""
    text = conv1d(2, 2, 4, 0, BROADCAST)
    out = loopopt.optimize(text, target="cpu", passes="none").text
    assert re.search(r"scf\.if", out)
    assert "math.absf" in out and "0x7F800000" in out
    loopopt.mlir.parse_module(out)  # verifies


def test_a_rewrite_that_does_not_parse_leaves_the_convolution(monkeypatch):
    """A bug of ours in the phases' text: the convolution stays as it was, the run goes on, and
    the remark names it."""
    monkeypatch.setattr(zp, "rewrite_text", lambda m, loc: ("func.func private @phases( {", 0))
    text = conv1d(2, 1, 3, 0, BROADCAST)
    result = loopopt.optimize(text, target="cpu")
    assert "[INTERNAL] the phases did not parse" in result.remarks_text()
    assert "linalg" not in result.text  # lowered all the same


SPLIT_SPATIAL = """
func.func @split(%x: tensor<1x4x8x4xf32>, %w: tensor<3x4x2x3x3xf32>) -> tensor<1x4x3x6x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x16x9xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x16x9xf32>) -> tensor<1x4x16x9xf32>
  %z = tensor.insert_slice %x into %f[0, 0, 0, 1] [1, 4, 8, 4] [1, 1, 2, 2] : tensor<1x4x8x4xf32> into tensor<1x4x16x9xf32>
  %g = tensor.expand_shape %z [[0], [1], [2, 3], [4]] output_shape [1, 4, 2, 8, 9] : tensor<1x4x16x9xf32> into tensor<1x4x2x8x9xf32>
  %eo = tensor.empty() : tensor<1x4x3x6x7xf32>
  %c = arith.constant 0.5 : f32
  %i = linalg.fill ins(%c : f32) outs(%eo : tensor<1x4x3x6x7xf32>) -> tensor<1x4x3x6x7xf32>
  %y = linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%g, %w : tensor<1x4x2x8x9xf32>, tensor<3x4x2x3x3xf32>) outs(%i : tensor<1x4x3x6x7xf32>) -> tensor<1x4x3x6x7xf32>
  return %y : tensor<1x4x3x6x7xf32>
}
"""


def test_an_input_reshaped_across_a_spatial_dimension_is_refused():
    """The zero-inserted rows split into (2, 8) by an expand_shape: a spatial dimension of the
    convolution is not one of the inserted tensor's, so the phases are not its phases."""
    remarks = check_against_original(SPLIT_SPATIAL)
    assert "reshaped across a spatial dimension" in remarks, remarks


DYNAMIC_BATCH = """
func.func @up(%x: tensor<?x4x7xf32>, %w: tensor<3x4x3xf32>) -> tensor<?x3x14xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x7xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x16xf32>) -> tensor<?x4x16xf32>
  %z = tensor.insert_slice %x into %f[0, 0, 1] [%n, 4, 7] [1, 1, 2] : tensor<?x4x7xf32> into tensor<?x4x16xf32>
  %eo = tensor.empty(%n) : tensor<?x3x14xf32>
  %i = linalg.fill ins(%zero : f32) outs(%eo : tensor<?x3x14xf32>) -> tensor<?x3x14xf32>
  %y = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>}
      ins(%z, %w : tensor<?x4x16xf32>, tensor<3x4x3xf32>) outs(%i : tensor<?x3x14xf32>) -> tensor<?x3x14xf32>
  return %y : tensor<?x3x14xf32>
}
"""


def test_a_dynamic_batch_is_refused_and_runs_as_written():
    """A dynamic batch: the phases' text is written for static shapes, so the convolution stays,
    the remark says why, and the program's results are the step-less lowering's, bit for bit,
    at two batch sizes."""
    remarks = loopopt.optimize(DYNAMIC_BATCH, target="cpu").remarks_text()
    assert "[STOP SKIP INSERTED ZEROS]" in remarks and "dynamic" in remarks, remarks
    stepped, original = _compiled(DYNAMIC_BATCH, True), _compiled(DYNAMIC_BATCH, False)
    rng = np.random.default_rng(3)
    for n in (1, 3):
        args = [rng.standard_normal((n, 4, 7)).astype(np.float32), rng.standard_normal((3, 4, 3)).astype(np.float32)]
        _same_bits(stepped, original, args)
        want = np.zeros((n, 3, 14), np.float32)
        z = np.zeros((n, 4, 16), np.float32)
        z[:, :, 1:14:2] = args[0]
        for t in range(3):
            want += np.einsum("ncw,fc->nfw", z[:, :, t:t + 14], args[1][:, :, t])
        np.testing.assert_allclose(_outputs(stepped, args)[0], want, rtol=1e-5, atol=1e-5)
