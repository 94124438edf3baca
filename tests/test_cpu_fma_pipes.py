"""Section 44's gate (docs/cpu_codegen.md): the columns a register tile leaves over join the whole
vectors' step only where, in a step of their own, their independent accumulator chains are too few
for the host's FMA pipes (`cpu_plan.tail_starves`; the host fact `host.FmaPipes`, `--fma-pipes`).
The plans with and without joining give the same results natively, bit for bit."""
from __future__ import annotations

import pytest

from loopopt.cli import UsageError, fma_pipes
from loopopt.codegen.cpu import host
from loopopt.codegen.cpu.plan import cpu_plan
from loopopt.codegen.cpu.plan.cpu_plan import RowRest
from loopopt.options import FALLBACK_FMA_PIPES, TARGETS, Options
from loopopt.testing import optimize_and_compare

from test_cpu_contractions import conv2d, has_runner, tiles

ZEN4 = (2, 256, 4)


def test_chains_are_latency_times_the_fmas_started_per_cycle():
    zen4 = host.FmaPipes(*ZEN4)
    assert zen4.chains(256) == 8  # a vector<8xf32>: both pipes, 4 cycles each
    assert zen4.chains(128) == 8  # a narrower vector still takes a whole pipe
    assert zen4.chains(32) == 8
    assert zen4.chains(512) == 4  # a zmm FMA on both halves: one per cycle
    assert host.FmaPipes(2, 512, 4).chains(512) == 8


def test_host_fma_pipes_from_cpuinfo():
    amd = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nflags\t\t: fpu avx2 avx512f\n"
    assert host.host_fma_pipes(amd) == host.FmaPipes(2, 256, 4)
    zen2 = "vendor_id\t: AuthenticAMD\ncpu family\t: 23\nflags\t\t: fpu avx2\n"
    assert host.host_fma_pipes(zen2) == host.FmaPipes(2, 256, 5)
    intel = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nflags\t\t: fpu avx2 avx512f\n"
    assert host.host_fma_pipes(intel) == host.FmaPipes(2, 512, 4)
    assert FALLBACK_FMA_PIPES == (2, 256, 4)


def test_fma_pipes_flag():
    assert fma_pipes("2x256x4") == (2, 256, 4)
    assert fma_pipes(None) is None
    for bad in ("2x256", "0x256x4", "2,256,4", "ax256x4"):
        with pytest.raises(UsageError):
            fma_pipes(bad)


def test_tail_starves_where_its_rows_are_no_more_than_the_pipes_need():
    # 56 columns at 16 lanes, 8 x 48 per step: the 8 left over in 8 rows of one vector<8xf32>
    # (8 chains; Zen 4 needs 2 x 4 = 8 for 256 bits: no slack): joins
    rest = RowRest(tail=8, masked=True)
    assert cpu_plan.tail_steps(56, 3, 16, rest, False) == [8]
    assert cpu_plan.tail_starves(56, 16, 8, 3, 1, rest, False, 32, ZEN4)
    # 24 columns, 14 x 16 per step: 14 rows of one vector<8xf32>, more than 8: the tail stays
    assert not cpu_plan.tail_starves(24, 16, 14, 1, 1, rest, False, 32, ZEN4)
    # two sums per row double the chains
    assert not cpu_plan.tail_starves(56, 16, 8, 3, 2, rest, False, 32, ZEN4)
    # 100 columns, 6 x 64: 2 vectors of 16 (4 chains needed: 6 rows enough) and a vector<4> (8: not)
    assert cpu_plan.tail_steps(100, 4, 16, RowRest(tail=4, masked=True), False) == [16, 16, 4]
    assert cpu_plan.tail_starves(100, 16, 6, 4, 1, RowRest(tail=4, masked=True), False, 32, ZEN4)
    # nothing left over, a covering tile, or no constant count: nothing to join
    assert not cpu_plan.tail_starves(64, 16, 2, 4, 1, rest, False, 32, ZEN4)
    assert not cpu_plan.tail_starves(28, 16, 2, 2, 1, rest, True, 32, ZEN4)
    assert not cpu_plan.tail_starves(None, 16, 2, 2, 1, rest, False, 32, ZEN4)


def cpu(pipes: tuple[int, int, int]) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=256, fma_pipes=pipes)


@has_runner
def test_the_gate_joins_a_starving_tail_and_keeps_one_that_is_not_bit_for_bit():
    # 20 columns at 8 lanes over 13 output channels: per step 6 x 16 and the 4 left over in 6 rows
    # of one vector<4xf32>: 6 chains. Two pipes of latency 4 need 8: the tail joins (4 x (2 x 8 +
    # 4), one step); of latency 1 they need 2: the old tail stays
    src = conv2d(c=3, f=13, oh=3, ow=20)
    joined = optimize_and_compare(src, "k", cpu(ZEN4))
    (tile,) = tiles(joined.messages)
    assert tile.startswith("[REGISTER TILING] 4 x 20 tile") and "its 3 vectors cover all 20 columns in one step" in tile
    kept = optimize_and_compare(src, "k", cpu((2, 256, 1)))
    (tile,) = tiles(kept.messages)
    assert tile.startswith("[REGISTER TILING] 6 x 16 tile") and "cover" not in tile
