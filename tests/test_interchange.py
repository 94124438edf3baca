"""Loop interchange: the permutable set, each legality rule and remark, and seed 003's tiled
symbolic nests (never invalid IR). Each applied interchange is checked for IR shape, mlir-opt
validity and unchanged interpreter results."""
from __future__ import annotations

import itertools

import pytest

from loopopt.analysis.affine import Scope
from loopopt.analysis.legality import permutation_violation
from loopopt.analysis.loops import perfect_nest
from loopopt.mlir import parse_module, print_module, walk
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, mlir_opt, verify_with_mlir_opt
from loopopt.transforms.interchange import (NOT_ON_PARTITION_DIM, STOP_BAD_PERM, STOP_BOUNDS, STOP_DEPENDENCE,
                                            STOP_ITER_ARGS, STOP_NOT_PERFECT, check_loop_interchange,
                                            collect_interchangeable_loops, interchange_pass, loop_interchange,
                                            parse_permutation)
from loopopt.transforms.tiling import gcd_tiling, tile_pass

needs_mlir_opt = pytest.mark.skipif(find_tool("mlir-opt") is None, reason="mlir-opt 22 not installed")
CPU = Options(target=TARGETS["cpu"])
TRN1 = Options(target=TARGETS["trn1"])


def top_loops(m):
    return [o for o in walk(m.operation) if o.name == "affine.for" and o.parent.name == "func.func"]


def headers(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if "affine.for" in ln]


def check(before: str, after: str, sizes=None) -> None:
    if find_tool("mlir-opt") is not None:
        assert verify_with_mlir_opt(after) is None, after
    assert_same_results(before, after, sizes=sizes)


def interchanged(src: str, perm, options=CPU) -> tuple[str, object]:
    """Check then (if legal) apply `perm` to the first top-level nest; (printed IR, reason)."""
    m = parse_module(src)
    nest = collect_interchangeable_loops(top_loops(m)[0])[:len(perm)]
    why = check_loop_interchange(nest, perm, Scope(), options)
    if why is None:
        loop_interchange(nest, perm)
    return print_module(m), why


COLMAJOR = open("examples/interchange_colmajor.mlir").read()

SKEWED = """
func.func @skew(%a: memref<10x12xf32>) {
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


def test_collect_interchangeable_loops_is_the_perfect_nest():
    src = """
func.func @n(%a: memref<4x5x6xf32>, %s: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 5 {
      affine.for %k = 0 to 6 {
        %x = affine.load %a[%i, %j, %k] : memref<4x5x6xf32>
        affine.store %x, %a[%i, %j, %k] : memref<4x5x6xf32>
      }
    }
  }
  affine.for %i = 0 to 4 {
    %r = affine.for %j = 0 to 5 iter_args(%acc = %z) -> (f32) {
      %x = affine.load %a[%i, %j, 0] : memref<4x5x6xf32>
      %t = arith.addf %acc, %x : f32
      affine.yield %t : f32
    }
    affine.store %r, %s[%i] : memref<4xf32>
  }
  return
}
"""
    m = parse_module(src)
    first, second = top_loops(m)
    assert len(collect_interchangeable_loops(first)) == 3
    assert collect_interchangeable_loops(second) == [second]  # the body is two ops: not perfect below i


def test_legal_interchange_swaps_the_nest():
    out, why = interchanged(COLMAJOR, [1, 0], TRN1)
    assert why is None
    assert headers(out) == ["affine.for %arg2 = 0 to 16 {", "affine.for %arg3 = 0 to 32 {"]
    assert "affine.load %arg0[%arg2, %arg3]" in out
    check(COLMAJOR, out)


def test_reversed_dependence_is_refused():
    out, why = interchanged(SKEWED, [1, 0])
    assert why is not None and why.message == STOP_DEPENDENCE
    assert "RAW dependence" in why.detail and "iteration (" in why.detail
    assert print_module(parse_module(SKEWED)) == out
    # The check is not vacuous: forcing the swap really changes the results.
    m = parse_module(SKEWED)
    loop_interchange(perfect_nest(top_loops(m)[0]), [1, 0])
    with pytest.raises(AssertionError):
        assert_same_results(SKEWED, print_module(m))


def test_not_on_partition_dim_on_a_partitioned_target():
    # Moving %j outermost: it indexes dim 1 only, so a Neuron target refuses with the seed's text.
    src = COLMAJOR.replace("%a[%j, %i]", "%a[%i, %j]").replace("%out[%j, %i]", "%out[%i, %j]") \
        .replace("memref<16x32xf32>", "memref<32x16xf32>")
    out, why = interchanged(src, [1, 0], TRN1)
    assert why is not None and why.message == NOT_ON_PARTITION_DIM == "invalid b/c not on partition dim"
    # The cpu target has no partition dim: the same interchange is legal there.
    out, why = interchanged(src, [1, 0], CPU)
    assert why is None
    check(src, out)


def test_full_iteration_vector_not_pairwise_signs():
    # Distance (1, -1, 0): swapping the two inner loops gives (1, 0, -1), still carried by %i, so it
    # is legal, although the (j, k) pair alone has a negative sign. Swapping i and j is not.
    src = """
func.func @d(%a: memref<8x8x8xf32>) {
  affine.for %i = 1 to 8 {
    affine.for %j = 0 to 7 {
      affine.for %k = 0 to 8 {
        %x = affine.load %a[%i - 1, %j + 1, %k] : memref<8x8x8xf32>
        %y = arith.addf %x, %x : f32
        affine.store %y, %a[%i, %j, %k] : memref<8x8x8xf32>
      }
    }
  }
  return
}
"""
    out, why = interchanged(src, [0, 2, 1])
    assert why is None
    assert headers(out)[1].startswith("affine.for %arg2 = 0 to 8")
    check(src, out)
    out, why = interchanged(src, [1, 0, 2])
    assert why is not None and why.message == STOP_DEPENDENCE
    out, why = interchanged(src, [2, 0, 1])
    assert why is None  # k outermost: (0, 1, -1) -> distance along (k, i, j) is (0, 1, -1)
    check(src, out)


def test_bounds_using_an_outer_iv_pin_the_order():
    src = """
func.func @tri(%a: memref<8x8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 8 {
      %x = affine.load %a[%i, %j] : memref<8x8xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %a[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
"""
    out, why = interchanged(src, [1, 0])
    assert why is not None and why.message == STOP_BOUNDS
    assert "would move inside it" in why.detail
    m = parse_module(src)
    with pytest.raises(ValueError):
        loop_interchange(perfect_nest(top_loops(m)[0]), [1, 0])
    assert print_module(m) == print_module(parse_module(src))


def test_bad_permutation_imperfect_nest_and_iter_args_are_refused():
    m = parse_module(COLMAJOR)
    nest = perfect_nest(top_loops(m)[0])
    assert check_loop_interchange(nest, [0, 0]).message == STOP_BAD_PERM
    assert check_loop_interchange(nest[:1] + nest[:1], [1, 0]).message == STOP_NOT_PERFECT
    # A value-carrying inner loop (a running sum stored each step) is the only op of the outer body.
    src = """
func.func @r(%a: memref<4x5xf32>, %s: memref<4x5xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %j = 0 to 5 {
    %r = affine.for %i = 0 to 4 iter_args(%acc = %z) -> (f32) {
      %x = affine.load %a[%i, %j] : memref<4x5xf32>
      %t = arith.addf %acc, %x : f32
      affine.store %t, %s[%i, %j] : memref<4x5xf32>
      affine.yield %t : f32
    }
  }
  return
}
"""
    m = parse_module(src)
    outer = top_loops(m)[0]
    band = perfect_nest(outer)
    assert len(band) == 2 and collect_interchangeable_loops(outer) == [outer]
    assert check_loop_interchange(band, [1, 0]).message == STOP_ITER_ARGS
    with pytest.raises(ValueError):
        loop_interchange(band, [1, 0])


def test_parse_permutation_spellings():
    assert parse_permutation("1:0") == [1, 0]
    assert parse_permutation("2,0,1") == [2, 0, 1]
    for bad in ("1", "0:0", "a:b", "0:2"):
        with pytest.raises(ValueError):
            parse_permutation(bad)


def test_interchange_pass_remarks():
    src = COLMAJOR + SKEWED.replace("@skew", "@skew2")
    m = parse_module(src)
    log = RemarkLog()
    assert interchange_pass(m, CPU, log, "1:0") == 1
    assert log.messages("interchange") == ["[LOOP INTERCHANGE] 1:0", STOP_DEPENDENCE]
    assert log.remarks[1].function == "skew2"
    check(src, print_module(m))


def test_gcd_tiled_partition_loops_move_outermost():
    """The 384/256 shape: after GCD tiling by 128, the 128-partition point loop goes outermost in
    both nests (legal on trn1: it indexes dim 0), so the two nests have equal outer trip counts."""
    src = open("examples/partition_extents.mlir").read()
    m = parse_module(src)
    l1, l2 = top_loops(m)
    gcd_tiling(l1, l2)
    for root in top_loops(m):
        nest = collect_interchangeable_loops(root)
        assert check_loop_interchange(nest, [1, 0, 2], Scope(), TRN1) is None
        loop_interchange(nest, [1, 0, 2])
    out = print_module(m)
    h = headers(out)
    assert h[0] == "affine.for %arg4 = 0 to 128 {" and h[3] == "affine.for %arg4 = 0 to 128 {"
    assert h[1] == "affine.for %arg5 = 0 to 384 step 128 {" and h[4] == "affine.for %arg5 = 0 to 256 step 128 {"
    check(src, out)


# --- Seed 003: interchanging tiled symbolic nests must never produce invalid IR ------------------

def _seed003_tiled() -> str:
    """Seed 003's all-symbolic chain (exp_A) tiled by 4 the way mlir-opt 22 does it."""
    src = open("examples/seed003/exp_A.mlir").read()
    if find_tool("mlir-opt") is not None:
        p = mlir_opt(src, ["--affine-loop-tile=tile-size=4"])
        assert p.returncode == 0, p.stderr
        return p.stdout
    m = parse_module(src)
    tile_pass(m, CPU, RemarkLog(), 4)
    return print_module(m)


SEED003_SIZES = {"n": 4, "m": 6, 2: 4, 3: 6}


def test_seed003_tiled_nest_every_permutation_is_valid_or_refused():
    tiled = _seed003_tiled()
    accepted, refused_bounds = 0, 0
    for perm in itertools.permutations(range(4)):
        perm = list(perm)
        m = parse_module(tiled)
        nest = collect_interchangeable_loops(top_loops(m)[0])
        assert len(nest) == 4
        why = check_loop_interchange(nest, perm, Scope(), CPU)
        if why is not None:
            assert why.message == STOP_BOUNDS, why.text()
            refused_bounds += 1
            with pytest.raises(ValueError):
                loop_interchange(nest, perm)
            continue
        loop_interchange(nest, perm)
        out = print_module(m)
        check(tiled, out, sizes=SEED003_SIZES)
        accepted += 1
    # A point loop may not leave its tile loop: 24 orders, 6 keep both point loops inside their tiles.
    assert (accepted, refused_bounds) == (6, 18)


def test_seed003_point_loops_outside_tile_loops_is_refused():
    """Seed 003: LLVM 18's fusion pass reordered a tiled symbolic nest to (point, point, tile, tile)
    and the point loops' bounds then used tile IVs defined inside them (invalid IR). The same
    reorder is refused here by the bounds rule, before any IR is touched."""
    tiled = _seed003_tiled()
    m = parse_module(tiled)
    nest = collect_interchangeable_loops(top_loops(m)[0])
    why = permutation_violation(nest, [2, 3, 0, 1], Scope())
    assert why is not None and "would move inside it" in why
    with pytest.raises(ValueError):
        loop_interchange(nest, [2, 3, 0, 1])
    assert print_module(m) == print_module(parse_module(tiled))
