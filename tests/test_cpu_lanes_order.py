"""Lanes on the loop outside (docs/cpu_codegen.md section 30): a product whose parallel loops run
columns outside rows (C[i, j] = sum_k A[i, k] * WT[k, j] in the order j, i, k, WT materialized by
a transposing copy: what fusion leaves of t5_ffn's `F.linear(x, w * c)`) has the rows loop i
directly around its reduction, whose accesses move by a whole row: the register tile's lanes are
refused. `loop-order` (codegen/cpu/plan/lanes_order.py) moves j, along which every access is
contiguous or invariant, directly around the reduction where the interchange is legal (isl), and
the tile then plans vectors along j and rows along i.

Checked on the plan, the remarks, the interpreter and natively (mlir-runner), bit for bit (only
parallel loops move, each sum keeps its order); the mutation check disables the legality guard
(scripts/mutation_check.py, "lanes order").
"""
from __future__ import annotations

import pytest

import loopopt
from loopopt import mlir, native
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu.loop_order import loop_order_function
from loopopt.codegen.cpu.plan.cpu_plan import plan_register_tiles
from loopopt.codegen.cpu.plan.lanes_order import plan_lanes_order
from loopopt.codegen.cpu.register_tile import register_tile_function
from loopopt.analysis.loops import collect_interchangeable_loops, constant_trip_count
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt

CPU = Options(target=TARGETS["cpu"])
REASSOC = Options(target=TARGETS["cpu"], reassociate=True)
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def outer_lanes_product(m: int = 13, k: int = 37, n: int = 29, dynamic: bool = False, keep: bool = True,
                        natural: bool = False) -> str:
    """C = A . WT with WT[k, j] = W[j, k] copied in the function, the product's loops in the order
    j, i, k (`natural`: i, j, k). `dynamic`: A's and C's rows a run-time size. `keep`: WT also
    read after the product (S = WT * WT), so that fusion's contraction leaves it whole, as the
    buffer t5_ffn reuses for two weights."""
    rows = "?" if dynamic else str(m)
    ta, tw, tc, tt = f"memref<{rows}x{k}xf32>", f"memref<{n}x{k}xf32>", f"memref<{rows}x{n}xf32>", f"memref<{k}x{n}xf32>"
    ub = "%m" if dynamic else str(m)
    dim = f"  %c0 = arith.constant 0 : index\n  %m = memref.dim %A, %c0 : {ta}\n" if dynamic else ""
    outer, inner = (("%i", ub), ("%j", n)) if natural else (("%j", n), ("%i", ub))
    sarg = f", %S: {tt}" if keep else ""
    tail = f"""  affine.for %kk = 0 to {k} {{
    affine.for %j = 0 to {n} {{
      %t = affine.load %WT[%kk, %j] : {tt}
      %t2 = arith.mulf %t, %t : f32
      affine.store %t2, %S[%kk, %j] : {tt}
    }}
  }}
""" if keep else ""
    return f"""func.func @k(%A: {ta}, %W: {tw}, %C: {tc}{sarg}) {{
  %z = arith.constant 0.0 : f32
{dim}  %WT = memref.alloc() {{alignment = 64 : i64}} : {tt}
  affine.for %j = 0 to {n} {{
    affine.for %kk = 0 to {k} {{
      %w = affine.load %W[%j, %kk] : {tw}
      affine.store %w, %WT[%kk, %j] : {tt}
    }}
  }}
  affine.for {outer[0]} = 0 to {outer[1]} {{
    affine.for {inner[0]} = 0 to {inner[1]} {{
      %r = affine.for %kk = 0 to {k} iter_args(%acc = %z) -> (f32) {{
        %a = affine.load %A[%i, %kk] : {ta}
        %b = affine.load %WT[%kk, %j] : {tt}
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C[%i, %j] : {tc}
    }}
  }}
{tail}  memref.dealloc %WT : {tt}
  return
}}
"""


def skewed_product(m: int = 13, k: int = 37, n: int = 29) -> str:
    """The same order, each sum starting from C[i + 1, j - 1]: iteration (j, i) reads what
    (j - 1, i + 1) wrote, which runs after it in the order i, j: the interchange would reverse
    that dependence and is refused."""
    ta, tw, tc = f"memref<{m}x{k}xf32>", f"memref<{k}x{n}xf32>", f"memref<{m}x{n}xf32>"
    return f"""func.func @k(%A: {ta}, %WT: {tw}, %C: {tc}) {{
  affine.for %j = 1 to {n} {{
    affine.for %i = 0 to {m - 1} {{
      %c = affine.load %C[%i + 1, %j - 1] : {tc}
      %r = affine.for %kk = 0 to {k} iter_args(%acc = %c) -> (f32) {{
        %a = affine.load %A[%i, %kk] : {ta}
        %b = affine.load %WT[%kk, %j] : {tw}
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }}
      affine.store %r, %C[%i, %j] : {tc}
    }}
  }}
  return
}}
"""


def chained_product(m: int = 13, k: int = 37, n: int = 29) -> str:
    """Each sum starting from the column before, C[i, j - 1]: the interchange is legal, but j,
    moved directly around the reduction, carries that dependence: its iterations may not be
    lanes run together, and the band keeps its order."""
    return skewed_product(m + 1, k, n).replace("%C[%i + 1, %j - 1]", "%C[%i, %j - 1]")


def batched_product(b: int = 3, m: int = 7, k: int = 11, n: int = 21) -> str:
    """A batch of products in the order b, j, i, k: j moves to the innermost place of the band
    (b, i, j), the batch stays outermost."""
    ta, tw, tc = f"memref<{b}x{m}x{k}xf32>", f"memref<{b}x{k}x{n}xf32>", f"memref<{b}x{m}x{n}xf32>"
    return f"""func.func @k(%A: {ta}, %B: {tw}, %C: {tc}) {{
  %z = arith.constant 0.0 : f32
  affine.for %bb = 0 to {b} {{
    affine.for %j = 0 to {n} {{
      affine.for %i = 0 to {m} {{
        %r = affine.for %kk = 0 to {k} iter_args(%acc = %z) -> (f32) {{
          %a = affine.load %A[%bb, %i, %kk] : {ta}
          %w = affine.load %B[%bb, %kk, %j] : {tw}
          %p = arith.mulf %a, %w : f32
          %s = arith.addf %acc, %p : f32
          affine.yield %s : f32
        }}
        affine.store %r, %C[%bb, %i, %j] : {tc}
      }}
    }}
  }}
  return
}}
"""


def order_and_tile(src: str, options: Options = CPU, report_refusals: bool = True) -> tuple[str, list, list]:
    """(text after loop-order and register-tile, loop-order's remarks, register-tile's remarks)."""
    module = mlir.parse_module(src)
    log, tlog = RemarkLog(), RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            loop_order_function(fn, options, log, "t.mlir", report_refusals=report_refusals)
            register_tile_function(fn, options, tlog, "t.mlir")
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), list(log), list(tlog)


def lanes_plans(src: str, options: Options = CPU) -> list:
    """plan_lanes_order of every band of two or more loops ending above an inner nest."""
    from loopopt.codegen.cpu.loop_order import _lanes_tops

    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        facts = Facts()
        return [plan_lanes_order(collect_interchangeable_loops(top), facts, options) for top in _lanes_tops(fn)]


def tiles(src: str, options: Options = CPU) -> list:
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        return [(p.refusal.code if p.refusal else None, p.width, p.rows) for p in plan_register_tiles(fn, Facts(), options)]


# ----------------------------------------------------------------------------- the plan

def test_columns_outside_rows_move_the_columns_directly_around_the_reduction():
    src = outer_lanes_product(keep=False)
    plan, = [p for p in lanes_plans(src) if p is not None]
    assert plan.order == (1, 0) and plan.lanes == 0 and plan.refusal is None and plan.changes
    assert "moves by [1, 0] elements per iteration" in plan.lanes_why
    (code, width, rows), = tiles(src)  # before: scalar copies
    assert code is None and width == 1
    out, remarks, tremarks = order_and_tile(src)
    assert [r.kind for r in remarks] == ["Passed"]
    assert remarks[0].message.startswith("[LOOP ORDER] 1:0: lanes along the loop at t.mlir:")
    assert "lanes refused: affine.load at " in remarks[0].message
    assert [r.kind for r in tremarks] == ["Passed"] and "vector accumulators (vector<" in tremarks[0].message
    assert "vector<" in out
    assert_same_results(src, out, seed=3)  # each sum in its order: bit for bit
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(out) is None


def test_after_the_reorder_the_tile_has_lanes_along_columns_and_rows_along_rows():
    src = outer_lanes_product(m=77, k=64, n=96, keep=False)
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        loop_order_function(fn, CPU, RemarkLog(), "t.mlir")
        plan, = plan_register_tiles(fn, Facts(), CPU)
        assert plan.refusal is None and plan.width > 1 and plan.rows > 1
        assert constant_trip_count(plan.loop) == 96 and constant_trip_count(plan.rows_loop) == 77


def test_the_natural_order_and_a_product_without_contiguous_lanes_are_left_alone():
    assert [p for p in lanes_plans(outer_lanes_product(natural=True, keep=False)) if p is not None] == []
    # C = A . B^T with B read by rows (B[j, k]): along j, B moves by a row too: no loop has lanes
    nt = outer_lanes_product(keep=False).replace("%WT[%kk, %j] : memref<37x29xf32>\n        %p",
                                                 "%W[%j, %kk] : memref<29x37xf32>\n        %p")
    assert [p for p in lanes_plans(nt) if p is not None] == []
    out, remarks, _ = order_and_tile(nt)
    assert remarks == []


def test_a_reorder_that_would_reverse_a_dependence_is_refused_and_named():
    src = skewed_product()
    plan, = [p for p in lanes_plans(src) if p is not None]
    assert plan.refusal is not None and not plan.changes
    assert plan.refusal.code.name == "INTERCHANGE_DEPENDENCE"
    out, remarks, _ = order_and_tile(src)
    assert [r.kind for r in remarks] == ["Missed"]
    assert remarks[0].message.startswith("[STOP LOOP ORDER] lanes along the loop at t.mlir:")
    assert remarks[0].message.endswith("the order would reverse a dependence")
    assert_same_results(src, out, seed=7)
    _, quiet, _ = order_and_tile(src, report_refusals=False)  # the default pipeline says nothing
    assert quiet == []


def test_a_loop_that_would_carry_a_dependence_around_the_reduction_keeps_the_order():
    from loopopt.codegen.cpu.plan.lanes_order import LanesCode

    src = chained_product()
    plan, = [p for p in lanes_plans(src) if p is not None]
    assert plan.refusal is not None and plan.refusal.code is LanesCode.CARRIED and not plan.changes
    out, remarks, _ = order_and_tile(src)
    assert [r.message.split(" (")[0].split(": ", 1)[1] for r in remarks] == \
        ["the loop carries a dependence directly around the reduction"]
    assert remarks[0].message.startswith("[STOP LOOP ORDER] lanes along the loop at t.mlir:")
    assert_same_results(src, out, seed=8)


def test_a_batch_keeps_its_loop_outermost():
    src = batched_product()
    plan, = [p for p in lanes_plans(src) if p is not None]
    assert plan.order == (0, 2, 1) and plan.changes
    out, remarks, tremarks = order_and_tile(src)
    assert remarks[0].message.startswith("[LOOP ORDER] 0:2:1:")
    assert "vector accumulators" in tremarks[0].message
    assert_same_results(src, out, seed=9)


def test_rows_of_run_time_size():
    src = outer_lanes_product(dynamic=True, keep=False)
    plan, = [p for p in lanes_plans(src) if p is not None]
    assert plan.changes
    out, remarks, tremarks = order_and_tile(src)
    assert remarks[0].message.startswith("[LOOP ORDER] 1:0:")
    assert "vector accumulators" in tremarks[0].message
    assert_same_results(src, out, seed=11)


# ----------------------------------------------------------------------------- the default pipeline, natively

@has_runner
@pytest.mark.parametrize("sizes,dynamic", [((13, 37, 29), False), ((9, 53, 21), True)])
@pytest.mark.parametrize("reassociate", [False, True])
def test_the_default_pipeline_natively_bit_for_bit(sizes, dynamic, reassociate):
    src = outer_lanes_product(*sizes, dynamic=dynamic)
    res = loopopt.optimize(src, target="cpu", reassociate=reassociate)
    order = [r for r in res.remarks if r.pass_name == "loop-order"]
    assert [r.kind for r in order] == ["Passed"] and order[0].message.startswith("[LOOP ORDER] 1:0: lanes along")
    tile = [r for r in res.remarks if r.pass_name == "register-tile" and r.kind == "Passed"]
    assert tile and "vector accumulators" in tile[0].message
    if not dynamic:
        assert_same_results(src, res.text, seed=2)
    m, k, n = sizes
    args = [[m, k], None, [m, n], None] if dynamic else [None] * 4
    a = native.run_native(src, "k", args, reps=1)
    b = native.run_native(res.text, "k", args, reps=1)
    assert native.compare_outputs(a.outputs, b.outputs) is None


@has_runner
def test_the_refused_reorder_natively():
    src = skewed_product(m=9, k=53, n=21)
    res = loopopt.optimize(src, target="cpu")
    assert not any(r.message.startswith("[LOOP ORDER]") for r in res.remarks)
    a = native.run_native(src, "k", [None] * 3, reps=1)
    b = native.run_native(res.text, "k", [None] * 3, reps=1)
    assert native.compare_outputs(a.outputs, b.outputs) is None
