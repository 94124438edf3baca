"""What every step of the pipeline receives: one function at a time and a StepContext.

A step is `run(fn, ctx) -> int`: it transforms the `func.func` `fn` in place and returns a count
(loops fused, ops hoisted, nests tiled). `loopopt/pipeline.py` is the table of steps; the driver
runs its rows, each behind a snapshot (loopopt/driver.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from .options import Options
from .remarks import RemarkLog

if TYPE_CHECKING:  # the hooks live in the pass layer; a step only receives them
    from .loop_optimization.hooks import TargetHooks


@dataclass(frozen=True)
class StepContext:
    options: Options
    log: RemarkLog
    filename: str = "<input>"
    hooks: "TargetHooks | None" = None  # what the seed's pass asks the target (fusion's rules per target)
    explicit: bool = False  # named in --passes: the step also reports what it refused (its explained form)
    argument: Any = None  # the step's parsed argument (--passes tiling=N, interchange=P)


StepFn = Callable[[Any, StepContext], int]
