"""A lowering pipeline as text, and the runner that applies it step by step with a record.

The text is MLIR's pass-pipeline syntax, `builtin.module(step, step, ...)`. A step is either an
MLIR pass or nested pipeline registered in the bindings (run by their pass manager), or one of
loopopt's own rewrites, named `loopopt-*` (frontend/registry.py, `REWRITES`). Each top-level step
runs on its own so that the record says what each one did (op counts before and after, wall
time, our rewrites' notes) and `--print-ir-after-all` can show the IR after it.

The MLIR steps alone (`mlir_only`) form a pipeline that stock `mlir-opt` runs; the `loopopt-*`
steps are what it lacks (docs/frontend.md says what each one fixes).
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from .. import mlir
from ..errors import LoopOptError
from ..mlir import ir, passmanager
from . import branch_yields, cast_recompute, constant_checks, gather_recompute, rewrites, scans, scatters, shared_operand, sorts, unit_dims, zero_phases  # noqa: F401  (registers loopopt's own steps)
from .registry import OURS, REWRITES

DUMP_RESOURCE_LIMIT = 256  # bytes: larger dense_resource blobs are left out of the IR after each step


@dataclass
class StepRecord:
    """What one step did."""

    name: str  # the step's text, e.g. `func.func(convert-linalg-to-affine-loops)`
    kind: str  # "mlir" or "loopopt"
    seconds: float
    before: dict  # op name -> count, before the step
    after: dict  # op name -> count, after the step
    note: str = ""  # our rewrites say what they changed

    def changes(self) -> dict:
        """op name -> change in count (only the ops whose count changed)."""
        names = set(self.before) | set(self.after)
        return {n: self.after.get(n, 0) - self.before.get(n, 0) for n in sorted(names)
                if self.after.get(n, 0) != self.before.get(n, 0)}

    def render(self) -> str:
        delta = ", ".join(f"{n} {d:+d}" for n, d in self.changes().items()) or "no op count changed"
        note = f"; {self.note}" if self.note else ""
        return f"{self.name}: {self.seconds * 1e3:.1f} ms; {delta}{note}"


@dataclass
class PipelineRun:
    steps: list[StepRecord] = field(default_factory=list)
    ir_after: list = field(default_factory=list)  # (step name, module text without big blobs) when dump_ir


def split_pipeline(text: str) -> list[str]:
    """The top-level steps of `builtin.module(a, b{x=1}, func.func(c, d))` (or of a bare
    comma-separated list): ["a", "b{x=1}", "func.func(c, d)"], whitespace removed between steps.
    LoopOptError on unbalanced brackets."""
    body = " ".join(text.split())
    if body.startswith("builtin.module(") and body.endswith(")"):
        inner = body[len("builtin.module("):-1]
        if _balanced(inner):
            body = inner
    steps, depth, cur = [], 0, ""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack: list[str] = []
    for ch in body:
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch in pairs.values():
            if not stack or stack.pop() != ch:
                raise LoopOptError(f"loopopt: error: lowering pipeline has an unbalanced '{ch}': {text.strip()}")
        depth = len(stack)
        if ch == "," and depth == 0:
            steps.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if stack:
        raise LoopOptError(f"loopopt: error: lowering pipeline has an unclosed bracket: {text.strip()}")
    if cur.strip():
        steps.append(cur.strip())
    return [s for s in steps if s]


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "({[" and 1 or 0
        depth -= ch in ")}]" and 1 or 0
        if depth < 0:
            return False
    return depth == 0


def join_pipeline(steps: list[str]) -> str:
    """`builtin.module(a,b,...)`: the text `mlir-opt --pass-pipeline=...` takes."""
    return f"builtin.module({','.join(steps)})"


def mlir_only(pipeline: str) -> str:
    """The pipeline without loopopt's own steps: what stock `mlir-opt --pass-pipeline` can run."""
    return join_pipeline([s for s in split_pipeline(pipeline) if not s.startswith(OURS)])


def check_pipeline(pipeline: str, ctx: ir.Context) -> list[str]:
    """The steps of `pipeline`, each checked to parse (MLIR steps) or to be registered (ours);
    LoopOptError naming the first bad step."""
    steps = split_pipeline(pipeline)
    for s in steps:
        if s.startswith(OURS):
            if s not in REWRITES:
                raise LoopOptError(f"loopopt: error: unknown lowering step '{s}' "
                                   f"(loopopt's own: {', '.join(sorted(REWRITES))})")
            continue
        try:
            passmanager.PassManager.parse(f"builtin.module({s})", ctx)
        except (ir.MLIRError, ValueError, RuntimeError) as e:
            raise LoopOptError(f"loopopt: error: lowering step '{s}' is not a pass pipeline: "
                               f"{' '.join(str(e).split())}") from None
    return steps


def op_counts(module: ir.Module) -> dict:
    return dict(Counter(op.name for op in mlir.walk_list(module.operation)))


def run_pipeline(module: ir.Module, pipeline: str, filename: str = "<input>", dump_ir: bool = False,
                 on_error: Callable[[ir.MLIRError, str], LoopOptError] | None = None) -> PipelineRun:
    """Apply each step of `pipeline` to `module` in place, recording what each did.

    A failing MLIR pass raises LoopOptError (built by `on_error` from the pass manager's
    diagnostic and the step's text, or a generic one-line message)."""
    steps = check_pipeline(pipeline, module.context)
    run = PipelineRun()
    for step in steps:
        before = op_counts(module)
        t0 = time.perf_counter()
        note = ""
        if step.startswith(OURS):
            note = REWRITES[step].run(module, filename) or ""
            kind = "loopopt"
        else:
            kind = "mlir"
            pm = passmanager.PassManager.parse(f"builtin.module({step})", module.context)
            try:
                pm.run(module.operation)
            except ir.MLIRError as e:
                if on_error is not None:
                    raise on_error(e, step) from None
                raise LoopOptError(f"{filename}: error: lowering step {step} failed: {' '.join(str(e).split())}") from None
        run.steps.append(StepRecord(step, kind, time.perf_counter() - t0, before, op_counts(module), note))
        if dump_ir:  # weight blobs elided (a block's are megabytes), as MLIR's own IR dumps do
            run.ir_after.append((step, module.operation.get_asm(large_resource_limit=DUMP_RESOURCE_LIMIT)))
    return run
