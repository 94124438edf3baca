"""Loop tiling: strip-mining shapes, the seed's GCD tile factor and remark, the tile=N pass.

Each test checks the output IR, that stock mlir-opt accepts it, and that the interpreter gives
the same results before and after.
"""
from __future__ import annotations

import re

import pytest

from loopopt.analysis.loops import perfect_nest
from loopopt.mlir import parse_module, print_module, walk
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.transforms.tiling import (STOP_NOTHING_TO_TILE, STOP_TILE_ORDER, gcd_tile_factor, gcd_tiling,
                                       loop_tiling, partition_extent, tile_pass, tiling_violation)

needs_mlir_opt = pytest.mark.skipif(find_tool("mlir-opt") is None, reason="mlir-opt 22 not installed")
CPU = Options(target=TARGETS["cpu"])


def loops(m):
    return [o for o in walk(m.operation) if o.name == "affine.for"]


def headers(text: str) -> list[str]:
    """The affine.for lines of printed IR, stripped."""
    return [ln.strip() for ln in text.splitlines() if "affine.for" in ln]


def check(before: str, after: str, sizes=None, allow_zero=False) -> None:
    if find_tool("mlir-opt") is not None:
        assert verify_with_mlir_opt(after) is None, after
    assert_same_results(before, after, sizes=sizes, allow_zero=allow_zero)


ONE_D = """
func.func @f(%a: memref<400xf32>, %b: memref<400xf32>) {
  %c = arith.constant 3.0 : f32
  affine.for %i = LB to UB STEP {
    %x = affine.load %a[%i] : memref<400xf32>
    %y = arith.mulf %x, %c : f32
    affine.store %y, %b[%i] : memref<400xf32>
  }
  return
}
"""


def one_d(lb: int, ub: int, step: int = 1) -> str:
    return ONE_D.replace("LB", str(lb)).replace("UB", str(ub)).replace("STEP", f"step {step}" if step > 1 else "")


def test_dividing_constant_trip_count_gets_a_normalised_point_loop():
    src = one_d(0, 384)
    m = parse_module(src)
    tile, point = loop_tiling(loops(m)[0], 128)
    out = print_module(m)
    assert headers(out) == ["affine.for %arg2 = 0 to 384 step 128 {", "affine.for %arg3 = 0 to 128 {"]
    # the old IV became point + tile inside the access maps (no affine.apply, the nest stays perfect)
    assert "affine.load %arg0[%arg3 + %arg2]" in out and "affine.apply" not in out
    check(src, out)


def test_non_dividing_trip_count_uses_a_min_bound():
    src = one_d(0, 10)
    m = parse_module(src)
    loop_tiling(loops(m)[0], 4)
    out = print_module(m)
    assert "affine.for %arg2 = 0 to 10 step 4" in out
    assert re.search(r"affine.for %arg3 = #map\(%arg2\) to min #map1\(%arg2\)", out)
    assert "affine_map<(d0) -> (10, d0 + 4)>" in out or "affine_map<(d0) -> (d0 + 4, 10)>" in out
    check(src, out)


@pytest.mark.parametrize("lb,ub,step", [(2, 20, 3), (1, 20, 3), (5, 6, 1), (3, 3, 1)])
def test_offset_and_step_keep_every_iteration(lb, ub, step):
    src = one_d(lb, ub, step)
    m = parse_module(src)
    tile, point = loop_tiling(loops(m)[0], 2)
    out = print_module(m)
    assert f"step {2 * step}" in out
    check(src, out)


SYMBOLIC = """
func.func @s(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %b[%i] : memref<?xf32>
  }
  return
}
"""


@pytest.mark.parametrize("n", [0, 3, 4, 9])
def test_symbolic_trip_count_tiles_with_min_bounds(n):
    m = parse_module(SYMBOLIC)
    loop_tiling(loops(m)[0], 4)
    out = print_module(m)
    assert "affine.for %arg3 = 0 to %arg2 step 4" in out
    assert "affine_map<(d0)[s0] -> (s0, d0 + 4)>" in out
    check(SYMBOLIC, out, sizes={"n": n, 2: n, "arg0": (max(n, 1),), "arg1": (max(n, 1),)}, allow_zero=True)


def test_iv_used_outside_affine_maps_goes_through_affine_apply():
    src = """
func.func @g(%b: memref<64xi64>) {
  affine.for %i = 0 to 64 {
    %v = arith.index_cast %i : index to i64
    affine.store %v, %b[%i] : memref<64xi64>
  }
  return
}
"""
    m = parse_module(src)
    loop_tiling(loops(m)[0], 8)
    out = print_module(m)
    assert "affine.apply" in out and "affine.store %1, %arg0[%arg2 + %arg1]" in out
    check(src, out)


def test_iv_used_twice_by_one_access_and_by_an_inner_bound():
    src = """
func.func @d(%a: memref<8x8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 8 {
      %x = affine.load %a[%i, %i] : memref<8x8xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %a[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
"""
    m = parse_module(src)
    loop_tiling(loops(m)[0], 4)
    out = print_module(m)
    assert "affine.load %arg0[%arg2 + %arg1, %arg2 + %arg1]" in out
    assert out.count("affine.apply") == 1  # the inner loop's lower bound goes through one apply
    check(src, out)


def test_loop_carrying_values_is_not_tiled():
    src = """
func.func @r(%a: memref<64xf32>, %out: memref<f32>) {
  %z = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to 64 iter_args(%acc = %z) -> (f32) {
    %x = affine.load %a[%i] : memref<64xf32>
    %t = arith.addf %acc, %x : f32
    affine.yield %t : f32
  }
  affine.store %s, %out[] : memref<f32>
  return
}
"""
    m = parse_module(src)
    loop = loops(m)[0]
    assert tiling_violation(loop, 8) == "the loop carries values through iter_args"
    with pytest.raises(ValueError):
        loop_tiling(loop, 8)
    assert print_module(m) == print_module(parse_module(src))


PARTITIONS = """
func.func @p(%a: memref<384x4xf32>, %b: memref<256x4xf32>, %x: memref<384x4xf32>, %y: memref<256x4xf32>) {
  %t = memref.alloc() : memref<384x4xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 4 {
      %v = affine.load %a[%i, %j] : memref<384x4xf32>
      affine.store %v, %t[%i, %j] : memref<384x4xf32>
      affine.store %v, %x[%i, %j] : memref<384x4xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      %u = affine.load %b[%i, %j] : memref<256x4xf32>
      %s = arith.addf %w, %u : f32
      affine.store %s, %y[%i, %j] : memref<256x4xf32>
    }
  }
  memref.dealloc %t : memref<384x4xf32>
  return
}
"""


def test_gcd_tile_factor_of_partition_extents_and_remark():
    m = parse_module(PARTITIONS)
    l1, l2 = [o for o in loops(m) if o.parent.name == "func.func"]
    assert (partition_extent(l1), partition_extent(l2)) == (384, 256)
    assert gcd_tile_factor(l1, l2) == 128
    log = RemarkLog()
    (t1, p1), (t2, p2) = gcd_tiling(l1, l2, log, "p")
    assert log.messages("tiling") == ["[LOOP TILING] by 128"]
    out = print_module(m)
    assert headers(out)[:3] == ["affine.for %arg4 = 0 to 384 step 128 {", "affine.for %arg5 = 0 to 128 {",
                                "affine.for %arg6 = 0 to 4 {"]
    assert "affine.for %arg4 = 0 to 256 step 128 {" in headers(out)
    # both nests now share an inner trip count of 128 on the partition dim
    assert [len(perfect_nest(t)) for t in (t1, t2)] == [3, 3]
    check(PARTITIONS, out)


def test_gcd_of_one_does_not_tile():
    src = PARTITIONS.replace("384", "7").replace("256", "5")
    m = parse_module(src)
    l1, l2 = [o for o in loops(m) if o.parent.name == "func.func"]
    assert gcd_tile_factor(l1, l2) == 1
    log = RemarkLog()
    assert gcd_tiling(l1, l2, log) is None
    assert len(log) == 0 and print_module(m) == print_module(parse_module(src))


def test_partition_extent_is_the_loop_walking_dim_0():
    # The outer loop walks dim 1: the partition loop is the inner one (16 partitions).
    src = """
func.func @c(%a: memref<16x32xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%j, %i] : memref<16x32xf32>
      affine.store %x, %a[%j, %i] : memref<16x32xf32>
    }
  }
  return
}
"""
    m = parse_module(src)
    assert partition_extent(loops(m)[0]) == 16


TWO_D = """
func.func @t(%a: memref<10x12xf32>, %b: memref<10x12xf32>) {
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 12 {
      %x = affine.load %a[%i, %j] : memref<10x12xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %b[%i, %j] : memref<10x12xf32>
    }
  }
  return
}
"""


def test_tile_pass_moves_tile_loops_outside_point_loops():
    m = parse_module(TWO_D)
    log = RemarkLog()
    assert tile_pass(m, CPU, log, 4) == 1
    out = print_module(m)
    h = headers(out)
    assert h[0].startswith("affine.for %arg2 = 0 to 10 step 4") and h[1].startswith("affine.for %arg3 = 0 to 12 step 4")
    assert "min" in h[2]  # 10 is not a multiple of 4
    assert h[3] == "affine.for %arg5 = 0 to 4 {"  # 12 is: normalised point loop
    assert log.messages("tiling") == ["[LOOP TILING] by 4"]
    check(TWO_D, out)


def test_tile_pass_keeps_strip_mined_order_when_hoisting_would_reverse_a_dependence():
    # a[i][j] = a[i-1][j+1]: distance (1, -1); a (tile j, point i) order would run (i, j+1) first.
    src = """
func.func @w(%a: memref<10x12xf32>) {
  affine.for %i = 1 to 10 {
    affine.for %j = 0 to 11 {
      %x = affine.load %a[%i - 1, %j + 1] : memref<10x12xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %a[%i, %j] : memref<10x12xf32>
    }
  }
  return
}
"""
    m = parse_module(src)
    log = RemarkLog()
    tile_pass(m, CPU, log, 4)
    out = print_module(m)
    msgs = log.messages("tiling")
    assert msgs == ["[LOOP TILING] by 4", STOP_TILE_ORDER]
    assert "RAW dependence" in log.remarks[-1].args["detail"]
    h = headers(out)
    assert "step 4" in h[0] and "min" in h[1] and "step 4" in h[2] and "min" in h[3]
    check(src, out)


def test_tile_pass_leaves_loops_no_longer_than_the_tile():
    src = one_d(0, 16)
    m = parse_module(src)
    log = RemarkLog()
    assert tile_pass(m, CPU, log, 32) == 0
    assert log.messages("tiling") == [STOP_NOTHING_TO_TILE]
    assert print_module(m) == print_module(parse_module(src))


@needs_mlir_opt
def test_tiling_agrees_with_mlir_opt_affine_loop_tile():
    """Our tile=4 and mlir-opt's --affine-loop-tile=tile-size=4 compute the same results on a
    symbolic 2-d nest (both are compared to the untiled program)."""
    from loopopt.toolchain import mlir_opt

    src = open("examples/sym_chain_2d.mlir").read()
    theirs = mlir_opt(src, ["--affine-loop-tile=tile-size=4"]).stdout
    m = parse_module(src)
    tile_pass(m, CPU, RemarkLog(), 4)
    ours = print_module(m)
    assert len(headers(ours)) == len(headers(theirs)) == 8
    sizes = {"n": 12, "m": 20, 2: 12, 3: 20}
    check(src, ours, sizes=sizes)
    check(src, theirs, sizes=sizes)
