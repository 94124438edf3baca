"""A refused pair is not tried by a rescue whose precondition it cannot meet, and skipping those
trials changes no decision: the driver's output and remarks are the same with the preconditions
as without them (every trial then made and failed)."""
import os
import random
import sys

import pytest

from loopopt import mlir
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.loop_optimization import fusion
from loopopt.loop_optimization import pair_restructuring as pr
from loopopt.loop_optimization.fusion import GreedyFusion
from loopopt.pipeline import hooks_for

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))

from test_liveness_index import random_program  # noqa: E402

import scaling  # noqa: E402


def run(text: str, target: str, threshold: int = 8):
    """(output IR, remark lines, trials made) of the fusion driver."""
    trials = []
    real = pr.on_scratch_copy

    def counted(seq, ops, plan):
        trials.append(len(seq))
        return real(seq, ops, plan)

    pr.on_scratch_copy = counted
    try:
        m = mlir.parse_module(text, "p.mlir")
        log = RemarkLog()
        opts = Options(target=TARGETS[target], distance_threshold=threshold)
        for fn in mlir.functions(m):
            if mlir.func_body(fn) is not None:
                GreedyFusion(fn, opts, log, "p.mlir", hooks=hooks_for(opts.target)).run()
        return mlir.print_module(m), [r.render() for r in log], len(trials)
    finally:
        pr.on_scratch_copy = real


def without_preconditions(monkeypatch) -> None:
    """Every rescue makes its trial, as before the preconditions."""
    monkeypatch.setattr(pr, "head_refusal", lambda *a: None)
    monkeypatch.setattr(pr, "distribution_cannot_split", lambda *a: False)
    monkeypatch.setattr(pr, "interchange_cannot_align", lambda *a: False)
    monkeypatch.setattr(pr, "interchange_refused", lambda *a: False)


@pytest.mark.parametrize("target", ["cpu", "trn1"])
def test_refused_shared_buffer_pairs_make_no_trial(target):
    """Nests over one buffer, read transposed, trip counts 16/15: the rescues' preconditions
    fail (an interchange cannot match the trip counts, each nest is one statement group, a
    split head still reads what its partner writes later), so no scratch copy is made. The last
    16-iteration nest loses its dead last row (15 x 16); an interchange could then match its 16
    columns with a 16 x 16 partner, but the nest refuses the interchange itself (it reads its
    buffer transposed), so no copy is interchanged either."""
    counts = []
    for n in (12, 24):
        out, remarks, trials = run(scaling.shared_buffer(n), target)
        counts.append(trials)
        assert sum("[STOP FUSION] unmatched trip count" in r for r in remarks) > n
        assert "LOOP FUSION] , level = 0 fused" not in "".join(remarks)
        assert sum("[DEAD ITERATIONS]" in r for r in remarks) == 1
    assert counts == [0, 0]


def test_the_same_pairs_made_trials_without_the_preconditions(monkeypatch):
    without_preconditions(monkeypatch)
    for target in ("cpu", "trn1"):
        out, remarks, trials = run(scaling.shared_buffer(12), target)
        assert trials > 20, target
        assert (out, remarks) == run(scaling.shared_buffer(12), target)[:2]


def test_a_pair_that_can_meet_a_precondition_is_still_tried():
    """A 16-iteration producer of rows and a 15-iteration consumer (cpu): the head of the split
    producer fuses with the consumer; the trial is made and the split applied."""
    text = """
    func.func @f(%a: memref<16x8xf32>, %o: memref<16x8xf32>) {
      %t = memref.alloc() : memref<16x8xf32>
      affine.for %i = 0 to 16 {
        affine.for %j = 0 to 8 {
          %x = affine.load %a[%i, %j] : memref<16x8xf32>
          affine.store %x, %t[%i, %j] : memref<16x8xf32>
        }
      }
      affine.for %i = 0 to 15 {
        affine.for %j = 0 to 8 {
          %x = affine.load %t[%i, %j] : memref<16x8xf32>
          affine.store %x, %o[%i, %j] : memref<16x8xf32>
        }
      }
      affine.for %j = 0 to 8 {
        %x = affine.load %t[15, %j] : memref<16x8xf32>
        affine.store %x, %o[15, %j] : memref<16x8xf32>
      }
      return
    }"""
    out, remarks, trials = run(text, "cpu")
    assert trials >= 1
    assert any("[LOOP SPLIT]" in r for r in remarks) and any("level = 0 fused" in r for r in remarks)


@pytest.mark.parametrize("seed", range(int(os.environ.get("LOOPOPT_RESCUE_SEEDS", "16"))))
def test_preconditions_change_no_decision(seed, monkeypatch):
    """Random programs (transposed reads, trip counts 16/15, two-statement nests, recomputable
    and hoistable pairs): the same output IR and remarks with and without the preconditions."""
    rng = random.Random(7000 + seed)
    text = random_program(rng, rng.randint(3, 10))
    target = rng.choice(["cpu", "trn1"])
    threshold = rng.choice([3, 8])
    with_pre = run(text, target, threshold)
    without_preconditions(monkeypatch)
    without = run(text, target, threshold)
    assert with_pre[:2] == without[:2]
    assert with_pre[2] <= without[2]


def test_an_over_eager_precondition_is_caught(monkeypatch):
    """The check can fail: a precondition that also refuses pairs a trial would rescue (here:
    every split) changes decisions on some of the random programs."""
    changed = 0
    for seed in range(16):
        rng = random.Random(7000 + seed)
        text = random_program(rng, rng.randint(3, 10))
        target, threshold = rng.choice(["cpu", "trn1"]), rng.choice([3, 8])
        want = run(text, "cpu", threshold)[:2]
        with monkeypatch.context() as m:
            m.setattr(pr, "head_refusal", lambda *a: "refused")
            changed += run(text, "cpu", threshold)[:2] != want
    assert changed >= 1


def test_head_refusal_reads_the_split_heads_accesses():
    """head_refusal: the head of a 16-iteration nest cut to 15 iterations against a 15x15 nest
    that reads it transposed reverses a dependence; a row-wise partner does not."""
    from loopopt.analysis.facts import Facts
    from loopopt.analysis.loops import loops_in_block

    m = mlir.parse_module(scaling.shared_buffer(2), "h.mlir")
    fn = mlir.functions(m)[0]
    long, short = loops_in_block(mlir.func_body(fn))
    assert "negative distance" in pr.head_refusal(long, 15, short, Facts(), True)
    rows = scaling.refused_2d(2)
    m = mlir.parse_module(rows, "r.mlir")
    long, short = loops_in_block(mlir.func_body(mlir.functions(m)[0]))
    assert pr.head_refusal(long, 15, short, Facts(), True) is None


def test_distribution_cannot_split_counts_def_use_groups():
    def loop_of(body: str):
        m = mlir.parse_module(f"""
        func.func @f(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {{
          affine.for %i = 0 to 8 {{
            {body}
          }}
          return
        }}""", "d.mlir")
        return [o for o in mlir.walk(mlir.functions(m)[0]) if o.name == "affine.for"][0], m

    one, _m1 = loop_of("%x = affine.load %a[%i] : memref<8xf32>\n"
                       "%y = arith.addf %x, %x : f32\n affine.store %y, %b[%i] : memref<8xf32>")
    two, _m2 = loop_of("%x = affine.load %a[%i] : memref<8xf32>\n affine.store %x, %b[%i] : memref<8xf32>\n"
                       "%y = affine.load %a[%i] : memref<8xf32>\n affine.store %y, %c[%i] : memref<8xf32>")
    assert pr.distribution_cannot_split(one)
    assert not pr.distribution_cannot_split(two)


def test_interchange_cannot_align_compares_the_new_outer_trip_count():
    m = mlir.parse_module(scaling.shared_buffer(2), "i.mlir")
    from loopopt.analysis.loops import constant_trip
    from loopopt.analysis.loops import loops_in_block

    l16, l15 = loops_in_block(mlir.func_body(mlir.functions(m)[0]))
    [(perm, outer)] = pr.interchange_outer_trips(l16)
    assert perm == [1, 0] and outer == (16, 1)
    assert pr.interchange_cannot_align(outer, constant_trip(l15))
    assert not pr.interchange_cannot_align(outer, (16, 1))
    assert not pr.interchange_cannot_align(None, (16, 1))
