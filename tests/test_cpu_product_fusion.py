"""Issue 35, gpt2_layer: a product's output loop must not take on a sum fused from a consumer
(codegen/cpu/hooks.py product_refusal; docs/cpu_codegen.md section 17).

A product C = A B, a bias added to it, and the row sum of the result (layer norm's mean, as
convert-linalg-to-affine-loops writes it: the sum in memory). Fusing the sum's loop over columns
into the product's would make the loop register tiling blocks carry a sum, which its lanes may
not share: the tile is refused and the product runs a scalar dot product per element. The guard
keeps the two loops apart, so the product is tiled; a row maximum (a reduction the lanes may
share) is not refused. Each program runs through the default cpu pipeline and is compared
natively with its input bit for bit, and in the reference interpreter.
"""
from __future__ import annotations

import pytest

from loopopt import native
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

CPU = Options(target=TARGETS["cpu"], vector_bits=256)
GUARD = "[STOP FUSION] a product's output loop would carry a reduction its tile's lanes may not share"


def product_then_rows(kind: str = "sum", m: int = 12, n: int = 64, k: int = 32) -> str:
    """D = A B + bias, then S[i] = the row's sum (kind "sum", from 0) or maximum ("max", from -inf)."""
    init, op = ("0.0", "arith.addf") if kind == "sum" else ("0xFF800000", "arith.maximumf")
    a, b, d = f"memref<{m}x{k}xf32>", f"memref<{k}x{n}xf32>", f"memref<{m}x{n}xf32>"
    return f"""func.func @k(%A: {a}, %B: {b}, %bias: memref<{n}xf32>, %D: {d}, %S: memref<{m}xf32>) {{
  %z = arith.constant 0.0 : f32
  %init = arith.constant {init} : f32
  %C = memref.alloc() : {d}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      affine.store %z, %C[%i, %j] : {d}
    }}
  }}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      affine.for %r = 0 to {k} {{
        %x = affine.load %A[%i, %r] : {a}
        %y = affine.load %B[%r, %j] : {b}
        %c = affine.load %C[%i, %j] : {d}
        %p = arith.mulf %x, %y : f32
        %q = arith.addf %c, %p : f32
        affine.store %q, %C[%i, %j] : {d}
      }}
    }}
  }}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %c = affine.load %C[%i, %j] : {d}
      %w = affine.load %bias[%j] : memref<{n}xf32>
      %e = arith.addf %c, %w : f32
      affine.store %e, %D[%i, %j] : {d}
    }}
  }}
  affine.for %i = 0 to {m} {{
    affine.store %init, %S[%i] : memref<{m}xf32>
  }}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %e = affine.load %D[%i, %j] : {d}
      %s = affine.load %S[%i] : memref<{m}xf32>
      %t = {op} %s, %e : f32
      affine.store %t, %S[%i] : memref<{m}xf32>
    }}
  }}
  memref.dealloc %C : {d}
  return
}}
"""


def run(src: str) -> tuple[str, list[str]]:
    res = optimize(src, CPU, filename="t.mlir")
    messages = [r.message for r in res.remarks]
    assert not [m for m in messages if "[INTERNAL]" in m], messages
    assert_same_results(src, res.text, func="k")
    if find_tool("mlir-runner") is not None:
        sizes = [None] * len(native.kernel_signature(src, "k").args)
        a = native.run_native(src, "k", sizes, reps=1, full_limit=100_000).outputs
        b = native.run_native(res.text, "k", sizes, reps=1, full_limit=100_000).outputs
        assert native.compare_outputs(list(a), list(b)) is None
    return res.text, messages


def test_row_sum_stays_out_of_the_product_loop():
    out, messages = run(product_then_rows("sum"))
    assert any(m.startswith(GUARD) for m in messages), messages
    assert [m for m in messages if m.startswith("[REGISTER TILING]")], messages
    assert "iter_args" in out and "-> (vector<8xf32>" in out  # the tile's accumulators


@pytest.mark.parametrize("m,n,k", [(7, 40, 9), (13, 72, 33)])
def test_row_sum_shapes_with_tails(m, n, k):
    """Rows and columns that do not fill a tile: still refused, still tiled, still exact."""
    _, messages = run(product_then_rows("sum", m, n, k))
    assert any(m_.startswith(GUARD) for m_ in messages), messages
    assert [m_ for m_ in messages if m_.startswith("[REGISTER TILING]")], messages


def test_row_maximum_is_not_refused():
    """A maximum's partials may start from the init: the guard leaves its fusion to the others."""
    _, messages = run(product_then_rows("max"))
    assert not any(m.startswith(GUARD) for m in messages), messages
