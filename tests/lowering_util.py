"""One front-end step's tests: the lowering with and without the step, and the step's note."""
from __future__ import annotations

import loopopt
from loopopt.frontend import linalg


def pipeline_without(step: str) -> str:
    """The default linalg lowering pipeline without `step`."""
    return "builtin.module(" + ",".join(s for s in linalg.steps() if s != step) + ")"


def step_lowering(name: str):
    """(lowered, note) for the step `name`: `lowered(src, step=True)` lowers `src` with the
    default pipeline (`step=False`: without the step), `note(low)` is the step's note in it."""

    def lowered(src: str, step: bool = True):
        return loopopt.lower(src, pipeline=None if step else pipeline_without(name))

    def note(low) -> str:
        return next(s.note for s in low.steps if s.name == name)

    return lowered, note
