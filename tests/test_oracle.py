"""loopopt.oracle: the type classification, signatures and result comparison that the interpreter,
the differential tester and the native harness share."""
from __future__ import annotations

import numpy as np
import pytest

from loopopt import native, testing
from loopopt.interpreter import compile_module
from loopopt.mlir import functions, ir, new_context, parse_module
from loopopt.oracle import (Unsupported, classify_scalar, first_difference, first_mismatch, function_signature,
                            matching, memref_element_dtype, scalar_kind, type_spec, vector_kind)

_CTX = new_context()


def ty(text: str) -> ir.Type:
    with _CTX:
        return ir.Type.parse(text)


# ----------------------------------------------------------------------------- scalars


@pytest.mark.parametrize("text, kind, width, dtype", [
    ("index", "index", 64, np.int64),
    ("i1", "int", 1, np.bool_),
    ("i32", "int", 32, np.int32),
    ("i7", "int", 7, None),
    ("f16", "float", 16, np.float16),
    ("f64", "float", 64, np.float64),
    ("bf16", "float", 16, None),
])
def test_classify_scalar_gives_kind_width_and_dtype(text, kind, width, dtype):
    k = classify_scalar(ty(text))
    assert (k.kind, k.width) == (kind, width)
    assert k.dtype == (np.dtype(dtype) if dtype is not None else None)


def test_non_scalar_types_are_not_scalars():
    for text in ("memref<4xf32>", "vector<4xf32>", "tensor<4xf32>", "complex<f32>"):
        assert classify_scalar(ty(text)) is None, text


def test_scalar_kind_keeps_integers_of_any_width_but_only_floats_numpy_has():
    assert scalar_kind(ty("i7")).is_int  # a Python int needs no dtype
    assert scalar_kind(ty("f32")).dtype == np.float32
    assert scalar_kind(ty("bf16")) is None  # the native harness runs it, the interpreter cannot
    assert classify_scalar(ty("bf16")) is not None


# ----------------------------------------------------------------------------- shaped types


def test_ranked_memref_spec():
    s = type_spec(ty("memref<?x3xf32>"))
    assert (s.form, s.is_memref, s.shape, s.rank) == ("memref", True, (None, 3), 2)
    assert s.dtype == np.float32 and s.element_text == "f32" and s.identity_layout
    assert s.scalar is None


@pytest.mark.parametrize("text", ["memref<4x?xf32, strided<[?, 1]>>", "memref<4xf32, affine_map<(d0) -> (d0 + 1)>>"])
def test_non_identity_layouts_are_recognised(text):
    assert not type_spec(ty(text)).identity_layout


def test_memref_without_numpy_dtype_keeps_its_element_kind():
    s = type_spec(ty("memref<4xbf16>"))
    assert s.is_memref and s.dtype is None
    assert s.element.kind == "float" and s.element_text == "bf16"


def test_unranked_memref_and_vectors():
    u = type_spec(ty("memref<*xf64>"))
    assert (u.form, u.is_memref, u.shape, u.element_text) == ("unranked", False, None, "f64")
    v = type_spec(ty("vector<2x3xi8>"))
    assert (v.form, v.shape, v.scalable, v.element.kind) == ("vector", (2, 3), False, "int")
    assert type_spec(ty("vector<[4]xf32>")).scalable
    assert type_spec(ty("tensor<4xf32>")).form == "other"


def test_scalar_spec_exposes_only_representable_scalars():
    assert type_spec(ty("f32")).scalar.dtype == np.float32
    assert type_spec(ty("bf16")).form == "scalar"
    assert type_spec(ty("bf16")).scalar is None


def test_memref_element_dtype_and_its_refusals():
    assert memref_element_dtype(ty("memref<*xf64>")) == np.float64
    assert memref_element_dtype(ty("memref<2xindex>")) == np.int64
    for text in ("memref<4xbf16>", "memref<4xi7>"):
        with pytest.raises(Unsupported, match="memref element type"):
            memref_element_dtype(ty(text))


def test_vector_kind_and_its_refusals():
    vk = vector_kind(ty("vector<2x3xf32>"))
    assert vk.shape == (2, 3) and vk.numel == 6 and vk.elem.dtype == np.float32
    with pytest.raises(Unsupported, match="scalable"):
        vector_kind(ty("vector<[4]xf32>"))
    with pytest.raises(Unsupported, match="element type bf16"):
        vector_kind(ty("vector<4xbf16>"))


# ----------------------------------------------------------------------------- signatures

KERNEL = """
func.func @k(%a: memref<?x4xf32>, %n: index, %x: f64) -> (f64, i32) {
  %c = arith.constant 1 : i32
  return %x, %c : f64, i32
}
"""


def test_function_signature_reads_arguments_and_results():
    m = parse_module(KERNEL)
    with m.context:
        sig = function_signature(functions(m)[0])
    assert sig.name == "k"
    assert [s.form for s in sig.args] == ["memref", "scalar", "scalar"]
    assert sig.args[0].shape == (None, 4)
    assert [s.text for s in sig.results] == ["f64", "i32"]


def test_interpreter_and_native_share_one_classification():
    interp = compile_module(KERNEL).signatures["k"]
    harness = native.kernel_signature(KERNEL, "k")
    assert tuple(s.spec for s in harness.args) == interp
    assert harness.args[0].shape == (-1, 4) and harness.args[1].kind == "index"
    assert [s.kind for s in harness.results] == ["float", "int"]


def test_native_refuses_types_it_cannot_allocate():
    text = "func.func @k(%v: vector<4xf32>) {\n  return\n}\n"
    with pytest.raises(native.NativeError, match="arg0: unsupported type vector<4xf32>"):
        native.kernel_signature(text, "k")


# ----------------------------------------------------------------------------- comparison


def test_nan_matches_any_nan_but_nothing_else():
    a = np.array([np.nan, np.nan, 1.0])
    nan2 = np.frombuffer(np.uint64(0x7FF8000000000001).tobytes(), dtype=np.float64)[0]  # another NaN payload
    b = np.array([nan2, 1.0, np.nan])
    assert matching(a, b).tolist() == [True, False, False]


def test_signed_zeros_differ_bitwise_but_not_by_value():
    a, b = np.array([0.0], np.float32), np.array([-0.0], np.float32)
    assert not matching(a, b).any()
    assert matching(a, b, signed_zeros=False).all()


def test_integers_are_exact_even_with_a_tolerance():
    assert not matching(np.array([100]), np.array([101]), rtol=0.5).any()


def test_tolerance_with_a_scale_and_numpys_rule_without():
    a, b = np.array([1.0, 1.0]), np.array([1.1, 1.3])
    assert matching(a, b, rtol=0.1, scale=np.array([2.0, 2.0])).tolist() == [True, False]
    assert matching(a, b, rtol=0.1).tolist() == [True, False]  # bound 0.1 * |b|
    assert not matching(np.array([np.inf]), np.array([1e308]), rtol=0.5).any()
    assert matching(np.array([2.0]), np.array([2.05]), atol=0.1).all()


def test_first_mismatch_is_row_major_and_counts():
    same = np.array([[True, True], [False, False]])
    miss = first_mismatch(same)
    assert (miss.index, miss.count, miss.size) == ((1, 0), 2, 4)
    assert first_mismatch(np.ones((2, 2), bool)) is None
    assert first_mismatch(np.array(False)).index == ()


def test_first_difference_messages():
    assert first_difference(np.zeros(2), np.zeros(3)) == "shape [2] != [3]"
    assert first_difference(np.zeros(2, np.float32), np.zeros(2)) == "dtype float32 != float64"
    msg = first_difference(np.array([[1, 2], [3, 4]]), np.array([[1, 2], [0, 0]]))
    assert msg.startswith("first difference at index [1, 0]:") and msg.endswith("(2 of 4 elements differ)")
    assert first_difference(np.float32(1.0), np.float32(2.0)) == "before=np.float32(1.0) after=np.float32(2.0)"
    assert first_difference(np.array([1.0]), np.array([1.0 + 1e-9]), rtol=1e-6) is None
    assert first_difference(np.array([np.nan]), np.array([np.nan])) is None


def test_testing_reexports_the_oracles_first_difference():
    assert testing.first_difference is first_difference


def test_native_comparison_uses_value_equality_and_names_the_element():
    a = (native.Output("arg0", 3, values=(0.0, 1.0, float("nan"))),)
    assert native.compare_outputs(a, (native.Output("arg0", 3, values=(-0.0, 1.0, float("nan"))),)) is None
    b = (native.Output("arg0", 3, values=(0.0, 2.0, float("nan"))),)
    assert native.compare_outputs(a, b) == "arg0[1]: 1.0 vs 2.0"
    assert native.compare_outputs(a, b, rtol=0.5) is None  # |1.0 - 2.0| <= 0.5 * max(|1.0|, |2.0|)
    assert native.compare_outputs(b, a, rtol=0.5) is None  # the scale is symmetric
    assert native.compare_outputs(a, b, rtol=0.4) == "arg0[1]: 1.0 vs 2.0"


def test_native_checksums_scale_by_magnitude_and_weight():
    x = (native.Output("r", 9000, checksum=(1.0, 10.0, 2.0)),)
    near = (native.Output("r", 9000, checksum=(1.0, 10.0 + 1e-6 * 2.0 * native.WEIGHT_MODULUS, 2.0)),)
    far = (native.Output("r", 9000, checksum=(1.0, 10.0 + 2e-6 * 2.0 * native.WEIGHT_MODULUS, 2.0)),)
    assert native.compare_outputs(x, near, rtol=1e-6) is None
    assert native.compare_outputs(x, far, rtol=1e-6).startswith("r weighted sum: ")
    assert native.compare_outputs(x, near).startswith("r weighted sum: ")
