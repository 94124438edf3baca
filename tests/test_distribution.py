"""Loop distribution: groups are dependence SCCs kept in a legal order; def-use binds; pure ops are
recomputed; a split needs two non-empty groups. Each applied split is checked for IR shape,
mlir-opt validity and unchanged interpreter results."""
from __future__ import annotations

import pytest

from loopopt.analysis.affine import Scope
from loopopt.analysis.legality import distribution_violation
from loopopt.analysis.loops import body_ops, perfect_nest
from loopopt.mlir import parse_module, print_module, walk
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.transforms.distribution import (STOP_ITER_ARGS, STOP_ONE_GROUP, check_loop_distribution,
                                             distribute_pass, loop_distribution, split_for_distribution)

CPU = Options(target=TARGETS["cpu"])


def top_loops(m):
    return [o for o in walk(m.operation) if o.name == "affine.for" and o.parent.name == "func.func"]


def check(before: str, after: str) -> None:
    if find_tool("mlir-opt") is not None:
        assert verify_with_mlir_opt(after) is None, after
    assert_same_results(before, after)


def distributed(src: str):
    """Run the distribute pass; (module, printed IR, top-level loops after, remarks). The module is
    returned so the caller keeps it alive while it holds its ops."""
    m = parse_module(src)
    log = RemarkLog()
    distribute_pass(m, CPU, log)
    return m, print_module(m), top_loops(m), log


def stored_buffers(loop) -> list[str]:
    return [o.operands[1].get_name() for o in walk(loop) if o.name == "affine.store"]


RECURRENCE = """
func.func @rec(%a: memref<64xf32>, %x: memref<64xf32>, %b: memref<64xf32>, %y: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 1 to 64 {
    %p = affine.load %a[%i - 1] : memref<64xf32>
    %q = affine.load %x[%i] : memref<64xf32>
    %s = arith.addf %p, %q : f32
    affine.store %s, %a[%i] : memref<64xf32>
    %v = affine.load %b[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %y[%i] : memref<64xf32>
  }
  return
}
"""


def test_independent_statement_splits_from_a_recurrence():
    _m, out, loops, log = distributed(RECURRENCE)
    assert len(loops) == 2
    assert stored_buffers(loops[0]) == ["%arg0"] and stored_buffers(loops[1]) == ["%arg3"]
    assert log.messages("distribution") == ["[LOOP DISTRIBUTION] into 2 loops"]
    check(RECURRENCE, out)


def test_dependence_cycle_stays_in_one_loop():
    src = """
func.func @cyc(%a: memref<64xf32>, %b: memref<64xf32>) {
  affine.for %i = 1 to 64 {
    %p = affine.load %b[%i - 1] : memref<64xf32>
    affine.store %p, %a[%i] : memref<64xf32>
    %q = affine.load %a[%i] : memref<64xf32>
    %r = arith.addf %q, %q : f32
    affine.store %r, %b[%i] : memref<64xf32>
  }
  return
}
"""
    _m, out, loops, log = distributed(src)
    assert len(loops) == 1
    assert log.messages("distribution") == [STOP_ONE_GROUP]
    assert out == print_module(parse_module(src))


def test_backward_dependence_puts_the_later_statement_first():
    # S1 reads a[i-1], which S2 writes one iteration earlier: S2's loop must run before S1's.
    src = """
func.func @back(%a: memref<64xf32>, %c: memref<64xf32>, %x: memref<64xf32>) {
  affine.for %i = 1 to 64 {
    %p = affine.load %a[%i - 1] : memref<64xf32>
    affine.store %p, %c[%i] : memref<64xf32>
    %q = affine.load %x[%i] : memref<64xf32>
    affine.store %q, %a[%i] : memref<64xf32>
  }
  return
}
"""
    _m, out, loops, _ = distributed(src)
    assert [stored_buffers(lp) for lp in loops] == [["%arg0"], ["%arg1"]]
    check(src, out)


def test_def_use_binds_statements():
    src = """
func.func @ssa(%a: memref<64xf32>, %x: memref<64xf32>, %y: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %x[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %y[%i] : memref<64xf32>
  }
  return
}
"""
    m = parse_module(src)
    assert len(split_for_distribution(top_loops(m)[0])) == 1  # %v feeds both stores
    _m, out, loops, log = distributed(src)
    assert len(loops) == 1 and log.messages("distribution") == [STOP_ONE_GROUP]


def test_pure_ops_are_recomputed_in_each_loop():
    src = """
func.func @pure(%a: memref<64xf32>, %b: memref<64xf32>, %x: memref<64xf32>, %y: memref<64xf32>) {
  affine.for %i = 0 to 32 {
    %c = arith.constant 3.0 : f32
    %k = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %u = affine.load %a[%k] : memref<64xf32>
    %u2 = arith.mulf %u, %c : f32
    affine.store %u2, %x[%k] : memref<64xf32>
    %v = affine.load %b[%k] : memref<64xf32>
    %v2 = arith.addf %v, %c : f32
    affine.store %v2, %y[%k] : memref<64xf32>
  }
  return
}
"""
    _m, out, loops, _ = distributed(src)
    assert len(loops) == 2
    for lp in loops:
        names = [o.name for o in body_ops(lp)]
        assert names.count("arith.constant") == 1 and names.count("affine.apply") == 1
    check(src, out)


def test_perfect_2d_nest_distributes_whole_nests():
    src = """
func.func @nest(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %x: memref<8x8xf32>, %y: memref<8x8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 1 to 8 {
      %p = affine.load %x[%i, %j - 1] : memref<8x8xf32>
      %q = affine.load %a[%i, %j] : memref<8x8xf32>
      %s = arith.addf %p, %q : f32
      affine.store %s, %x[%i, %j] : memref<8x8xf32>
      %v = affine.load %b[%i, %j] : memref<8x8xf32>
      affine.store %v, %y[%j, %i] : memref<8x8xf32>
    }
  }
  return
}
"""
    _m, out, loops, _ = distributed(src)
    assert len(loops) == 2 and all(len(perfect_nest(lp)) == 2 for lp in loops)
    check(src, out)


def test_polybench_atax_splits_in_program_order():
    src = open("examples/polybench_atax.mlir").read()
    _m, out, loops, log = distributed(src)
    assert len(loops) == 4  # y init, then the i loop split into tmp init, tmp = A x, y += A^T tmp
    assert [stored_buffers(lp) for lp in loops[1:]] == [["%arg3"], ["%arg3"], ["%arg2"]]
    assert "[LOOP DISTRIBUTION] into 3 loops" in log.messages("distribution")
    check(src, out)


def test_illegal_grouping_is_refused_before_any_change():
    m = parse_module(RECURRENCE)
    loop = top_loops(m)[0]
    body = body_ops(loop)
    stores = [o for o in body if o.name == "affine.store"]
    loads = [o for o in body if o.name == "affine.load"]
    # Separating the load of a[i-1] from the store of a[i] breaks both a def-use pair and a cycle.
    groups = [[loads[0]], [o for o in body if o != loads[0]]]
    assert distribution_violation(perfect_nest(loop), groups, Scope()) is not None
    with pytest.raises(ValueError):
        loop_distribution(loop, groups)
    assert print_module(m) == print_module(parse_module(RECURRENCE))
    assert stores  # the program has the stores the grouping talks about


def test_one_group_is_not_committed():
    m = parse_module(RECURRENCE)
    loop = top_loops(m)[0]
    body = body_ops(loop)
    assert loop_distribution(loop, [body, []]) == [loop]
    assert len(top_loops(m)) == 1


def test_loop_carrying_values_is_not_distributed():
    src = """
func.func @r(%a: memref<64xf32>, %x: memref<64xf32>, %out: memref<f32>) {
  %z = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to 64 iter_args(%acc = %z) -> (f32) {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %x[%i] : memref<64xf32>
    %t = arith.addf %acc, %v : f32
    affine.yield %t : f32
  }
  affine.store %s, %out[] : memref<f32>
  return
}
"""
    m = parse_module(src)
    assert check_loop_distribution(top_loops(m)[0]).message == STOP_ITER_ARGS


def test_call_in_the_body_binds_everything_it_may_touch():
    src = """
func.func private @log(memref<64xf32>)
func.func @c(%a: memref<64xf32>, %x: memref<64xf32>, %b: memref<64xf32>, %y: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %x[%i] : memref<64xf32>
    func.call @log(%x) : (memref<64xf32>) -> ()
    %w = affine.load %b[%i] : memref<64xf32>
    affine.store %w, %y[%i] : memref<64xf32>
  }
  return
}
"""
    m = parse_module(src)
    assert len(split_for_distribution(top_loops(m)[0])) == 1


def test_distribution_can_be_switched_off():
    m = parse_module(RECURRENCE)
    assert distribute_pass(m, Options(enable_loop_distribution=False), RemarkLog()) == 0
    assert len(top_loops(m)) == 1
