"""benchmarks/runtime_vs_harness.py's pairing: who runs first in a round, and the per-round ratios."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))

import runtime_vs_harness as rvh  # noqa: E402


def test_each_side_goes_first_once_per_cycle():
    sides = ("harness", "callable", "harness_aa")
    orders = [rvh.round_order(sides, r) for r in range(6)]
    assert [o[0] for o in orders[:3]] == list(sides)
    assert orders[3:] == orders[:3]
    for o in orders:
        assert sorted(o) == sorted(sides)


def test_two_sides_alternate_who_follows_whom():
    """The callable does not always run right after the harness's process (as it did before)."""
    orders = [rvh.round_order(("harness", "callable"), r) for r in range(4)]
    assert orders == [("harness", "callable"), ("callable", "harness")] * 2


def test_round_ratios_pair_calls_of_the_same_round():
    harness = [1.0] * 4 + [2.0] * 4
    other = [1.1] * 4 + [2.0] * 4
    assert [round(x, 6) for x in rvh.round_ratios(other, harness, 4)] == [1.1, 1.0]
    assert rvh.median(rvh.round_ratios(other, harness, 4)) == 1.05
