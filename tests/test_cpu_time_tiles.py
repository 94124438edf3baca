"""Issue 35, bit-exact affine input: a stencil's time loop tiled with its sweeps
(codegen/cpu/plan/time_tiles.py, codegen/cpu/time_tiles.py).

Every rewrite is checked on its IR and bit for bit, in the reference interpreter and natively
with mlir-runner: jacobi_1d's two half steps (skewed by 1), an in-place Gauss-Seidel sweep, a
double buffer indexed by `t mod 2`, symbolic sizes with trip counts 0, 1 and a few, small tiles
forced so that many tiles meet. The refusals leave the loops as they were: a dependence no skew
turns forward (every point reads the last element of the previous step), a time loop that
carries nothing, arrays that fit in L2. The legality guard is shown to be needed: without it the
dependent program computes other results.
"""
from __future__ import annotations

import functools
import pytest

from loopopt import mlir
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu import time_tiles
from loopopt.codegen.cpu.plan import time_tiles as plan_mod
from loopopt.codegen.cpu.plan.time_tiles import MAX_OUTER_LOOPS, TimeCode, plan_time_tiles
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results, native_mismatch
from loopopt.toolchain import find_tool

CPU = Options(target=TARGETS["cpu"], vector_bits=256)
SMALL_L2 = Options(target=TARGETS["cpu"], vector_bits=256, sb_size=1024)
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def jacobi(n: int | None = 4096, steps: int | None = 10) -> str:
    """jacobi_1d's time loop (A -> B, B -> A); `None`: that size symbolic (an index argument)."""
    ty = f"memref<{n if n is not None else '?'}xf32>"
    args = ([] if n is not None else ["%n: index"]) + ([] if steps is not None else ["%steps: index"])
    hi = f"{n - 1}" if n is not None else "affine_map<()[s0] -> (s0 - 1)>()[%n]"
    tsteps = str(steps) if steps is not None else "%steps"
    sweep = lambda src, dst: f"""    affine.for %i = 1 to {hi} {{
      %l = affine.load {src}[%i - 1] : {ty}
      %c = affine.load {src}[%i] : {ty}
      %r = affine.load {src}[%i + 1] : {ty}
      %s0 = arith.addf %l, %c : f32
      %s = arith.addf %s0, %r : f32
      %v = arith.mulf %third, %s : f32
      affine.store %v, {dst}[%i] : {ty}
    }}
"""  # noqa: E731
    return f"""func.func @k({', '.join(args + [f'%A: {ty}', f'%B: {ty}'])}) {{
  %third = arith.constant 0.333333343 : f32
  affine.for %t = 0 to {tsteps} {{
{sweep('%A', '%B')}{sweep('%B', '%A')}  }}
  return
}}
"""


GAUSS_SEIDEL = """func.func @k(%A: memref<20000xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %t = 0 to 12 {
    affine.for %i = 1 to 19999 {
      %l = affine.load %A[%i - 1] : memref<20000xf32>
      %c = affine.load %A[%i] : memref<20000xf32>
      %r = affine.load %A[%i + 1] : memref<20000xf32>
      %s0 = arith.addf %l, %c : f32
      %s = arith.addf %s0, %r : f32
      %v = arith.mulf %third, %s : f32
      affine.store %v, %A[%i] : memref<20000xf32>
    }
  }
  return
}
"""

# Two planes of one buffer, the step t reading plane t mod 2 and writing the other.
DOUBLE_BUFFER = """func.func @k(%A: memref<2x20000xf32>) {
  %half = arith.constant 0.5 : f32
  affine.for %t = 0 to 9 {
    affine.for %i = 1 to 19999 {
      %l = affine.load %A[%t mod 2, %i - 1] : memref<2x20000xf32>
      %r = affine.load %A[%t mod 2, %i + 1] : memref<2x20000xf32>
      %s = arith.addf %l, %r : f32
      %v = arith.mulf %half, %s : f32
      affine.store %v, %A[(%t + 1) mod 2, %i] : memref<2x20000xf32>
    }
  }
  return
}
"""

# Every point of a step reads the last point of the step before: no skew turns that forward.
LAST_POINT = """func.func @k(%A: memref<65536xf32>, %B: memref<65536xf32>) {
  affine.for %t = 0 to 6 {
    affine.for %i = 0 to 65535 {
      %a = affine.load %A[%i] : memref<65536xf32>
      %l = affine.load %A[65535] : memref<65536xf32>
      %s = arith.addf %a, %l : f32
      affine.store %s, %B[%i] : memref<65536xf32>
    }
    affine.for %i = 1 to 65536 {
      %b = affine.load %B[%i - 1] : memref<65536xf32>
      affine.store %b, %A[%i] : memref<65536xf32>
    }
  }
  return
}
"""

ELEMENTWISE = """func.func @k(%A: memref<2048x2048xf32>, %B: memref<2048x2048xf32>) {
  affine.for %r = 0 to 2048 {
    affine.for %c = 0 to 2048 {
      %a = affine.load %A[%r, %c] : memref<2048x2048xf32>
      %s = arith.addf %a, %a : f32
      affine.store %s, %B[%r, %c] : memref<2048x2048xf32>
    }
  }
  return
}
"""


def tile(src: str, options: Options = SMALL_L2, explicit: bool = True) -> tuple[str, list]:
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            time_tiles.time_tiles_function(fn, options, log, "t.mlir", report_refusals=explicit)
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), list(log)


def plan_of(src: str, options: Options = SMALL_L2):
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        loop = time_tiles_candidates(fn)[0]
        return plan_time_tiles(loop, Facts(), options)


def time_tiles_candidates(fn):
    return plan_mod.candidates(fn)


@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles of 3 time steps x 64 points (a tile's bytes and rows as small as allowed), so that a
    test-sized array meets many tiles and their edges."""
    monkeypatch.setattr(plan_mod, "MAX_TIME_BLOCK", 3)
    monkeypatch.setattr(plan_mod, "TILE_BYTES", 64 * 8 + 48)
    monkeypatch.setattr(plan_mod, "MIN_WIDTH", 64)


# every element compared (outputs up to 2^20 elements), no warm-up call
same_natively = functools.partial(native_mismatch, warmup=0, full_limit=1 << 20)


# ----------------------------------------------------------------------------- the rewrite

def test_jacobi_is_tiled_with_a_skew_of_one_and_l1_sized_tiles():
    out, remarks = tile(jacobi(1048576, 100), CPU)
    (r,) = remarks
    assert r.message == ("[TIME TILING] 2 sweep(s) in tiles of 64 time steps x 2048 points, skewed by 1: each "
                         "tile's data stays in L1 across its time steps")
    assert r.args == {"sweeps": 2, "skew": 1, "time_block": 64, "width": 2048}
    heads = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("affine.for")]
    assert heads[0] == "affine.for %arg2 = 0 to 100 step 64 {"
    assert heads[1].endswith("step 2048 {") and heads[2].startswith("affine.for %arg4 = #map")
    assert len(heads) == 5 and "max" in heads[3] and "min" in heads[4]


def test_jacobi_keeps_every_bit_in_the_interpreter(small_tiles):
    src = jacobi(700, 8)
    out, remarks = tile(src)
    assert remarks[0].args["time_block"] == 3 and remarks[0].args["width"] == 64
    assert_same_results(src, out)


@has_runner
def test_jacobi_keeps_every_bit_natively(small_tiles):
    src = jacobi(5000, 11)
    out, remarks = tile(src)
    assert remarks[0].message.startswith("[TIME TILING]")
    assert same_natively(src, out, [None, None]) is None


@has_runner
@pytest.mark.parametrize("n,steps", [(0, 3), (1, 3), (2, 3), (3, 0), (3, 1), (130, 1), (130, 2), (517, 7)])
def test_symbolic_sizes_with_trip_counts_zero_and_one_keep_every_bit(small_tiles, n, steps):
    src = jacobi(None, None)
    out, remarks = tile(src)
    assert remarks[0].message.startswith("[TIME TILING]"), remarks
    assert same_natively(src, out, [n, steps, [max(n, 1)], [max(n, 1)]]) is None


def test_an_in_place_sweep_is_tiled_with_a_skew_and_keeps_every_bit(small_tiles):
    out, remarks = tile(GAUSS_SEIDEL)
    assert remarks[0].args["skew"] == 1, remarks[0].message
    assert_same_results(GAUSS_SEIDEL, out)


def test_a_double_buffer_indexed_by_the_step_keeps_every_bit(small_tiles):
    out, remarks = tile(DOUBLE_BUFFER)
    assert remarks[0].message.startswith("[TIME TILING]") and remarks[0].args["skew"] == 1
    assert_same_results(DOUBLE_BUFFER, out)


@has_runner
def test_the_in_place_and_double_buffer_stencils_keep_every_bit_natively(small_tiles):
    for src in (GAUSS_SEIDEL, DOUBLE_BUFFER):
        out, _ = tile(src)
        assert same_natively(src, out, [None]) is None


# ----------------------------------------------------------------------------- refusals

def test_a_dependence_no_skew_turns_forward_is_refused():
    plan = plan_of(LAST_POINT)
    assert plan.refusal is not None and plan.refusal.code is TimeCode.CARRIED, plan
    assert "with every skew up to 4" in plan.refusal.detail
    out, remarks = tile(LAST_POINT, explicit=False)  # a stencil refused: said by default
    assert remarks and remarks[0].message == TimeCode.CARRIED.message
    assert "step" not in out.split("affine.for %arg2 = 0 to 6")[0]


def test_loops_that_carry_nothing_or_fit_in_l2_are_left_quietly():
    assert plan_of(ELEMENTWISE).refusal.code is TimeCode.NO_REUSE
    assert plan_of(jacobi(4096, 10), CPU).refusal.code is TimeCode.FITS
    for src, opts in ((ELEMENTWISE, SMALL_L2), (jacobi(4096, 10), CPU)):
        out, remarks = tile(src, opts, explicit=False)
        assert remarks == [] and " step " not in out
        _, remarks = tile(src, opts, explicit=True)
        assert remarks[0].message.startswith("[STOP TIME TILING]")


def test_a_sweep_whose_bounds_move_with_time_is_refused():
    src = jacobi(4096, 10).replace("affine.for %i = 1 to 4095 {", "affine.for %i = 1 to affine_map<(d0) -> (d0 + 4000)>(%t) {")
    assert src.count("(d0 + 4000)") == 2  # both sweeps alike: their bounds agree with each other
    assert plan_of(src).refusal.code is TimeCode.BOUNDS


def test_the_legality_guard_is_needed(monkeypatch, small_tiles):
    """Without the check of the tiled order, the unskewed tiles of jacobi and of the program
    that reads the last point compute other results."""
    monkeypatch.setattr(plan_mod, "tiling_violation", lambda *a: None)
    for src in (jacobi(700, 8), LAST_POINT.replace("65536", "700").replace("65535", "699")):
        out, remarks = tile(src)
        assert remarks[0].args["skew"] == 0
        with pytest.raises(AssertionError):
            assert_same_results(src, out)


def _in_loops(src: str, depth: int) -> str:
    """jacobi's time loop inside `depth` unit loops around it."""
    head, body = src.split("{\n", 1)
    body, tail = body.rsplit("  return", 1)
    opens = "".join(f"  affine.for %o{k} = 0 to 1 {{\n" for k in range(depth))
    return head + "{\n" + opens + body + "  }\n" * depth + "  return" + tail


def test_a_time_loop_nested_deeper_than_the_dependence_test_takes_is_refused_by_name():
    """Eight loops around the time loop are tiled as at the top; nine are refused by name (each
    loop around is two more dimensions of every isl set: a time loop at the bottom of a 500-deep
    nest took 2.5 s for one emptiness test)."""
    out, remarks = tile(_in_loops(jacobi(700, 8), MAX_OUTER_LOOPS))
    assert [r.message for r in remarks if "TIME TILING] " in r.message and "STOP" not in r.message], remarks
    assert_same_results(_in_loops(jacobi(700, 8), MAX_OUTER_LOOPS), out)
    out, remarks = tile(_in_loops(jacobi(700, 8), MAX_OUTER_LOOPS + 1))
    assert [r.message for r in remarks] == [TimeCode.DEEP.message], remarks
    assert f"{MAX_OUTER_LOOPS + 1} loops around it, at most {MAX_OUTER_LOOPS}" in remarks[0].render()
