"""Issue 10 ("sound by default"): hand-written adversarial programs outside the fuzz generator.

Each tests/soundness/*.mlir is a runnable kernel where a naive optimizer would fuse, hoist,
shrink or interchange wrongly because memory aliases, or an op reads or writes memory, in a way
the plain affine view does not show (aliases made by select/scf.if/iter_args/calls, two
get_global of one symbol, calls and llvm.store with no memref operand, unranked memrefs,
max(...) lower bounds with steps, vector ranges, memref.reshape's shape operand, reads in
later blocks, one buffer passed twice, loop-carried index values, trapping semi-affine ops).
Class 13 (issue 22, tests/soundness/scalrep_*.mlir): store-to-load forwarding through a memref
of untraced origin, with every kind of write between the store and the reload, in straight-line
code and in loop bodies.

Header lines of each file:
  // KERNEL: name [arg, ...]   one native run of @name: a JSON list with, per argument, null
                               (static memref), a shape list (dynamic memref) or an integer
                               (index/integer argument); several KERNEL lines mean several runs
  // EXPECT: fewer-loops       the optimizer must fuse (the output has fewer affine.for ops)

Every program is optimized for --target cpu and --target trn1 and must: verify with stock
mlir-opt, leave no [INTERNAL] remark, print the same outputs natively (mlir-runner) before and
after, and, where the reference interpreter supports every op, compute the same results there.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from loopopt import driver
from loopopt.cli import build_parser, options_from_args
from loopopt.interpreter import InterpreterError
from loopopt.testing import assert_same_results, make_inputs, run_on_inputs
from loopopt.toolchain import find_tool, verify_with_mlir_opt

HERE = Path(__file__).parent / "soundness"
FILES = sorted(p.name for p in HERE.glob("*.mlir"))
TARGETS = ("cpu", "trn1")
KERNEL_LINE = re.compile(r"^// KERNEL:\s*(\S+)\s+(\[.*\])\s*$", re.M)
EXPECT_LINE = re.compile(r"^// EXPECT:\s*(\S+)\s*$", re.M)
# The native harness's lowering has no vector patterns; vector programs add these (no-ops otherwise).
VECTOR_PASSES = ("--convert-vector-to-scf", "--convert-vector-to-llvm")


@dataclass(frozen=True)
class Run:
    kernel: str
    sizes: tuple  # per argument: None, a shape tuple, or an int


@dataclass(frozen=True)
class Program:
    name: str
    text: str
    runs: tuple[Run, ...]
    expect: tuple[str, ...]


def _freeze(x):
    return tuple(_freeze(y) for y in x) if isinstance(x, list) else x


@functools.lru_cache(maxsize=None)
def program(name: str) -> Program:
    """The file's text and its KERNEL/EXPECT headers."""
    text = (HERE / name).read_text()
    runs = tuple(Run(k, _freeze(json.loads(sizes))) for k, sizes in KERNEL_LINE.findall(text))
    if not runs:
        raise ValueError(f"{name}: no `// KERNEL: name [sizes]` line")
    return Program(name, text, runs, tuple(EXPECT_LINE.findall(text)))


def options_for(target: str):
    """Options exactly as the CLI builds them for `--target TARGET`."""
    return options_from_args(build_parser().parse_args(["-", "--target", target]))


@functools.lru_cache(maxsize=None)
def optimized(name: str, target: str):
    return driver.optimize(program(name).text, options_for(target), f"soundness/{name}")


def count_affine_for(text: str) -> int:
    """affine.for ops in `text` (comment lines ignored)."""
    code = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))
    return len(re.findall(r"\baffine\.for\b", code))


def _needs_toolchain(tool: str) -> None:
    if find_tool(tool) is None:
        pytest.skip(f"{tool} 22 not installed")


def run_natively(text: str, run: Run):
    """Outputs of @kernel run natively; vector programs get the vector lowering too."""
    from loopopt import native

    sizes = [list(s) if isinstance(s, tuple) else s for s in run.sizes]
    if "vector." not in text and "vector_" not in text:
        return native.run_native(text, run.kernel, sizes, reps=1, warmup=0).outputs
    harness = native.make_harness(text, run.kernel, sizes, reps=1, warmup=0)
    passes = list(native.LOWERING_PASSES)
    passes[passes.index("--lower-affine") + 1:1] = VECTOR_PASSES
    from loopopt.toolchain import mlir_opt

    p = mlir_opt(harness, passes)
    if p.returncode != 0:
        raise native.NativeError("lowering failed: " + native.first_error_line(p.stderr))
    _, outputs = native.parse_output(native.run_lowered(p.stdout), native.kernel_signature(text, run.kernel))
    return outputs


@functools.lru_cache(maxsize=None)
def native_outputs(text: str, run: Run):
    """run_natively, once per distinct text (the targets often print the same output)."""
    return run_natively(text, run)


def native_before(name: str, k: int):
    prog = program(name)
    return native_outputs(prog.text, prog.runs[k])


def interpreter_sizes(run: Run) -> dict:
    """The KERNEL sizes in make_inputs' format: scalars and dynamic shapes by position."""
    return {i: s for i, s in enumerate(run.sizes) if s is not None}


# ----------------------------------------------------------------------------- the tests

def test_every_class_has_programs():
    classes = set()
    for name in FILES:
        m = re.match(r"// CLASS (\d+)", program(name).text)
        assert m, f"{name}: the first line must be `// CLASS N: ...`"
        classes.add(int(m.group(1)))
    assert classes == set(range(1, 14)), sorted(classes)


@pytest.mark.toolchain
@pytest.mark.parametrize("name", FILES)
def test_program_verifies_and_runs_unoptimized(name):
    _needs_toolchain("mlir-opt")
    assert verify_with_mlir_opt(program(name).text) is None
    _needs_toolchain("mlir-runner")
    for k in range(len(program(name).runs)):
        assert native_before(name, k), "the harness printed no outputs"


@pytest.mark.toolchain
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", FILES)
def test_output_verifies_without_internal_remarks(name, target):
    _needs_toolchain("mlir-opt")
    res = optimized(name, target)
    internal = [r.render() for r in res.remarks if "[INTERNAL]" in r.message]
    assert not internal, internal[0]
    assert verify_with_mlir_opt(res.text) is None


@pytest.mark.toolchain
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", FILES)
def test_native_results_unchanged(name, target):
    _needs_toolchain("mlir-runner")
    from loopopt.native import compare_outputs

    prog, res = program(name), optimized(name, target)
    for k, run in enumerate(prog.runs):
        before = native_before(name, k)
        after = native_outputs(res.text, run)
        diff = compare_outputs(before, after)
        assert diff is None, f"{run.kernel}{list(run.sizes)}: {diff}"


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", FILES)
def test_interpreter_results_unchanged(name, target):
    prog, res = program(name), optimized(name, target)
    for k, run in enumerate(prog.runs):
        sizes = interpreter_sizes(run)
        try:
            run_on_inputs(prog.text, run.kernel, make_inputs(prog.text, run.kernel, k, sizes))
        except InterpreterError as e:
            if "cannot interpret" in str(e) or "cannot translate" in str(e):
                pytest.skip(f"interpreter: {e}")
            raise
        assert_same_results(prog.text, res.text, seed=k, func=run.kernel, sizes=sizes, trials=2)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", [n for n in FILES if "fewer-loops" in program(n).expect])
def test_expected_fusion_happens(name, target):
    res = optimized(name, target)
    assert count_affine_for(res.text) < count_affine_for(program(name).text), res.text
