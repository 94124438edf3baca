"""`Facts.used_values` (the values used inside an op, which `traverse_path` asks of the second loop
and of every needed op between the pair) is walked once per version of the op and dropped with
the op's other facts: after every edit the fusion driver makes, the memo answers what a fresh walk
answers. The checks: the driver on random programs (fuses, hoists, distributions, recomputes,
interchanges) with a Facts that compares every answer against a walk; the same driver with a memo
that is never dropped disagrees (so the check can fail); and the edits one by one: a fuse, a
replacement of a value's uses, a move into another block."""
import os
import random
import sys

from loopopt import mlir
from loopopt.analysis.facts import Facts, values_used_inside
from loopopt.analysis.loops import loops_in_block
from loopopt.loop_optimization import fusion
from loopopt.loop_optimization.fusion import GreedyFusion, loop_fusion
from loopopt.options import TARGETS, Options
from loopopt.pipeline import hooks_for
from loopopt.remarks import RemarkLog
from loopopt.transforms.rewriter import Rewriter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_liveness_index import random_program  # noqa: E402
from test_traverse_path import with_calls  # noqa: E402


class CheckedFacts(Facts):
    """Facts whose every `used_values` answer is compared with a fresh walk of the op."""

    answers = 0
    stale: list = []

    def used_values(self, op):
        got = super().used_values(op)
        CheckedFacts.answers += 1
        if got != values_used_inside(op):
            CheckedFacts.stale.append(mlir.location_of(op))
        return got


def _drive(seed: int, monkeypatch) -> None:
    """The fusion driver, with CheckedFacts as its facts, on a random program (calls of unknown
    effects put before some loops on odd seeds)."""
    rng = random.Random(seed)
    text = random_program(rng, rng.randint(4, 12))
    if seed % 2:
        text = with_calls(text, rng)
    monkeypatch.setattr(fusion, "Facts", CheckedFacts)
    m = mlir.parse_module(text, "r.mlir")
    opts = Options(target=TARGETS[rng.choice(["cpu", "trn1"])], distance_threshold=rng.choice([3, 8]))
    for fn in mlir.functions(m):
        if mlir.func_body(fn) is not None:
            GreedyFusion(fn, opts, RemarkLog(), "r.mlir", hooks=hooks_for(opts.target)).run()


def test_the_memo_answers_what_a_walk_answers_through_every_edit(monkeypatch):
    CheckedFacts.answers, CheckedFacts.stale = 0, []
    for seed in range(20):
        _drive(seed, monkeypatch)
    assert CheckedFacts.answers > 200
    assert CheckedFacts.stale == []


def test_a_memo_never_dropped_is_caught(monkeypatch):
    """The check can fail: with `forget` keeping the memo, a fused loop's answer is the one from
    before the fuse (it misses the values the absorbed body uses)."""
    forget = Facts.forget

    def keep_used(self, *ops):
        kept = {mlir.op_key(op): self._used[mlir.op_key(op)] for op in ops if mlir.op_key(op) in self._used}
        forget(self, *ops)
        self._used.update(kept)

    monkeypatch.setattr(Facts, "forget", keep_used)
    CheckedFacts.answers, CheckedFacts.stale = 0, []
    for seed in range(20):
        _drive(seed, monkeypatch)
    assert len(CheckedFacts.stale) >= 3


TWO_LOOPS = """func.func @f(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>, %x: f32, %y: f32) {
  affine.for %i = 0 to 8 {
    affine.store %x, %a[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %b[%i] : memref<8xf32>
    affine.store %v, %a[%i] : memref<8xf32>
  }
  affine.store %y, %c[0] : memref<8xf32>
  return
}
"""


def _setup():
    m = mlir.parse_module(TWO_LOOPS, "u.mlir")
    fn = mlir.functions(m)[0]
    facts = Facts()
    return m, fn, facts, Rewriter(facts)


def test_a_fuse_drops_the_kept_loops_values():
    m, fn, facts, rewriter = _setup()
    l1, l2 = loops_in_block(mlir.func_body(fn))
    b = fn.regions[0].blocks[0].arguments[1]
    assert b not in facts.used_values(l1)
    rewriter.fuse(l1, l2, loop_fusion)
    assert b in facts.used_values(l1)
    assert facts.used_values(l1) == values_used_inside(l1)


def test_a_fuse_drops_the_memos_of_the_ops_it_moves():
    """A store l2's body held uses l2's IV; moved into l1 it uses l1's (the fusion driver asks
    only the ops of the block it fuses in, so this is asked of Facts directly)."""
    m, fn, facts, rewriter = _setup()
    l1, l2 = loops_in_block(mlir.func_body(fn))
    store = [o for o in mlir.walk(l2) if o.name == "affine.store"][0]
    iv1, iv2 = l1.regions[0].blocks[0].arguments[0], l2.regions[0].blocks[0].arguments[0]
    assert iv2 in facts.used_values(store)
    rewriter.fuse(l1, l2, loop_fusion)
    assert iv1 in facts.used_values(store) and facts.used_values(store) == values_used_inside(store)


def test_a_replacement_of_uses_drops_every_memo():
    m, fn, facts, rewriter = _setup()
    l1, _ = loops_in_block(mlir.func_body(fn))
    args = fn.regions[0].blocks[0].arguments
    x, y = args[3], args[4]
    assert x in facts.used_values(l1)
    rewriter.replace_all_uses(x, y)
    assert x not in facts.used_values(l1) and y in facts.used_values(l1)


def test_a_move_into_another_block_drops_the_new_parent():
    """An op moved from the function's block into a loop: the loop's memo is dropped (it now
    uses what the op uses), and the op's own answer is unchanged."""
    m, fn, facts, rewriter = _setup()
    block = mlir.func_body(fn)
    l1, _ = loops_in_block(block)
    c = block.arguments[2]
    store = [o for o in mlir.block_ops(block) if o.name == "affine.store"][0]
    assert c not in facts.used_values(l1)
    own = facts.used_values(store)
    rewriter.move_before(store, mlir.block_ops(l1.regions[0].blocks[0])[-1])
    assert c in facts.used_values(l1)
    assert facts.used_values(store) == own == values_used_inside(store)


def test_the_memo_answers_what_a_walk_answers_on_unrolled_rnns(monkeypatch):
    """The whole cpu pipeline on an unrolled GRU (8 steps) and a bidirectional LSTM (4 steps),
    tests/fixtures/rnn: every answer fusion gets is a fresh walk's."""
    from loopopt import api

    monkeypatch.setattr(fusion, "Facts", CheckedFacts)
    CheckedFacts.answers, CheckedFacts.stale = 0, []
    for name in ("gruseq8", "bilstm4"):
        path = os.path.join(HERE, "fixtures", "rnn", f"{name}.mlir")
        with open(path) as f:
            res = api.optimize(f.read(), "cpu", filename=path, passes="fusion")
        assert res.num_loops_fused > 20
    assert CheckedFacts.answers > 1000
    assert CheckedFacts.stale == []
