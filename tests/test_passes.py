"""`--passes`: each restructuring transform alone through the driver and the CLI."""
import os
import subprocess
import sys

import pytest

from fusion_util import count, messages, optimize_checked

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example(name: str) -> str:
    return open(os.path.join(ROOT, "examples", name)).read()


def test_distribute_pass_splits_independent_groups():
    res = optimize_checked(example("distribute_two_groups.mlir"), passes=["distribute"])
    assert any(m.startswith("[LOOP DISTRIBUTION] into 2 loops") for m in messages(res))
    assert count(res.text, "affine.for") > count(example("distribute_two_groups.mlir"), "affine.for")


def test_tile_pass_then_fuse():
    src = example("chain3.mlir")
    res = optimize_checked(src, passes=["tile=16", "fuse"])
    assert "[LOOP TILING] by 16" in messages(res)
    assert res.num_loops_fused >= 2
    assert "step 16" in res.text


def test_interchange_pass_with_explicit_permutation():
    res = optimize_checked(example("interchange_colmajor.mlir"), passes=["interchange=1:0"])
    assert "[LOOP INTERCHANGE] 1:0" in messages(res)


def test_licm_pass_alone():
    res = optimize_checked(example("licm_invariant.mlir"), passes=["licm"])
    assert any(m.startswith("[LICM] Moving inst") for m in messages(res))
    assert res.num_loops_fused == 0


@pytest.mark.parametrize("spec, needle", [("tile=1", "tile size"), ("interchange=0:0", "permutation"),
                                          ("nonsense", "unknown pass")])
def test_bad_pass_spec_is_one_line_error(tmp_path, spec, needle):
    out = tmp_path / "o.mlir"
    p = subprocess.run([sys.executable, "-m", "loopopt", os.path.join(ROOT, "examples", "chain3.mlir"),
                        f"--passes={spec}", "-o", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2  # a bad command line (docs/interfaces.md, exit codes)
    assert needle in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert "Traceback" not in p.stderr
    assert not out.exists()


def test_unsupported_op_is_kept_and_reported():
    src = """func.func @f(%a: memref<8xf32>, %o: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i] : memref<8xf32>
    affine.store %x, %t[%i] : memref<8xf32>
  }
  "vendor.opaque"() : () -> ()
  affine.for %i = 0 to 8 {
    %x = affine.load %t[%i] : memref<8xf32>
    affine.store %x, %o[%i] : memref<8xf32>
  }
  return
}"""
    from loopopt import driver
    from loopopt.options import Options

    res = driver.optimize(src, Options(), "t.mlir")
    assert "[UNSUPPORTED] vendor.opaque kept as is; treated as a barrier (unknown effects)" in messages(res)
    assert '"vendor.opaque"() : () -> ()' in res.text
    assert res.text.count("affine.for") == 2  # nothing moved across it


@pytest.mark.parametrize("argv", [["--target", "bogus"], ["--loop-opt-distance-threshold", "x"], [],
                                  ["--enable-licm", "maybe"]])
def test_bad_command_line_is_one_error_line(argv):
    args = [os.path.join(ROOT, "examples", "chain3.mlir")] + argv if argv else []
    p = subprocess.run([sys.executable, "-m", "loopopt", *args], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "error" in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
