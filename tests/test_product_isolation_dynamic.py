"""Issue 26: expansion by a loop whose trip count is only known at run time (the dynamic batch of
mlp_dynamic): the row buffer fusion contracted becomes `memref.alloc(%dim) : memref<?xN>`, the
batch loop is split and both products get register tiles of several rows.

Checked on the output IR, bit for bit in the reference interpreter and natively (mlir-runner) on
batches of several sizes (1, sizes that are not a multiple of the tile's rows, 0); each new guard
is disabled in turn to show a check of this file then fails.
"""
from __future__ import annotations

import pytest

import loopopt
from loopopt import mlir
from loopopt.analysis.affine import Scope
from loopopt.analysis.loops import constant_bounds
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results, native_mismatch
from loopopt.toolchain import find_tool
from loopopt.codegen.cpu import isolate_products
from loopopt.codegen.cpu.isolate_products import isolate_products_function, iteration_extent

CPU = Options(target=TARGETS["cpu"])
needs_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def isolate(src: str, options: Options = CPU) -> tuple[str, list]:
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            isolate_products_function(fn, options, log, "t.mlir")
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), list(log)


# What fusion leaves of a two-layer MLP with a dynamic batch: one hidden row per batch row,
# contracted to 1 x 20, between the two products (mlp_dynamic's shape, small).
ROWS = """func.func @mlp_rows(%X: memref<?x12xf32>, %W1: memref<12x20xf32>, %W2: memref<20x8xf32>, %Y: memref<?x8xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?x12xf32>
  %h = memref.alloc() : memref<1x20xf32>
  affine.for %i = LO to %n {
    affine.for %d = 0 to 8 {
      affine.store %z, %Y[%i, %d] : memref<?x8xf32>
    }
    affine.for %j = 0 to 20 {
      %s = affine.for %k = 0 to 12 iter_args(%acc = %z) -> (f32) {
        %x = affine.load %X[%i, %k] : memref<?x12xf32>
        %w = affine.load %W1[%k, %j] : memref<12x20xf32>
        %p = arith.mulf %x, %w : f32
        %a = arith.addf %acc, %p : f32
        affine.yield %a : f32
      }
      %r = arith.maximumf %s, %z : f32
      affine.store %r, %h[0, %j] : memref<1x20xf32>
    }
    affine.for %j = 0 to 20 {
      affine.for %d = 0 to 8 {
        %a = affine.load %h[0, %j] : memref<1x20xf32>
        %w = affine.load %W2[%j, %d] : memref<20x8xf32>
        %y = affine.load %Y[%i, %d] : memref<?x8xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %y, %p : f32
        affine.store %s, %Y[%i, %d] : memref<?x8xf32>
      }
    }
  }
  memref.dealloc %h : memref<1x20xf32>
  return
}
"""
MLP_ROWS = ROWS.replace("LO", "0")


def batch_sizes(n: int) -> dict:
    return {"arg0": (n, 12), "arg3": (n, 8)}


def same_natively(before: str, after: str, kernel: str, batches, shapes) -> None:
    for n in batches:
        assert native_mismatch(before, after, shapes(n), kernel=kernel) is None, f"batch {n}"


def test_a_dynamic_batch_gets_one_hidden_row_per_batch_row():
    out, remarks = isolate(MLP_ROWS)
    assert [r.message for r in remarks][-1] == ("[PRODUCT ISOLATION] loop split into 3 loops: a matrix product in a "
                                                "nest of its own (buffer expanded per iteration to ?x20)")
    assert "memref.alloc(%dim) : memref<?x20xf32>" in out and "memref<1x20xf32>" not in out
    assert out.count("affine.for %arg4 = 0 to %dim") == 3
    for n in (1, 5, 16):
        assert_same_results(MLP_ROWS, out, seed=n, sizes=batch_sizes(n), trials=1)


@needs_runner
def test_the_default_pipeline_tiles_both_products_with_rows_bit_exact_on_every_batch():
    res = loopopt.optimize(MLP_ROWS, target="cpu")
    tiles = [r.message for r in res.remarks if r.pass_name == "register-tile"]
    assert len(tiles) == 2 and all("one row" not in m for m in tiles), tiles
    assert "memref<?x20xf32>" in res.text
    # 1, batches that are not a multiple of the tile's rows (6 or 4), one that is, and no row at all
    same_natively(MLP_ROWS, res.text, "mlp_rows", (1, 5, 7, 12, 29, 0),
                  lambda n: [[n, 12], None, None, [n, 8]])


@needs_runner
def test_a_batch_loop_from_one_counts_its_copies_from_one():
    src = ROWS.replace("LO", "1")
    out, remarks = isolate(src)
    assert "?x20" in remarks[-1].message
    assert "#map = affine_map<()[s0] -> (s0 - 1, 0)>" in out and "affine.max #map()[%dim]" in out
    assert_same_results(src, out, seed=3, sizes=batch_sizes(6), trials=1)
    same_natively(src, out, "mlp_rows", (1, 2, 7), lambda n: [[n, 12], None, None, [n, 8]])


def test_a_bounded_symbolic_trip_count_gets_a_static_buffer():
    """`0 to min(%n, 6)`: isl's maximum of the trip count (6) sizes the buffer at compile time."""
    src = MLP_ROWS.replace("affine.for %i = 0 to %n {",
                           "affine.for %i = 0 to min affine_map<()[s0] -> (s0, 6)>()[%n] {")
    out, remarks = isolate(src)
    assert "6x20" in remarks[-1].message and "memref<6x20xf32>" in out
    for n in (3, 9):
        assert_same_results(src, out, seed=n, sizes=batch_sizes(n), trials=1)


def test_extents():
    src = """func.func @f(%A: memref<?x8xf32>, %m: index) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %A, %c0 : memref<?x8xf32>
  affine.for %i = 0 to %n { }
  affine.for %i = 0 to min affine_map<()[s0] -> (s0, 64)>()[%n] { }
  affine.for %i = 2 to 10 { }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) { }
  }
  affine.for %i = %m to %n { }
  affine.for %i = 0 to min affine_map<()[s0, s1] -> (s0, s1)>()[%n, %m] { }
  return
}"""
    module = mlir.parse_module(src)
    with module.context:
        scope = Scope()
        loops = [o for o in mlir.walk(mlir.functions(module)[0]) if o.name == "affine.for"]
        got = [iteration_extent(lp, scope) for lp in loops]
        got = [None if e is None else (e.lower, e.copies) for e in got]
    # outer loop of the triangle: 8; its inner loop: at most 8; a symbolic lower bound and a
    # several-result bound without a maximum are refused
    assert got == [(0, None), (0, 64), (2, 8), (0, 8), (0, 8), None, None]


# ----------------------------------------------------------------------------- refusals

# A hidden row that carries a value from one batch row to the next (a running maximum over i;
# maxnumf ignores what a fresh buffer holds, which the interpreter makes NaN): each row cannot get
# its own copy.
CARRIED = MLP_ROWS.replace("""      %r = arith.maximumf %s, %z : f32
      affine.store %r, %h[0, %j] : memref<1x20xf32>""", """      %o = affine.load %h[0, %j] : memref<1x20xf32>
      %r = arith.maxnumf %s, %o : f32
      affine.store %r, %h[0, %j] : memref<1x20xf32>""")

# The row buffer allocated before the batch size is read: the new buffer, placed where the old
# one is, could not be sized.
LATE_SIZE = MLP_ROWS.replace("""  %n = memref.dim %X, %c0 : memref<?x12xf32>
  %h = memref.alloc() : memref<1x20xf32>""", """  %h = memref.alloc() : memref<1x20xf32>
  %n = memref.dim %X, %c0 : memref<?x12xf32>""")

# A trip count that is an index argument, not a dimension of the caller's data.
INDEX_BOUND = MLP_ROWS.replace("%Y: memref<?x8xf32>) {", "%Y: memref<?x8xf32>, %m: index) {").replace(
    "affine.for %i = 0 to %n {", "affine.for %i = 0 to %m {")


def refusal(src: str) -> str | None:
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        loop = next(o for o in mlir.walk(fn) if o.name == "affine.for" and constant_bounds(o) is None)
        alloc = next(o for o in mlir.walk(fn) if o.name == "memref.alloc")
        scope = Scope()
        ext = iteration_extent(loop, scope)
        return isolate_products.expansion_refusal(alloc, loop, scope, ext.copies, CPU.sb_budget)


def test_refusals():
    assert refusal(MLP_ROWS) is None
    assert refusal(CARRIED) == "an iteration may read an element it did not write before"
    assert refusal(LATE_SIZE) == "the trip count is not known where the buffer is allocated"
    assert refusal(INDEX_BOUND) == "the trip count is unknown at compile time and not a dimension of an argument"
    tiny = Options(target=TARGETS["cpu"], sb_size=64)
    out, remarks = isolate(MLP_ROWS, tiny)  # one copy (80 bytes) exceeds the budget
    assert "?x20" not in out and not any("expanded" in r.message for r in remarks)
    for src in (CARRIED, LATE_SIZE, INDEX_BOUND):
        out, remarks = isolate(src)
        assert not any("expanded" in r.message for r in remarks), src
        assert_same_results(src, out, seed=7, sizes=batch_sizes(5), trials=1)


# ----------------------------------------------------------------------------- each guard is needed

def carried_results_kept() -> list[str]:
    out, _ = isolate(CARRIED)
    try:
        assert_same_results(CARRIED, out, seed=8, sizes=batch_sizes(5), trials=1)
    except AssertionError as e:
        return [str(e)]
    return []


def late_size_verifies() -> list[str]:
    try:
        isolate(LATE_SIZE)
    except AssertionError as e:
        return [str(e) or "the output does not verify"]
    return []


def index_bound_refused() -> list[str]:
    _, remarks = isolate(INDEX_BOUND)
    return [r.message for r in remarks if "expanded" in r.message]


def copies_cover_the_trip_count() -> list[str]:
    src = MLP_ROWS.replace("affine.for %i = 0 to %n {",
                           "affine.for %i = 0 to min affine_map<()[s0] -> (s0, 6)>()[%n] {")
    try:
        out, _ = isolate(src)
        assert_same_results(src, out, seed=9, sizes=batch_sizes(9), trials=1)
    except Exception as e:  # an out-of-bounds access in the interpreter, or a difference
        return [str(e)]
    return []


MUTANTS = {
    "exposed reads with a symbolic batch": ("exposed_read", lambda *a, **k: False, carried_results_kept),
    "the size where the buffer is allocated": ("size_operands_dominate", lambda *a: True, late_size_verifies),
    "copies counted in an argument's rows": ("argument_extent", lambda loop: list(loop.operands)[0],
                                             index_bound_refused),
    "isl's maximum of the trip count": ("_max_trip_count", lambda loop, scope: 5, copies_cover_the_trip_count),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_guard_is_needed(mutant, monkeypatch):
    name, replacement, check = MUTANTS[mutant]
    assert check() == [], f"{mutant}: the check fails without the mutant"
    monkeypatch.setattr(isolate_products, name, replacement)
    assert check() != [], f"disabling {name} went unnoticed"


# ----------------------------------------------------------------------------- the front door

@needs_runner
def test_the_dynamic_mlp_block_is_bit_exact_with_and_without_the_expansion(monkeypatch):
    """mlp_dynamic_small as torch-mlir printed it, through the front door: with the expansion the
    hidden row becomes ?x32 and both products get rows; against the same pipeline without it
    (one row per product, the numeric switches of framework input on in both), every batch gives
    the same bits."""
    import pathlib

    path = pathlib.Path(__file__).parent.parent / "benchmarks" / "models" / "blocks" / "mlp_dynamic_small.mlir"
    src = path.read_text()
    res = loopopt.optimize(src, target="cpu")
    assert any("expanded per iteration to ?x32" in r.message for r in res.remarks)
    tiles = [r.message for r in res.remarks if r.pass_name == "register-tile" and r.kind == "Passed"]
    assert len(tiles) == 2 and all("one row" not in m for m in tiles), tiles
    monkeypatch.setattr(isolate_products, "argument_extent", lambda loop: None)
    rows1 = loopopt.optimize(src, target="cpu")
    assert not any("expanded" in r.message for r in rows1.remarks if r.pass_name == "isolate-products")
    same_natively(rows1.text, res.text, "mlp_dynamic_small", (1, 4, 7, 33), lambda n: [[n, 16], [n, 16]])


# ----------------------------------------------------------------------------- fuzzing

def _random_dynamic(rng) -> tuple[str, bool]:
    """The fused Linear layers of test_cpu_product_isolation's fuzzer with the reduction length
    dynamic (`0 to memref.dim`): the row buffer's copies are then counted at run time."""
    from test_cpu_product_isolation import _random_fused

    src, covered = _random_fused(rng)
    src = src.replace("memref<12x8xf32>", "memref<12x?xf32>").replace("memref<6x8xf32>", "memref<6x?xf32>")
    src = src.replace("  %t = memref.alloc()", "  %c1 = arith.constant 1 : index\n"
                      "  %n = memref.dim %W, %c1 : memref<12x?xf32>\n  %t = memref.alloc()")
    src = src.replace("  affine.for %k = 0 to 8 {", "  affine.for %k = 0 to %n {")
    return src, covered


def test_dynamic_expansion_is_fuzzed_against_what_each_iteration_reads_and_writes():
    import random

    import numpy as np

    from loopopt.testing import make_inputs, run_on_inputs

    rng = random.Random(26)
    expanded = refused = 0
    for _ in range(40):
        src, covered = _random_dynamic(rng)
        out, remarks = isolate(src)
        did = any("expanded per iteration to ?x" in r.message for r in remarks)
        expanded += did
        refused += not covered
        assert not (did and not covered), src
        for n in (1, 5):
            sizes = {"arg0": (12, n), "arg1": (6, n)}
            a = run_on_inputs(src, "f", make_inputs(src, "f", n, sizes=sizes))
            b = run_on_inputs(out, "f", make_inputs(out, "f", n, sizes=sizes))
            assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b)), src
    assert expanded >= 8 and refused >= 8, (expanded, refused)
