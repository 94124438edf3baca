"""Memo tables that live for one run of the pass.

A table keyed by objects that hold IR (an `AccessPattern` holds its op, and through the op the
module and its MLIR context, a few MB) is of no use once the run that made them ends: a later
run analyses new objects. Such a table is made with `run_memo()`, and the driver empties every
one at the start and at the end of each run (`clear_run_memos`), so a process that optimizes
program after program (the fuzzer's checking process, a server) keeps the IR of none of them.
Within a run each table keeps its own bound as before.
"""
from __future__ import annotations

_TABLES: list = []


def run_memo() -> dict:
    """A new memo table that `clear_run_memos` empties."""
    table: dict = {}
    _TABLES.append(table)
    return table


def clear_run_memos() -> None:
    for table in _TABLES:
        table.clear()


def run_memo_entries() -> int:
    """Entries held in all run memo tables (what a run leaves behind; 0 after `clear_run_memos`)."""
    return sum(len(t) for t in _TABLES)
