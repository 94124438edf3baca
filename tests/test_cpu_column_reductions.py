"""Products whose reduction loop reads down a column (docs/cpu_codegen.md section 29, "What was
fixed after"): with the register tile's lanes refused and the reductions reorderable, the tile is
refused as "no gain" only when LLVM can vectorize the reduction loop itself (every access
invariant or contiguous along it: `cpu_plan.access_refusal`); otherwise it is planned as scalar
copies, each sum kept in order (bit-exact). And the contiguity test skips dimensions of static
size 1 (a step along dimension 1 of a 1000x512x1 buffer is the next element in memory), asking
the buffer's layout for the stride of the dimension that moves.

Checked on the plan, the remarks, the interpreter and natively (mlir-runner), bit for bit where
nothing is reassociated; the mutation check disables each rule (scripts/mutation_check.py,
"column reductions").
"""
from __future__ import annotations

import pytest

import loopopt
from loopopt import mlir, native
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu.plan.cpu_plan import Code, TileCode, plan_function, plan_register_tiles
from loopopt.codegen.cpu.register_tile import register_tile_function
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt

REASSOC = Options(target=TARGETS["cpu"], reassociate=True)
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def column_product(m: int = 13, k: int = 37, n: int = 29) -> str:
    """C = A . WT with the columns of C outermost (as fusion's interchange leaves t5_ffn's
    `x @ (w * c)^T`): the reduction loop k reads WT down a column, the loop around it (rows i)
    reads A and writes C down a column: no lanes, and LLVM's vectorizer refuses k too."""
    return f"""func.func @k(%A: memref<{m}x{k}xf32>, %WT: memref<{k}x{n}xf32>, %C: memref<{m}x{n}xf32>) {{
  %z = arith.constant 0.0 : f32
  affine.for %j = 0 to {n} {{
    affine.for %i = 0 to {m} {{
      %r = affine.for %kk = 0 to {k} iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %A[%i, %kk] : memref<{m}x{k}xf32>
        %b = affine.load %WT[%kk, %j] : memref<{k}x{n}xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  return
}}
"""


def unit_product(m: int = 6, k: int = 40, n: int = 11, layout: str = "") -> str:
    """C = X . W^T with W of shape N x K x 1 (product isolation's expanded weight in pool_head):
    k walks W's dimension 1, the next element in memory unless `layout` says otherwise."""
    tw = f"memref<{n}x{k}x1xf32{layout}>"
    return f"""func.func @k(%X: memref<{m}x{k}xf32>, %W: {tw}, %C: memref<{m}x{n}xf32>) {{
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %r = affine.for %kk = 0 to {k} iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %X[%i, %kk] : memref<{m}x{k}xf32>
        %b = affine.load %W[%j, %kk, 0] : {tw}
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  return
}}
"""


def tile(src: str, options: Options = REASSOC) -> tuple[str, list]:
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            register_tile_function(fn, options, log, "t.mlir")
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), list(log)


def tile_plans(src: str, options: Options = REASSOC) -> list:
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        return [(p.refusal.code if p.refusal else None, p.width, p.rows, p.vectors, p.scalar_why)
                for p in plan_register_tiles(fn, Facts(), options)]


def vector_refusals(src: str, options: Options = REASSOC) -> list:
    """(code or None, detail) of the plan of every innermost loop."""
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        out = []
        for nest in plan_function(fn, Facts(), options):
            for vp in nest.vectors:
                out.append((vp.refusal.code if vp.refusal else None, vp.refusal.detail if vp.refusal else ""))
        return out


# ----------------------------------------------------------------------------- a column read by the reduction

def test_a_reduction_down_a_column_is_tiled_in_scalar_copies_not_left_to_llvm():
    src = column_product()
    (code, detail), = vector_refusals(src)  # LLVM's vectorizer is refused the k loop
    assert code is Code.STRIDED and "moves by [1, 0] elements per iteration" in detail
    (code, width, rows, vectors, why), = tile_plans(src)
    assert code is None and width == 1 and rows * vectors > 1
    assert "moves by [1, 0] elements per iteration" in why
    out, remarks = tile(src)
    assert [r.kind for r in remarks] == ["Passed"]
    assert "(scalar f32), each sum kept in order" in remarks[0].message
    assert "scalar copies: LLVM cannot vectorize the reduction loop either (affine.load at" in remarks[0].message
    assert "; lanes refused: affine.store at" in remarks[0].message  # C written down a column
    assert "vector" not in out
    assert_same_results(src, out, seed=5)  # each sum in its order: bit for bit
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(out) is None


def test_a_contiguous_reduction_is_still_left_to_llvm():
    """The same product with WT read along its rows (W[j, k]): LLVM vectorizes k, "no gain"."""
    src = column_product().replace("%WT[%kk, %j] : memref<37x29xf32>", "%WT[%j, %kk] : memref<29x37xf32>") \
        .replace("%WT: memref<37x29xf32>", "%WT: memref<29x37xf32>")
    (code, width, *_), = tile_plans(src)
    assert code is TileCode.NOT_PROFITABLE
    assert [c for c, _ in vector_refusals(src)] == [None]


def test_without_reassociation_the_column_product_keeps_its_plan():
    """The rule only concerns reorderable reductions: with ordered sums the plan is unchanged."""
    src = column_product()
    codes = [c for c, *_ in tile_plans(src, Options(target=TARGETS["cpu"]))]
    assert codes == [None]


@has_runner
def test_the_column_product_natively_bit_for_bit():
    src = column_product(m=9, k=53, n=21)
    out, remarks = tile(src)
    assert "scalar copies" in remarks[0].message
    a = native.run_native(src, "k", [None] * 3, reps=1)
    b = native.run_native(out, "k", [None] * 3, reps=1)
    assert native.compare_outputs(a.outputs, b.outputs) is None


@has_runner
def test_the_default_pipeline_with_reassociation_computes_the_column_product():
    src = column_product(m=9, k=53, n=21)
    res = loopopt.optimize(src, target="cpu", reassociate=True)
    assert any(r.pass_name == "register-tile" and r.kind == "Passed" for r in res.remarks)
    assert_same_results(src, res.text, seed=2)  # the tile keeps every sum's order
    a = native.run_native(src, "k", [None] * 3, reps=1)
    b = native.run_native(res.text, "k", [None] * 3, reps=1)
    assert native.compare_outputs(a.outputs, b.outputs) is None


# ----------------------------------------------------------------------------- dimensions of size 1

def test_a_step_along_a_unit_last_dimension_buffer_is_contiguous():
    src = unit_product()
    assert [c for c, _ in vector_refusals(src)] == [None]  # LLVM's vectorizer takes k
    (code, *_), = tile_plans(src)
    assert code is TileCode.NOT_PROFITABLE  # so the tile leaves it to LLVM


def test_a_unit_dimension_with_a_strided_layout_stays_strided():
    """W's dimension 1 two elements apart in memory: the dimension that moves is not contiguous."""
    src = unit_product(layout=", strided<[80, 2, 1]>")
    (code, detail), = vector_refusals(src)
    assert code is Code.STRIDED and "the buffer's last dimension is not contiguous in memory" in detail
    (tcode, width, *_ , why), = tile_plans(src)
    assert tcode is None and width == 1 and "not contiguous in memory" in why
    out, _ = tile(src)
    assert_same_results(src, out, seed=4)


def test_a_column_of_a_buffer_with_a_unit_dimension_stays_strided():
    """A size-1 dimension is skipped only where the index stays; a walk down dimension 0 of
    N x K x 1 is still a column."""
    src = unit_product().replace("%W[%j, %kk, 0]", "%W[%kk mod 11, %j mod 40, 0]")
    assert [c for c, _ in vector_refusals(src)] == [Code.STRIDED]


@has_runner
def test_the_unit_dimension_product_natively():
    src = unit_product(m=5, k=67, n=13)
    res = loopopt.optimize(src, target="cpu", reassociate=True)
    # W[j, k, 0] is read along its rows: operand packing copies it into K x N first, as it does a
    # K x N weight (the unit last dimension skipped, docs/cpu_codegen.md section 32.2)
    assert any(r.message.startswith("[PACK]") for r in res.remarks)
    a = native.run_native(src, "k", [None] * 3, reps=1)
    b = native.run_native(res.text, "k", [None] * 3, reps=1)
    assert native.compare_outputs(a.outputs, b.outputs, rtol=1e-5, normwise=True) is None
    # without reassociation nothing is reordered: bit for bit
    res = loopopt.optimize(src, target="cpu")
    b = native.run_native(res.text, "k", [None] * 3, reps=1)
    assert native.compare_outputs(a.outputs, b.outputs) is None
    assert_same_results(src, res.text, seed=6)
