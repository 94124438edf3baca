"""benchmarks/models/report.py's judgement of a shared machine: the load read while the run's own
worker keeps one CPU busy is not other work."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks", "models"))

import report  # noqa: E402


def _run(start_load: float, block_loads: list[float], cpus: int = 2) -> dict:
    up = "12:00:00 up 1:00,  0 user,  load average: {:.2f}, 1.00, 1.00"
    return {"machine": {"cpus": cpus, "load_average": [start_load, 1.0, 1.0]},
            "blocks": [{"name": f"b{i}", "measured": {"uptime": up.format(x)}} for i, x in enumerate(block_loads)]}


def test_the_runs_own_worker_is_not_other_work():
    # a run started a second after another job (1-minute load 1.05) that then ran alone (1.0-1.25)
    assert not report._busy(_run(1.05, [1.05, 1.2, 1.25, 1.1, 1.0]))


def test_helpers_beside_the_run_are_other_work():
    assert report._busy(_run(0.2, [3.1, 4.0, 2.6, 3.3, 5.2]))


def test_a_run_loaded_for_most_of_its_blocks_is_shared():
    assert report._busy(_run(0.2, [1.1, 2.5, 2.6, 3.0, 1.0]))
    assert not report._busy(_run(0.2, [1.1, 1.2, 2.6, 1.0, 1.0]))  # the median: one spike is not a shared run


def test_without_block_readings_the_start_load_judges():
    assert report._busy({"machine": {"cpus": 2, "load_average": [1.4, 1, 1]}, "blocks": []})
    assert not report._busy({"machine": {"cpus": 2, "load_average": [0.3, 1, 1]}, "blocks": []})


def test_the_one_minute_load_of_an_uptime_line():
    assert report._one_minute_load(" 15:40:58 up 15 min,  0 user,  load average: 1.05, 1.43, 1.16") == 1.05
    assert report._one_minute_load("no load here") is None
