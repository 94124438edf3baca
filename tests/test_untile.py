"""Untiling on cpu (codegen/cpu/untile.py): a strip-mined loop becomes one flat loop only when the
nest visits the tile loop's range in increasing order, each integer once. Every rewrite is checked
for verification (ours and mlir-opt's) and unchanged results (reference interpreter, natively)."""
from __future__ import annotations

import pytest

from loopopt import mlir
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.codegen.cpu.untile import UNTILED, untile_function
from test_cost_model import _native_same


def _native_same_sized(before: str, after: str) -> None:
    """Native results of @k(n = 10, a: 11 floats, out: 11 floats) before and after."""
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, run_native

    sizes = (10, [11], [11])
    a = run_native(before, "k", sizes, reps=1, warmup=0)
    b = run_native(after, "k", sizes, reps=1, warmup=0)
    assert a.outputs and compare_outputs(a.outputs, b.outputs) is None

# One strip-mined loop: tile loop TILE, point loop POINT; the body reads a[i] and a[i + 1] and
# writes a[i] (a dependence the untiling must keep in order: it changes no order at all).
TEMPLATE = """
func.func @k(%n: index, %a: memref<?xf32>, %out: memref<?xf32>) {
  %c = arith.constant 0.5 : f32
  affine.for %ii = LOWER to UPPER step STEP {
    affine.for %i = POINT {
      %x = affine.load %a[%i] : memref<?xf32>
      %y = affine.load %a[%i + 1] : memref<?xf32>
      %s = arith.addf %x, %y : f32
      %z = arith.mulf %s, %c : f32
      affine.store %z, %a[%i] : memref<?xf32>
      affine.store %z, %out[%i] : memref<?xf32>BODY
    }
  }
  return
}
"""


def program(lower="0", upper="%n", step="4", point="affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%ii)[%n]",
            body=""):
    return (TEMPLATE.replace("LOWER", lower).replace("UPPER", upper).replace("STEP", step)
            .replace("POINT", point).replace("BODY", body))


def run(src: str, target: str = "cpu"):
    module = mlir.parse_module(src, "t.mlir")
    log = RemarkLog()
    n = untile_function(mlir.functions(module)[0], Options(target=TARGETS[target]), log, "t.mlir")
    assert mlir.verify(module.operation) is None
    out = mlir.print_module(module)
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(out) is None
    return n, out, [r.message for r in log]


# sizes: n = 10 (not a multiple of the tile), the buffers one longer for a[i + 1]
SIZES = {"n": 10}


def _same(src: str, out: str) -> None:
    assert_same_results(src, out, sizes=SIZES)


def test_symbolic_strip_mine_becomes_one_loop_with_the_same_results():
    src = program()
    n, out, msgs = run(src)
    assert n == 1 and msgs == [UNTILED]
    assert out.count("affine.for") == 1 and "step" not in out and "min" not in out
    _same(src, out)
    _native_same_sized(src, out)


def test_constant_range_not_a_multiple_of_the_step():
    src = program(upper="10", step="4",
                  point="affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0) -> (d0 + 4, 10)>(%ii)")
    n, out, _ = run(src)
    assert n == 1 and out.count("affine.for") == 1
    _same(src, out)


@pytest.mark.parametrize("point, why", [
    # the point loop stops one short of the tile: iterations 3, 7, 11, ... never run
    ("affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0)[s0] -> (d0 + 3, s0)>(%ii)[%n]", "cover"),
    # the point loop runs two tiles' worth: every integer twice
    ("affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0)[s0] -> (d0 + 8, s0)>(%ii)[%n]", "more than one tile"),
    # shifted by one: the range [1, n + 1) instead of [0, n)
    ("affine_map<(d0) -> (d0 + 1)>(%ii) to min affine_map<(d0)[s0] -> (d0 + 5, s0 + 1)>(%ii)[%n]", "cover"),
    # reversed inside a tile would need a negative step; a point loop over another bound
    ("affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0)[s0] -> (d0 + 4, s0 - 1)>(%ii)[%n]", "cover"),
])
def test_point_ranges_that_change_the_iterations_are_kept(point, why):
    src = program(point=point)
    n, out, msgs = run(src)
    assert n == 0 and out.count("affine.for") == 2
    assert len(msgs) == 1 and msgs[0].startswith("[UNTILE] kept") and why in msgs[0], msgs


def test_tiles_visited_out_of_order_are_kept():
    # point range [8 - ii, 12 - ii): every integer of [0, 12) once, but the tiles run top down
    src = program(upper="12", point="affine_map<(d0) -> (-d0 + 8)>(%ii) to affine_map<(d0) -> (-d0 + 12)>(%ii)")
    n, out, msgs = run(src)
    assert n == 0 and out.count("affine.for") == 2
    assert len(msgs) == 1 and "out of order" in msgs[0], msgs


def test_tile_iv_used_in_the_body_is_not_a_strip_mine():
    src = program(body="\n      %j = affine.load %a[%ii] : memref<?xf32>\n      affine.store %j, %out[%i] : memref<?xf32>")
    n, out, msgs = run(src)
    assert n == 0 and out.count("affine.for") == 2 and not msgs


def test_two_point_loops_in_a_tile_are_left_alone():
    src = """
func.func @k(%a: memref<16xf32>, %out: memref<16xf32>) {
  affine.for %ii = 0 to 16 step 4 {
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to affine_map<(d0) -> (d0 + 4)>(%ii) {
      %x = affine.load %a[%i] : memref<16xf32>
      affine.store %x, %out[%i] : memref<16xf32>
    }
    affine.for %i = affine_map<(d0) -> (d0)>(%ii) to affine_map<(d0) -> (d0 + 4)>(%ii) {
      %x = affine.load %out[%i] : memref<16xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %out[%i] : memref<16xf32>
    }
  }
  return
}
"""
    n, out, msgs = run(src)
    assert n == 0 and out.count("affine.for") == 3


def test_neuron_targets_keep_their_tiles():
    """The step table runs untile on the cpu target only, also when --passes names it."""
    from loopopt import driver

    for target in ("trn1", "inf2", "trn2"):
        res = driver.optimize(program(), Options(target=TARGETS[target]), passes=["untile"])
        assert res.text.count("affine.for") == 2 and not [r for r in res.remarks.remarks if r.pass_name == "untile"]


def test_nested_inside_an_outer_loop_with_its_iv_in_the_bounds():
    src = """
func.func @k(%a: memref<8x12xf32>, %out: memref<8x12xf32>) {
  affine.for %r = 0 to 8 {
    affine.for %ii = affine_map<(d0) -> (d0)>(%r) to 12 step 4 {
      affine.for %i = affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0) -> (d0 + 4, 12)>(%ii) {
        %x = affine.load %a[%r, %i] : memref<8x12xf32>
        %y = arith.mulf %x, %x : f32
        affine.store %y, %out[%r, %i] : memref<8x12xf32>
      }
    }
  }
  return
}
"""
    n, out, _ = run(src)
    assert n == 1 and out.count("affine.for") == 2
    assert_same_results(src, out)
    _native_same(src, out, "k")


def test_untiling_never_touches_the_point_loop_it_erased(tmp_path):
    """The pass gathers its loops before rewriting; a point loop erased with its tile must be
    skipped, not read (a use-after-free: freed memory filled by MALLOC_PERTURB_ made the old code
    crash with SIGSEGV on every such nest)."""
    import os
    import subprocess
    import sys

    src = tmp_path / "k.mlir"
    src.write_text(program())
    env = dict(os.environ, MALLOC_PERTURB_="165")
    # every cpu step but sweep-vectors, which would turn the untiled loop into scf.for blocks
    code = ("import sys; from loopopt import api; from loopopt.pipeline import default_pipeline, resolve_options; "
            "steps = [s.name for s in default_pipeline(resolve_options(api.make_options('cpu'), False)) "
            "if s.name != 'sweep-vectors']; "
            "r = api.optimize(open(sys.argv[1]).read(), target='cpu', passes=steps); print(r.text.count('affine.for'))")
    p = subprocess.run([sys.executable, "-c", code, str(src)], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == "1"
