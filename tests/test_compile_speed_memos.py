"""The compile-time shortcuts of section 73 answer what the long way answers.

* `mlir.walk_list` (MLIR's own pre-order walk, collected at once) lists the ops `mlir.walk`
  yields, in its order, on random programs, the rnn fixtures and committed model blocks.
* `dependence.iteration_footprint` keeps its texts by the fields they are written from: on
  random programs driven through fusion and on the gruseq fixture, every key that is asked
  again gives the same fresh text (the key determines the text), and a key that leaves out a
  field the text is written from is caught.
* `loops.substitute` (split at identifiers) renames what the regular expression did.
"""
import glob
import os
import random
import re
import sys

import pytest

from loopopt import mlir
from loopopt.analysis import dependence
from loopopt.analysis.loops import substitute
from loopopt.loop_optimization.fusion import GreedyFusion
from loopopt.options import TARGETS, Options
from loopopt.pipeline import hooks_for
from loopopt.remarks import RemarkLog

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from test_liveness_index import random_program  # noqa: E402
from test_traverse_path import with_calls  # noqa: E402

FIXTURES = [os.path.join(HERE, "fixtures", "rnn", "gruseq8.mlir")]


def _random_texts(n: int):
    for seed in range(n):
        rng = random.Random(seed)
        text = random_program(rng, rng.randint(4, 12))
        yield seed, (with_calls(text, rng) if seed % 2 else text)


def test_walk_list_is_walk_in_order():
    texts = [t for _, t in _random_texts(12)]
    texts += [open(p).read() for p in FIXTURES]
    texts += [open(p).read() for p in sorted(glob.glob(os.path.join(ROOT, "benchmarks", "models", "blocks", "*_small.mlir")))[:4]]
    checked = 0
    for text in texts:
        m = mlir.parse_module(text, "w.mlir")
        for top in [m.operation, *mlir.walk(m.operation)]:
            if not len(top.regions):
                continue
            slow = [mlir.op_key(o) for o in mlir.walk(top)]
            fast = [mlir.op_key(o) for o in mlir.walk_list(top)]
            assert fast == slow
            checked += 1
    assert checked > 100


class _KeyCheck(dict):
    """A footprint memo that never answers: every text is written fresh, and one key that gives
    two texts is recorded (the memo would have answered the first)."""

    def __init__(self, key_of=None):
        super().__init__()
        self.seen: dict = {}
        self.asked = 0
        self.repeats = 0
        self.differ: list = []
        self.key_of = key_of or (lambda k: k)

    def get(self, key, default=None):
        return None

    def __setitem__(self, key, value):
        k = self.key_of(key)
        self.asked += 1
        if k in self.seen:
            self.repeats += 1
            if self.seen[k] != value:
                self.differ.append((k, self.seen[k], value))
        else:
            self.seen[k] = value


def _drive(text: str, seed: int) -> None:
    rng = random.Random(seed)
    m = mlir.parse_module(text, "r.mlir")
    opts = Options(target=TARGETS[rng.choice(["cpu", "trn1"])], distance_threshold=rng.choice([3, 8]))
    for fn in mlir.functions(m):
        if mlir.func_body(fn) is not None:
            GreedyFusion(fn, opts, RemarkLog(), "r.mlir", hooks=hooks_for(opts.target)).run()


def _check(monkeypatch, key_of=None, fixtures=True) -> _KeyCheck:
    memo = _KeyCheck(key_of)
    monkeypatch.setattr(dependence, "_FOOTPRINTS", memo)
    for seed, text in _random_texts(20):
        _drive(text, seed)
    if fixtures:
        for p in FIXTURES:
            _drive(open(p).read(), 0)
    return memo


def test_a_footprint_key_gives_one_text(monkeypatch):
    memo = _check(monkeypatch)
    assert memo.asked > 300 and memo.repeats > 100
    assert memo.differ == []


@pytest.mark.parametrize("left_out", [0, 1, 2, 6])
def test_a_key_without_a_field_is_caught(monkeypatch, left_out):
    """The check can fail: leaving out the loops (0), the index (1), the extent (2) or the
    parameters (6) lets two different texts share a key. Checked on a synthetic pair of
    accesses, since random programs need not contain such a pair."""
    from loopopt.analysis.accesses import AccessPattern
    from loopopt.analysis.affine import Scope
    from loopopt.analysis.loops import Loop

    memo = _KeyCheck(lambda k: k[:left_out] + k[left_out + 1:])
    monkeypatch.setattr(dependence, "_FOOTPRINTS", memo)
    variants = {
        0: [dict(upper=("16",)), dict(upper=("32",))],
        1: [dict(index=("i0",)), dict(index=("i0 + 1",))],
        2: [dict(extent=None), dict(extent=(8,))],
        6: [dict(params=()), dict(params=("p0",))],
    }[left_out]
    for v in variants:
        lp = Loop(None, "i0", ("0",), v.get("upper", ("16",)), 1)
        a = AccessPattern(None, None, False, (lp,), v.get("index", ("i0",)), v.get("extent"))
        scope = Scope()
        for p in v.get("params", ()):
            scope.params[p] = None
        dependence.iteration_footprint(a, lp, scope)
    assert memo.differ


def test_substitute_renames_as_the_regular_expression():
    rng = random.Random(7)
    names = ["i0", "i1", "p0", "x0_", "e_i0", "floor", "mod", "i10", "_t", "and"]
    for _ in range(2000):
        text = " ".join(rng.choice(names + ["+", "(", ")", "3", "2*", "-1", ">=", "=", ","]) for _ in range(rng.randint(0, 12)))
        rename = {n: rng.choice(["a", "b_", "o0_", n + "_s"]) for n in rng.sample(names, rng.randint(0, 4))}
        want = re.sub(r"\b[A-Za-z_][A-Za-z_0-9]*\b", lambda m: rename.get(m.group(0), m.group(0)), text) \
            if rename else text
        assert substitute(text, rename) == want


def test_fma_rounds_as_the_fractions_did():
    """libm._fma (integers over integers) gives float(Fraction(a) * Fraction(b) + Fraction(c)),
    signed zeros and overflow included."""
    import math
    from fractions import Fraction

    from loopopt.codegen.cpu.math import libm

    def by_fractions(a, b, c):
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        return float(exact) if exact != 0 else a * b + c

    def outcome(f, *args):
        try:
            x = f(*args)
        except OverflowError:
            return "overflow"
        return (x, math.copysign(1.0, x))

    rng = random.Random(3)
    special = [0.0, -0.0, 1.0, -1.0, 5e-324, 2.2250738585072014e-308, 1.7e308, -1.7e308]
    for _ in range(20000):
        a, b, c = (rng.choice(special) if rng.random() < 0.15 else rng.uniform(-1, 1) * 2.0 ** rng.randint(-80, 80)
                   for _ in range(3))
        assert outcome(libm._fma, a, b, c) == outcome(by_fractions, a, b, c)
