"""Fuzz fusion at depth (issue 25): random producer nests inside 0-2 fused loops whose consumer
reads all of what they write, less, more (elements a fill wrote) or an earlier outer iteration's
row (loopopt/fuzz/at_depth.py). loopopt runs on both targets and the reference interpreter
compares every output with the input program's; the cpu recompute must happen where it is legal
and never where the consumer reads what the producer did not write in the same outer iteration."""
from __future__ import annotations

import random

import pytest

from loopopt.fuzz.at_depth import COVERAGE, generate
from fusion_util import messages, optimize_checked
from test_cost_model import _native_same

N = 48


def _recomputed(res) -> list[str]:
    return [m for m in messages(res) if m.startswith("[RECOMPUTE]")]


def test_generated_programs_keep_their_results_on_both_targets():
    rng = random.Random(2025)
    seen = {}
    for n in range(N):
        prog = generate(rng, coverage=COVERAGE[n % len(COVERAGE)])
        for target in ("cpu", "trn1"):
            try:
                res = optimize_checked(prog.text, target, seed=n)
            except AssertionError as e:  # name the program: replay with generate(Random(2025)) n times
                raise AssertionError(f"program {n} ({prog.coverage}, depth {prog.depth}) on {target}: {e}\n"
                                     f"{prog.text}") from e
            rec = _recomputed(res)
            if target == "trn1":
                assert not rec, prog.text
                continue
            key = (prog.coverage, prog.depth > 0)
            seen.setdefault(key, [0, 0])[bool(rec)] += 1
            if prog.coverage in ("overlap", "earlier"):
                # the consumer reads elements this producer did not write in this outer iteration
                assert not rec, f"program {n}: {rec}\n{prog.text}"
    # recompute at depth happened on covered and under-covered consumers, never on the others
    assert seen[("cover", True)][1] > 0 and seen[("under", True)][1] > 0, seen
    assert all(v[1] == 0 for (cov, _), v in seen.items() if cov in ("overlap", "earlier")), seen


@pytest.mark.parametrize("coverage", ["cover", "earlier"])
def test_generated_at_depth_natively(coverage):
    prog = generate(random.Random(7), coverage=coverage, depth=2)
    res = optimize_checked(prog.text, "cpu")
    assert bool(_recomputed(res)) == (coverage == "cover"), messages(res)
    _native_same(prog.text, res.text, "f")
