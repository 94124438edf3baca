"""Opt-in CPU and wall time per phase of a build (LOOPOPT_PHASE_TIMES): where a compile's time goes.

    LOOPOPT_PHASE_TIMES=1 python3 ...        # one table per loopopt.compile / torch graph, on stderr
    LOOPOPT_PHASE_TIMES=/tmp/phases.jsonl    # one JSON line per phase, appended to that file

Unset (the default) every `phase` is a no-op: nothing is measured or printed and nothing a build
makes changes either way. A phase's time is its wall time (time.perf_counter), the CPU time of
this process (time.process_time: every thread) and the CPU time of the subprocesses it waited for
(os.times' children: mlir-opt, opt, llc, cc). Phases nest: a phase's name is its path
("torch graph/loopopt.compile/build/llc"), and its times include those of the phases inside it.
The outermost phase of a thread (a torch graph's build, or a loopopt.compile called alone) prints
or writes its table when it ends. docs/runtime.md, "Where torch.compile's compile time goes".
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

ENV = "LOOPOPT_PHASE_TIMES"


@dataclass
class PhaseTime:
    """One phase's measured times (seconds); `path` is the names of the phases around it, outermost first."""

    path: tuple[str, ...]
    wall: float
    cpu: float  # this process (every thread)
    children: float  # the subprocesses waited for during the phase

    @property
    def name(self) -> str:
        return "/".join(self.path)


@dataclass
class _Stack:
    names: list = field(default_factory=list)
    done: list = field(default_factory=list)


_LOCAL = threading.local()


def enabled() -> bool:
    """Whether phases are measured: LOOPOPT_PHASE_TIMES is set and not empty or 0."""
    return os.environ.get(ENV, "") not in ("", "0")


def _stack() -> _Stack:
    s = getattr(_LOCAL, "stack", None)
    if s is None:
        s = _LOCAL.stack = _Stack()
    return s


def _clocks() -> tuple[float, float, float]:
    t = os.times()
    return time.perf_counter(), time.process_time(), t.children_user + t.children_system


@contextmanager
def phase(name: str):
    """Measure the code inside as phase `name` (nested in the phases around it) when enabled();
    the outermost phase reports the thread's phases when it ends (report)."""
    if not enabled():
        yield
        return
    s = _stack()
    s.names.append(name)
    path = tuple(s.names)
    w0, c0, k0 = _clocks()
    try:
        yield
    finally:
        w1, c1, k1 = _clocks()
        s.done.append(PhaseTime(path, w1 - w0, c1 - c0, k1 - k0))
        s.names.pop()
        if not s.names:
            done, s.done = s.done, []
            report(done)


def record(name: str, wall: float) -> None:
    """A phase measured elsewhere (the optimizer's own timer: wall time only), nested in the
    current phase; nothing when disabled or outside any phase."""
    if not enabled():
        return
    s = _stack()
    if s.names:
        s.done.append(PhaseTime((*s.names, name), wall, float("nan"), float("nan")))


def table(phases: list[PhaseTime]) -> str:
    """The phases outermost first (each before the phases inside it), one line each: wall, CPU of
    this process, CPU of subprocesses, indented by depth."""
    order = in_order(phases)
    lines = [f"{'wall s':>8} {'cpu s':>8} {'child s':>8}  phase"]
    for p in order:
        cpu = "" if p.cpu != p.cpu else f"{p.cpu:8.3f}"
        kid = "" if p.children != p.children else f"{p.children:8.3f}"
        lines.append(f"{p.wall:8.3f} {cpu:>8} {kid:>8}  {'  ' * (len(p.path) - 1)}{p.path[-1]}")
    return "\n".join(lines)


def in_order(phases: list[PhaseTime]) -> list[PhaseTime]:
    """The phases (recorded as each ended) outermost first, each before the phases inside it."""
    return sorted(phases, key=lambda p: _first_start(phases, p))


def _first_start(phases: list[PhaseTime], p: PhaseTime) -> tuple:
    """Sort key: a phase ends after the phases inside it, so (the index of the first phase under
    each prefix of its path, ...) lists parents before children in the order they started."""
    key = []
    for depth in range(1, len(p.path) + 1):
        prefix = p.path[:depth]
        key.append(min(i for i, q in enumerate(phases) if q.path[:depth] == prefix))
    return tuple(key)


def report(phases: list[PhaseTime]) -> None:
    """Print the table on stderr (LOOPOPT_PHASE_TIMES=1) or append one JSON line per phase to the
    file it names."""
    target = os.environ.get(ENV, "")
    if target in ("1", "stderr"):
        print("loopopt phase times:\n" + table(phases), file=sys.stderr, flush=True)
        return
    with open(target, "a", encoding="utf-8") as f:
        for p in in_order(phases):
            f.write(json.dumps({"phase": p.name, "wall": p.wall, "cpu": None if p.cpu != p.cpu else p.cpu,
                                "children": None if p.children != p.children else p.children}) + "\n")
