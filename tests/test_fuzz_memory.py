"""A process that optimizes program after program keeps none of their IR: the fuzz campaign's
checking process grew by about 1.5 MB a program (an MLIR context per program kept alive by
memo tables keyed by access patterns, which hold their ops), 3.4 GB in 10 minutes. The run's
memo tables (`analysis.run_memo`) are emptied by the driver after each run, and the fuzz
command starts a new checking process every `--recycle-after` programs."""
from __future__ import annotations

import gc

from loopopt import driver
from loopopt.analysis.run_memo import run_memo_entries
from loopopt.fuzz import __main__ as fuzz_main
from loopopt.fuzz.differential import IsolatedChecker
from loopopt.mlir import ir
from loopopt.options import Options

SEED = 1
COUNT = 16  # the first 16 fuzz programs of seed 1 fill the memo tables on several targets


def _live_contexts() -> int:
    gc.collect()
    return ir.Context._get_live_count()


def test_a_run_leaves_no_mlir_context_and_no_memo_entries_behind():
    base = _live_contexts()
    most = [0]

    def watch(name, run_step):
        def step(*args, **kw):
            out = run_step(*args, **kw)
            most[0] = max(most[0], run_memo_entries())
            return out
        return step

    kept = []
    for k in range(COUNT):
        prog, options, _ = fuzz_main.program_case(SEED, k)
        result = driver.optimize(prog.text, options, filename="<fuzz>", wrap=watch)
        assert result.text
        assert run_memo_entries() == 0
        kept.append(_live_contexts() - base)
    assert most[0] > 0, "no program used the run memo tables: the test shows nothing"
    assert max(kept) <= 0, f"MLIR contexts left alive after each of {COUNT} runs: {kept}"


def test_the_checking_process_is_recycled_after_n_programs():
    prog, _, _ = fuzz_main.program_case(SEED, 0)
    checker = IsolatedChecker(recycle_after=2)
    try:
        for _ in range(5):
            assert checker.check(prog.text, prog.func_name, prog.sizes, Options(), seed=1) is None
        assert checker.started == 3  # children for checks 1-2, 3-4 and 5
    finally:
        checker.close()
    args = fuzz_main.build_parser().parse_args(["--minutes", "1"])
    assert args.recycle_after == fuzz_main.RECYCLE_AFTER > 0
