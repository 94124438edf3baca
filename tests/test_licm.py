"""LICM (seed 000 §LICM): one test per rule, each checking the output IR, that it verifies with
mlir-opt, and that the program computes the same results."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from loopopt.analysis.refusal import Code
from loopopt.mlir import block_ops, func_body, func_name, functions, parse_module, print_module, walk
from loopopt.options import Options
from loopopt.remarks import MISSED, PASSED, RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, mlir_opt, verify_with_mlir_opt
from loopopt.loop_optimization.licm import (
    ALLOC, CALL, LOAD, PURE, REGION, UNKNOWN, WRITE, in_loop_defs, invariance_reason, licm, loop_facts, op_kind,
)
from loopopt.analysis.affine import Scope
from loopopt.pipeline import hooks_for

ROOT = Path(__file__).resolve().parent.parent
HAVE_MLIR_OPT = find_tool("mlir-opt") is not None

# The programs below double as inputs of scripts/compare_licm.py.
PROGRAMS = {
    "arith_args": """
func.func @arith_args(%a: f32, %b: f32, %out: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %s = arith.addf %a, %b : f32
    %t = arith.mulf %s, %a : f32
    affine.store %t, %out[%i] : memref<16xf32>
  }
  return
}
""",
    "scalar_load": """
func.func @scalar_load(%s: memref<f32>, %a: memref<16xf32>, %out: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %k = affine.load %s[] : memref<f32>
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.mulf %x, %k : f32
    affine.store %y, %out[%i] : memref<16xf32>
  }
  return
}
""",
    "written_load": """
func.func @written_load(%acc: memref<f32>, %a: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %s = affine.load %acc[] : memref<f32>
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.addf %s, %x : f32
    affine.store %y, %acc[] : memref<f32>
  }
  return
}
""",
    "cast_alias": """
func.func @cast_alias(%s: memref<4xf32>, %a: memref<16xf32>, %out: memref<16xf32>) {
  %d = memref.cast %s : memref<4xf32> to memref<?xf32>
  affine.for %i = 0 to 16 {
    %k = affine.load %s[0] : memref<4xf32>
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.addf %x, %k : f32
    affine.store %y, %out[%i] : memref<16xf32>
    affine.store %y, %d[0] : memref<?xf32>
  }
  return
}
""",
    "call_in_loop": """
func.func @bump(%b: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  %v = affine.load %b[0] : memref<4xf32>
  %w = arith.addf %v, %one : f32
  affine.store %w, %b[0] : memref<4xf32>
  return
}

func.func @call_in_loop(%s: memref<4xf32>, %out: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %k = affine.load %s[0] : memref<4xf32>
    affine.store %k, %out[%i] : memref<16xf32>
    func.call @bump(%s) : (memref<4xf32>) -> ()
  }
  return
}
""",
    "call_reach": """
memref.global "private" @counter : memref<4xf32> = dense<0.0>

func.func @touch_arg(%b: memref<4xf32>) {
  %g = memref.get_global @counter : memref<4xf32>
  %v = affine.load %g[0] : memref<4xf32>
  affine.store %v, %b[1] : memref<4xf32>
  return
}

func.func @bump_global(%b: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  %g = memref.get_global @counter : memref<4xf32>
  %v = affine.load %g[3] : memref<4xf32>
  %w = arith.addf %v, %one : f32
  affine.store %w, %g[3] : memref<4xf32>
  affine.store %w, %b[2] : memref<4xf32>
  return
}

func.func @call_reach(%s: memref<4xf32>, %buf: memref<4xf32>, %out: memref<16xf32>) {
  %p = memref.alloc() : memref<4xf32>
  %two = arith.constant 2.0 : f32
  affine.store %two, %p[0] : memref<4xf32>
  affine.for %i = 0 to 16 {
    %k = affine.load %s[0] : memref<4xf32>
    func.call @touch_arg(%buf) : (memref<4xf32>) -> ()
    affine.store %k, %out[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %k = affine.load %s[3] : memref<4xf32>
    %q = affine.load %p[0] : memref<4xf32>
    %y = arith.addf %k, %q : f32
    func.call @bump_global(%buf) : (memref<4xf32>) -> ()
    affine.store %y, %out[%i] : memref<16xf32>
  }
  memref.dealloc %p : memref<4xf32>
  return
}

func.func @global_caller(%buf: memref<4xf32>, %out: memref<16xf32>) {
  %g = memref.get_global @counter : memref<4xf32>
  func.call @call_reach(%g, %buf, %out) : (memref<4xf32>, memref<4xf32>, memref<16xf32>) -> ()
  return
}
""",
    "zero_trip": """
func.func @zero_trip(%a: memref<?xf32>, %x: f32, %out: memref<?xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %last = affine.load %a[symbol(%n) - 1] : memref<?xf32>
    %t = arith.mulf %x, %x : f32
    %y = arith.addf %last, %t : f32
    affine.store %y, %out[%i] : memref<?xf32>
  }
  return
}
""",
    "symbolic_runs": """
func.func @symbolic_runs(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  affine.for %i = affine_map<()[s0] -> (s0)>()[%n] to affine_map<()[s0] -> (s0 + 4)>()[%n] {
    %first = affine.load %a[symbol(%n)] : memref<?xf32>
    affine.store %first, %out[%i] : memref<?xf32>
  }
  return
}
""",
    "two_levels": """
func.func @two_levels(%s: memref<f32>, %c: f32, %a: memref<8x16xf32>, %out: memref<8x16xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %k = affine.load %s[] : memref<f32>
      %k2 = arith.mulf %k, %c : f32
      %x = affine.load %a[%i, %j] : memref<8x16xf32>
      %y = arith.addf %x, %k2 : f32
      affine.store %y, %out[%i, %j] : memref<8x16xf32>
    }
  }
  return
}
""",
    "unfused": """
func.func @unfused(%a: memref<16xf32>, %s: memref<f32>, %c: f32, %out: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %k = affine.load %s[] : memref<f32>
    %k2 = arith.mulf %k, %c : f32
    %z = affine.load %t[%i] : memref<16xf32>
    %w = arith.mulf %z, %k2 : f32
    affine.store %w, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
""",
    # `unfused` after fusion, written by hand: both bodies on one IV.
    "fused": """
func.func @unfused(%a: memref<16xf32>, %s: memref<f32>, %c: f32, %out: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %t[%i] : memref<16xf32>
    %k = affine.load %s[] : memref<f32>
    %k2 = arith.mulf %k, %c : f32
    %z = affine.load %t[%i] : memref<16xf32>
    %w = arith.mulf %z, %k2 : f32
    affine.store %w, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
""",
    "disjoint_write": """
func.func @disjoint_write(%a: memref<17xf32>, %b: memref<17xf32>) {
  affine.for %i = 0 to 16 {
    %head = affine.load %a[0] : memref<17xf32>
    %x = affine.load %b[%i] : memref<17xf32>
    %y = arith.addf %x, %head : f32
    affine.store %y, %a[%i + 1] : memref<17xf32>
  }
  affine.for %i = 0 to 16 {
    %head = affine.load %b[0] : memref<17xf32>
    %x = affine.load %a[%i] : memref<17xf32>
    %y = arith.addf %x, %head : f32
    affine.store %y, %b[%i] : memref<17xf32>
  }
  return
}
""",
    "memref_load": """
func.func @memref_load(%s: memref<4xf32>, %a: memref<16xf32>, %out: memref<16xf32>) {
  %c2 = arith.constant 2 : index
  affine.for %i = 0 to 16 {
    %k = memref.load %s[%c2] : memref<4xf32>
    %x = affine.load %a[%i] : memref<16xf32>
    %y = arith.subf %x, %k : f32
    affine.store %y, %out[%i] : memref<16xf32>
  }
  return
}
""",
    "divide": """
func.func @divide(%p: index, %q: index, %out: memref<?xindex>, %n: index) {
  affine.for %i = 0 to %n {
    %d = arith.divui %p, %q : index
    %e = arith.addi %p, %q : index
    %f = arith.addi %d, %e : index
    memref.store %f, %out[%i] : memref<?xindex>
  }
  affine.for %i = 0 to 4 {
    %d = arith.divui %p, %q : index
    memref.store %d, %out[%i] : memref<?xindex>
  }
  return
}
""",
    "invariant_store": """
func.func @invariant_store(%x: f32, %flag: memref<f32>, %a: memref<?xf32>, %out: memref<?xf32>, %n: index,
                           %b: memref<4xf32>) {
  affine.for %i = 0 to 16 {
    affine.store %x, %flag[] : memref<f32>
    %v = affine.load %a[%i] : memref<?xf32>
    affine.store %v, %out[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    affine.store %x, %a[0] : memref<?xf32>
    affine.store %x, %out[%i + 4] : memref<?xf32>
    affine.for %j = 0 to 4 {
      %y = arith.mulf %x, %x : f32
      affine.store %y, %b[%j] : memref<4xf32>
    }
  }
  return
}
""",
    "whole_loop": """
func.func @whole_loop(%x: f32, %b: memref<4xf32>, %c: memref<4xf32>, %out: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c2 = arith.constant 2 : index
  affine.for %i = 0 to 16 {
    %s = affine.for %j = 0 to 4 iter_args(%acc = %zero) -> f32 {
      %w = affine.load %b[%j] : memref<4xf32>
      %v = arith.addf %acc, %w : f32
      affine.yield %v : f32
    }
    %r = affine.if affine_set<()[s0] : (s0 - 2 >= 0)>()[%c2] -> f32 {
      affine.yield %x : f32
    } else {
      affine.yield %zero : f32
    }
    %u = affine.for %j = 0 to 4 iter_args(%acc = %zero) -> f32 {
      %w = affine.load %c[%j] : memref<4xf32>
      %v = arith.addf %acc, %w : f32
      affine.yield %v : f32
    }
    %ii = arith.index_cast %i : index to i32
    %xi = arith.sitofp %ii : i32 to f32
    %e = affine.for %j = 0 to 4 iter_args(%acc = %zero) -> f32 {
      %v = arith.addf %acc, %xi : f32
      affine.yield %v : f32
    }
    %t = arith.addf %s, %r : f32
    %t1 = arith.addf %t, %e : f32
    %t2 = arith.addf %t1, %u : f32
    affine.store %t2, %out[%i] : memref<16xf32>
    affine.store %t2, %c[%i floordiv 4] : memref<4xf32>
  }
  return
}
""",
}


# ---------------------------------------------------------------- helpers

def run_licm(name: str, text: str | None = None):
    """LICM on PROGRAMS[name]: (output text, remark log, ops moved, output module)."""
    text = text if text is not None else PROGRAMS[name]
    module = parse_module(text, f"{name}.mlir")
    log = RemarkLog()
    n = licm(module, Options(), log, f"{name}.mlir")
    return print_module(module), log, n, module


def check_output(before: str, after: str, seed: int = 3, **kw) -> None:
    """The output verifies (ours and mlir-opt's verifier) and computes the same results."""
    module = parse_module(after)
    module.operation.verify()
    if HAVE_MLIR_OPT:
        assert verify_with_mlir_opt(after) is None
    assert_same_results(before, after, seed=seed, **kw)


def depth(op) -> int:
    n, p = 0, op.parent
    while p is not None and p.name != "func.func":
        n += p.name == "affine.for"
        p = p.parent
    return n


def kernel(module, name: str):
    return next(f for f in functions(module) if func_name(f) == name)


def ops(module, fn: str, name: str) -> list:
    return [o for o in walk(kernel(module, fn)) if o.name == name]


def loads_of(module, fn: str, arg: int) -> list:
    """Loads whose memref is argument `arg` of @fn."""
    a = func_body(kernel(module, fn)).arguments[arg]
    return [o for o in walk(kernel(module, fn)) if o.name in ("affine.load", "memref.load") and o.operands[0] == a]


def passed(log) -> list[str]:
    return [r.message for r in log if r.kind == PASSED]


def missed(log) -> list[str]:
    return [r.message for r in log if r.kind == MISSED]


# ---------------------------------------------------------------- rules

def test_arithmetic_on_arguments_leaves_the_loop():
    out, log, n, m = run_licm("arith_args")
    assert n == 2
    assert [depth(o) for o in ops(m, "arith_args", "arith.addf")] == [0]
    assert [depth(o) for o in ops(m, "arith_args", "arith.mulf")] == [0]
    assert [depth(o) for o in ops(m, "arith_args", "affine.store")] == [1]
    # program order kept: addf, mulf, then the loop
    top = [o.name for o in block_ops(func_body(kernel(m, "arith_args")))]
    assert top[:3] == ["arith.addf", "arith.mulf", "affine.for"]
    check_output(PROGRAMS["arith_args"], out)


def test_remark_text_is_verbatim_and_names_the_loop():
    out, log, n, m = run_licm("arith_args")
    hoists = [r for r in log if r.kind == PASSED]
    assert [r.message for r in hoists] == [
        "[LICM] Moving inst arith.addf to a new insertion point",
        "[LICM] Moving inst arith.mulf to a new insertion point",
    ]
    assert all(r.pass_name == "licm" and r.function == "arith_args" for r in hoists)
    assert hoists[0].args["loop"] == "arith_args.mlir:3:3"
    assert hoists[0].location == "arith_args.mlir:4:10"
    # the store has invariant-free operands (%t is in the loop): not a candidate, no remark
    assert missed(log) == []


def test_scalar_load_not_written_in_the_loop_is_hoisted():
    out, log, n, m = run_licm("scalar_load")
    assert [depth(o) for o in loads_of(m, "scalar_load", 0)] == [0]
    assert [depth(o) for o in loads_of(m, "scalar_load", 1)] == [1]
    assert passed(log) == ["[LICM] Moving inst affine.load to a new insertion point"]
    check_output(PROGRAMS["scalar_load"], out)


def test_load_of_a_buffer_written_in_the_loop_stays():
    out, log, n, m = run_licm("written_load")
    assert n == 0
    assert [depth(o) for o in loads_of(m, "written_load", 0)] == [1]
    assert missed(log) == ["[LICM] not hoisted: %arg0 is written in the loop (affine.store)"]
    check_output(PROGRAMS["written_load"], out)


def test_write_through_memref_cast_keeps_the_load():
    out, log, n, m = run_licm("cast_alias")
    assert [depth(o) for o in loads_of(m, "cast_alias", 0)] == [1]
    assert "[LICM] not hoisted: %arg0 is written in the loop (affine.store through memref.cast)" in missed(log)
    check_output(PROGRAMS["cast_alias"], out)


def test_buffer_passed_to_a_call_in_the_loop_keeps_the_load():
    out, log, n, m = run_licm("call_in_loop")
    assert [depth(o) for o in loads_of(m, "call_in_loop", 0)] == [1]
    assert "[LICM] not hoisted: %arg0 is written in the loop (call to @bump)" in missed(log)
    assert "[LICM] not hoisted: call to @bump may have side effects" in missed(log)
    check_output(PROGRAMS["call_in_loop"], out, func="call_in_loop")


def test_calls_block_only_the_memory_they_can_reach():
    """@touch_arg writes only %buf (reading a global is fine): the load of %s leaves.
    @bump_global writes a global, which may be what %s is in the caller: %s stays; the placed
    %p, which the callee cannot see, leaves."""
    out, log, n, m = run_licm("call_reach")
    s_loads = loads_of(m, "call_reach", 0)
    assert [depth(o) for o in s_loads] == [0, 1]
    alloc = ops(m, "call_reach", "memref.alloc")[0]
    p_loads = [o for o in ops(m, "call_reach", "affine.load") if o.operands[0] == alloc.results[0]]
    assert [depth(o) for o in p_loads] == [0]
    assert "[LICM] not hoisted: %arg0 may be written by call to @bump_global in the loop" in missed(log)
    check_output(PROGRAMS["call_reach"], out, func="call_reach")
    check_output(PROGRAMS["call_reach"], out, func="global_caller")


@pytest.mark.parametrize("n", [0, 1, 5])
def test_possibly_zero_trip_loop_keeps_the_load_but_hoists_arithmetic(n):
    out, log, moved, m = run_licm("zero_trip")
    assert [depth(o) for o in loads_of(m, "zero_trip", 0)] == [1]
    assert [depth(o) for o in ops(m, "zero_trip", "arith.mulf")] == [0]
    assert "[LICM] not hoisted: loop may run zero times" in missed(log)
    check_output(PROGRAMS["zero_trip"], out, sizes={3: n})


def test_symbolic_loop_that_provably_runs_hoists_the_load():
    out, log, n, m = run_licm("symbolic_runs")
    assert [depth(o) for o in loads_of(m, "symbolic_runs", 0)] == [0]
    check_output(PROGRAMS["symbolic_runs"], out, sizes={"arg0": (16,), "arg1": (16,), 2: 5})


def test_op_leaves_two_levels_in_order():
    out, log, n, m = run_licm("two_levels")
    assert n == 2
    assert [depth(o) for o in loads_of(m, "two_levels", 0)] == [0]
    assert [depth(o) for o in ops(m, "two_levels", "arith.mulf")] == [0]
    top = [o.name for o in block_ops(func_body(kernel(m, "two_levels")))]
    assert top[:3] == ["affine.load", "arith.mulf", "affine.for"]
    # one remark per loop left: inner loop first, then the outer one
    inner_then_outer = [r.args["loop"] for r in log if r.kind == PASSED]
    assert inner_then_outer == ["two_levels.mlir:4:5"] * 2 + ["two_levels.mlir:3:3"] * 2
    check_output(PROGRAMS["two_levels"], out)


def test_invariants_of_the_second_body_leave_the_fused_loop():
    """Fusion first: in the fused loop (both bodies on one IV) the consumer's scale only depends
    on values from outside; the loop writes %t and %out, never %s, so the load and the
    multiply leave. Results are compared against the unfused program."""
    out, log, n, m = run_licm("fused")
    assert n == 2
    assert [depth(o) for o in loads_of(m, "unfused", 1)] == [0]
    mulf = ops(m, "unfused", "arith.mulf")
    assert sorted(depth(o) for o in mulf) == [0, 1]
    check_output(PROGRAMS["unfused"], out)


def test_fusion_then_licm_end_to_end():
    from loopopt.loop_optimization.fusion import check_loop_fusion

    module = parse_module(PROGRAMS["unfused"], "unfused.mlir")
    log = RemarkLog()
    fused = check_loop_fusion(module, Options(), log, "unfused.mlir", hooks=hooks_for(Options().target))
    assert fused == 1
    n = licm(module, Options(), log, "unfused.mlir")
    assert n >= 2
    assert [depth(o) for o in loads_of(module, "unfused", 1)] == [0]
    check_output(PROGRAMS["unfused"], print_module(module))


def test_write_to_another_element_does_not_block_the_load():
    """isl: %a[i + 1] for 0 <= i < 16 never touches %a[0]; %b[i] does at i = 0."""
    out, log, n, m = run_licm("disjoint_write")
    assert [depth(o) for o in loads_of(m, "disjoint_write", 0)] == [0, 1]
    assert [depth(o) for o in loads_of(m, "disjoint_write", 1)] == [1, 1]
    assert "[LICM] not hoisted: %arg1 is written in the loop (affine.store)" in missed(log)
    check_output(PROGRAMS["disjoint_write"], out)


def test_memref_load_is_a_load_too():
    out, log, n, m = run_licm("memref_load")
    assert [depth(o) for o in loads_of(m, "memref_load", 0)] == [0]
    check_output(PROGRAMS["memref_load"], out)


def test_division_leaves_only_a_loop_that_runs():
    out, log, n, m = run_licm("divide")
    divs = ops(m, "divide", "arith.divui")
    assert [depth(o) for o in divs] == [1, 0]
    assert [depth(o) for o in ops(m, "divide", "arith.addi")] == [0, 1]
    assert "[LICM] not hoisted: loop may run zero times and arith.divui may divide by zero" in missed(log)
    check_output(PROGRAMS["divide"], out, sizes={1: 3, 3: 4})


def test_closed_inner_loop_and_if_leave_as_a_whole():
    """The reduction over %b and the affine.if use nothing of the outer loop and read nothing it
    writes: each moves as one op. The reduction over %c stays (the loop writes %c), and so does
    the one adding a value computed from %i."""
    out, log, n, m = run_licm("whole_loop")
    fors = ops(m, "whole_loop", "affine.for")  # the %b reduction, the outer loop, %c, %i
    assert [depth(o) for o in fors] == [0, 0, 1, 1]
    assert [depth(o) for o in ops(m, "whole_loop", "affine.if")] == [0]
    assert passed(log)[:2] == ["[LICM] Moving inst affine.for to a new insertion point",
                               "[LICM] Moving inst affine.if to a new insertion point"]
    assert ("[LICM] not hoisted: affine.for reads memory: %arg2 is written in the loop (affine.store)"
            in missed(log))
    check_output(PROGRAMS["whole_loop"], out)


def test_per_function_entry_point_does_what_the_module_pass_does():
    from loopopt.loop_optimization.licm import licm_function

    out, log, n, _ = run_licm("call_reach")
    module = parse_module(PROGRAMS["call_reach"], "call_reach.mlir")
    log2 = RemarkLog()
    assert sum(licm_function(f, log2, "call_reach.mlir") for f in functions(module)) == n == 2
    assert print_module(module) == out and log2.messages() == log.messages()


def test_licm_is_idempotent():
    out, log, n, m = run_licm("two_levels")
    again, log2, n2, _ = run_licm("two_levels", out)
    assert n2 == 0 and again == out


# ---------------------------------------------------------------- the decisions, without moving anything

KINDS = """
func.func @kinds(%m: memref<4xf32>, %x: f32) {
  affine.for %i = 0 to 4 {
    %a = arith.addf %x, %x : f32
    %v = affine.load %m[0] : memref<4xf32>
    affine.store %x, %m[1] : memref<4xf32>
    %p = memref.alloc() : memref<4xf32>
    func.call @ext(%m) : (memref<4xf32>) -> ()
    "test.opaque"() : () -> ()
    affine.if affine_set<(d0) : (d0 >= 0)>(%i) {
    }
  }
  return
}
func.func private @ext(memref<4xf32>)
"""


def test_kind_gate_and_reasons():
    module = parse_module(KINDS, "kinds.mlir")
    loop = ops(module, "kinds", "affine.for")[0]
    body = block_ops(loop.regions[0].blocks[0])[:-1]
    assert [op_kind(o) for o in body] == [PURE, LOAD, WRITE, ALLOC, CALL, UNKNOWN, REGION]
    defs = in_loop_defs(loop)
    scope = Scope()
    facts = loop_facts(loop, scope, {})
    refusals = [invariance_reason(o, loop, defs, scope, facts) for o in body]
    assert refusals[0] is None
    reasons = [None] + [r.detail for r in refusals[1:]]
    assert [r.code for r in refusals[1:]] == [Code.LICM_WRITTEN_IN_LOOP, *[Code.LICM_SIDE_EFFECTS] * 4,
                                               Code.LICM_OPERAND_IN_LOOP]
    assert reasons[1] == "%arg0 is written in the loop (call to @ext)"
    assert reasons[2:6] == ["affine.store writes memory", "memref.alloc allocates",
                            "call to @ext may have side effects", "unknown op test.opaque may have side effects"]
    assert reasons[6] == "operand %iv@3:3 is defined in the loop"  # the IV of the loop at 3:3
    assert {c.what for c in facts.clobbers} == {"call to @ext", "unknown op test.opaque"}


def test_unknown_op_blocks_every_load():
    text = KINDS.replace("affine.store %x, %m[1] : memref<4xf32>\n", "").replace(
        "func.call @ext(%m) : (memref<4xf32>) -> ()\n", "")
    module = parse_module(text, "kinds.mlir")
    loop = ops(module, "kinds", "affine.for")[0]
    load = ops(module, "kinds", "affine.load")[0]
    reason = invariance_reason(load, loop, in_loop_defs(loop), Scope(), loop_facts(loop, Scope(), {}))
    assert reason.code is Code.LICM_WRITTEN_IN_LOOP
    assert reason.detail == "%arg0 may be written by unknown op test.opaque in the loop"


# ---------------------------------------------------------------- against mlir-opt

def _compare_module():
    spec = importlib.util.spec_from_file_location("compare_licm", ROOT / "scripts" / "compare_licm.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("compare_licm", mod)  # dataclasses look their module up while executing it
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="mlir-opt 22 not found")
def test_mlir_zero_trip_hoist_reads_out_of_bounds():
    """mlir-opt hoists the load of %a[n - 1] out of `0 to %n`; at n = 0 it reads %a[-1]."""
    p = mlir_opt(PROGRAMS["zero_trip"], ["--affine-loop-invariant-code-motion"])
    assert p.returncode == 0
    with pytest.raises(AssertionError, match="AFTER program fails"):
        assert_same_results(PROGRAMS["zero_trip"], p.stdout, sizes={3: 0})


def test_stores_never_move():
    """The seed's kind gate: a store of an invariant value to an invariant address stays, even
    where mlir-opt moves it; its invariant operand's computation still leaves both loops."""
    out, log, n, m = run_licm("invariant_store")
    assert [depth(o) for o in ops(m, "invariant_store", "affine.store")] == [1, 1, 1, 1, 2]
    assert [depth(o) for o in ops(m, "invariant_store", "arith.mulf")] == [0]
    assert missed(log).count("[LICM] not hoisted: affine.store writes memory") == 2
    check_output(PROGRAMS["invariant_store"], out, sizes={4: 0})
    check_output(PROGRAMS["invariant_store"], out, sizes={4: 3})


@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="mlir-opt 22 not found")
def test_mlir_zero_trip_store_hoist_writes_memory_that_was_never_written():
    p = mlir_opt(PROGRAMS["invariant_store"], ["--affine-loop-invariant-code-motion"])
    with pytest.raises(AssertionError, match="differs"):
        assert_same_results(PROGRAMS["invariant_store"], p.stdout, sizes={4: 0})


@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="mlir-opt 22 not found")
def test_mlir_speculated_division_by_zero():
    """Dividing by %q inside `0 to %n` is fine when n = q = 0; hoisted, it divides by zero."""
    text = PROGRAMS["divide"].split("  affine.for %i = 0 to 4")[0] + "  return\n}\n"
    out, log, n, m = run_licm("divide", text)
    check_output(text, out, sizes={1: 0, 3: 0})
    p = mlir_opt(text, ["--affine-loop-invariant-code-motion"])
    with pytest.raises(AssertionError, match="division by zero"):
        assert_same_results(text, p.stdout, sizes={1: 0, 3: 0})


@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="mlir-opt 22 not found")
@pytest.mark.parametrize("name", ["cast_alias", "call_in_loop"])
def test_mlir_alias_hoist_changes_results(name):
    """mlir-opt only looks at stores through the same memref value: a store through a cast, or
    a callee writing its argument, go unseen."""
    p = mlir_opt(PROGRAMS[name], ["--affine-loop-invariant-code-motion"])
    with pytest.raises(AssertionError, match="differs"):
        assert_same_results(PROGRAMS[name], p.stdout, func=name)


@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="mlir-opt 22 not found")
def test_mlir_hoist_across_a_call_that_writes_a_global_changes_results():
    """@global_caller passes @counter as %s; mlir-opt hoists the load of %s[3] above the calls
    of @bump_global that increment @counter[3]."""
    p = mlir_opt(PROGRAMS["call_reach"], ["--affine-loop-invariant-code-motion"])
    with pytest.raises(AssertionError, match="differs"):
        assert_same_results(PROGRAMS["call_reach"], p.stdout, func="global_caller")


EXPLAINED = ("is written in the loop", "may be written by", "loop may run zero times", "writes memory",
             "contains affine.store", "which mlir-opt moves whole", "is defined in the loop (it depends on a")


def _theirs_only(results) -> list:
    assert not [(r.file, r.error) for r in results if r.error]
    return [d for r in results for d in r.differences if d.mlir_depth < d.ours_depth]


@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="mlir-opt 22 not found")
def test_everything_mlir_hoists_and_we_do_not_is_explained():
    cmp = _compare_module()
    results = [cmp.compare(text, f"tests/test_licm.py::{name}") for name, text in PROGRAMS.items()]
    theirs_only = _theirs_only(results)
    assert theirs_only, "the adversarial programs should show mlir-opt's extra (unsound) hoists"
    for d in theirs_only:
        assert any(e in d.reason for e in EXPLAINED), d
    ours_only = [d for r in results for d in r.differences if d.ours_depth < d.mlir_depth]
    assert {d.op for d in ours_only} == {"affine.load", "memref.load"}


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_MLIR_OPT, reason="mlir-opt 22 not found")
def test_on_the_corpus_we_hoist_everything_mlir_hoists():
    cmp = _compare_module()
    results = [cmp.compare(p.read_text(), str(p.relative_to(ROOT))) for p in sorted((ROOT / "examples").rglob("*.mlir"))]
    assert _theirs_only(results) == []
    assert sum(r.ours_levels for r in results) >= sum(r.mlir_levels for r in results)


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted((ROOT / "examples").rglob("*.mlir")),
                         ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_corpus_keeps_results_after_licm(path):
    from test_corpus import INDEX  # the README's run sizes

    rel = str(path.relative_to(ROOT / "examples"))
    text = path.read_text()
    out, log, n, m = run_licm(path.stem, text)
    check_output(text, out, seed=7, func=path.stem, sizes=INDEX[rel]["sizes"])
