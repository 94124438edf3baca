"""The front door end to end: `loopopt block.mlir` on a PyTorch block as torch-mlir prints it.

The CLI recognises linalg-on-tensors input and lowers it (loopopt/frontend) before the pass,
with no flag; the lowering shows in --print-lowering, --timing, --print-ir-after-all and the
checkpoint; --lowering replaces it, --no-lowering skips it; the numeric switches default on for
such input and off for affine input. Results are checked natively (mlir-runner) against the
outputs torch saved beside each fixture, and, with the numeric switches off, bit for bit
against the plain lowering.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import loopopt
from loopopt import frontend
from loopopt.frontend import fixtures
from loopopt.native import compare_outputs
from loopopt.toolchain import find_tool, verify_with_mlir_opt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
native = pytest.mark.skipif(find_tool("mlir-runner") is None or find_tool("mlir-opt") is None,
                            reason="mlir-opt/mlir-runner 22 not found (apt-get install -y mlir-22-tools)")


def cli(*args, cwd=None, stdin=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "loopopt", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or ROOT, input=stdin, env=env)


def block_path(name: str) -> str:
    return str(fixtures.BLOCKS_DIR / f"{name}.mlir")


def no_tensor_ops(text: str) -> bool:
    return not any(f"{d}." in text for d in ("linalg", "tensor", "bufferization"))


@pytest.mark.toolchain
@native
@pytest.mark.parametrize("name", ["mlp_relu_small", "softmax_small", "layernorm_small", "mlp_dynamic_small"])
def test_cli_lowers_a_torch_block_with_no_flag_and_keeps_torchs_results(tmp_path, name):
    fx = fixtures.load_fixture(name)
    out = tmp_path / "out.mlir"
    p = cli(block_path(name), "--target", "cpu", "--remarks", "-o", out)
    assert p.returncode == 0, p.stderr
    assert "[LOWERING] linalg input lowered to affine loops" in p.stderr
    assert "[UNSUPPORTED] linalg" not in p.stderr and "[INTERNAL]" not in p.stderr
    text = out.read_text()
    assert "affine.for" in text and no_tensor_ops(text)
    assert verify_with_mlir_opt(text) is None
    for run in fx.runs:
        got = fixtures.run_block(text, fx.function, fixtures.harness_sizes(run), reps=1)
        assert fixtures.compare_with_expected(got.outputs, run) is None


@pytest.mark.toolchain
@native
@pytest.mark.parametrize("name", ["softmax_small", "attention_small"])
def test_with_the_numeric_switches_off_the_block_is_bit_exact_against_its_plain_lowering(tmp_path, name):
    fx = fixtures.load_fixture(name)
    out = tmp_path / "out.mlir"
    p = cli(block_path(name), "--target", "cpu", "--approximate-math", "false", "--reassociate", "false",
            "--contract", "false", "-o", out)
    assert p.returncode == 0, p.stderr
    sizes = fixtures.harness_sizes(fx.runs[0])
    plain = fixtures.run_block(frontend.lower(fx.text).text, fx.function, sizes, reps=1)
    opt = fixtures.run_block(out.read_text(), fx.function, sizes, reps=1)
    assert compare_outputs(plain.outputs, opt.outputs) is None


def test_numeric_switches_default_on_for_framework_input_and_off_for_affine_input():
    lowered_default = loopopt.optimize(fixtures.load_fixture("softmax_small").text, target="cpu").text
    assert "fastmath<reassoc" in lowered_default and "math.exp" not in lowered_default
    lowered_off = loopopt.optimize(fixtures.load_fixture("softmax_small").text, target="cpu",
                                   approximate_math=False, reassociate=False, exact_math=False).text
    assert "math.exp" in lowered_off and "reassoc" not in lowered_off
    affine = open(os.path.join(ROOT, "benchmarks", "programs", "softmax_rows.mlir")).read()
    affine_default = loopopt.optimize(affine, target="cpu").text
    # exp stays a libm call, or becomes libm's own algorithm (exact_math, on where the host's
    # expf is checked to be glibc's): no polynomial, no reordered sum
    assert "reassoc" not in affine_default and "math.exp" in affine_default or "loopopt_expf_table" in affine_default
    assert "reassoc" not in affine_default
    affine_on = loopopt.optimize(affine, target="cpu", approximate_math=True, reassociate=True).text
    assert "math.exp" not in affine_on


def test_no_lowering_takes_the_input_as_it_is(tmp_path):
    out = tmp_path / "out.mlir"
    p = cli(block_path("mlp_relu_small"), "--no-lowering", "--remarks", "-o", out)
    assert p.returncode == 0, p.stderr
    assert "[UNSUPPORTED] linalg.matmul kept as is" in p.stderr
    assert "[LOWERING]" not in p.stderr
    assert "linalg.matmul" in out.read_text()


def test_print_lowering_prints_the_pipeline_for_the_inputs_kind():
    p = cli("--print-lowering")
    assert p.returncode == 0, p.stderr
    assert p.stdout == frontend.format_pipeline(frontend.lowering_pipeline())
    assert "convert-linalg-to-affine-loops" in p.stdout
    fused = cli("--print-lowering", "--elementwise-fusion")
    assert "linalg-fuse-elementwise-ops" in fused.stdout and "linalg-fuse-elementwise-ops" not in p.stdout
    hlo = cli(block_path("jax_mlp_small"), "--print-lowering")
    assert hlo.returncode == 0 and "iree-stablehlo-input-transformation-pipeline" in hlo.stdout
    affine = cli(os.path.join(ROOT, "examples", "chain3.mlir"), "--print-lowering")
    assert affine.returncode == 0 and "nothing to lower" in affine.stdout


def test_lowering_override_runs_the_given_pipeline(tmp_path):
    pipeline = frontend.lowering_pipeline()
    a, b = tmp_path / "a.mlir", tmp_path / "b.mlir"
    assert cli(block_path("softmax_small"), "--target", "cpu", "-o", a).returncode == 0
    p = cli(block_path("softmax_small"), "--target", "cpu", "--lowering", pipeline, "-o", b)
    assert p.returncode == 0, p.stderr
    assert a.read_text() == b.read_text()
    # without the loop conversion the program is not lowered: one line, exit 1, no output
    partial = ",".join(s for s in frontend.split_pipeline(pipeline) if "convert-linalg-to-affine" not in s)
    c = tmp_path / "c.mlir"
    p = cli(block_path("softmax_small"), "--lowering", partial, "-o", c)
    assert p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1 and "linalg" in p.stderr
    assert not c.exists()


@pytest.mark.parametrize("pipeline, needle", [("", "empty pipeline"), ("no-such-pass", "no-such-pass"),
                                              ("loopopt-bogus", "unknown lowering step"),
                                              ("canonicalize,func.func(cse", "unclosed")])
def test_bad_lowering_pipeline_is_refused_before_the_input_is_read(tmp_path, pipeline, needle):
    p = cli(tmp_path / "does-not-exist.mlir", "--lowering", pipeline)
    assert p.returncode == 2, p.stderr
    assert needle in p.stderr and "does-not-exist" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_no_lowering_conflicts_with_lowering():
    p = cli(block_path("softmax_small"), "--no-lowering", "--lowering", "canonicalize")
    assert p.returncode == 2 and "conflicts" in p.stderr


def test_timing_ir_dumps_and_checkpoint_include_the_lowering(tmp_path):
    p = cli(block_path("softmax_small"), "--target", "cpu", "--timing", "--print-ir-after-all", "--checkpoint",
            "-o", tmp_path / "out.mlir", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "lowering: func.func(convert-linalg-to-affine-loops)" in p.stderr  # --timing
    assert ("// -----// IR Dump After lowering: one-shot-bufferize{bufferize-function-boundaries "
            "function-boundary-type-conversion=identity-layout-map} ('builtin.module' operation) //----- //") in p.stderr
    assert "IR Dump After fusion ('func.func' operation: @softmax_small)" in p.stderr
    chk = (tmp_path / "__loop_opt_chkpt.txt").read_text()
    assert "IR Dump After lowering: loopopt-check-lowered ('builtin.module' operation)" in chk
    assert "linalg.generic" in chk  # the input module, as given


def test_api_lower_returns_the_affine_module_and_its_run_time_checks():
    low = loopopt.lower(fixtures.load_fixture("mlp_dynamic_small").text)
    assert low.kind == "linalg" and no_tensor_ops(low.text) and "affine.for" in low.text
    assert low.checks and all("must equal" in c for c in low.checks)
    assert any(op.name == "affine.for" for op in loopopt.mlir.walk(low.module.operation))
    res = loopopt.optimize(fixtures.load_fixture("mlp_dynamic_small").text, target="cpu")
    assert any(r.message.startswith("[LOWERING] checked at run time") for r in res.remarks)


def test_an_op_that_does_not_lower_is_one_line_naming_it(tmp_path):
    src = tmp_path / "softmax.mlir"
    src.write_text("func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
                   "  %e = tensor.empty() : tensor<4x8xf32>\n"
                   "  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>\n"
                   "  return %s : tensor<4x8xf32>\n}\n")
    out = tmp_path / "out.mlir"
    p = cli(src, "-o", out)
    assert p.returncode == 1, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert "linalg.softmax" in p.stderr and f"{src}:3:" in p.stderr
    assert not out.exists()


def test_affine_input_is_not_lowered():
    res = loopopt.optimize(open(os.path.join(ROOT, "examples", "chain3.mlir")).read())
    assert not any(r.pass_name == "lowering" for r in res.remarks)
