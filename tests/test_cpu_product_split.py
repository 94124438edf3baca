"""Section 39: fusion's split rescue keeps a loop over a matrix product's rows, columns or
reduction whole (codegen/cpu/hooks.py CpuHooks.split_refusal, isolate_products.product_dimension).

A batched Linear layer as torch-mlir lowers it: a ReLU over (batch, tokens, k), the product over
the batch x tokens rows of its collapsed view, the bias, and a residual over (batch, tokens, n)
reading the product through the expanded view. The ReLU's batch loop and the product's rows loop
have unmatched trip counts (batch against batch x tokens); the split rescue used to split the
product's rows loop after `batch` iterations, fuse that head under the ReLU's batch loop and the
tail with the bias shifted by `batch` rows, whose carried dependence left the tail's register
tile one row high (PyTorch's TransformerEncoderLayer at batch 8: 1016 of 1024 rows one at a time,
B streamed once per row). Now the product keeps all its rows; at batch 1 nothing changes. Each
program runs through the default cpu pipeline and is compared natively with its input bit for
bit, and in the reference interpreter.
"""
from __future__ import annotations

import os

import pytest

from loopopt import mlir
from loopopt.analysis.affine import Scope
from loopopt.codegen.cpu.isolate_products import product_dimension
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import optimize_and_compare

CPU = Options(target=TARGETS["cpu"], vector_bits=256)
STOP = "[STOP LOOP SPLIT] the loop runs over the rows or columns of a matrix product it holds"


def batched_linear(batch: int, seq: int = 16, k: int = 64, n: int = 32) -> str:
    """out = r + (relu(x) viewed as (batch * seq) x k) @ w + bias, viewed back as batch x seq x n."""
    m = batch * seq
    x, a, c, o = (f"memref<{batch}x{seq}x{k}xf32>", f"memref<{batch}x{seq}x{k}xf32>", f"memref<{m}x{n}xf32>",
                  f"memref<{batch}x{seq}x{n}xf32>")
    return f"""func.func @ffn_ln(%x: {x}, %w: memref<{k}x{n}xf32>, %bias: memref<{n}xf32>, %r: {o}, %out: {o}) {{
  %zero = arith.constant 0.000000e+00 : f32
  %a = memref.alloc() : {a}
  affine.for %b = 0 to {batch} {{
    affine.for %t = 0 to {seq} {{
      affine.for %q = 0 to {k} {{
        %0 = affine.load %x[%b, %t, %q] : {x}
        %1 = arith.cmpf ugt, %0, %zero : f32
        %2 = arith.select %1, %0, %zero : f32
        affine.store %2, %a[%b, %t, %q] : {a}
      }}
    }}
  }}
  %c = memref.alloc() : {c}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      affine.store %zero, %c[%i, %j] : {c}
    }}
  }}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      affine.for %q = 0 to {k} {{
        %0 = affine.load %a[%i floordiv {seq}, %i mod {seq}, %q] : {a}
        %1 = affine.load %w[%q, %j] : memref<{k}x{n}xf32>
        %2 = affine.load %c[%i, %j] : {c}
        %3 = arith.mulf %0, %1 : f32
        %4 = arith.addf %2, %3 : f32
        affine.store %4, %c[%i, %j] : {c}
      }}
    }}
  }}
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %0 = affine.load %c[%i, %j] : {c}
      %1 = affine.load %bias[%j] : memref<{n}xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %c[%i, %j] : {c}
    }}
  }}
  affine.for %b = 0 to {batch} {{
    affine.for %t = 0 to {seq} {{
      affine.for %j = 0 to {n} {{
        %0 = affine.load %r[%b, %t, %j] : {o}
        %1 = affine.load %c[%b * {seq} + %t, %j] : {c}
        %2 = arith.addf %0, %1 : f32
        affine.store %2, %out[%b, %t, %j] : {o}
      }}
    }}
  }}
  memref.dealloc %a : {a}
  memref.dealloc %c : {c}
  return
}}
"""


def remarks(text: str) -> list[str]:
    return [r.message for r in optimize(text, CPU).remarks]


@pytest.mark.parametrize("batch", [2, 3, 8])
def test_product_rows_are_not_split_for_the_batch_loop(batch):
    got = remarks(batched_linear(batch))
    stop = [m for m in got if m.startswith(STOP)]
    assert stop == [f"{STOP}: a split at iteration {batch} of {16 * batch} would cut the product in two, "
                    "its head under its partner's loop"]
    assert not any(m.startswith("[LOOP SPLIT]") for m in got)
    tiles = [m for m in got if m.startswith("[REGISTER TILING]")]
    assert tiles and not any("one row" in m for m in tiles), tiles


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_results_unchanged(batch):
    optimize_and_compare(batched_linear(batch), kernel="ffn_ln", options=CPU)


def _loops(text: str):
    module = mlir.parse_module(text)
    fn = next(o for o in mlir.walk(module.operation) if o.name == "func.func")
    return module, [o for o in mlir.walk(fn) if o.name == "affine.for"]


def test_product_dimension_names_rows_columns_and_reduction_not_batch():
    batched = """func.func @bmm(%A: memref<4x8x16xf32>, %B: memref<4x16x32xf32>, %C: memref<4x8x32xf32>) {
  affine.for %b = 0 to 4 {
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 32 {
        affine.for %q = 0 to 16 {
          %0 = affine.load %A[%b, %i, %q] : memref<4x8x16xf32>
          %1 = affine.load %B[%b, %q, %j] : memref<4x16x32xf32>
          %2 = affine.load %C[%b, %i, %j] : memref<4x8x32xf32>
          %3 = arith.mulf %0, %1 : f32
          %4 = arith.addf %2, %3 : f32
          affine.store %4, %C[%b, %i, %j] : memref<4x8x32xf32>
        }
      }
    }
  }
  return
}
"""
    module, loops = _loops(batched)
    with module.context:
        scope = Scope()
        got = [product_dimension(lp, scope) for lp in loops]
    assert got == [None, "rows or columns", "rows or columns", "reduction"]


LIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lit", "cpu")


@pytest.mark.parametrize("name", ["product-split.mlir", "isolate-contracted-rows.mlir"])
def test_lit_programs_results_unchanged(name):
    """The lit goldens' programs (batch 3: the split refused; batch 1: the product's contracted
    rows restored by isolation) compute what their inputs compute, natively and interpreted."""
    with open(os.path.join(LIT, name)) as f:
        text = f.read()
    optimize_and_compare(text, kernel="ffn_ln", options=CPU)


def test_contracted_rows_are_isolated_and_tiled():
    with open(os.path.join(LIT, "isolate-contracted-rows.mlir")) as f:
        got = remarks(f.read())
    iso = [m for m in got if m.startswith("[PRODUCT ISOLATION]") and "contracted" in m]
    assert len(iso) == 1 and "16x64" in iso[0]
    assert any(m.startswith("[REGISTER TILING] 6 x 16 tile") for m in got)
