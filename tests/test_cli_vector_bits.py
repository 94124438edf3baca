"""--vector-bits: the width the cpu code generation plans for, `host` the machine's own; a bad
width is refused in one line; the width never changes results."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from loopopt import native
from loopopt.codegen.cpu.host import host_vector_bits
from loopopt.cli import build_parser, options_from_args, vector_bits
from loopopt.toolchain import find_tool

GEMM = """func.func @k(%A: memref<12x16xf32>, %B: memref<16x40xf32>, %C: memref<12x40xf32>) {
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 40 {
      %c0 = arith.constant 0.0 : f32
      %r = affine.for %k = 0 to 16 iter_args(%acc = %c0) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<12x16xf32>
        %b = affine.load %B[%k, %j] : memref<16x40xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<12x40xf32>
    }
  }
  return
}
"""


def test_host_is_the_machines_width_and_numbers_are_taken_as_given():
    assert vector_bits("host") == host_vector_bits()
    assert [vector_bits(w) for w in ("128", "256", "512")] == [128, 256, 512]
    a = build_parser().parse_args(["x.mlir", "--vector-bits", "512"])
    assert options_from_args(a).vector_bits == 512
    assert options_from_args(build_parser().parse_args(["x.mlir"])).vector_bits is None  # per input


@pytest.mark.host_vector_width
def test_the_default_width_is_the_hosts_for_any_input():
    from loopopt.options import TARGETS, Options
    from loopopt.pipeline import resolve_options

    unset = Options(target=TARGETS["cpu"])
    assert unset.plan_vector_bits == 256  # before the input is known
    assert resolve_options(unset, framework_input=False).vector_bits == host_vector_bits()
    assert resolve_options(unset, framework_input=True).vector_bits == host_vector_bits()
    asked = Options(target=TARGETS["cpu"], vector_bits=128)
    assert resolve_options(asked, framework_input=True).vector_bits == 128  # an explicit width always wins


@pytest.mark.host_vector_width
def test_the_remark_names_the_width_and_where_it_comes_from():
    from loopopt import driver
    from loopopt.options import TARGETS, Options

    def width_remark(text, options):
        log = driver.optimize(text, options, explain=True).remarks
        return [r.message for r in log.remarks if r.message.startswith("cpu code generation plans")]

    default = [f"cpu code generation plans for {host_vector_bits()}-bit vectors (the host's widest registers, "
               "the default; --vector-bits 256 plans for any AVX2 core)"]
    assert width_remark(GEMM, Options(target=TARGETS["cpu"])) == default
    assert width_remark(GEMM, Options(target=TARGETS["cpu"], vector_bits=512)) == [
        "cpu code generation plans for 512-bit vectors (--vector-bits)"]
    assert width_remark(GEMM, Options(target=TARGETS["trn1"])) == []  # no cpu plan on a Neuron target
    linalg = (Path(__file__).parents[1] / "benchmarks/models/blocks/mlp_relu_small.mlir").read_text()
    assert width_remark(linalg, Options(target=TARGETS["cpu"])) == default


def test_the_cli_default_plans_for_the_host(tmp_path):
    """The CLI (a subprocess: no test fixture) plans affine input for the host's width."""
    src = tmp_path / "k.mlir"
    src.write_text(GEMM)
    p = subprocess.run([sys.executable, "-m", "loopopt", str(src), "--target", "cpu", "--remarks"],
                       capture_output=True, text=True, cwd=Path(__file__).parents[1])
    assert p.returncode == 0, p.stderr
    assert f"cpu code generation plans for {host_vector_bits()}-bit vectors (the host's widest registers" in p.stderr
    lanes = host_vector_bits() // 32
    assert f"vector<{lanes}xf32>" in p.stdout, p.stdout


def test_a_width_outside_the_choices_is_one_line_and_exit_2(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(GEMM)
    p = subprocess.run([sys.executable, "-m", "loopopt", str(src), "--vector-bits", "64"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--vector-bits" in p.stderr


@pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")
def test_each_width_plans_its_vectors_and_keeps_the_results(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(GEMM)
    want = native.run_native(GEMM, "k", [None] * 3, reps=1).outputs
    for width, lanes in (("128", 4), ("512", 16)):
        out = tmp_path / f"k{width}.mlir"
        p = subprocess.run([sys.executable, "-m", "loopopt", str(src), "--target", "cpu", "--vector-bits", width,
                            "-o", str(out)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        text = out.read_text()
        assert f"vector<{lanes}xf32>" in text, text
        got = native.run_native(text, "k", [None] * 3, reps=1).outputs
        assert native.compare_outputs(want, got) is None


def test_the_api_takes_a_width_and_refuses_others_in_one_line():
    import loopopt
    from loopopt.errors import UsageError

    res = loopopt.optimize(GEMM, "cpu", vector_bits=512)
    assert "vector<16xf32>" in res.text
    with pytest.raises(UsageError, match="knob 'vector_bits' must be one of 128, 256, 512, got 100"):
        loopopt.optimize(GEMM, "cpu", vector_bits=100)
    with pytest.raises(TypeError, match="knob 'vector_bits' must be int, not str"):
        loopopt.optimize(GEMM, "cpu", vector_bits="512")
