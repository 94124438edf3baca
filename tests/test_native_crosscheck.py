"""Issue 6 part 3: a sample of fuzz programs is also compiled with mlir-opt 22 and run with
mlir-runner before and after loopopt, so the reference interpreter's verdict is checked by the
real toolchain (and the output is checked to lower and run)."""
import random

import numpy as np
import pytest

from loopopt import driver, mlir
from loopopt.fuzz.differential import random_options
from loopopt.fuzz.generator import generate_program
from loopopt.testing import make_inputs
from loopopt.toolchain import find_tool

SAMPLE = 24


def native_sizes(text: str, func: str, sizes: dict, seed: int) -> list:
    """The argument sizes the interpreter would use, in the native harness's format."""
    module = mlir.parse_module(text)  # kept alive while inputs are made
    inputs = make_inputs(module, func, seed, sizes=sizes)
    return [list(x.shape) if isinstance(x, np.ndarray) else int(x) for x in inputs]


def case_program(case: int):
    rng = random.Random(9000 + case)
    prog = generate_program(rng)
    return prog, random_options(rng)


def test_sample_exercises_the_transforms():
    fused = sum(driver.optimize(p.text, o, "fuzz.mlir").num_loops_fused > 0
                for p, o in map(case_program, range(SAMPLE)))
    assert fused >= SAMPLE // 4


@pytest.mark.toolchain
@pytest.mark.parametrize("case", range(SAMPLE))
def test_fuzz_program_native_before_and_after(case):
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, run_native

    prog, options = case_program(case)
    res = driver.optimize(prog.text, options, "fuzz.mlir")
    sizes = native_sizes(prog.text, prog.func_name, prog.sizes, case)
    before = run_native(prog.text, prog.func_name, sizes, reps=1, warmup=0)
    after = run_native(res.text, prog.func_name, sizes, reps=1, warmup=0)
    assert before.outputs
    assert compare_outputs(before.outputs, after.outputs) is None, (options, prog.text, res.text)
