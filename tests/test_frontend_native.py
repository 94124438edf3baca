"""The lowered blocks run natively (mlir-runner 22) and print the framework's outputs.

For each committed block (benchmarks/models/blocks/): the plain lowering, run on the native
harness's inputs, matches the outputs torch / JAX / onnx saved beside it (tolerance:
loopopt.frontend.fixtures.RTOL, relative to each output's scale; the inputs' checksums must
match exactly, which shows the harness filled them as the export did); and loopopt's optimizer
(`--target cpu`) on the lowered module prints the same outputs as the plain lowering.

The small variants (`*_small`, JAX, ONNX) run by default, with two full-size blocks (the
dynamic-batch MLP at two batch sizes, and attention); the other full-size blocks run only when
asked for: `python3 -m pytest tests/test_frontend_native.py -m slow` (about 3 min). The held-out
blocks (benchmarks/models/heldout/) are not run here.
"""
from __future__ import annotations

import pytest

import loopopt
from loopopt import frontend
from loopopt.frontend import fixtures
from loopopt.native import NativeError, compare_outputs
from loopopt.toolchain import find_tool

pytestmark = [pytest.mark.toolchain,
              pytest.mark.skipif(find_tool("mlir-runner") is None or find_tool("mlir-opt") is None,
                                 reason="mlir-opt/mlir-runner 22 not found (apt-get install -y mlir-22-tools)")]

NAMES = fixtures.fixture_names()
SMALL = [n for n in NAMES if n.endswith("_small")]
DEFAULT_FULL = ["mlp_dynamic", "attention"]
SLOW_FULL = [n for n in NAMES if n not in SMALL and n not in DEFAULT_FULL]
# Blocks whose optimized code does not run yet; strict, so a fix shows as XPASS. (gpt2_layer's
# vector math.fpowi, which MLIR 22 cannot lower, is gone: codegen/cpu/powers.py.)
KNOWN_FAILURES: dict[str, str] = {}


def _case(name: str, *marks):
    if name in KNOWN_FAILURES:
        marks += (pytest.mark.xfail(strict=True, raises=NativeError, reason=KNOWN_FAILURES[name]),)
    return pytest.param(name, marks=marks) if marks else name


CASES = ([_case(n) for n in SMALL + DEFAULT_FULL]
         + [_case(n, pytest.mark.slow) for n in SLOW_FULL])


@pytest.mark.parametrize("name", CASES)
def test_lowered_block_matches_framework_and_optimizer_keeps_results(name, request):
    if name in SLOW_FULL and "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("a full-size block: run with -m slow")
    check_lowering_and_optimizer(name, frontend.LoweringOptions())


def check_lowering_and_optimizer(name: str, options: frontend.LoweringOptions) -> None:
    """The fixture `name` lowered with `options` gives the framework's outputs natively, and
    `loopopt --target cpu` on that lowering gives the lowering's outputs, for every run size."""
    fx = fixtures.load_fixture(name)
    what = "the fused lowering" if options.elementwise_fusion else "the plain lowering"
    lowered = frontend.lower(fx.text, options, filename=f"{name}.mlir").text
    optimized = loopopt.optimize(lowered, target="cpu", filename=f"{name}.mlir")
    assert not [r for r in optimized.remarks if "[INTERNAL]" in r.message]
    for run in fx.runs:
        sizes = fixtures.harness_sizes(run)
        plain = fixtures.run_block(lowered, fx.function, sizes, reps=1)
        diff = fixtures.compare_with_expected(plain.outputs, run)
        assert diff is None, f"{name} {sizes}: {what} vs {fx.expected['producer']}: {diff}"
        opt = fixtures.run_block(optimized.text, fx.function, sizes, reps=1)
        diff = compare_outputs(plain.outputs, opt.outputs)
        assert diff is None, f"{name} {sizes}: loopopt --target cpu vs {what}: {diff}"


@pytest.mark.parametrize("name", ["layernorm_small", "attention_small"])
def test_default_target_keeps_results(name):
    """The default target (trn1) on the lowered blocks: same outputs as the plain lowering."""
    fx = fixtures.load_fixture(name)
    lowered = frontend.lower(fx.text).text
    sizes = fixtures.harness_sizes(fx.runs[0])
    plain = fixtures.run_block(lowered, fx.function, sizes, reps=1)
    opt = fixtures.run_block(loopopt.optimize(lowered).text, fx.function, sizes, reps=1)
    assert compare_outputs(plain.outputs, opt.outputs) is None


def test_the_dynamic_size_check_fires_at_run_time():
    """An out-parameter whose batch differs from the input's stops the program at entry: the
    cf.assert lowers to puts(message) and abort() (SIGABRT; the message goes to stdout, which
    abort does not flush into mlir-runner's pipe)."""
    fx = fixtures.load_fixture("mlp_dynamic_small")
    lowered = frontend.lower(fx.text).text
    with pytest.raises(NativeError, match="mlir-runner exited -6"):
        fixtures.run_block(lowered, fx.function, [[5, 16], [4, 16]], reps=1)
    fixtures.run_block(lowered, fx.function, [[5, 16], [5, 16]], reps=1)  # equal sizes run


# Section 84: the blocks whose fused lowering (`--elementwise-fusion`) the planners once refused,
# small: an attention block's output projection over two reduction loops (its layer norm's sums
# kept out of the product's loop) and BatchNorm's check fused beside a convolution's result.
FUSED = ["bert_attention_small", "gpt2_layer_small", "encoder_small", "strided_conv_small", "mobilenet_block_small",
         "resnet_block_small"]


@pytest.mark.parametrize("name", FUSED)
def test_fused_lowering_matches_framework_and_optimizer_keeps_results(name):
    check_lowering_and_optimizer(name, frontend.LoweringOptions(elementwise_fusion=True))
