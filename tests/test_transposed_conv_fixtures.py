"""The transposed-convolution fixtures (tests/fixtures/transposed_conv/, README.md there): each
has the zero-inserted shape torch-mlir gives a ConvTranspose (a strided tensor.insert_slice into a
zero linalg.fill, then a stride-1 linalg.conv_*), and each goes through loopopt.compile with
torch's saved outputs (tolerance fixtures.RTOL)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import loopopt
from loopopt.frontend import fixtures
from loopopt.runtime import build

DIR = Path(__file__).resolve().parent / "fixtures" / "transposed_conv"
MISSING = build.missing_tools()

# name -> (conv op, insert_slice offsets, insert_slice strides, conv dilations), as exported
LOWERED = {
    "convt1d_k3_s2_p1_op1": ("conv_1d_ncw_fcw", [0, 0, 1], [1, 1, 2], 1),
    "convt2d_k3_s2_p1_op1_bias": ("conv_2d_nchw_fchw", [0, 0, 1, 1], [1, 1, 2, 2], 1),
    "convt2d_k4_s2_p1_g2": ("conv_2d_ngchw_gfchw", [0, 0, 2, 2], [1, 1, 2, 2], 1),
    "convt2d_k4_s2_p1_g2_bias": ("conv_2d_ngchw_gfchw", [0, 0, 2, 2], [1, 1, 2, 2], 1),
    "convt2d_k5_s3_p2": ("conv_2d_nchw_fchw", [0, 0, 2, 2], [1, 1, 3, 3], 1),
    "convt2d_k2_s2_p0": ("conv_2d_nchw_fchw", [0, 0, 1, 1], [1, 1, 2, 2], 1),
    "convt2d_k3_s2_d2": ("conv_2d_nchw_fchw", [0, 0, 4, 4], [1, 1, 2, 2], 2),
    "convt2d_k1_s2_bias": ("conv_2d_nchw_fchw", [0, 0, 0, 0], [1, 1, 2, 2], 1),
}
INSERT = re.compile(r"tensor\.insert_slice %arg0 into %\w+\[([\d, ]+)\] \[[\d, ]+\] \[([\d, ]+)\]")


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",")]


def test_every_fixture_is_listed_and_documented():
    assert fixtures.fixture_names(DIR) == sorted(LOWERED)
    readme = (DIR / "README.md").read_text()
    assert all(f"| {name} |" in readme for name in LOWERED)


@pytest.mark.parametrize("name", sorted(LOWERED))
def test_fixture_has_the_zero_inserted_shape(name):
    op, offsets, strides, dilation = LOWERED[name]
    text = fixtures.load_fixture(name, DIR).text
    found = INSERT.findall(text)
    assert [(_ints(o), _ints(s)) for o, s in found] == [(offsets, strides)]
    conv = re.findall(r"linalg\.(conv_\w+) \{dilations = dense<(\d+)> [^}]*strides = dense<1>", text)
    assert conv == [(op, str(dilation))]


@pytest.mark.toolchain
@pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
@pytest.mark.parametrize("name", sorted(LOWERED))
def test_fixture_through_compile_matches_torch(name):
    fx = fixtures.load_fixture(name, DIR)
    k = loopopt.compile(fx.text, target="cpu", filename=f"{name}.mlir")
    diff = fixtures.kernel_mismatch(k, fx)
    assert diff is None, f"{name} {diff}"
