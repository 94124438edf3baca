"""Issue 25, ops between the loops: an op with unknown effects (a call) between two loops that
work on the function's private buffers stays in place and the loops fuse around it
(fusion_legality.private_buffer, _conflict). A buffer passed to the call escapes and keeps the
call a barrier (mutation check: without the escape test the fused program differs). Results are
checked in the reference interpreter and natively."""
from __future__ import annotations

import pytest

from fusion_util import optimize_checked
from loopopt import driver
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

# l1 fills the private %t from %a; a call that cannot reach %t or %t2; l2 fills the private %t2
# from %t; l3 reads %t2 reversed (a negative distance keeps it out) and the call's counter.
CALL_BETWEEN = """func.func private @tick(%c: memref<1xf32>) {
  %v = affine.load %c[0] : memref<1xf32>
  %one = arith.constant 1.0 : f32
  %w = arith.addf %v, %one : f32
  affine.store %w, %c[0] : memref<1xf32>
  return
}
func.func @call_between(%a: memref<16xf32>, %out: memref<16xf32>, %c: memref<1xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<16xf32>
  }
  call @tick(%c) : (memref<1xf32>) -> ()
  %t2 = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %t[%i] : memref<16xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %t2[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %x = affine.load %t2[15 - %i] : memref<16xf32>
    %v = affine.load %c[0] : memref<1xf32>
    %y = arith.addf %x, %v : f32
    affine.store %y, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  memref.dealloc %t2 : memref<16xf32>
  return
}
"""

# The same with %t reaching the call through an scf.if (the call bumps t[0]): %t escapes, and the
# call, which touches an untraced memref, must stay between the loops.
CALL_TOUCHES = """func.func private @tick(%c: memref<16xf32>) {
  %v = affine.load %c[0] : memref<16xf32>
  %one = arith.constant 1.0 : f32
  %w = arith.addf %v, %one : f32
  affine.store %w, %c[0] : memref<16xf32>
  return
}
func.func @call_between(%a: memref<16xf32>, %out: memref<16xf32>, %c: memref<1xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<16xf32>
  }
  %yes = arith.constant true
  %m = scf.if %yes -> (memref<16xf32>) {
    scf.yield %t : memref<16xf32>
  } else {
    scf.yield %t : memref<16xf32>
  }
  call @tick(%m) : (memref<16xf32>) -> ()
  %t2 = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %t[%i] : memref<16xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %t2[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %x = affine.load %t2[15 - %i] : memref<16xf32>
    %v = affine.load %c[0] : memref<1xf32>
    %y = arith.addf %x, %v : f32
    affine.store %y, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  memref.dealloc %t2 : memref<16xf32>
  return
}
"""


def fors(text: str) -> int:
    return sum(1 for line in text.splitlines() if "affine.for" in line)


def fusion(res) -> list:
    return [r for r in res.remarks if r.pass_name == "fusion"]


def test_loops_on_private_buffers_fuse_around_a_call():
    res = optimize_checked(CALL_BETWEEN, "trn1", passes=["fusion"])
    assert fors(res.text) == 2
    first = fusion(res)[0]
    assert first.kind == "Passed" and first.args["loop1"].endswith(":10:3") and first.args["loop2"].endswith(":17:3")
    # the call is still between the writes of %t2 and l3, which reads the counter it bumps
    body = res.text[res.text.index("@call_between"):]
    assert body.index("arith.addf") < body.index("call @tick") < body.index("-%arg3 + 15")
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, run_native

    a = run_native(CALL_BETWEEN, "call_between", [None] * 3, reps=1, warmup=0)
    b = run_native(res.text, "call_between", [None] * 3, reps=1, warmup=0)
    assert a.outputs and compare_outputs(a.outputs, b.outputs) is None


def test_a_loop_writing_an_argument_still_stops_at_the_call():
    res = optimize_checked(CALL_BETWEEN, "trn1", passes=["fusion"])
    blocked = [r for r in fusion(res) if r.args.get("code") == "BLOCKED_BY_OPS"]
    assert blocked and "func.call" in blocked[0].detail


def test_a_buffer_passed_to_the_call_keeps_it_a_barrier():
    res = optimize_checked(CALL_TOUCHES, "trn1", passes=["fusion"])
    assert fors(res.text) == 3
    assert fusion(res)[0].args["code"] == "BLOCKED_BY_OPS"


def test_mutation_without_the_escape_test_the_call_is_reordered(monkeypatch):
    """If a buffer passed to the call counted as private, l2 would read t[0] before the call
    bumps it: the fused program computes another result."""
    from loopopt.analysis import memory

    monkeypatch.setattr(memory, "escaping_use", lambda *a: None)
    bad = driver.optimize(CALL_TOUCHES, Options(target=TARGETS["trn1"]), "t.mlir", passes=["fusion"])
    assert fors(bad.text) == 2
    with pytest.raises(AssertionError):
        assert_same_results(CALL_TOUCHES, bad.text, seed=1)


# A loop between the pair that has unknown effects (it stores through a memref an scf.if makes)
# and is known to read the private %t: it must not move above the loop that fills %t.
UNKNOWN_READER_BETWEEN = """
func.func @reader_between(%o: memref<4xf32>, %o2: memref<4xf32>, %p: i1) {
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<4xf32>
  affine.for %i = 0 to 4 {
    affine.store %two, %t[%i] : memref<4xf32>
  }
  %m = scf.if %p -> (memref<4xf32>) {
    scf.yield %o : memref<4xf32>
  } else {
    scf.yield %o : memref<4xf32>
  }
  affine.for %i = 0 to 4 {
    %x = affine.load %t[%i] : memref<4xf32>
    affine.store %x, %m[%i] : memref<4xf32>
  }
  affine.for %i = 0 to 4 {
    %x = affine.load %t[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %o2[%i] : memref<4xf32>
  }
  return
}
"""


@pytest.mark.parametrize("target", ["cpu", "trn1"])
def test_an_op_with_unknown_effects_keeps_its_known_accesses(target):
    res = optimize_checked(UNKNOWN_READER_BETWEEN, target, passes=["fusion"], sizes=[None, None, 1])
    body = res.text[res.text.index("@reader_between"):]
    # the fill of %t still comes first, then the loop that reads %t and stores through %m
    assert body.index("affine.store %cst") < body.index("scf.if") < body.index("affine.for", body.index("scf.if"))
    assert any(r.args.get("code") == "BLOCKED_BY_OPS" for r in fusion(res))


def test_mutation_without_the_known_accesses_the_reader_moves_first(monkeypatch):
    """If an op with unknown effects were judged by the private-buffer rule alone, the loop
    between would be hoisted above the fill of %t and read it uninitialized (found by the fuzzer:
    tests/regressions/7665297c30c7.mlir)."""
    from loopopt.loop_optimization import fusion_legality as fl

    def unknown_only(x, y):
        if x.unknown and y.unknown:
            return True
        if x.unknown or y.unknown:
            known = y if x.unknown else x
            return any(not fl.private_buffer(known, k) for k in known.touches())
        return bool(x.writes & y.touches()) or bool(x.reads & y.writes)

    monkeypatch.setattr(fl, "_conflict", unknown_only)
    bad = driver.optimize(UNKNOWN_READER_BETWEEN, Options(target=TARGETS["trn1"]), "t.mlir", passes=["fusion"])
    with pytest.raises(AssertionError):
        assert_same_results(UNKNOWN_READER_BETWEEN, bad.text, seed=1, sizes=[None, None, 1])
