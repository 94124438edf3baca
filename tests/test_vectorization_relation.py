"""The per-buffer relation of the vectorization guard (`vectorization.buffer_carries`) gives the
verdict of the pair-by-pair distance sets, on hand-written loops and on random index mixes."""
import random

import pytest

from loopopt import mlir
from loopopt.analysis.facts import Facts
from loopopt.analysis.loops import loop_dims, loops_in_block
from loopopt.analysis.vectorization import _pair_carried, buffer_carries, carried_dependence


def _loop(text: str, innermost: bool = False):
    """The module and its only top-level affine.for, or the innermost loop of that nest."""
    module = mlir.parse_module(text)
    fn = mlir.functions(module)[0]
    (lp,) = loops_in_block(mlir.func_body(fn))
    while innermost:
        inner = [o for o in mlir.walk(lp) if o.name == "affine.for" and o != lp]
        if not inner or any(o.name == "affine.for" for o in mlir.walk(inner[-1]) if o != inner[-1]):
            return module, lp if not inner else inner[-1]
        lp = inner[-1]
    return module, lp


def _verdicts(text: str, innermost: bool = False):
    """(relation verdict, pair-by-pair verdict) for buffer %a of the loop under test."""
    module, lp = _loop(text, innermost)
    facts = Facts()
    (axis,) = loop_dims(lp, facts.scope)
    accs = facts.accesses(lp)
    group = [a for a in accs if a.key == accs[0].key]
    relation = buffer_carries(group, axis, facts.scope)
    pairwise = any(_pair_carried(w, b, axis, facts) is not None
                   for w in group if w.is_write for b in group)
    del module
    return relation, pairwise


def _func(body: str, args: str = "%a: memref<256xf32>, %n: index") -> str:
    return f"func.func @f({args}) {{\n  %c = arith.constant 1.0 : f32\n{body}\n  return\n}}\n"


CASES = {
    # name: (body, carried)
    "disjoint_strided_stores": ("""
  affine.for %i = 0 to 16 {
    affine.store %c, %a[%i * 4] : memref<256xf32>
    affine.store %c, %a[%i * 4 + 1] : memref<256xf32>
    affine.store %c, %a[%i * 4 + 3] : memref<256xf32>
  }""", False),
    "stride_collision": ("""
  affine.for %i = 0 to 16 {
    affine.store %c, %a[%i * 4] : memref<256xf32>
    affine.store %c, %a[%i * 4 + 1] : memref<256xf32>
    affine.store %c, %a[%i * 4 + 8] : memref<256xf32>
  }""", True),
    "read_next_iteration": ("""
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i + 1] : memref<256xf32>
    %y = affine.load %a[%i] : memref<256xf32>
    affine.store %x, %a[%i] : memref<256xf32>
  }""", True),
    "reduction_cell": ("""
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<256xf32>
    %s = affine.load %a[200] : memref<256xf32>
    %t = arith.addf %x, %s : f32
    affine.store %t, %a[200] : memref<256xf32>
  }""", True),
    "inner_loop_tiles": ("""
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 8 {
      %x = affine.load %a[%i * 8 + %j] : memref<256xf32>
      affine.store %x, %a[%i * 8 + %j] : memref<256xf32>
    }
    affine.store %c, %a[%i * 8] : memref<256xf32>
  }""", False),
    "inner_loop_overlap": ("""
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 9 {
      %x = affine.load %a[%i * 8 + %j] : memref<256xf32>
      affine.store %x, %a[%i * 8 + %j] : memref<256xf32>
    }
    affine.store %c, %a[%i * 8] : memref<256xf32>
  }""", True),
    "symbolic_bound_disjoint": ("""
  affine.for %i = 0 to %n {
    affine.store %c, %a[%i * 3] : memref<256xf32>
    affine.store %c, %a[%i * 3 + 1] : memref<256xf32>
    %x = affine.load %a[%i * 3 + 2] : memref<256xf32>
  }""", False),
    "symbolic_offset_may_collide": ("""
  affine.for %i = 0 to 16 {
    affine.store %c, %a[%i] : memref<256xf32>
    affine.store %c, %a[%i + %n] : memref<256xf32>
    %x = affine.load %a[%i] : memref<256xf32>
  }""", True),
    "vector_boxes_touch": ("""
  affine.for %i = 0 to 16 {
    %v = affine.vector_load %a[%i * 8] : memref<256xf32>, vector<4xf32>
    affine.vector_store %v, %a[%i * 8 + 4] : memref<256xf32>, vector<4xf32>
    affine.vector_store %v, %a[%i * 8 + 6] : memref<256xf32>, vector<4xf32>
  }""", True),
    "vector_boxes_apart": ("""
  affine.for %i = 0 to 16 {
    %v = affine.vector_load %a[%i * 12] : memref<256xf32>, vector<4xf32>
    affine.vector_store %v, %a[%i * 12 + 4] : memref<256xf32>, vector<4xf32>
    affine.vector_store %v, %a[%i * 12 + 8] : memref<256xf32>, vector<4xf32>
  }""", False),
    # the loop under test is the inner one: the outer iteration is the same for both accesses
    "outer_rows_apart": ("""
  affine.for %o = 0 to 8 {
    affine.for %i = 0 to 16 {
      affine.store %c, %a[%o * 16 + %i] : memref<256xf32>
      %x = affine.load %a[%o * 16 + %i + 17] : memref<256xf32>
      %y = affine.load %a[%o * 16 + %i] : memref<256xf32>
    }
  }""", False),
    "outer_row_reduction": ("""
  affine.for %o = 0 to 8 {
    affine.for %i = 0 to 16 {
      %x = affine.load %a[%o * 16 + %i] : memref<256xf32>
      %s = affine.load %a[%o + 200] : memref<256xf32>
      affine.store %x, %a[%o + 200] : memref<256xf32>
    }
  }""", True),
    # a two-result lower bound and a step: the relation must use the loop's real iterations
    "max_bound_step_apart": ("""
  affine.for %i = max affine_map<()[s0] -> (0, s0)>()[%n] to 64 step 2 {
    affine.store %c, %a[%i] : memref<256xf32>
    affine.store %c, %a[%i + 1] : memref<256xf32>
    %x = affine.load %a[%i] : memref<256xf32>
  }""", False),
    "max_bound_step_collide": ("""
  affine.for %i = max affine_map<()[s0] -> (0, s0)>()[%n] to 64 step 2 {
    affine.store %c, %a[%i] : memref<256xf32>
    affine.store %c, %a[%i + 2] : memref<256xf32>
    %x = affine.load %a[%i] : memref<256xf32>
  }""", True),
    "floordiv_repeats": ("""
  affine.for %i = 0 to 16 {
    affine.store %c, %a[%i floordiv 2] : memref<256xf32>
    affine.store %c, %a[%i + 100] : memref<256xf32>
    %x = affine.load %a[%i + 120] : memref<256xf32>
  }""", True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_relation_matches_pairs_and_expectation(name):
    body, carried = CASES[name]
    relation, pairwise = _verdicts(_func(body), innermost=name.startswith("outer_"))
    assert relation is carried
    assert pairwise is carried


def test_carried_dependence_uses_relation_verdict():
    # 3 stores per iteration on disjoint elements: parallel; one extra colliding store: carried
    body, _ = CASES["disjoint_strided_stores"]
    module, lp = _loop(_func(body))
    assert carried_dependence(lp, Facts()) is None
    del module
    module, lp = _loop(_func(CASES["stride_collision"][0]))
    r = carried_dependence(lp, Facts())
    assert r is not None and "across iterations" in r.reason
    del module


def _random_body(rng: random.Random) -> str:
    lines = ["  affine.for %i = 0 to 12 {"]
    inner = rng.random() < 0.3
    if inner:
        lines.append("    affine.for %j = 0 to 3 {")
    pad = "      " if inner else "    "
    mul = rng.choice([1, 2, 4, 4])  # one stride per body: mostly disjoint lanes, some collisions
    for k in range(rng.randint(3, 6)):
        off = rng.randrange(mul) if rng.random() < 0.85 else rng.randint(0, 8)
        extra = " + %j" if inner and rng.random() < 0.5 else ""
        sym = " + %n" if rng.random() < 0.1 else ""
        idx = rng.choices([f"%i * {mul} + {off}{extra}{sym}", f"%i floordiv 2 + {off}", f"{off + 150}"],
                          weights=[16, 1, 1])[0]
        if rng.random() < 0.5:
            lines.append(f"{pad}affine.store %c, %a[{idx}] : memref<256xf32>")
        else:
            lines.append(f"{pad}%x{k} = affine.load %a[{idx}] : memref<256xf32>")
    if inner:
        lines.append("    }")
    lines.append("  }")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(60))
def test_relation_matches_pairs_on_random_mixes(seed):
    rng = random.Random(seed)
    relation, pairwise = _verdicts(_func(_random_body(rng)))
    if relation is None:  # outside the relation's model: the caller checks pair by pair
        return
    assert relation is pairwise
