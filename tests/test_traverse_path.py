"""traverse_path judges each op between two loops once, against a summary of the needed ops after
it (`fusion_legality.NeededSummary`), and so asks each op's effects once: linear in the ops
between. The pairwise walk it replaces (kept here as the reference) asked every op against every
needed op after it; a bidirectional LSTM unrolled over 16 steps spent 13 s of a 48 s compile
there. The checks: the same hoists and refusals as the pairwise walk on every pair of top-level
loops of random programs (with calls of unknown effects between the loops), and the number of
effects questions on a synthetic many-op program bounded by the ops between."""
import os
import random
import sys

import pytest

from loopopt import mlir
from loopopt.analysis.effects import op_effects
from loopopt.loop_optimization import fusion_legality as fl
from loopopt.mlir import op_key

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_liveness_index import random_program  # noqa: E402


def pairwise_traverse_path(l1, l2, between, effects):
    """The pairwise walk (before the summary): an op is needed when the second loop or any needed
    op after it uses its results or conflicts with it."""
    if not between:
        return [], None
    e1, e2 = effects(l1), effects(l2)
    used2 = fl._values_used_inside(l2)
    needed = [False] * len(between)
    for k in range(len(between) - 1, -1, -1):
        x = between[k]
        ex = effects(x)
        if any(r in used2 for r in x.results) or fl._conflict(ex, e2):
            needed[k] = True
            continue
        for m in range(k + 1, len(between)):
            if needed[m] and (any(r in fl._values_used_inside(between[m]) for r in x.results)
                              or fl._conflict(ex, effects(between[m]))):
                needed[k] = True
                break
    hoist = [x for x, n in zip(between, needed) if n]
    for x in hoist:
        if fl._conflict(effects(x), e1):
            return [], f"{x.name} at {mlir.location_of(x)}"
    return hoist, None


def memo_effects(counts=None):
    table = {}

    def effects(op):
        if counts is not None:
            counts[0] += 1
        k = op_key(op)
        if k not in table:
            table[k] = op_effects(op)
        return table[k]
    return effects


def with_calls(text: str, rng: random.Random) -> str:
    """`text` with calls of an external function (unknown effects on their argument, and on
    everything for the untraced one) put before some top-level loops."""
    out = []
    for line in text.splitlines():
        if line.startswith("  affine.for") and rng.random() < 0.25:
            arg = rng.choice(["%in", "%t0", "%out"])
            out.append(f"  func.call @ext({arg}) : (memref<17x17xf32>) -> ()")
        out.append(line)
    return "\n".join(out) + "\n"


def top_loops(block):
    return [op for op in mlir.block_ops(block) if op.name == "affine.for"]


@pytest.mark.parametrize("seed", range(12))
def test_same_hoists_as_pairwise_walk(seed):
    rng = random.Random(seed)
    text = random_program(rng, rng.randint(6, 14))
    if seed % 2:
        text = with_calls(text, rng)
    m = mlir.parse_module(text, "p.mlir")
    fn = next(f for f in mlir.functions(m) if mlir.func_body(f) is not None)
    block = mlir.func_body(fn)
    loops = top_loops(block)
    effects = memo_effects()
    compared = 0
    for a in range(len(loops)):
        for b in range(a + 1, len(loops)):
            l1, l2 = loops[a], loops[b]
            between = fl.ops_between(l1, l2)
            hoist, refusal = fl.traverse_path(l1, l2, between, effects)
            want, why = pairwise_traverse_path(l1, l2, between, effects)
            assert [op_key(x) for x in hoist] == [op_key(x) for x in want]
            assert (refusal is None) == (why is None)
            if why is not None:
                assert why in refusal.detail
            compared += 1
    assert compared > 0


def many_ops_program(n: int) -> str:
    """A loop writing %a, n loops the last loop does not need (they fill rows of %d), n loops it
    needs (they fill rows of %c, which it reads), and the last loop: the pairwise walk asks each
    of the first n against all n needed loops after it."""
    lines = [f"func.func @f(%a: memref<16xf32>, %c: memref<{n}x16xf32>, %d: memref<{n}x16xf32>) {{",
             "  %f = arith.constant 1.0 : f32",
             "  affine.for %i = 0 to 16 {", "    affine.store %f, %a[%i] : memref<16xf32>", "  }"]
    for buf in ("%d", "%c"):
        for k in range(n):
            lines += ["  affine.for %i = 0 to 16 {",
                      f"    affine.store %f, {buf}[{k}, %i] : memref<{n}x16xf32>", "  }"]
    lines += ["  affine.for %i = 0 to 16 {", f"    affine.for %k = 0 to {n} {{",
              f"      %x = affine.load %c[%k, %i] : memref<{n}x16xf32>",
              "      affine.store %x, %a[%i] : memref<16xf32>", "    }", "  }", "  return", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("n", [16, 64])
def test_effects_asked_once_per_op(n):
    text = many_ops_program(n)
    m = mlir.parse_module(text, "p.mlir")
    fn = next(f for f in mlir.functions(m) if mlir.func_body(f) is not None)
    loops = top_loops(mlir.func_body(fn))
    l1, l2 = loops[0], loops[-1]
    between = fl.ops_between(l1, l2)
    counts = [0]
    hoist, refusal = fl.traverse_path(l1, l2, between, memo_effects(counts))
    assert refusal is None and len(hoist) == n
    assert [op_key(x) for x in hoist] == [op_key(x) for x in between[n:]]
    # each op between once, each loop once, each hoisted op once more against the first loop
    assert counts[0] <= len(between) + 2 + len(hoist)
    pairwise = [0]
    want, _ = pairwise_traverse_path(l1, l2, between, memo_effects(pairwise))
    assert [op_key(x) for x in want] == [op_key(x) for x in hoist]
    assert pairwise[0] >= n * n  # the walk the summary replaces: quadratic
