"""Issue 33: a step that erases an op still reachable from the IR fails at once, by name.

The erase check (loopopt.mlir.install_erase_check, on in this suite through tests/conftest.py)
refuses, before it happens, an erase that would leave a value of the erased op (a result, a loop's
induction variable, anything nested in it) used by an op outside it: MLIR would free the value
and the next walk, verification or erase would read freed memory, a SIGSEGV (exit 139) with
MALLOC_PERTURB_ or garbage without. Here a step does what the recompute rescue did with a
producer that stores its own counter (issue 33): it hands the producer's IV to the consumer and
erases the producer. The check names the step, the code that erased and the op.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from loopopt import driver, mlir
from loopopt.errors import EXIT_INTERNAL, ErasedOpInUse
from loopopt.options import TARGETS, Options
from loopopt.testing import inject_fault

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TWO_LOOPS = """func.func @f(%a: memref<16xindex>, %out: memref<16xindex>) {
  affine.for %i = 0 to 16 {
    affine.store %i, %a[%i] : memref<16xindex>
  }
  affine.for %i = 0 to 16 {
    %x = affine.load %a[15 - %i] : memref<16xindex>
    affine.store %x, %out[%i] : memref<16xindex>
  }
  return
}
"""


def hand_the_counter_over_and_erase(fn: mlir.ir.Operation) -> None:
    """The bug of the recompute rescue before issue 33: the consumer's load is replaced by the
    producer's induction variable, then the producer is erased."""
    first, second = [op for op in mlir.block_ops(mlir.func_body(fn)) if op.name == "affine.for"][:2]
    load = next(op for op in mlir.walk(second) if op.name == "affine.load")
    load.results[0].replace_all_uses_with(first.regions[0].blocks[0].arguments[0])
    load.erase()
    first.erase()


def test_the_suite_runs_with_the_erase_check_on():
    assert mlir.erase_check_on(), "tests/conftest.py sets LOOPOPT_CHECK_ERASE=1 before loopopt is imported"


def test_outside_use_finds_an_induction_variable_used_after_its_loop():
    module = mlir.parse_module(TWO_LOOPS)
    fn = mlir.functions(module)[0]
    first, second = [op for op in mlir.block_ops(mlir.func_body(fn)) if op.name == "affine.for"]
    assert mlir.outside_use(first) is None and mlir.outside_use(second) is None
    assert mlir.outside_use(fn) is None  # a function: nothing inside it can be used outside
    load = next(op for op in mlir.walk(second) if op.name == "affine.load")
    what, user = mlir.outside_use(load)
    assert what == "result #0 of affine.load" and user.name == "affine.store"
    load.results[0].replace_all_uses_with(first.regions[0].blocks[0].arguments[0])
    what, user = mlir.outside_use(first)
    assert what == "block argument #0 of affine.for" and user.name == "affine.store"


def test_an_erase_that_leaves_its_op_reachable_raises_before_erasing():
    module = mlir.parse_module(TWO_LOOPS)
    fn = mlir.functions(module)[0]
    with mlir.step_named("some-step"), pytest.raises(ErasedOpInUse) as e:
        hand_the_counter_over_and_erase(fn)
    message = str(e.value)
    assert message.startswith("[some-step] test_erase_check.py:") and "(hand_the_counter_over_and_erase)" in message
    assert "erases affine.for at" in message and "block argument #0 of affine.for is still used by affine.store" in message
    assert mlir.verify(module.operation) is not None  # the IV's use is invalid IR, but nothing was freed
    assert len(mlir.block_ops(mlir.func_body(fn))) == 3  # both loops and the return are still there


def test_the_driver_lets_the_error_reach_the_caller_naming_the_step():
    """Not a quiet rollback: ErasedOpInUse is a BaseException, so the driver restores the
    function and re-raises, and a test that reaches it fails."""
    with pytest.raises(ErasedOpInUse, match=r"^\[contraction\] test_erase_check.py:\d+ "
                                            r"\(hand_the_counter_over_and_erase\) erases affine.for at e.mlir:2:3"):
        driver.optimize(TWO_LOOPS, Options(target=TARGETS["cpu"]), "e.mlir",
                        wrap=inject_fault("contraction", hand_the_counter_over_and_erase))


CHILD = """
import sys
from loopopt import driver
from loopopt.options import TARGETS, Options
from loopopt.testing import inject_fault
sys.path.insert(0, {tests!r})
from test_erase_check import TWO_LOOPS, hand_the_counter_over_and_erase
try:
    driver.optimize(TWO_LOOPS, Options(target=TARGETS["cpu"]), "e.mlir",
                    wrap=inject_fault("fusion", hand_the_counter_over_and_erase))
except BaseException as e:
    print(type(e).__name__, e)
    sys.exit(3)
"""


def test_in_a_child_process_the_bug_is_one_clear_error_not_a_crash():
    env = dict(os.environ, LOOPOPT_CHECK_ERASE="1", MALLOC_PERTURB_="165", PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-c", CHILD.format(tests=os.path.join(ROOT, "tests"))],
                       env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 3, (p.returncode, p.stderr[-2000:])
    assert p.stdout.startswith("ErasedOpInUse [fusion] test_erase_check.py:"), p.stdout


def test_the_cli_reports_the_error_in_one_line(tmp_path, monkeypatch):
    """The CLI's contract for an internal error: one line and exit 3 (here through a step that
    erases wrongly, patched in by a child process that runs the CLI's main)."""
    src = tmp_path / "e.mlir"
    src.write_text(TWO_LOOPS)
    code = f"""
import sys
sys.path.insert(0, {os.path.join(ROOT, 'tests')!r})
from dataclasses import replace
from loopopt import pipeline
from test_erase_check import hand_the_counter_over_and_erase
def bad(fn, ctx, step=pipeline.find_step("contraction").run):
    n = step(fn, ctx)
    hand_the_counter_over_and_erase(fn)
    return n
pipeline.STEPS = tuple(replace(s, run=bad) if s.name == "contraction" else s for s in pipeline.STEPS)
from loopopt.cli import main
main([{str(src)!r}, "--target", "cpu", "-o", {str(tmp_path / 'out.mlir')!r}])
"""
    env = dict(os.environ, LOOPOPT_CHECK_ERASE="1", MALLOC_PERTURB_="165", PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == EXIT_INTERNAL, (p.returncode, p.stderr[-2000:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("loopopt: internal error: ErasedOpInUse: [contraction] "), p.stderr
    assert not (tmp_path / "out.mlir").exists()
