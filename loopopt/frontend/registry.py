"""loopopt's own lowering steps, by name: the `loopopt-*` steps a lowering pipeline may name
beside MLIR's passes (frontend/rewrites.py registers them, frontend/pipeline.py runs them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..mlir import ir

OURS = "loopopt-"


@dataclass(frozen=True)
class Rewrite:
    """One of loopopt's own lowering steps: `run(module, filename)` edits the module in place and
    returns a one-line note of what it did (empty if nothing)."""

    name: str
    doc: str
    run: Callable[[ir.Module, str], str]


REWRITES: dict[str, Rewrite] = {}


def register(name: str, doc: str):
    """Decorator: register a rewrite under `name` (which must start with `loopopt-`)."""
    assert name.startswith(OURS), name

    def wrap(fn):
        REWRITES[name] = Rewrite(name, doc, fn)
        return fn

    return wrap
