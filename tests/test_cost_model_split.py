"""Issue 12, the cpu cost model: split a longer loop whose extra iterations are read later
(pair_restructuring.split_violation / split_loop / tail_placement, GreedyFusion._split_tail), and
remove the stores that nothing reads any more (codegen/cpu/dead_stores.py).

Every transform test checks the IR (ours and mlir-opt's verifier) and that results are unchanged
in the reference interpreter; the issue's example also natively (mlir-runner)."""
from __future__ import annotations

import re

import pytest

from fusion_util import optimize_checked
from loopopt import mlir
from loopopt.analysis.affine import Scope
from loopopt.analysis.loops import loops_in_block
from loopopt.options import Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.loop_optimization import pair_restructuring as pr
from loopopt.codegen.cpu.dead_stores import dead_store_violation, dead_stores_function
from test_cost_model import _native_same

SPLIT = "[LOOP SPLIT]"
DEAD = "[DEAD STORE] store removed"


def _top_loops(text: str) -> list[str]:
    """The header (`affine.for %x = A to B`) of each function-level loop, in order."""
    return re.findall(r"^    affine\.for %\w+ = (\S+ to \S+)", text, re.M)


def _messages(res) -> list[str]:
    return [r.message for r in res.remarks]


# ------------------------------------------------------------------------- the example

EXAMPLE = """
func.func @split(%a: memref<384x64xf32>, %b: memref<256x64xf32>, %out: memref<256x64xf32>, %out2: memref<128x64xf32>) {
  %c2 = arith.constant 2.0 : f32
  %c1 = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<384x64xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 64 {
      %v = affine.load %a[%i, %j] : memref<384x64xf32>
      %m = arith.mulf %v, %c2 : f32
      %s = arith.addf %m, %c1 : f32
      affine.store %s, %t[%i, %j] : memref<384x64xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 64 {
      %v = affine.load %t[%i, %j] : memref<384x64xf32>
      %w = affine.load %b[%i, %j] : memref<256x64xf32>
      %p = arith.mulf %v, %w : f32
      affine.store %p, %out[%i, %j] : memref<256x64xf32>
    }
  }
  affine.for %i = 256 to 384 {
    affine.for %j = 0 to 64 {
      %v = affine.load %t[%i, %j] : memref<384x64xf32>
      affine.store %v, %out2[%i - 256, %j] : memref<128x64xf32>
    }
  }
  memref.dealloc %t : memref<384x64xf32>
  return
}
"""


def test_example_splits_fuses_both_pieces_and_drops_the_intermediate():
    res = optimize_checked(EXAMPLE, "cpu")
    msgs = _messages(res)
    split = [r for r in res.remarks if r.message.startswith(SPLIT)]
    assert len(split) == 1 and split[0].args["kept_iterations"] == 256 and split[0].args["tail_iterations"] == 128
    assert split[0].args["tail"] == pr.AFTER_PARTNER
    assert sum(m.startswith(DEAD) for m in msgs) == 2
    assert _top_loops(res.text) == ["0 to 256", "256 to 384"]
    assert "memref.alloc" not in res.text
    assert res.num_loops_fused == 4
    _native_same(EXAMPLE, res.text, "split")


def test_example_on_trn1_keeps_the_seed_behaviour():
    res = optimize_checked(EXAMPLE, "trn1")
    msgs = _messages(res)
    assert not any(m.startswith(SPLIT) or m.startswith("[DEAD STORE]") for m in msgs)
    assert "[LOOP SPLIT]" not in res.text


# A later read of rows 128..255 overlaps the head's rows: the head's stores to %t stay.
OVERLAP = EXAMPLE.replace("%v = affine.load %t[%i, %j] : memref<384x64xf32>\n      affine.store %v, %out2",
                          "%v = affine.load %t[%i - 128, %j] : memref<384x64xf32>\n      affine.store %v, %out2")


def test_later_read_of_head_rows_keeps_the_heads_stores():
    assert OVERLAP != EXAMPLE
    res = optimize_checked(OVERLAP, "cpu")
    # Whatever fused, every element of %t the later loop reads is still stored.
    assert "memref.alloc" in res.text
    fn = res.text[res.text.index("func.func"):]
    stores = re.findall(r"affine\.store %\w+, %alloc\[", fn)
    assert stores, res.text
    _native_same(OVERLAP, res.text, "split")


# An op between the pair reads a row of the tail (row 300): the tail cannot move after the
# consumer, but it may run before the head (they touch different rows).
READ_BETWEEN = EXAMPLE.replace("%out2: memref<128x64xf32>) {", "%out2: memref<128x64xf32>, %d: memref<1xf32>) {") \
    .replace("  affine.for %i = 0 to 256 {", """  %k = affine.load %t[300, 5] : memref<384x64xf32>
  affine.store %k, %d[0] : memref<1xf32>
  affine.for %i = 0 to 256 {""", 1)


def test_tail_runs_before_the_head_when_an_op_between_reads_it():
    assert READ_BETWEEN.count("%t[300, 5]") == 1
    res = optimize_checked(READ_BETWEEN, "cpu")
    split = [r for r in res.remarks if r.message.startswith(SPLIT)]
    assert len(split) == 1 and split[0].args["tail"] == pr.BEFORE_HEAD
    assert _top_loops(res.text)[:2] == ["256 to 384", "0 to 256"]
    # Only rows 256..383 of %t are still accessed: the buffer shrinks to them.
    assert "memref.alloc() : memref<128x64xf32>" in res.text and "%alloc[44, 5]" in res.text
    _native_same(READ_BETWEEN, res.text, "split")


# The second loop of the pair is the longer one (a sibling that reads %a too); its tail writes
# the argument %out.
SECOND_LONGER = """
func.func @longer(%a: memref<384xf32>, %out: memref<384xf32>, %out2: memref<256xf32>) {
  %t = memref.alloc() : memref<256xf32>
  affine.for %i = 0 to 256 {
    %v = affine.load %a[%i] : memref<384xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %t[%i] : memref<256xf32>
  }
  affine.for %i = 0 to 384 {
    %v = affine.load %a[%i] : memref<384xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %out[%i] : memref<384xf32>
  }
  affine.for %i = 0 to 256 {
    %v = affine.load %t[%i] : memref<256xf32>
    affine.store %v, %out2[%i] : memref<256xf32>
  }
  memref.dealloc %t : memref<256xf32>
  return
}
"""


def test_longer_second_loop_splits_with_its_tail_in_place():
    res = optimize_checked(SECOND_LONGER, "cpu")
    split = [r for r in res.remarks if r.message.startswith(SPLIT)]
    assert len(split) == 1 and split[0].args["tail"] == pr.IN_PLACE
    assert _top_loops(res.text) == ["0 to 256", "256 to 384"]


# The head (rows 0..127 of a 256-row loop) shares no element with the 128-row partner, which
# reads rows 128..255 of %x: a split would gain nothing.
NO_SHARED_ELEMENTS = """
func.func @apart(%x: memref<256xf32>, %o1: memref<256xf32>, %o2: memref<128xf32>) {
  affine.for %i = 0 to 256 {
    %v = affine.load %x[%i] : memref<256xf32>
    affine.store %v, %o1[%i] : memref<256xf32>
  }
  affine.for %i = 0 to 128 {
    %v = affine.load %x[%i + 128] : memref<256xf32>
    affine.store %v, %o2[%i] : memref<128xf32>
  }
  return
}
"""


def test_no_split_when_the_head_shares_no_element_with_the_partner():
    res = optimize_checked(NO_SHARED_ELEMENTS, "cpu")
    assert not any(m.startswith(SPLIT) for m in _messages(res))
    assert _top_loops(res.text) == ["0 to 256", "0 to 128"]


# The tail writes %c[0] like the head (it cannot run before it) and like the op between the
# pair reads it (it cannot run after that op); it writes %t, which the consumer reads, so the
# battery cannot hoist it either: no split is left behind.
STUCK_TAIL = """
func.func @stuck(%a: memref<384xf32>, %c: memref<1xf32>, %d: memref<1xf32>, %out: memref<256xf32>) {
  %t = memref.alloc() : memref<384xf32>
  affine.for %i = 0 to 384 {
    %v = affine.load %a[%i] : memref<384xf32>
    affine.store %v, %t[%i] : memref<384xf32>
    affine.store %v, %c[0] : memref<1xf32>
  }
  %k = affine.load %c[0] : memref<1xf32>
  affine.store %k, %d[0] : memref<1xf32>
  affine.for %i = 0 to 256 {
    %v = affine.load %t[%i] : memref<384xf32>
    affine.store %v, %out[%i] : memref<256xf32>
  }
  memref.dealloc %t : memref<384xf32>
  return
}
"""


def test_no_split_left_behind_when_the_tail_can_go_nowhere():
    res = optimize_checked(STUCK_TAIL, "cpu")
    assert not any(m.startswith(SPLIT) for m in _messages(res))
    assert _top_loops(res.text) == ["0 to 384", "0 to 256"]
    assert any("unmatched trip count" in m for m in _messages(res))


SYMBOLIC = """
func.func @symbolic(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %v = affine.load %a[%i] : memref<?xf32>
    affine.store %v, %t[%i] : memref<?xf32>
    affine.store %v, %a[%i] : memref<?xf32>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %t[%i] : memref<?xf32>
    affine.store %v, %out[%i] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}
"""


def test_symbolic_bound_loop_is_not_split():
    res = optimize_checked(SYMBOLIC, "cpu", sizes={2: 20})
    assert not any(m.startswith(SPLIT) for m in _messages(res))
    module = mlir.parse_module(SYMBOLIC)
    (first, _) = loops_in_block(mlir.func_body(mlir.functions(module)[0]))
    assert pr.split_violation(first, 4) == "bounds are not constant"


# ------------------------------------------------------------------------ split_violation rules

def _first_loop(text: str):
    module = mlir.parse_module(text)
    return module, loops_in_block(mlir.func_body(mlir.functions(module)[0]))[0]


ITER_ARGS = """
func.func @carried(%a: memref<16xf32>, %o: memref<1xf32>) {
  %z = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to 16 iter_args(%acc = %z) -> (f32) {
    %v = affine.load %a[%i] : memref<16xf32>
    %n = arith.addf %acc, %v : f32
    affine.yield %n : f32
  }
  affine.store %s, %o[0] : memref<1xf32>
  return
}
"""

NESTED = """
func.func @nested(%a: memref<4x16xf32>) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 16 {
      %v = affine.load %a[%i, %j] : memref<4x16xf32>
      affine.store %v, %a[%i, %j] : memref<4x16xf32>
    }
  }
  return
}
"""


def test_split_violation_states_the_rule():
    m1, carried = _first_loop(ITER_ARGS)
    assert pr.split_violation(carried, 8) == "the loop carries values"
    m2, outer = _first_loop(NESTED)
    assert pr.split_violation(outer, 2) is None
    assert pr.split_violation(outer, 0) is not None and pr.split_violation(outer, 4) is not None
    inner = loops_in_block(outer.regions[0].blocks[0])[0]
    assert pr.split_violation(inner, 8) == "not at function level"


STEPPED = """
func.func @stepped(%a: memref<32xf32>, %o: memref<32xf32>) {
  affine.for %i = 2 to 23 step 3 {
    %v = affine.load %a[%i] : memref<32xf32>
    %w = arith.addf %v, %v : f32
    affine.store %w, %o[%i] : memref<32xf32>
  }
  return
}
"""


@pytest.mark.parametrize("keep", [1, 3, 6])
def test_split_loop_rebuilds_the_iteration_range_exactly(keep):
    module, loop = _first_loop(STEPPED)
    assert pr.split_violation(loop, keep) is None
    head, tail = pr.split_loop(loop, keep)
    assert head.is_before_in_block(tail)
    cut = 2 + 3 * keep
    text = mlir.print_module(module)
    assert f"affine.for %arg2 = 2 to {cut} step 3" in text and f"= {cut} to 23 step 3" in text
    assert mlir.verify(module.operation) is None
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(text) is None
    assert_same_results(STEPPED, text)


def test_reorder_violation_is_exact_on_elements():
    module = mlir.parse_module(EXAMPLE)
    producer, consumer, later = loops_in_block(mlir.func_body(mlir.functions(module)[0]))
    scope = Scope()
    head, tail = pr.split_loop(producer, 256)
    assert pr.reorder_violation(tail, consumer, scope) is None  # rows 256.. against rows ..255
    assert pr.reorder_violation(tail, head, scope) is None
    assert pr.reorder_violation(tail, later, scope) is not None  # it reads what the tail writes
    assert pr.tail_placement(head, tail, consumer, scope) == pr.AFTER_PARTNER
    assert pr.shares_elements(head, consumer, scope) and not pr.shares_elements(head, later, scope)


# ------------------------------------------------------------------------------- dead stores

def _dse(src: str) -> tuple[str, int, list[str]]:
    """Run only the dead-store step; check the IR and the results; (text, removed, remarks)."""
    module = mlir.parse_module(src)
    log = RemarkLog()
    n = sum(dead_stores_function(fn, Options(), log) for fn in mlir.functions(module) if mlir.func_body(fn))
    assert mlir.verify(module.operation) is None
    text = mlir.print_module(module)
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(text) is None
    assert_same_results(src, text)
    return text, n, [r.message for r in log]


def _kernel(body: str, args: str = "%a: memref<64xf32>, %o: memref<64xf32>") -> str:
    return f"func.func @k({args}) {{\n  %t = memref.alloc() : memref<64xf32>\n{body}\n  return\n}}\n"


def test_store_never_read_again_is_removed_with_its_buffer():
    src = _kernel("""
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
    affine.store %v, %o[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>""")
    text, n, msgs = _dse(src)
    assert n == 1 and "memref.alloc" not in text and "[DEAD STORE] buffer removed: nothing reads it" in msgs


def test_read_later_in_the_same_iteration_keeps_the_store():
    src = _kernel("""
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
    affine.for %j = 0 to 64 {
      %w = affine.load %t[%j] : memref<64xf32>
      affine.store %w, %o[%j] : memref<64xf32>
    }
  }""")
    text, n, _ = _dse(src)
    assert n == 0


def test_read_earlier_in_the_body_runs_in_the_next_iteration():
    # t[i - 1] is read at the top of iteration i: the store of iteration i - 1 is live.
    src = _kernel("""
  %z = arith.constant 0.0 : f32
  affine.store %z, %t[0] : memref<64xf32>
  affine.for %i = 1 to 64 {
    %p = affine.load %t[%i - 1] : memref<64xf32>
    affine.store %p, %o[%i] : memref<64xf32>
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }""")
    text, n, _ = _dse(src)
    assert n == 0 and text.count("affine.store") == 3


def test_read_earlier_in_the_body_of_an_element_not_yet_written_is_not_a_use():
    # t[i + 1] is read before iteration i + 1 stores it: the loop's store is never read again,
    # while the first loop's stores are.
    src = _kernel("""
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 63 {
    %p = affine.load %t[%i + 1] : memref<64xf32>
    affine.store %p, %o[%i] : memref<64xf32>
    %w = arith.addf %p, %p : f32
    affine.store %w, %t[%i] : memref<64xf32>
  }""")
    text, n, _ = _dse(src)
    assert n == 1 and text.count("affine.store") == 2


def test_outer_loop_iteration_rereads_the_inner_loops_store():
    # The store in the inner loop of outer iteration i is read by the first inner loop of
    # outer iteration i + 1.
    src = _kernel("""
  affine.for %j = 0 to 64 {
    %v = affine.load %a[%j] : memref<64xf32>
    affine.store %v, %t[%j] : memref<64xf32>
  }
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 64 {
      %p = affine.load %t[%j] : memref<64xf32>
      affine.store %p, %o[%j] : memref<64xf32>
    }
    affine.for %j = 0 to 64 {
      %v = affine.load %a[%j] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %t[%j] : memref<64xf32>
    }
  }""")
    text, n, _ = _dse(src)
    assert n == 0


SINK = """
func.func private @sink(%m: memref<64xf32>, %o: memref<64xf32>) {
  %v = affine.load %m[3] : memref<64xf32>
  affine.store %v, %o[0] : memref<64xf32>
  return
}
"""

BUFFER_ESCAPES = [
    ("call", """
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  func.call @sink(%t, %o) : (memref<64xf32>, memref<64xf32>) -> ()""", SINK),
    ("subview", """
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  %s = memref.subview %t[8] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: 8>>
  affine.for %i = 0 to 8 {
    %v = affine.load %s[%i] : memref<8xf32, strided<[1], offset: 8>>
    affine.store %v, %o[%i] : memref<64xf32>
  }""", ""),
    ("memref.load", """
  %c5 = arith.constant 5 : index
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  %w = memref.load %t[%c5] : memref<64xf32>
  affine.store %w, %o[0] : memref<64xf32>""", ""),
]


@pytest.mark.parametrize("name,body,extra", BUFFER_ESCAPES, ids=[b[0] for b in BUFFER_ESCAPES])
def test_a_store_whose_buffer_is_read_in_a_way_we_do_not_model_is_kept(name, body, extra):
    text, n, _ = _dse(extra + _kernel(body))
    assert n == 0, name


# Elements 0..15 are stored and never read; 32..47 are stored and read.
DEAD_LOW_ROWS = """
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  affine.for %i = 32 to 48 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  affine.for %i = 32 to 48 {
    %v = affine.load %t[%i] : memref<64xf32>
    affine.store %v, %o[%i] : memref<64xf32>
  }"""


def test_buffer_shrinks_to_the_box_still_accessed_after_a_dead_store():
    src = _kernel(DEAD_LOW_ROWS)
    text, n, msgs = _dse(src)
    assert n == 1 and "[DEAD STORE] buffer shrunk from 64 to 16: the elements still accessed" in msgs
    assert "memref.alloc() : memref<16xf32>" in text and "%alloc[%arg2 - 32]" in text


def test_buffer_whose_live_stores_cover_it_keeps_its_size():
    src = _kernel("""
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %t[%i] : memref<64xf32>
  }
  affine.for %i = 40 to 48 {
    %v = affine.load %t[%i] : memref<64xf32>
    affine.store %v, %o[%i] : memref<64xf32>
  }""")
    text, n, msgs = _dse(src)
    # The first loop's stores are never read (the reads are at 40..47); the second loop's are read at
    # 40..47, but the store writes every element, so the buffer keeps its 64 elements.
    assert n == 1 and not any("shrunk" in m for m in msgs)
    assert "memref.alloc() : memref<64xf32>" in text


def test_violation_names_the_reason():
    module = mlir.parse_module(SINK + _kernel(BUFFER_ESCAPES[0][1]))
    store = [o for o in mlir.walk(module.operation) if o.name == "affine.store"][-1]
    assert dead_store_violation(store, Scope()).startswith("the buffer escapes through func.call")


def test_store_into_an_argument_is_kept():
    src = _kernel("""
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %o[%i] : memref<64xf32>
  }""")
    text, n, _ = _dse(src)
    assert n == 0


def test_store_in_an_scf_for_is_kept():
    src = _kernel("""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %a[%i] : memref<64xf32>
    affine.store %v, %t[0] : memref<64xf32>
  }""")
    module = mlir.parse_module(src)
    store = next(o for o in mlir.walk(module.operation) if o.name == "affine.store")
    assert "scf.for" in dead_store_violation(store, Scope())


def test_footprint_is_the_box_touched_and_keeps_memory_spaces():
    from loopopt.codegen.cpu.dead_stores import footprint

    src = """
func.func @f() {
  %a = memref.alloc() : memref<64x8xf32, 1>
  %b = memref.alloc() : memref<64x8xf32>
  %c = arith.constant 1.0 : f32
  affine.for %i = 4 to 8 {
    affine.store %c, %a[%i, 2] : memref<64x8xf32, 1>
    affine.store %c, %b[%i, 2] : memref<64x8xf32>
    affine.store %c, %b[%i + 1, 5] : memref<64x8xf32>
  }
  return
}
"""
    module = mlir.parse_module(src)
    allocs = [o for o in mlir.walk(mlir.functions(module)[0]) if o.name == "memref.alloc"]
    assert [footprint(o, Scope()) for o in allocs] == [None, [(4, 8), (2, 5)]]


def test_a_buffer_with_too_many_store_read_pairs_keeps_its_stores(monkeypatch):
    # The same dead store as above, with the pair budget at 1: one store x one read exceeds
    # nothing, two stores x one read do, so every store of that buffer is kept (sound: removing
    # a store is only an optimization), and the program is unchanged.
    from loopopt.codegen.cpu import dead_stores

    src = _kernel(DEAD_LOW_ROWS)
    assert _dse(src)[1] == 1
    monkeypatch.setattr(dead_stores, "MAX_PAIR_CHECKS", 1)
    text, n, msgs = _dse(src)
    assert n == 0 and not any("[DEAD STORE]" in m for m in msgs)
    assert "memref<64xf32>" in text


def test_trace_names_the_split():
    # --trace (explain=True) shows the split where the driver takes it, with the head's location
    # and where the tail went; without explain there is no trace line.
    import loopopt

    res = loopopt.optimize(EXAMPLE, "cpu", filename="s.mlir", explain=True)
    lines = [ln for ln in res.trace if ln.startswith("[LOOP SPLIT]")]
    assert lines == [f"{pr.SPLIT_LOOP.format(kept=256)}: s.mlir:6:3, tail {pr.AFTER_PARTNER}"]
    fused = [i for i, ln in enumerate(res.trace) if ln.startswith("[LOOP FUSION] , level = 0 loops s.mlir:6:3")]
    assert fused and res.trace.index(lines[0]) > fused[0]  # taken while the pair is tried
    assert not loopopt.optimize(EXAMPLE, "cpu", filename="s.mlir").trace
