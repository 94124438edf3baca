"""Run-time checks the kernel evaluates (a `cf.assert` inside a loop, on data, in a called
function): the callable calls the library's wrapper (runtime/checks.py), a passing check gives
numpy's and the interpreter's results, a failing one raises CheckFailed with the check's message
and the process goes on (a second call works), calls from two threads stay apart, and a C
program gets the failed check's number from `loopopt_call_NAME`.

The failing calls run in child processes: were a check to reach abort() (the plain lowering) or
longjmp into the wrong frame, the child dies and the test fails, where pytest itself would die.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import loopopt
from loopopt import testing
from loopopt.runtime import CheckFailed, build, cache as cachemod

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MISSING = build.missing_tools()
pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("loopopt-cache"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(cachemod.CACHE_ENV, d)
        yield d


NEGATIVE = "sqrt: elements must be non-negative"
TOO_LARGE = "sqrt: elements must be below 100"
# Two checks: #1 in @bounded (first in the module's order), #2 in @k's loop. @k calls @bounded
# on every element, so a check of a called function is the kernel's too.
SQRT = textwrap.dedent(f'''
    func.func private @bounded(%x: f32) {{
      %c = arith.constant 100.0 : f32
      %ok = arith.cmpf olt, %x, %c : f32
      cf.assert %ok, "{TOO_LARGE}"
      return
    }}
    func.func @k(%a: memref<?xf32>, %b: memref<?xf32>) {{
      %c0 = arith.constant 0 : index
      %n = memref.dim %a, %c0 : memref<?xf32>
      %z = arith.constant 0.0 : f32
      affine.for %i = 0 to %n {{
        %x = affine.load %a[%i] : memref<?xf32>
        %ok = arith.cmpf oge, %x, %z : f32
        cf.assert %ok, "{NEGATIVE}"
        func.call @bounded(%x) : (f32) -> ()
        %y = math.sqrt %x : f32
        affine.store %y, %b[%i] : memref<?xf32>
      }}
      return
    }}''')

# A scalar result (the wrapper returns it through a pointer) with a check on the data.
TOTAL = textwrap.dedent('''
    func.func @total(%a: memref<64xi32>) -> i32 {
      %z = arith.constant 0 : i32
      %s = affine.for %i = 0 to 64 iter_args(%acc = %z) -> i32 {
        %x = affine.load %a[%i] : memref<64xi32>
        %ok = arith.cmpi sge, %x, %z : i32
        cf.assert %ok, "total: counts must be non-negative"
        %t = arith.addi %acc, %x : i32
        affine.yield %t : i32
      }
      return %s : i32
    }''')


def _data(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.0, 99.0, n).astype(np.float32)


def _child(script: str, kernel_text: str, tmp_path, cache_dir: str) -> subprocess.CompletedProcess:
    (tmp_path / "k.mlir").write_text(kernel_text)
    env = dict(os.environ, PYTHONPATH=REPO, **{cachemod.CACHE_ENV: cache_dir})
    return subprocess.run([sys.executable, "-c", script, str(tmp_path / "k.mlir")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)


def test_checks_that_pass_give_numpys_and_the_interpreters_results():
    k = loopopt.compile(SQRT)
    assert k.spec.messages == (TOO_LARGE, NEGATIVE) and k.spec.in_kernel == (1, 2) and not k.spec.checks
    for n in (1, 37, 1000):
        a, b = _data(n, n), np.full(n, np.nan, np.float32)
        assert k(a, b) is None
        np.testing.assert_array_equal(b, np.sqrt(a))  # both correctly rounded
        want = testing.run_on_inputs(SQRT, "k", [a, np.zeros(n, np.float32)])[1]
        np.testing.assert_array_equal(b, want)
    t = loopopt.compile(TOTAL)
    counts = np.arange(64, dtype=np.int32) * 3
    assert t(counts) == int(counts.sum()) == testing.run_on_inputs(TOTAL, "total", [counts])[-1]
    assert t.bind(counts)() == int(counts.sum())


FAILING = textwrap.dedent('''
    import sys
    import numpy as np
    import loopopt
    k = loopopt.compile(open(sys.argv[1]).read())
    a = np.random.default_rng(1).uniform(0.0, 99.0, 1000).astype(np.float32)
    b = np.zeros(1000, np.float32)
    for where, value in ((700, -1.0), (3, 250.0), (999, -0.5)):
        bad = a.copy()
        bad[where] = value
        for call in (lambda: k(bad, b), k.bind(bad, b)):
            try:
                call()
                print("NO ERROR")
            except loopopt.runtime.CheckFailed as e:
                print(where, e.number, e.in_kernel, isinstance(e, ValueError), e.message, "|", e)
    for _ in range(300):  # each failing call leaks at most that call's temporaries; none here
        try:
            k(bad, b)
        except ValueError:
            pass
    k(a, b)
    print("second call", bool(np.array_equal(b, np.sqrt(a))))
''')


def test_a_failing_check_raises_check_failed_and_the_process_lives(tmp_path, cache_dir):
    p = _child(FAILING, SQRT, tmp_path, cache_dir)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.splitlines()
    assert "NO ERROR" not in p.stdout
    by_case = {}
    for line in lines[:-1]:
        where, number, in_kernel, is_value_error, rest = line.split(" ", 4)
        by_case.setdefault(int(where), []).append((int(number), in_kernel, is_value_error, rest))
    assert sorted(by_case) == [3, 700, 999] and all(len(v) == 2 for v in by_case.values())  # call and bound call
    for where, number, message in ((700, 2, NEGATIVE), (3, 1, TOO_LARGE), (999, 2, NEGATIVE)):
        for got in by_case[where]:
            assert got[:3] == (number, "True", "True"), (where, got)
            assert got[3] == f"{message} | k(): run-time check failed: {message} (the kernel stopped at the check: " \
                             "its outputs are partly written)"
    assert lines[-1] == "second call True"
    assert NEGATIVE not in p.stderr  # the plain lowering prints the message before abort()


SCALAR_FAILING = textwrap.dedent('''
    import sys
    import numpy as np
    import loopopt
    t = loopopt.compile(open(sys.argv[1]).read())
    counts = np.arange(64, dtype=np.int32)
    counts[40] = -2
    try:
        print("NO ERROR", t(counts))
    except loopopt.runtime.CheckFailed as e:
        print(e.number, e.in_kernel, e.message)
    counts[40] = 2
    print(t(counts) == int(counts.sum()))
''')


def test_a_failing_check_with_a_scalar_result(tmp_path, cache_dir):
    p = _child(SCALAR_FAILING, TOTAL, tmp_path, cache_dir)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.splitlines() == ["1 True total: counts must be non-negative", "True"]


THREADS = textwrap.dedent('''
    import sys, threading
    import numpy as np
    import loopopt
    k = loopopt.compile(open(sys.argv[1]).read())
    n = 1 << 19
    good = np.random.default_rng(2).uniform(0.0, 99.0, n).astype(np.float32)
    want = np.sqrt(good)
    bad = good.copy()
    bad[n - 3] = -1.0  # fails late: the kernel runs most of its loop first
    seen = []  # list.append is atomic under the GIL
    def failing():
        out = np.empty(n, np.float32)
        for _ in range(150):
            try:
                k(bad, out)
                seen.append("no error")
            except loopopt.runtime.CheckFailed as e:
                seen.append("failed" if e.number == 2 else "other check")
    def passing():
        out = np.empty(n, np.float32)
        for _ in range(150):
            out[:] = np.nan
            k(good, out)
            seen.append("right" if np.array_equal(out, want) else "wrong")
    threads = [threading.Thread(target=f) for f in (failing, passing, failing, passing)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(*(seen.count(w) for w in ("failed", "other check", "no error", "right", "wrong")))
''')


def test_calls_from_two_threads_at_once_stay_apart(tmp_path, cache_dir):
    """Each thread's failing check returns to its own call: with one jump buffer for the process a
    check failing on one thread would jump into another thread's frame (or find none and abort)."""
    p = _child(THREADS, SQRT, tmp_path, cache_dir)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["300", "0", "0", "300", "0"]


def test_checks_of_the_entry_block_are_still_evaluated_before_the_call():
    """A check over the arguments' sizes raises before the kernel runs (in_kernel False), so a
    wrong out= size never reaches native code."""
    from loopopt.frontend import fixtures

    fx = fixtures.load_fixture("mlp_dynamic_small")
    k = loopopt.compile(fx.text)
    assert k.spec.checks and not k.spec.in_kernel
    x = np.ones((5, 16), np.float32)
    out = np.full((4, 16), 7.0, np.float32)
    with pytest.raises(CheckFailed, match="must equal dim 0 of argument 0") as e:
        k(x, out=out)
    assert not e.value.in_kernel and e.value.number >= 1 and (out == 7.0).all()
