"""loopopt-scatters-to-loops (frontend/scatters.py): torch-mlir's tm_tensor.scatter (index_add,
scatter_add, index_put) lowered to loops (docs/cpu_codegen.md section 66).

Compiled and run natively against a reference written from TMTensor's definition (the same adds
in the same order, float32, so bit for bit): index_add of rows (a GCN's messages, repeated
indices), of single elements (a degree count), a 2-D index (index_put of (row, column) pairs, negative ones among them), an
overwriting region (scatter), the update's own dims added to a mapped index; a negative index from
the end, an index outside the original skipped; a dynamic size still refused by name."""
from __future__ import annotations

import numpy as np
import pytest

import loopopt
from loopopt.errors import LoopOptError


def scatter_program(upd: str, idx: str, orig: str, dims: list[int], body: str = "arith.addf %o, %u : f32",
                    ity: str = "i64") -> str:
    u, i, o = f"tensor<{upd}xf32>", f"tensor<{idx}x{ity}>", f"tensor<{orig}xf32>"
    return f"""
func.func @k(%u: {u}, %i: {i}, %x: {o}) -> {o} {{
  %s = tm_tensor.scatter {{dimension_map = array<i64: {', '.join(map(str, dims))}>}} unique_indices(false) ins(%u, %i : {u}, {i}) outs(%x : {o}) {{
  ^bb0(%uu: f32, %oo: f32):
    %r = {body.replace('%o', '%oo').replace('%u', '%uu')}
    tm_tensor.yield %r : f32
  }} -> {o}
  return %s : {o}
}}
"""


def reference(u, idx, x, dims, f=lambda old, new: old + new):
    """TMTensor's loops: the update's own dims aligned right on the original, each mapped dim plus
    its index; positions outside the original skipped."""
    out = x.copy()
    k = u.ndim - 1
    offset = x.ndim - k
    for pos in np.ndindex(*u.shape):
        p = [0] * x.ndim
        for m in range(k):
            p[offset + m] = pos[1 + m]
        for d, dim in enumerate(dims):
            at = int(idx[pos[0], d])
            p[dim] += at + x.shape[dim] if at < 0 else at  # index_put's negative index, from the end
        if all(0 <= p[a] < x.shape[a] for a in range(x.ndim)):
            out[tuple(p)] = f(out[tuple(p)], u[pos])
    return out


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.int32)


def _run(text, *args):
    return loopopt.compile(text, target="cpu", reassociate=False, contract=False)(*args)


CASES = [  # updates, indices, original shapes; dimension map; index range
    ((512, 1, 16), (512, 1), (64, 16), [0], 64),     # index_add of rows, indices repeated
    ((300, 1), (300, 1), (40,), [0], 40),            # a degree count
    ((200, 1), (200, 2), (12, 9), [0, 1], 9),        # index_put of (row, column) pairs
    ((100, 4), (100, 1), (12, 4), [0], -12),         # index_put's negative rows, from the end
    ((20, 10, 3), (20, 1), (10, 8), [1], 7),         # the update's own dims, one plus the mapped index (some past the end)
]


@pytest.mark.parametrize("ushape, ishape, oshape, dims, high", CASES)
def test_scatter_runs_as_tmtensor_defines_it(ushape, ishape, oshape, dims, high):
    text = scatter_program("x".join(map(str, ushape)), "x".join(map(str, ishape)), "x".join(map(str, oshape)), dims)
    rng = np.random.default_rng(0)
    u = rng.standard_normal(ushape).astype(np.float32)
    idx = (rng.integers(0, high, ishape) if high > 0 else rng.integers(high, 0, ishape)).astype(np.int64)
    x = rng.standard_normal(oshape).astype(np.float32)
    np.testing.assert_array_equal(_bits(_run(text, u, idx, x)), _bits(reference(u, idx, x, dims)))


def test_an_overwriting_scatter_keeps_the_last_update():
    """scatter's region yields the update: of repeated indices the last one stays."""
    text = scatter_program("64x1", "64x1", "16", [0], body="arith.addf %u, %cst : f32")
    text = text.replace("^bb0(%uu: f32, %oo: f32):", "^bb0(%uu: f32, %oo: f32):\n    %cst = arith.constant 0.0 : f32")
    rng = np.random.default_rng(1)
    u = rng.standard_normal((64, 1)).astype(np.float32)
    idx = rng.integers(0, 16, (64, 1)).astype(np.int32)
    text = text.replace("xi64>", "xi32>").replace(": f32, tensor<64x1xi64>", ": f32, tensor<64x1xi32>")
    x = rng.standard_normal(16).astype(np.float32)
    want = reference(u, idx, x, [0], lambda old, new: new + np.float32(0))
    np.testing.assert_array_equal(_bits(_run(text, u, idx, x)), _bits(want))


def test_an_index_outside_the_original_is_skipped():
    """16, -17 and 2^40 of an original of 16: no store outside the buffer (eager raises for them);
    -1 counts from the end (eager's index_put), so lands on 15."""
    text = scatter_program("7x1", "7x1", "16", [0])
    u = np.arange(1, 8, dtype=np.float32).reshape(7, 1)
    idx = np.array([[0], [-1], [16], [15], [3], [1 << 40], [-17]], np.int64)
    x = np.zeros(16, np.float32)
    got = _run(text, u, idx, x)
    want = np.zeros(16, np.float32)
    want[0], want[15], want[3] = 1, 2 + 4, 5
    np.testing.assert_array_equal(got, want)


def test_the_lowering_says_what_it_did():
    r = loopopt.optimize(scatter_program("8x1", "8x1", "4", [0]), target="cpu")
    assert "loopopt-scatters-to-loops" in r.remarks_text()


def test_a_dynamic_scatter_is_still_refused_by_name():
    text = scatter_program("?x1", "?x1", "4", [0])
    with pytest.raises(LoopOptError, match="cannot lower 'tm_tensor.scatter'"):
        loopopt.compile(text, target="cpu")


def test_an_original_dimension_neither_the_updates_nor_mapped_is_refused_by_name():
    """Updates (20, 3) into (10, 8) mapped on dimension 1: dimension 0 would have no coordinate."""
    with pytest.raises(LoopOptError, match="cannot lower 'tm_tensor.scatter'"):
        loopopt.compile(scatter_program("20x3", "20x1", "10x8", [1]), target="cpu")
