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
from loopopt.testing import assert_same_results, optimize_and_compare
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



# An MLP's scoring head as torch-mlir writes it (DLRM's top MLP, section 81): Linear(20, 64), ReLU
# (a compare through f64 and a select), Linear(64, 1) as a matmul with a one-column weight, sigmoid.
SCORING_HEAD = """#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @k(%x: tensor<16x20xf32>, %w1: tensor<20x64xf32>, %b1: tensor<64xf32>, %w2: tensor<64x1xf32>) -> tensor<16x1xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %zero = arith.constant 0.000000e+00 : f64
    %one = arith.constant 1.000000e+00 : f32
    %e = tensor.empty() : tensor<16x64xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    %p = linalg.matmul ins(%x, %w1 : tensor<16x20xf32>, tensor<20x64xf32>) outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
    %h = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%p, %b1 : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %0 = arith.addf %in, %in_1 : f32
      linalg.yield %0 : f32
    } -> tensor<16x64xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.extf %in : f32 to f64
      %1 = arith.cmpf olt, %0, %zero : f64
      %2 = arith.select %1, %cst, %in : f32
      linalg.yield %2 : f32
    } -> tensor<16x64xf32>
    %e2 = tensor.empty() : tensor<16x1xf32>
    %f2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<16x1xf32>) -> tensor<16x1xf32>
    %q = linalg.matmul ins(%r, %w2 : tensor<16x64xf32>, tensor<64x1xf32>) outs(%f2 : tensor<16x1xf32>) -> tensor<16x1xf32>
    %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<16x1xf32>) outs(%e2 : tensor<16x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = arith.negf %in : f32
      %2 = math.exp %1 : f32
      %3 = arith.addf %2, %one : f32
      %4 = arith.divf %one, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<16x1xf32>
    return %s : tensor<16x1xf32>
  }
}
"""


def product_tile(messages: list[str]) -> list[str]:
    """The register tiling remarks of the first product (the 4 x 24 tile of its 64 columns)."""
    return [m for m in messages if m.startswith("[REGISTER TILING] 4 x 24 tile")]


def test_a_matvec_of_the_output_stays_out_of_the_product_loop():
    """The head's matrix-vector product runs its sum over the hidden columns inside a loop of one
    iteration (its one output column); interchanged, that sum would be carried by the product's
    column loop (section 81): refused, the product keeps its register tile (fails before: the
    fused column loop carries the sum, isolation cannot split it off, and the product runs as
    scalar dot products)."""
    res = optimize(SCORING_HEAD, CPU, filename="t.mlir")
    messages = [r.message for r in res.remarks]
    assert not [m for m in messages if "[INTERNAL]" in m], messages
    assert product_tile(messages), messages
    assert not [m for m in messages if m.startswith("[STOP REGISTER TILING]")], messages
    trial = [r for r in res.remarks if r.message.startswith("[STOP FUSION] unmatched trip count")
             and "restructured to align them: a product's output loop would carry a reduction" in str(r.args.get("detail"))]
    assert trial, messages  # the refusal names the interchanged trial the guard refused


def test_the_scoring_head_is_unchanged_bit_for_bit():
    """The lowered head (affine input: no fused multiply-adds) through the pipeline: tiled, and
    equal to its input bit for bit in the interpreter and natively."""
    lowered = optimize(SCORING_HEAD, CPU, filename="t.mlir", passes=[]).text
    got = optimize_and_compare(lowered, "k", CPU)
    assert product_tile(got.messages), got.messages

def test_a_loop_of_one_iteration_that_moves_the_address_is_no_carried_sum():
    """unit_nested_reduction: a sum inside a loop of one iteration whose address moves with the
    outer loop (S[j, u] += ...) is carried by nothing; the same address without the outer counter
    (S[i, u], i outside) is a sum carried along it; a loop of two iterations is no unit chain."""
    from loopopt import mlir
    from loopopt.analysis.affine import Scope
    from loopopt.codegen.cpu.hooks import unit_chain, unit_nested_reduction

    def outer_loop(text):
        module = mlir.parse_module(text)
        loops = [op for op in mlir.walk(mlir.functions(module)[0]) if op.name == "affine.for"]
        return module, loops

    body = """func.func @k(%D: memref<8x16xf32>, %S: memref<16x{u}xf32>, %i: index) {{
  affine.for %j = 0 to 16 {{
    affine.for %u = 0 to {u} {{
      %e = affine.load %D[%i, %j] : memref<8x16xf32>
      %o = affine.load %S[{row}, %u] : memref<16x{u}xf32>
      %t = arith.addf %o, %e : f32
      affine.store %t, %S[{row}, %u] : memref<16x{u}xf32>
    }}
  }}
  return
}}
"""
    for row, u, want in (("%i", 1, "arith.addf"), ("%j", 1, None), ("%i", 2, None)):
        module, loops = outer_loop(body.format(row=row, u=u))
        assert (unit_chain(loops[0]) is None) == (u != 1)
        assert unit_nested_reduction(loops[0], Scope()) == want, (row, u)


def product_band_then_rows(kind: str = "sum", m: int = 12, n: int = 64, heads: int = 4, d: int = 8) -> str:
    """product_then_rows with the reduction over two loops, C[i, j] += A[i, h, e] * B[h, e, j]:
    an attention block's output projection as MLIR's elementwise fusion reshapes it (section 84)."""
    src = product_then_rows(kind, m, n, heads * d)
    a, b = f"memref<{m}x{heads}x{d}xf32>", f"memref<{heads}x{d}x{n}xf32>"
    old_loop = f"""      affine.for %r = 0 to {heads * d} {{
        %x = affine.load %A[%i, %r] : memref<{m}x{heads * d}xf32>
        %y = affine.load %B[%r, %j] : memref<{heads * d}x{n}xf32>"""
    new_loop = f"""      affine.for %h = 0 to {heads} {{
      affine.for %r = 0 to {d} {{
        %x = affine.load %A[%i, %h, %r] : {a}
        %y = affine.load %B[%h, %r, %j] : {b}"""
    assert src.count(old_loop) == 1
    src = src.replace(old_loop, new_loop)
    head, tail = src.split("        affine.store %q, %C[%i, %j]", 1)  # the band's second loop closes after it
    line_end = tail.index("\n") + 1
    src = head + "        affine.store %q, %C[%i, %j]" + tail[:line_end] + "      }\n" + tail[line_end:]
    return src.replace(f"%A: memref<{m}x{heads * d}xf32>", f"%A: {a}").replace(f"%B: memref<{heads * d}x{n}xf32>", f"%B: {b}")


@pytest.mark.parametrize("m,n,heads,d", [(12, 64, 4, 8), (7, 40, 3, 5)])
def test_row_sum_stays_out_of_a_product_over_two_reduction_loops(m, n, heads, d):
    """Section 84: the guard takes a reduction band of two loops for the product's (`product_band_of`,
    `memory_band_of`): the sum stays out, the product is tiled, the results are the input's."""
    out, messages = run(product_band_then_rows("sum", m, n, heads, d))
    assert any(m_.startswith(GUARD) for m_ in messages), messages
    assert [m_ for m_ in messages if m_.startswith("[REGISTER TILING]") and "vector accumulators" in m_], messages


def test_a_band_whose_address_moves_with_it_is_no_product_band():
    """A sum whose address uses the band's outer loop (C[i, h] += ...) is no reduction the band
    carries: memory_band_of takes it for none."""
    from loopopt.analysis.affine import Scope
    from loopopt.codegen.cpu.plan.cpu_plan import memory_band_of
    from loopopt.mlir import parse_module, walk

    src = """func.func @k(%A: memref<4x8xf32>, %C: memref<2x4xf32>) {
  affine.for %j = 0 to 2 {
    affine.for %h = 0 to 4 {
      affine.for %r = 0 to 8 {
        %x = affine.load %A[%h, %r] : memref<4x8xf32>
        %c = affine.load %C[%j, ADDR] : memref<2x4xf32>
        %q = arith.addf %c, %x : f32
        affine.store %q, %C[%j, ADDR] : memref<2x4xf32>
      }
    }
  }
  return
}
"""
    for addr, want in (("0", 2), ("%h", None)):
        module = parse_module(src.replace("ADDR", addr))
        j = next(op for op in walk(module.operation) if op.name == "affine.for")
        band = memory_band_of(j, Scope())
        assert (None if band is None else len(band)) == want, addr
