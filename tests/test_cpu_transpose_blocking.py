"""Issue 24, locality: transposing copies walk their column access one cache line wide
(codegen/cpu/plan/locality.py plan_transpose_block, codegen/cpu/block_transposes.py).

Each rewrite is checked on its IR and bit for bit (reference interpreter, and natively with
mlir-runner); the refusals (not a copy, a trip count that is not a multiple of a strip, a
reordering that would reverse a dependence) leave the band as it was, and the legality guard is
shown to be needed: without it the dependent band computes other results.
"""
from __future__ import annotations

import pytest

from loopopt import driver, mlir, native
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu.plan.locality import plan_transpose_block
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool
from loopopt.codegen.cpu import block_transposes
from loopopt.codegen.cpu.loop_order import bands
from loopopt.codegen.cpu.block_transposes import tile_order, block_transposes_function

CPU = Options(target=TARGETS["cpu"])
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def transpose(m=64, n=48, elem="f32", store="%dst[%i, %j]", dst_shape=None) -> str:
    """dst[i, j] = src[j, i] (the lowering of linalg.transpose), src m x n... as n x m."""
    dst_shape = dst_shape or f"{m}x{n}"
    return f"""func.func @t(%src: memref<{n}x{m}x{elem}>, %dst: memref<{dst_shape}x{elem}>) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = 0 to {n} {{
      %v = affine.load %src[%j, %i] : memref<{n}x{m}x{elem}>
      affine.store %v, {store} : memref<{dst_shape}x{elem}>
    }}
  }}
  return
}}
"""


def block(src: str, report_refusals: bool = True) -> tuple[str, list[str]]:
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            block_transposes_function(fn, CPU, log, "t.mlir", report_refusals=report_refusals)
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), log.messages()


def plans(src: str):
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        facts = Facts()
        return [plan_transpose_block(b, facts) for b in bands(fn)]


def loop_headers(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("affine.for")]


def test_tile_order_places_the_tile_loops_and_keeps_the_point_loop_innermost():
    assert tile_order(2, 0, False) == [1, 0, 2]  # (i, jt, jp) -> (jt, i, jp)
    assert tile_order(3, 1, False) == [0, 2, 1, 3]
    assert tile_order(3, 0, False) == [2, 0, 1, 3]
    assert tile_order(2, 0, True) == [0, 2, 1, 3]  # (it, ip, jt, jp) -> (it, jt, ip, jp)
    assert tile_order(3, 0, True) == [0, 3, 1, 2, 4]  # (kt, kp, m, it, ip) -> (kt, it, kp, m, ip)
    assert tile_order(3, 1, True) == [0, 1, 3, 2, 4]
    # the innermost loop's tiles outside the level loop's (the shorter sweep inside)
    assert tile_order(2, 0, True, True) == [2, 0, 1, 3]  # (it, ip, jt, jp) -> (jt, it, ip, jp)
    assert tile_order(3, 1, True, True) == [0, 3, 1, 2, 4]  # (b, it, ip, jt, jp) -> (b, jt, it, ip, jp)


def test_the_tile_loop_with_fewer_iterations_runs_inside_and_results_are_kept():
    """A 48 x 128 strip of a transposed weight (the level loop i shorter than the innermost j):
    j's tiles go outside, so one sweep of the inner tile loop touches 48 rows of dst instead of
    128 rows of src; a level loop at least as long keeps its tiles outside. Batched too."""
    src = transpose(m=48, n=128)
    out, remarks = block(src)
    assert loop_headers(out) == ["affine.for %arg2 = 0 to 128 step 16 {", "affine.for %arg3 = 0 to 48 step 16 {",
                                 "affine.for %arg4 = 0 to 16 {", "affine.for %arg5 = 0 to 16 {"], out
    assert "affine.load %arg0[%arg5 + %arg2, %arg4 + %arg3]" in out, out
    assert "the innermost loop's tiles outside" in remarks[0], remarks
    assert_same_results(src, out, seed=5)
    assert [p.inner_tiles_outside for p in plans(transpose(m=128, n=128))] == [False]
    assert [p.inner_tiles_outside for p in plans(transpose(m=128, n=48))] == [False]
    batched = """func.func @t(%src: memref<2x128x32xf32>, %dst: memref<2x32x128xf32>) {
  affine.for %b = 0 to 2 {
    affine.for %i = 0 to 32 {
      affine.for %j = 0 to 128 {
        %v = affine.load %src[%b, %j, %i] : memref<2x128x32xf32>
        affine.store %v, %dst[%b, %i, %j] : memref<2x32x128xf32>
      }
    }
  }
  return
}
"""
    out, remarks = block(batched)
    assert loop_headers(out)[:3] == ["affine.for %arg2 = 0 to 2 {", "affine.for %arg3 = 0 to 128 step 16 {",
                                     "affine.for %arg4 = 0 to 32 step 16 {"], out
    assert_same_results(batched, out, seed=6)


def test_a_transpose_is_tiled_by_one_cache_line_a_side_and_keeps_its_results():
    src = transpose()
    out, remarks = block(src)
    assert loop_headers(out) == ["affine.for %arg2 = 0 to 64 step 16 {", "affine.for %arg3 = 0 to 48 step 16 {",
                                 "affine.for %arg4 = 0 to 16 {", "affine.for %arg5 = 0 to 16 {"]
    assert "affine.load %arg0[%arg5 + %arg3, %arg4 + %arg2]" in out, out
    assert "affine.store %0, %arg1[%arg4 + %arg2, %arg5 + %arg3]" in out, out
    assert len(remarks) == 1 and remarks[0].startswith("[BLOCK TRANSPOSE] 16 x 16 tiles of the loop at t.mlir:2:3")
    assert_same_results(src, out, seed=3)


def test_a_short_outer_loop_is_left_whole_and_only_the_innermost_is_strip_mined():
    src = transpose(m=8)
    out, remarks = block(src)
    assert loop_headers(out) == ["affine.for %arg2 = 0 to 48 step 16 {", "affine.for %arg3 = 0 to 8 {",
                                 "affine.for %arg4 = 0 to 16 {"]
    assert remarks[0].startswith("[BLOCK TRANSPOSE] strips of 16 iterations of the innermost loop"), remarks
    assert_same_results(src, out, seed=3)


def test_a_consumer_of_a_transposed_operand_is_tiled_too():
    """out[i, j] = t[j, i] + b[i, j]: one column read among row walks (benchmarks'
    transpose_consumer)."""
    src = """func.func @c(%t: memref<64x32xf32>, %b: memref<32x64xf32>, %out: memref<32x64xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 64 {
      %x = affine.load %t[%j, %i] : memref<64x32xf32>
      %y = affine.load %b[%i, %j] : memref<32x64xf32>
      %z = arith.addf %x, %y : f32
      affine.store %z, %out[%i, %j] : memref<32x64xf32>
    }
  }
  return
}
"""
    out, remarks = block(src)
    assert len(loop_headers(out)) == 4 and remarks[0].startswith("[BLOCK TRANSPOSE] 16 x 16 tiles")
    assert_same_results(src, out, seed=2)


def test_the_strip_is_one_line_of_the_loaded_element():
    assert [(p.lines, p.tile_level) for p in plans(transpose(elem="f64"))] == [(8, True)]
    assert [(p.lines, p.tile_level) for p in plans(transpose(elem="f16", n=64))] == [(32, True)]


@pytest.mark.parametrize("src, why", [
    (transpose(n=40), "40 is not a multiple of 16"),
    (transpose(n=16), "a single strip"),
    (transpose().replace("%src[%j, %i]", "%src[%i, %j]").replace("memref<48x64xf32>", "memref<64x48xf32>"),
     "a plain copy: every access contiguous"),
])
def test_bands_that_gain_nothing_are_not_planned(src, why):
    assert plans(src) == [None], why


def test_a_band_that_reads_back_what_it_writes_is_not_planned():
    in_place = transpose(m=32, n=32).replace("%dst[%i, %j]", "%src[%i, %j]").replace(
        "memref<32x32xf32>)", "memref<32x32xf32>)")
    assert "affine.store %v, %src[%i, %j]" in in_place
    assert plans(in_place) == [None]


def test_a_gemm_is_left_to_the_register_tiling():
    gemm = """func.func @g(%A: memref<32x64xf32>, %W: memref<48x64xf32>, %C: memref<32x48xf32>) {
  affine.for %k = 0 to 64 {
    affine.for %i = 0 to 32 {
      affine.for %j = 0 to 48 {
        %a = affine.load %A[%i, %k] : memref<32x64xf32>
        %w = affine.load %W[%j, %k] : memref<48x64xf32>
        %c = affine.load %C[%i, %j] : memref<32x48xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<32x48xf32>
      }
    }
  }
  return
}
"""
    assert plans(gemm) == [None]


# dst[0, i + j] = src[j, i]: the element i + j is written by every (i, j) on its anti-diagonal, the
# last writer being the one with the largest i. Strips of j run outermost would make the largest j
# strip's writer last instead: the band must stay as it is.
ANTI_DIAGONAL = transpose(m=32, n=32, store="%dst[0, %i + %j]", dst_shape="1x64")


def test_a_reordering_that_reverses_a_dependence_is_refused_with_its_reason():
    out, remarks = block(ANTI_DIAGONAL)
    assert loop_headers(out) == loop_headers(ANTI_DIAGONAL.replace("%i", "%arg2").replace("%j", "%arg3"))
    assert len(remarks) == 1 and remarks[0].startswith("[STOP BLOCK TRANSPOSE] "), remarks
    assert_same_results(ANTI_DIAGONAL, out, seed=5)


def test_the_legality_guard_is_needed(monkeypatch):
    """Mutation check: with transpose_violation answering None, the anti-diagonal band is blocked
    and its results change."""
    monkeypatch.setattr(block_transposes, "transpose_violation", lambda plan: None)
    out, remarks = block(ANTI_DIAGONAL)
    assert remarks and remarks[0].startswith("[BLOCK TRANSPOSE]")
    with pytest.raises(AssertionError):
        assert_same_results(ANTI_DIAGONAL, out, seed=5)


def test_the_driver_blocks_on_cpu_only():
    src = transpose(m=256, n=512)
    cpu = driver.optimize(src, CPU, explain=True)
    assert any(m.startswith("[BLOCK TRANSPOSE]") for m in cpu.remarks.messages())
    assert "step 16" in cpu.text and "[BLOCK TRANSPOSE]" not in cpu.text
    trn1 = driver.optimize(src, Options(target=TARGETS["trn1"]), explain=True)
    assert not any("BLOCK TRANSPOSE" in m for m in trn1.remarks.messages()) and "step 16" not in trn1.text


@has_runner
def test_blocked_transposes_compute_the_same_results_natively():
    for src in (transpose(m=256, n=512), transpose(m=96, n=64, elem="f64")):
        out = driver.optimize(src, CPU).text
        assert "[BLOCK TRANSPOSE]" not in out and "step" in out
        want = native.run_native(src, "t", [None, None], reps=1).outputs
        got = native.run_native(out, "t", [None, None], reps=1).outputs
        assert native.compare_outputs(want, got) is None


def random_copy(rng) -> str:
    """A band of 2 or 3 loops copying src into dst with a random pair of index forms: the
    transposes the plan takes, and writes that collide (anti-diagonals, dropped IVs, shifts) for
    which the reordering must be refused or keep every element's last writer."""
    m, n = rng.choice([8, 16]), rng.choice([32, 48])
    batch = rng.random() < 0.25
    b = "%b, " if batch else ""
    bt = "2x" if batch else ""
    src = f"%src[{b}%j, %i]"
    dst = rng.choice([f"%dst[{b}%i, %j]", f"%dst[{b}0, %i + %j]", f"%dst[{b}%i, %j]", f"%dst[{b}0, %j]",
                      f"%dst[{b}%i floordiv 2, %j]", f"%dst[{b}0, %j + 2 * %i]"])
    dshape = f"{bt}{m}x{n + 2 * m}"
    loops = [f"affine.for %i = 0 to {m} {{", f"affine.for %j = 0 to {n} {{"]
    if batch:
        loops.insert(rng.randrange(2), "affine.for %b = 0 to 2 {")
    body = (f"%v = affine.load {src} : memref<{bt}{n}x{m}xf32>\n"
            f"%w = arith.addf %v, %v : f32\n"
            f"affine.store %w, {dst} : memref<{dshape}xf32>\n")
    return (f"func.func @t(%src: memref<{bt}{n}x{m}xf32>, %dst: memref<{dshape}xf32>) {{\n"
            + "\n".join(loops) + "\n" + body + "}\n" * len(loops) + "return\n}\n")


def test_random_copies_keep_their_results_through_the_driver():
    """Legality fuzzing: 24 random copy bands through the whole cpu pipeline, each compared
    with its input in the reference interpreter (an oracle that shares no code with the plan).
    With the legality guard disabled (transpose_violation answering None) this test fails: the
    colliding writes of the generator then change results."""
    import random

    rng = random.Random(24)
    blocked = 0
    for k in range(24):
        src = random_copy(rng)
        out = driver.optimize(src, CPU, explain=True)
        blocked += any(m.startswith("[BLOCK TRANSPOSE]") for m in out.remarks.messages())
        assert_same_results(src, out.text, seed=k)
    assert blocked >= 4, blocked  # the generator reaches the transform


def test_a_call_in_the_band_pins_its_order():
    """A call's effects are not modelled: the band it sits in keeps its order (the call would see
    its arguments in another order), with the reason."""
    src = transpose(m=32, n=32).replace(
        "      affine.store", "      func.call @observe(%v) : (f32) -> ()\n      affine.store").replace(
        "func.func @t(", "func.func private @observe(f32)\nfunc.func @t(")
    out, remarks = block(src)
    assert [h for h in loop_headers(out)] == ["affine.for %arg2 = 0 to 32 {", "affine.for %arg3 = 0 to 32 {"]
    assert remarks == [r for r in remarks if r.startswith("[STOP BLOCK TRANSPOSE] func.call at ")] and remarks
