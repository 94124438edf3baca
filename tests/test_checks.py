"""Run-time checks (cf.assert) under every transform that moves ops (issue 35; the rule is
analysis/checks.py's, docs/soundness.md "Run-time checks").

Hand-written programs outside the blocks' shapes, each on inputs where a check passes and where
it fails. A failing run must abort with the same message and the same visible memory (the
function's arguments) as the input program: compared in the reference interpreter, which stops at
the first failing check (`assertion failed: <message>`) and at an access out of bounds (a trap the
original did not run). Natively (mlir-runner 22) the aborting program must exit with SIGABRT and
print the check's message, before and after loopopt.

Each guard has a program its removal breaks (scripts/mutation_check.py "checks: ..."):
fusion's order battery (a write of the output gained or lost at the abort, two messages swapped, a
gather run before the check that guards it), the checks-first step (a visible write, a condition
that reads what the loop writes, a condition that may trap run ahead in lanes), LICM (a check
hoisted past a store, a guarded load hoisted before its check), dead stores (an output's first
write removed though a check between the two writes sees it), scalar replacement (an argument's
accumulator kept in a register across a check), interchange and distribution (a store reordered
with a check).
"""
from __future__ import annotations

import numpy as np
import pytest

from loopopt import native
from loopopt.driver import optimize
from loopopt.interpreter import InterpreterError, compile_module
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

needs_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def cpu(**kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=256, **kw)


def run(src: str, args: list, fn: str = "k") -> tuple[str | None, list]:
    """(the abort message or None, the arguments after the call) in the reference interpreter."""
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    try:
        compile_module(src).run(fn, copies)
    except InterpreterError as e:
        text = str(e)
        return (text[text.index("assertion failed"):] if "assertion failed" in text else f"TRAP {text}"), copies
    return None, copies


def same_abort(before: str, after: str, args: list, fn: str = "k") -> str | None:
    """Assert both programs end alike on `args`; returns the message (None: no abort)."""
    m1, a1 = run(before, args, fn)
    m2, a2 = run(after, args, fn)
    assert m1 == m2, f"before: {m1}; after: {m2}"
    for k, (x, y) in enumerate(zip(a1, a2)):
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y, equal_nan=True), f"argument {k} differs at the abort ({m1})"
    return m1


def native_abort(src: str, sizes: list) -> str:
    """The NativeError text of a run that must abort (SIGABRT)."""
    with pytest.raises(native.NativeError) as e:
        native.run_native(src, "k", sizes, reps=1, full_limit=10_000)
    assert "exited -6" in str(e.value), str(e.value)
    return str(e.value)


def remarks(res, tag: str) -> list[str]:
    return [r.render() for r in res.remarks if tag in r.message]


def no_internal(res) -> None:
    assert not [r for r in res.remarks if "[INTERNAL]" in r.message]


def f32(*values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


# ----------------------------------------------------------------------------- fusion

CHECK_THEN_OUTPUT = """
func.func @k(%A: memref<8xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    %c = arith.cmpf one, %a, %z : f32
    cf.assert %c, "zero divisor"
    %r = arith.divf %one, %a : f32
    affine.store %r, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %r = affine.load %t[%i] : memref<8xf32>
    %y = arith.addf %r, %r : f32
    affine.store %y, %O[%i] : memref<8xf32>
  }
  memref.dealloc %t : memref<8xf32>
  return
}
"""

OUTPUT_THEN_CHECK = """
func.func @k(%A: memref<8xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    %y = arith.addf %a, %a : f32
    affine.store %y, %O[%i] : memref<8xf32>
    affine.store %y, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %a = affine.load %t[%i] : memref<8xf32>
    %c = arith.cmpf one, %a, %z : f32
    cf.assert %c, "zero"
  }
  memref.dealloc %t : memref<8xf32>
  return
}
"""

TWO_MESSAGES = """
func.func @k(%A: memref<8xf32>, %O: memref<8xf32>) {
  %lo = arith.constant -0.5 : f32
  %hi = arith.constant 0.5 : f32
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    %c = arith.cmpf ogt, %a, %lo : f32
    cf.assert %c, "too low"
    affine.store %a, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %a = affine.load %t[%i] : memref<8xf32>
    %c = arith.cmpf olt, %a, %hi : f32
    cf.assert %c, "too high"
  }
  memref.dealloc %t : memref<8xf32>
  return
}
"""

# The gather reads X at the index checked N - 1 - i iterations later: fused (the loops share T),
# it would run before the check that guards it.
GUARDED_GATHER = """
func.func @k(%I: memref<8xi64>, %X: memref<16xf32>, %O: memref<8xf32>) {
  %c16 = arith.constant 16 : i64
  %c0 = arith.constant 0 : i64
  %t = memref.alloc() : memref<8xf32>
  %u = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %n = affine.load %I[%i] : memref<8xi64>
    %lt = arith.cmpi slt, %n, %c16 : i64
    cf.assert %lt, "index must be smaller than dim size"
    %ge = arith.cmpi sge, %n, %c0 : i64
    cf.assert %ge, "index must be larger or equal to 0"
    %f = arith.sitofp %n : i64 to f32
    affine.store %f, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %f = affine.load %t[%i] : memref<8xf32>
    %n = affine.load %I[7 - %i] : memref<8xi64>
    %j = arith.index_cast %n : i64 to index
    %x = memref.load %X[%j] : memref<16xf32>
    %y = arith.addf %x, %f : f32
    affine.store %y, %u[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %x = affine.load %u[%i] : memref<8xf32>
    affine.store %x, %O[%i] : memref<8xf32>
  }
  memref.dealloc %u : memref<8xf32>
  memref.dealloc %t : memref<8xf32>
  return
}
"""

# Fusion the rule allows: the check loop and a loop writing only a private buffer.
PRIVATE_ONLY = CHECK_THEN_OUTPUT.replace("""  affine.for %i = 0 to 8 {
    %r = affine.load %t[%i] : memref<8xf32>
    %y = arith.addf %r, %r : f32
    affine.store %y, %O[%i] : memref<8xf32>
  }""", """  %u = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %r = affine.load %t[%i] : memref<8xf32>
    %y = arith.addf %r, %r : f32
    affine.store %y, %u[%i] : memref<8xf32>
  }
  %s = affine.load %u[3] : memref<8xf32>
  affine.store %s, %O[0] : memref<8xf32>
  memref.dealloc %u : memref<8xf32>""")


def _fused(src: str, **kw):
    res = optimize(src, cpu(**kw), filename="t.mlir", passes=["fusion"])
    no_internal(res)
    return res


@pytest.mark.parametrize("name, src, args", [
    ("a check before a write of the output", CHECK_THEN_OUTPUT, [f32(1, 2, 3, 0, 5, 6, 7, 8), np.zeros(8, np.float32)]),
    ("a write of the output before a check", OUTPUT_THEN_CHECK, [f32(1, 2, 3, 0, 5, 6, 7, 8), np.zeros(8, np.float32)]),
    ("two checks of two messages", TWO_MESSAGES, [f32(0, 0.7, 0, 0, -0.9, 0, 0, 0), np.zeros(8, np.float32)]),
], ids=["check-then-output", "output-then-check", "two-messages"])
def test_fusion_keeps_a_check_in_order_with_its_hazards(name, src, args):
    res = _fused(src)
    assert res.num_loops_fused == 0, name
    assert remarks(res, "[STOP FUSION] a run-time check"), name
    assert same_abort(src, res.text, args) is not None
    ok = [np.where(a == 0, 1, a).astype(a.dtype) if k == 0 else a for k, a in enumerate(args)]
    if name == "two checks of two messages":
        ok = [np.zeros(8, np.float32), args[1]]
    assert same_abort(src, res.text, ok) is None


def test_fusion_does_not_run_a_gather_before_its_check():
    res = _fused(GUARDED_GATHER)
    assert remarks(res, "[STOP FUSION] a run-time check")
    bad = [np.array([0, 1, 2, 3, 40, 5, 6, 7], np.int64), np.arange(16, dtype=np.float32), np.zeros(8, np.float32)]
    assert same_abort(GUARDED_GATHER, res.text, bad) == "assertion failed: index must be smaller than dim size"
    good = [np.array([0, 1, 2, 3, 4, 5, 6, 15], np.int64), *bad[1:]]
    assert same_abort(GUARDED_GATHER, res.text, good) is None


def test_fusion_across_a_check_where_only_private_memory_moves():
    res = _fused(PRIVATE_ONLY)
    assert res.num_loops_fused == 1
    assert same_abort(PRIVATE_ONLY, res.text, [f32(1, 2, 3, 0, 5, 6, 7, 8), np.zeros(8, np.float32)]) == \
        "assertion failed: zero divisor"
    assert_same_results(PRIVATE_ONLY, res.text, seed=3)


# ----------------------------------------------------------------------------- checks first

BATCH_NORM = """
func.func @k(%V: memref<64xf32>, %X: memref<64xf32>, %O: memref<64xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %cap = arith.constant 0.9 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %V[%i] : memref<64xf32>
    %s = math.sqrt %v : f32
    %c = arith.cmpf one, %s, %z : f32
    cf.assert %c, "unimplemented: tensor with zero element"
    %small = arith.cmpf olt, %v, %cap : f32
    cf.assert %small, "variance too large"
    %r = arith.divf %one, %s : f32
    affine.store %r, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %r = affine.load %t[%i] : memref<64xf32>
    %x = affine.load %X[%i] : memref<64xf32>
    %y = arith.mulf %r, %x : f32
    affine.store %y, %O[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
"""


def _checks_first(src: str):
    res = optimize(src, cpu(), filename="t.mlir", passes=["checks-first"])
    no_internal(res)
    return res


def test_checks_run_first_in_lanes_and_keep_their_order_and_messages():
    res = _checks_first(BATCH_NORM)
    moved = remarks(res, "[CHECKS FIRST]")
    assert len(moved) == 1 and "vector lanes" in moved[0]
    main = res.text[res.text.rindex("scf.if"):]
    assert "cf.assert" not in main[main.index("affine.for", main.index("}")):]  # the loop itself has no check
    v = np.linspace(0.1, 0.8, 64).astype(np.float32)
    x = np.ones(64, np.float32)
    assert same_abort(BATCH_NORM, res.text, [v, x, np.zeros(64, np.float32)]) is None
    both = v.copy()
    both[5], both[9] = 0.95, 0.0  # "variance too large" at 5 comes before "zero element" at 9
    assert same_abort(BATCH_NORM, res.text, [both, x, np.zeros(64, np.float32)]) == \
        "assertion failed: variance too large"
    both[3] = 0.0
    assert same_abort(BATCH_NORM, res.text, [both, x, np.zeros(64, np.float32)]) == \
        "assertion failed: unimplemented: tensor with zero element"


WRITE_BEFORE_CHECK = """
func.func @k(%A: memref<8xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %O[%i] : memref<8xf32>
    %c = arith.cmpf one, %a, %z : f32
    cf.assert %c, "zero"
  }
  return
}
"""

READS_WHAT_IT_WRITES = """
func.func @k(%A: memref<9xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<9xf32>
  affine.for %i = 0 to 9 {
    %a = affine.load %A[%i] : memref<9xf32>
    affine.store %a, %t[%i] : memref<9xf32>
  }
  affine.for %i = 0 to 8 {
    %p = affine.load %t[%i] : memref<9xf32>
    %c = arith.cmpf one, %p, %z : f32
    cf.assert %c, "zero"
    %q = arith.addf %p, %p : f32
    affine.store %q, %t[%i + 1] : memref<9xf32>
  }
  affine.for %i = 0 to 8 {
    %p = affine.load %t[%i] : memref<9xf32>
    affine.store %p, %O[%i] : memref<8xf32>
  }
  memref.dealloc %t : memref<9xf32>
  return
}
"""

# The condition gathers: X[I[i]] is in bounds only where the first check passed, so the
# conditions may not run ahead for every iteration (no lanes): C keeps the checks in order.
TRAPPING_CONDITION = """
func.func @k(%I: memref<8xi64>, %X: memref<16xf32>, %O: memref<8xf32>) {
  %c16 = arith.constant 16 : i64
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    %n = affine.load %I[%i] : memref<8xi64>
    %lt = arith.cmpi ult, %n, %c16 : i64
    cf.assert %lt, "index out of range"
    %j = arith.index_cast %n : i64 to index
    %x = memref.load %X[%j] : memref<16xf32>
    %pos = arith.cmpf oge, %x, %z : f32
    cf.assert %pos, "negative entry"
    affine.store %x, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %x = affine.load %t[%i] : memref<8xf32>
    affine.store %x, %O[%i] : memref<8xf32>
  }
  memref.dealloc %t : memref<8xf32>
  return
}
"""


def test_checks_stay_after_a_write_of_the_output():
    res = _checks_first(WRITE_BEFORE_CHECK)
    assert remarks(res, "[STOP CHECKS FIRST]") and not remarks(res, "passed: [CHECKS FIRST]")
    assert same_abort(WRITE_BEFORE_CHECK, res.text, [f32(1, 2, 3, 0, 5, 6, 7, 8), np.zeros(8, np.float32)])


def test_checks_stay_when_their_condition_reads_what_the_loop_writes():
    res = _checks_first(READS_WHAT_IT_WRITES)
    assert remarks(res, "[STOP CHECKS FIRST]")
    # t[i] = 2 t[i-1] from the first element: a condition read before the loop would see A's zero
    a = np.array([1, 2, 3, 0, 5, 6, 7, 8, 9], np.float32)
    assert same_abort(READS_WHAT_IT_WRITES, res.text, [a, np.zeros(8, np.float32)]) is None


def test_a_condition_that_may_trap_is_not_run_ahead():
    res = _checks_first(TRAPPING_CONDITION)
    moved = remarks(res, "[CHECKS FIRST]")
    assert len(moved) == 1 and "may trap" in moved[0] and "scf.if" not in res.text
    x = np.arange(16, dtype=np.float32) - 2  # X[0], X[1] negative
    out = np.zeros(8, np.float32)
    assert same_abort(TRAPPING_CONDITION, res.text, [np.array([5, 6, 99, 0, 1, 2, 3, 4], np.int64), x, out]) == \
        "assertion failed: index out of range"
    assert same_abort(TRAPPING_CONDITION, res.text, [np.array([5, 6, 7, 0, 99, 2, 3, 4], np.int64), x, out]) == \
        "assertion failed: negative entry"
    assert same_abort(TRAPPING_CONDITION, res.text, [np.array([5, 6, 7, 8, 9, 2, 3, 4], np.int64), x, out]) is None


# ----------------------------------------------------------------------------- LICM

LICM_CHECK_AFTER_STORE = """
func.func @k(%A: memref<8xf32>, %O: memref<8xf32>, %n: index) {
  %c4 = arith.constant 4 : index
  %ok = arith.cmpi ult, %n, %c4 : index
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %O[%i] : memref<8xf32>
    cf.assert %ok, "n below 4"
  }
  return
}
"""

LICM_CHECK_FIRST = LICM_CHECK_AFTER_STORE.replace("""    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %O[%i] : memref<8xf32>
    cf.assert %ok, "n below 4\"""", """    cf.assert %ok, "n below 4"
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %O[%i] : memref<8xf32>""")

# The check is not invariant (its bound moves with i), the load is: hoisted, the load would run
# before the check that keeps %n inside X.
LICM_GUARDED_LOAD = """
func.func @k(%X: memref<16xf32>, %O: memref<8xf32>, %n: index) {
  affine.for %i = 0 to 8 {
    %bound = affine.apply affine_map<(d0) -> (16 - d0)>(%i)
    %ok = arith.cmpi ult, %n, %bound : index
    cf.assert %ok, "n inside X"
    %x = memref.load %X[%n] : memref<16xf32>
    affine.store %x, %O[%i] : memref<8xf32>
  }
  return
}
"""


def _licm(src: str):
    res = optimize(src, cpu(enable_licm=True), filename="t.mlir", passes=["licm"])
    no_internal(res)
    return res


def test_licm_hoists_an_invariant_check_only_past_ops_that_are_not_its_hazards():
    res = _licm(LICM_CHECK_AFTER_STORE)
    assert remarks(res, "[LICM] not hoisted: a run-time check")
    args = [f32(*range(1, 9)), np.zeros(8, np.float32), 6]
    assert same_abort(LICM_CHECK_AFTER_STORE, res.text, args) == "assertion failed: n below 4"
    res = _licm(LICM_CHECK_FIRST)
    assert any("Moving inst cf.assert" in r.message for r in res.remarks)
    assert same_abort(LICM_CHECK_FIRST, res.text, args) == "assertion failed: n below 4"
    assert same_abort(LICM_CHECK_FIRST, res.text, [*args[:2], 2]) is None


def test_licm_keeps_a_guarded_load_after_its_check():
    res = _licm(LICM_GUARDED_LOAD)
    assert not any("Moving inst memref.load" in r.message for r in res.remarks)
    args = [np.arange(16, dtype=np.float32), np.zeros(8, np.float32), 20]
    assert same_abort(LICM_GUARDED_LOAD, res.text, args) == "assertion failed: n inside X"
    assert same_abort(LICM_GUARDED_LOAD, res.text, [*args[:2], 5]) is None
    assert remarks(res, "[LICM] not hoisted: a run-time check")


# ----------------------------------------------------------------------------- scalar replacement

ACCUMULATE_IN_OUTPUT = """
func.func @k(%A: memref<8xf32>, %O: memref<1xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %s = affine.load %O[0] : memref<1xf32>
    %a = affine.load %A[%i] : memref<8xf32>
    %n = arith.addf %s, %a : f32
    affine.store %n, %O[0] : memref<1xf32>
    %c = arith.cmpf one, %a, %z : f32
    cf.assert %c, "zero term"
  }
  return
}
"""


def test_an_output_accumulator_stays_in_memory_across_a_check():
    res = optimize(ACCUMULATE_IN_OUTPUT, cpu(), filename="t.mlir", passes=["scalar-replacement"])
    no_internal(res)
    assert remarks(res, "[SCALAR REPLACEMENT] kept in memory: a run-time check")
    args = [f32(1, 2, 3, 0, 5, 6, 7, 8), np.zeros(1, np.float32)]
    assert same_abort(ACCUMULATE_IN_OUTPUT, res.text, args) == "assertion failed: zero term"
    private = ACCUMULATE_IN_OUTPUT.replace("""  affine.for %i""", """  %acc = memref.alloc() : memref<1xf32>
  affine.store %z, %acc[0] : memref<1xf32>
  affine.for %i""").replace("%O[0] : memref<1xf32>\n    %a", "%acc[0] : memref<1xf32>\n    %a").replace(
        "affine.store %n, %O[0]", "affine.store %n, %acc[0]").replace("""  }
  return""", """  }
  %r = affine.load %acc[0] : memref<1xf32>
  affine.store %r, %O[0] : memref<1xf32>
  memref.dealloc %acc : memref<1xf32>
  return""")
    res = optimize(private, cpu(), filename="t.mlir", passes=["scalar-replacement"])
    assert remarks(res, "[SCALAR REPLACEMENT] accumulator")  # a private sum is seen by no one at the abort
    assert same_abort(private, res.text, args) == "assertion failed: zero term"


# ----------------------------------------------------------------------------- dead stores

# %O's first writes are written again by the third loop and read by no one: dead, unless a check
# between may abort, when %O (seen at the abort) must hold them
DEAD_OUTPUT = """
func.func @k(%A: memref<8xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %O[%i] : memref<8xf32>
  }
  CHECK_LOOP
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    %d = arith.mulf %a, %two : f32
    affine.store %d, %O[%i] : memref<8xf32>
  }
  return
}
"""
DEAD_OUTPUT_CHECK = """affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    %c = arith.cmpf one, %a, %z : f32
    cf.assert %c, "zero"
  }"""


def _dead_stores(src: str):
    res = optimize(src, cpu(), filename="t.mlir", passes=["dead-stores"])
    no_internal(res)
    return res


@pytest.mark.parametrize("where", ["between", "inside the first loop", "inside the second loop"])
def test_an_output_store_a_check_may_see_is_kept(where):
    src = DEAD_OUTPUT.replace("CHECK_LOOP", DEAD_OUTPUT_CHECK if where == "between" else "")
    if where == "inside the first loop":
        src = src.replace("    affine.store %a, %O[%i] : memref<8xf32>\n", "    affine.store %a, %O[%i] : memref<8xf32>\n"
                          "    %c = arith.cmpf one, %a, %z : f32\n    cf.assert %c, \"zero\"\n", 1)
    if where == "inside the second loop":
        src = src.replace("    %d = arith.mulf", "    %c = arith.cmpf one, %a, %z : f32\n    cf.assert %c, \"zero\"\n"
                          "    %d = arith.mulf", 1)
    res = _dead_stores(src)
    assert remarks(res, "[DEAD STORE] store into an argument kept: the run-time check")
    assert res.text.count("affine.store") == 2
    args = [f32(1, 2, 3, 0, 5, 6, 7, 8), np.zeros(8, np.float32)]
    assert same_abort(src, res.text, args) == "assertion failed: zero"
    assert same_abort(src, res.text, [f32(*range(1, 9)), np.zeros(8, np.float32)]) is None


@pytest.mark.parametrize("where", ["none", "before", "after"])
def test_an_output_store_no_check_can_see_is_removed(where):
    check = DEAD_OUTPUT_CHECK
    src = DEAD_OUTPUT.replace("CHECK_LOOP", "")
    if where == "before":
        src = src.replace("  %two = arith.constant 2.0 : f32\n", "  %two = arith.constant 2.0 : f32\n  " + check + "\n", 1)
    if where == "after":
        src = src.replace("  return\n}", "  " + check + "\n  return\n}", 1)
    res = _dead_stores(src)
    assert not remarks(res, "store into an argument kept")
    assert remarks(res, "[DEAD STORE] store into an argument removed") and res.text.count("affine.store") == 1
    args = [f32(1, 2, 3, 0, 5, 6, 7, 8), np.zeros(8, np.float32)]
    assert same_abort(src, res.text, args) == (None if where == "none" else "assertion failed: zero")


# ----------------------------------------------------------------------------- reordering nests

NEST = """
func.func @k(%A: memref<4x4xf32>, %O: memref<4x4xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 4 {
      %a = affine.load %A[%i, %j] : memref<4x4xf32>
      affine.store %a, %O[%i, %j] : memref<4x4xf32>
      %c = arith.cmpf one, %a, %z : f32
      cf.assert %c, "zero"
    }
  }
  return
}
"""

SPLIT = """
func.func @k(%A: memref<8xf32>, %B: memref<8xf32>, %O: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf32>
    affine.store %a, %O[%i] : memref<8xf32>
    %b = affine.load %B[%i] : memref<8xf32>
    %c = arith.cmpf one, %b, %z : f32
    cf.assert %c, "zero"
  }
  return
}
"""


def test_interchange_keeps_a_nest_whose_stores_the_check_must_see_in_order():
    res = optimize(NEST, cpu(), filename="t.mlir", passes=["interchange=1:0"])
    no_internal(res)
    assert remarks(res, "[STOP INTERCHANGE]")
    a = np.ones((4, 4), np.float32)
    a[0, 3] = 0.0
    assert same_abort(NEST, res.text, [a, np.zeros((4, 4), np.float32)]) == "assertion failed: zero"


def test_distribution_keeps_a_store_and_a_check_in_one_loop():
    res = optimize(SPLIT, cpu(), filename="t.mlir", passes=["distribution"])
    no_internal(res)
    assert res.text.count("affine.for") == 1
    b = f32(1, 1, 1, 0, 1, 1, 1, 1)
    assert same_abort(SPLIT, res.text, [f32(*range(8)), b, np.zeros(8, np.float32)]) == "assertion failed: zero"


def test_register_tiling_and_vectorization_leave_a_loop_with_a_check_and_say_so():
    src = """
func.func @k(%A: memref<8x16xf32>, %B: memref<16x32xf32>, %C: memref<8x32xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 32 {
      %s = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<8x16xf32>
        %b = affine.load %B[%k, %j] : memref<16x32xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %acc, %p : f32
        affine.yield %t : f32
      }
      affine.store %s, %C[%i, %j] : memref<8x32xf32>
      %c = arith.cmpf one, %s, %z : f32
      cf.assert %c, "zero dot"
    }
  }
  return
}
"""
    res = optimize(src, cpu(), filename="t.mlir", passes=["register-tile", "vectorize"])
    no_internal(res)
    assert [r for r in res.remarks if "[STOP REGISTER TILING]" in r.message and "cf.assert" in r.text]
    assert res.text.count("cf.assert") == 1


# ----------------------------------------------------------------------------- the whole pipeline, natively

@needs_runner
@pytest.mark.parametrize("src", [BATCH_NORM, CHECK_THEN_OUTPUT, PRIVATE_ONLY, WRITE_BEFORE_CHECK,
                                 DEAD_OUTPUT.replace("CHECK_LOOP", DEAD_OUTPUT_CHECK)],
                         ids=["batch-norm", "check then output", "private only", "write before check",
                              "output written again after a check"])
def test_a_failing_check_aborts_natively_with_its_message_after_loopopt(src):
    """The harness fills A with ((7 i + 3) mod 251) * 2/251 - 1, from -0.98 up by 0.056: each
    check `a != 0` becomes `a < -0.7`, which fails at i = 5, in the middle of the loop (the
    batch-norm's square root of a negative variance fails at once)."""
    src = src.replace("arith.cmpf one, %a, %z", "arith.cmpf olt, %a, %cap").replace(
        "%z = arith.constant 0.0 : f32", "%z = arith.constant 0.0 : f32\n  %cap = arith.constant -0.7 : f32", 1) \
        if "%cap" not in src else src
    res = optimize(src, cpu(), filename="t.mlir")
    no_internal(res)
    sizes = [None] * len(native.kernel_signature(src, "k").args)
    before = native_abort(src, sizes)
    after = native_abort(res.text, sizes)
    assert "printed:" in after and before.split("printed:")[-1] == after.split("printed:")[-1]
