"""mlir.identity_layout: the one test of "row-major, contiguous, no offset" the analyses and steps
ask (the oracle's argument specs, product isolation, panel layout, flat rows' views, dead stores,
constant copies, sweep vectors); a strided layout is never the identity, even with its strides."""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.mlir import ir


@pytest.mark.parametrize("text, want", [
    ("memref<4x16xf32>", True),
    ("memref<f32>", True),
    ("memref<?x8xi32>", True),
    ("memref<4x16xf32, strided<[16, 1]>>", False),
    ("memref<4x16xf32, strided<[32, 1]>>", False),
    ("memref<4x16xf32, strided<[16, 1], offset: 4>>", False),
    ("memref<4x16xf32, affine_map<(d0, d1) -> (d1, d0)>>", False),
    ("tensor<4x16xf32>", False),
    ("f32", False),
])
def test_identity_layout(text, want):
    with ir.Context():
        assert mlir.identity_layout(ir.Type.parse(text)) is want
