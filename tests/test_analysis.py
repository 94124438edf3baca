"""Analysis facts: trip counts, access maps, memory locations, dependence distances."""
import pytest

from loopopt import mlir
from loopopt.analysis import dependence as D
from loopopt.analysis.accesses import collect_accesses
from loopopt.analysis.affine import Scope
from loopopt.analysis.loops import (body_block, is_perfect_nest, loops_in_block, runs_at_least_once,
                                    same_trip_count, trip_count)
from loopopt.analysis.memory import alias_root, memory_location

SRC = """
func.func @f(%a: memref<?xf32>, %b: memref<16x8xf16>, %n: index) {
  %t = memref.alloc() : memref<32x4xf32>
  %v = memref.cast %a : memref<?xf32> to memref<?xf32>
  affine.for %i = 0 to %n step 4 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%n] {
      %x = affine.load %v[%j * 2 + 1] : memref<?xf32>
      affine.store %x, %a[%j] : memref<?xf32>
    }
  }
  affine.for %i = 1 to affine_map<()[s0] -> (s0 + 1)>()[%n] {
  }
  affine.for %i = 0 to 10 step 3 {
  }
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 4 {
      %y = affine.load %b[%i, %j] : memref<16x8xf16>
    }
  }
  return
}
"""


@pytest.fixture
def nest():
    m = mlir.parse_module(SRC)
    fn = mlir.functions(m)[0]
    return m, fn, loops_in_block(mlir.func_body(fn)), Scope()


def test_trip_counts(nest):
    _, _, loops, sc = nest
    assert trip_count(loops[2], sc).constant == 4  # 0,3,6,9
    assert trip_count(loops[0], sc).constant is None  # symbolic
    assert not runs_at_least_once(loops[0], sc)  # %n may be 0
    inner = loops_in_block(body_block(loops[0]))[0]
    assert runs_at_least_once(inner, sc)  # min(i + 4, n) - i >= 1 inside the outer loop
    assert same_trip_count(loops[1], loops[3], sc)  # 1..n+1 and 0..n, written differently
    assert not same_trip_count(loops[0], loops[3], sc)  # step 4 vs step 1
    assert is_perfect_nest(loops[3]) and is_perfect_nest(loops[0])


def test_access_maps_through_views(nest):
    _, _, loops, sc = nest
    acc = collect_accesses(loops[0], sc)
    load, store = acc
    assert not load.is_write and store.is_write
    assert load.root == store.root  # the cast is looked through
    assert load.index == ("((2 * i1) + 1)",)
    assert store.index == ("i1",)


def test_memory_locations(nest):
    _, fn, loops, _ = nest
    allocs = [o for o in mlir.walk(fn) if o.name == "memref.alloc"]
    t = memory_location(allocs[0].results[0])
    assert (t.kind, t.elem_size, t.live_n, t.shape) == ("placed", 4, 128, (32, 4))
    b = memory_location(mlir.func_body(fn).arguments[1])
    assert (b.kind, b.elem_size, b.live_n) == ("external", 2, 128)
    casts = [o for o in mlir.walk(fn) if o.name == "memref.cast"]
    assert alias_root(casts[0].results[0]) == mlir.func_body(fn).arguments[0]


DIST = """
func.func @f(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    affine.store %x, %t[%i] : memref<?xf32>
  }
  affine.for %j = 0 to %n {
    %x = affine.load %t[%j - 1] : memref<?xf32>
    %y = affine.load %t[%j + 1] : memref<?xf32>
    %z = affine.load %t[%j] : memref<?xf32>
    affine.store %x, %b[%j] : memref<?xf32>
  }
  return
}
"""


def test_def_use_distances_symbolic():
    m = mlir.parse_module(DIST)
    fn = mlir.functions(m)[0]
    sc = Scope()
    l1, l2 = loops_in_block(mlir.func_body(fn))
    w = collect_accesses(l1, sc)[1]
    r_prev, r_next, r_same = collect_accesses(l2, sc)[:3]
    d_prev = D.get_def_use_distance(w, r_prev, w.loops[0], r_prev.loops[0], sc)
    d_next = D.get_def_use_distance(w, r_next, w.loops[0], r_next.loops[0], sc)
    d_same = D.get_def_use_distance(w, r_same, w.loops[0], r_same.loops[0], sc)
    assert D.min_distance(d_prev) == 1 and not D.may_be_negative(d_prev)
    assert D.min_distance(d_next) == -1 and D.may_be_negative(d_next)
    assert D.min_distance(d_same) == 0
    # the distance set keeps the symbol: it exists only when N is large enough
    assert "p" in str(d_prev)
