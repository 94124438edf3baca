"""The LoopOptimization pass driver: runs the step table (loopopt/pipeline.py) as the seed's run().

run(): lower framework input (loopopt/frontend/: linalg, StableHLO, torch dialect; affine input
as it is) -> resolve budgets and the per-input switches -> print params -> the steps of the
table, in its order, each over every function of the module before the next one starts (fusion
per block of every function, ..., LICM module-wide after all fusion, as the seed's run()) ->
report numLoopsFused. The default pipeline of a target is pipeline.default_pipeline; an explicit
one (`--passes`) runs the named rows. Where the targets' rules differ inside a step, the step
asks the target hooks the driver passes it (pipeline.hooks_for).

The result carries, besides the module and the remarks, the wall time of each phase
(`stats["time"]`, `--timing`), and on request the IR after every step of every function
(`dump_ir`: `--print-ir-after-all`, `--checkpoint`) and the seed's log lines and the Fusion
Profit Graphs (`explain`: `--trace`, `--fpg-dot`).

Every transform step runs on one function at a time behind a guard: if the function no
longer verifies, or the step raises, the function is restored from a snapshot and an
`[INTERNAL] <transform> rolled back: <why>` remark is emitted. Invalid IR is never emitted.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable

from . import mlir, pipeline
from .analysis.memory import clear_argument_classes
from .analysis.run_memo import clear_run_memos
from .errors import LoopOptError
from .mlir import ir
from .options import Options
from .remarks import ANALYSIS, MISSED, PASSED, RemarkLog
from .step import StepContext


@dataclass
class PassResult:
    text: str  # the optimized module, printed
    remarks: RemarkLog
    num_loops_fused: int = 0
    stats: dict = field(default_factory=dict)  # numLoopsFused, time: {phase: seconds}
    ir_after: list = field(default_factory=list)  # (step, function, IR text) when dump_ir
    input_text: str = ""  # the input module, printed


class PhaseTimer:
    """Wall time per phase, summed over functions, in first-run order."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.start = time.perf_counter()

    @contextmanager
    def phase(self, name: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.times[name] = self.times.get(name, 0.0) + time.perf_counter() - t0

    def add(self, name: str, seconds: float) -> None:
        """Time measured elsewhere (each lowering step times itself)."""
        self.times[name] = self.times.get(name, 0.0) + seconds

    def total(self) -> float:
        return time.perf_counter() - self.start


def timing_report(times: dict[str, float], total: float) -> str:
    """`--timing`: a table of wall time per phase with its share of the total, like -mlir-timing."""
    rule = "===" + "-" * 73 + "==="
    lines = [rule, "loopopt execution time report".center(79).rstrip(), rule,
             f"  Total Execution Time: {total:.4f} seconds", "", "  ----Wall Time----  ----Name----"]
    for name, t in times.items():
        lines.append(f"  {t:8.4f} ({100.0 * t / total if total else 0.0:5.1f}%)  {name}")
    lines.append(f"  {total:8.4f} (100.0%)  Total")
    return "\n".join(lines) + "\n"


def ir_dump_header(step: str, function: str | None) -> str:
    """The line before each function's IR in `--print-ir-after-all` and the checkpoint file (the
    whole module's after a lowering step: `function` None)."""
    if function is None:
        return f"// -----// IR Dump After {step} ('builtin.module' operation) //----- //"
    return f"// -----// IR Dump After {step} ('func.func' operation: @{function}) //----- //"


LOWERING_PHASE = "lowering"  # timing and IR-dump names of the front end's steps: `lowering: <step>`


def lower_input(module: ir.Module, options: Options, log: RemarkLog, timer: PhaseTimer, filename: str,
                dump_ir: bool, ir_after: list) -> bool:
    """The front end (loopopt/frontend/): lower a linalg/tensor, StableHLO or torch-dialect
    program to affine loops in place, before the pass. True iff the input was such a program
    (the per-input switches then default on, Options.resolved). Each step is timed and, with
    `dump_ir`, its module kept; one remark names the pipeline, one each run-time check."""
    from . import frontend

    if not options.lower and not options.lowering_pipeline:
        return False
    kind = frontend.input_kind(module)
    if kind == "affine" and not options.lowering_pipeline:
        return False
    low = frontend.lower(module, frontend.LoweringOptions(elementwise_fusion=options.elementwise_fusion,
                                                          pipeline=options.lowering_pipeline or None),
                         filename=filename, dump_ir=dump_ir)
    for step in low.steps:
        timer.add(f"{LOWERING_PHASE}: {step.name}", step.seconds)
    ir_after.extend((f"{LOWERING_PHASE}: {step}", None, text) for step, text in low.ir_after)
    log.add("lowering", ANALYSIS, f"[LOWERING] {kind} input lowered to affine loops in {len(low.steps)} steps "
            f"({low.seconds:.3f} s): {low.pipeline}", args={"kind": kind, "pipeline": low.pipeline})
    for check in low.checks:
        log.add("lowering", ANALYSIS, f"[LOWERING] checked at run time, at function entry: {check}")
    _decision_remarks(low, log)
    return kind != "affine"


def _decision_remarks(low, log: RemarkLog) -> None:
    """One remark per decision of the lowering's decision steps (frontend/gather_recompute.py,
    frontend/cast_recompute.py, frontend/constant_checks.py, frontend/zero_phases.py,
    frontend/shared_operand.py): Passed for a
    rewrite done (an element recomputed from its producer's body; a widened copy cast again in its
    readers; a check on constant data decided at compile time; a convolution run as phases; a batched product of a broadcast matrix run as one), Missed (with the reason) for one refused
    (an entry starting "kept")."""
    from .frontend import cast_recompute as cr, constant_checks as cc, gather_recompute as gr, shared_operand as so, sorts, zero_phases as zp

    steps = {m.STEP: m for m in (so, gr, cr, cc, zp, sorts)}
    for step in low.steps:
        m = steps.get(step.name)
        if m is None or not step.note:
            continue
        for entry in step.note.split(m.DECISION_SEPARATOR):
            kept = entry.startswith("kept")
            head = m.MISSED_REMARK if kept else m.PASSED_REMARK
            log.add("lowering", MISSED if kept else PASSED, f"{head}: {entry.split(': ', 1)[1]}")


# A step bound to its context, as `guarded` runs it: transforms one function in place and returns
# a count (fused loops, hoists, ...).
Step = Callable[[ir.Operation, Options, RemarkLog, str], int]

# Wraps each (name, step) before it runs: how tests inject faults (testing.inject_fault).
StepWrapper = Callable[[str, Step], Step]


def guarded(name: str, fn: ir.Operation, step: Step, options: Options, log: RemarkLog, filename: str) -> tuple[ir.Operation, int]:
    """Run `step` on function `fn`; roll back to a snapshot if it fails or leaves invalid IR.

    Returns the (possibly replaced) function op and the step's count. An internal error (an
    Exception) becomes an `[INTERNAL]` remark and the run goes on; anything else the step raises
    (bad input: LoopOptError; an interrupt: KeyboardInterrupt, any BaseException) restores the
    function too, then propagates: the caller's module never keeps a half-done step or both copies."""
    snapshot = fn.clone(ip=ir.InsertionPoint(fn)) if options.verify_each else None
    why = None
    count = 0
    staged = RemarkLog(explain=log.explain)
    try:
        with mlir.step_named(name):
            count = step(fn, options, staged, filename)
        if snapshot is not None:
            why = mlir.verify(fn)
    except Exception as e:  # an internal error must not lose the user's program
        if isinstance(e, LoopOptError):
            _restore(fn, snapshot)
            raise
        why = f"{type(e).__name__}: {e}"
    except BaseException:
        _restore(fn, snapshot)
        raise
    if why is None:
        log.extend(staged)
        if snapshot is not None:
            mlir.erase_innermost_first(snapshot)  # valid IR: a copy of the function before the step
        return fn, count
    if snapshot is None:
        raise RuntimeError(f"{name} failed: {why}")
    fn.erase()  # may be invalid IR: MLIR drops every reference inside before destroying it
    log.add("internal", MISSED, f"[INTERNAL] {name} rolled back: {why}", function=mlir.func_name(snapshot))
    return snapshot, 0


def _bound(step: "pipeline.Step", ctx: StepContext) -> Step:
    """The row's `run(fn, ctx)` as `guarded` calls it, with the staged log it passes."""

    def run(fn, options, log, filename) -> int:
        return step.run(fn, replace(ctx, log=log))

    return run


def _modules_of(functions: list[ir.Operation]) -> list[ir.Operation]:
    """The builtin.module ops holding these functions, each once."""
    out = {}
    for fn in functions:
        parent = fn.parent
        while parent is not None and mlir.operation(parent).name != "builtin.module":
            parent = mlir.operation(parent).parent
        if parent is not None:
            out.setdefault(mlir.op_key(mlir.operation(parent)), mlir.operation(parent))
    return list(out.values())


def _restore(fn: ir.Operation, snapshot: ir.Operation | None) -> None:
    """Put the snapshot (already in place, just before `fn`) back instead of `fn`."""
    if snapshot is not None:
        fn.erase()


SUPPORTED_DIALECTS = ("builtin", "func", "affine", "memref", "arith", "math", "scf")
SUPPORTED_OPS = ("cf.assert",)  # modelled ops of other dialects (analysis/effects.py: GUARD_OPS)


def report_unsupported_ops(module: ir.Module, log: RemarkLog, filename: str) -> None:
    """One remark per kind of op outside the supported dialects, at its first occurrence and in
    the function holding it: it is kept exactly as written and treated as a barrier (unknown
    effects: nothing moves across it)."""
    seen: dict = {}
    for op in mlir.walk(module.operation):
        if op.name.split(".", 1)[0] not in SUPPORTED_DIALECTS and op.name not in SUPPORTED_OPS \
                and op.name not in seen:
            seen[op.name] = (mlir.location_of(op, filename), _enclosing_function(op))
    for name, (where, function) in seen.items():
        log.add("driver", ANALYSIS, f"[UNSUPPORTED] {name} kept as is; treated as a barrier (unknown effects)",
                location=where, function=function)


def _enclosing_function(op: ir.Operation) -> str:
    """The name of the func.func that holds `op`, '' outside any."""
    parent = op.parent
    while parent is not None:
        parent = mlir.operation(parent)
        if parent.name == "func.func":
            return mlir.func_name(parent)
        parent = parent.parent
    return ""


def report_argument_assumptions(module: ir.Module, log: RemarkLog, filename: str) -> None:
    """Once per function with two or more memref arguments: private ones follow their call sites;
    public ones follow the module's own calls to them (memory.call_site_classes) and keep the
    documented no-alias assumption for callers outside the module."""
    from .analysis.memory import argument_classes, call_site_classes, is_memref_value

    for fn in mlir.all_functions(module):
        body = mlir.func_body(fn)
        if body is None:
            continue
        args = [a for a in body.arguments if is_memref_value(a)]
        if len(args) < 2:
            continue
        where = mlir.location_of(fn, filename)
        classes = argument_classes(fn)
        if classes is None:
            called = call_site_classes(fn)
            if called is None:
                log.add("driver", ANALYSIS, f"[ASSUMPTION] the {len(args)} memref arguments of public @"
                        f"{mlir.func_name(fn)} are assumed not to alias each other", function=mlir.func_name(fn),
                        location=where)
            else:
                keys = [called[a.arg_number] for a in args]
                log.add("driver", ANALYSIS, f"[ASSUMPTION] public @{mlir.func_name(fn)}: argument aliasing taken "
                        f"from its calls in the module ({len(keys) - len(set(keys))} argument(s) may alias "
                        "another); callers outside the module are assumed to pass distinct buffers",
                        function=mlir.func_name(fn), location=where)
            continue
        keys = [classes[a.arg_number] for a in args]
        shared = len(keys) - len(set(keys))
        log.add("driver", ANALYSIS, f"[ASSUMPTION] private @{mlir.func_name(fn)}: argument aliasing taken from "
                f"its call sites ({shared} argument(s) may alias another)", function=mlir.func_name(fn),
                location=where)


def optimize(source, options: Options | None = None, filename: str = "<input>",
             passes: list[str] | None = None, wrap: StepWrapper | None = None,
             explain: bool = False, dump_ir: bool = False) -> PassResult:
    """Run the whole LoopOptimization pass (or an explicit pipeline) on MLIR text or a module.

    `explain` also collects the seed's log lines and the Fusion Profit Graphs (remarks.RemarkLog);
    `dump_ir` keeps the IR of each function after each step (PassResult.ir_after). The run's memo
    tables (`analysis.run_memo`) are emptied before and after it: they hold the run's IR."""
    clear_run_memos()
    try:
        return _optimize(source, options, filename, passes, wrap, explain, dump_ir)
    finally:
        clear_run_memos()


def _optimize(source, options, filename, passes, wrap, explain, dump_ir) -> PassResult:
    options = options or Options()
    timer = PhaseTimer()
    with timer.phase("parse"):
        module = source if isinstance(source, ir.Module) else mlir.parse_module(source, filename)
        input_text = mlir.print_module(module)
    log = RemarkLog(explain=explain)
    ir_after: list = []
    lowered = lower_input(module, options, log, timer, filename, dump_ir, ir_after)
    asked_bits = options.vector_bits
    options = pipeline.resolve_options(options, framework_input=lowered)
    fallback_text = mlir.print_module(module) if lowered else input_text  # what a module rollback emits
    log.add("driver", ANALYSIS, options.params_text())
    log.log(options.params_text())
    if options.target.kind == "cpu":
        log.add("driver", ANALYSIS, vector_width_text(options.vector_bits, asked_bits))
    with timer.phase("analysis"):
        report_unsupported_ops(module, log, filename)
        clear_argument_classes()
        report_argument_assumptions(module, log, filename)
    if passes is None:
        steps = [(step, None) for step in pipeline.default_pipeline(options)]
    else:
        steps = pipeline.resolve(passes)
    hooks = pipeline.hooks_for(options.target)
    fused = 0
    # Phase by phase, as the seed's run(): fusion of every function, then the next step over
    # every function, ..., LICM module-wide after all fusion.
    functions = [fn for fn in mlir.all_functions(module) if mlir.func_body(fn) is not None]  # nested modules' too
    for step, argument in steps:
        if options.target.kind not in step.targets:
            continue
        ctx = StepContext(pipeline.run_options(step, options), log, filename, hooks, passes is not None, argument)
        run_step = _bound(step, ctx)
        if wrap is not None:
            run_step = wrap(step.name, run_step)
        for k, fn in enumerate(functions):
            with timer.phase(step.name):
                functions[k], n = guarded(step.name, fn, run_step, options, log, filename)
            if step.counts_fused:
                fused += n
            if dump_ir:
                ir_after.append((step.name, mlir.func_name(functions[k]), str(functions[k])))
        if step.finalize is not None:
            for module_op in _modules_of(functions):
                step.finalize(module_op)  # no snapshot of a function refers to what it erases any more
    log.add("driver", ANALYSIS, f"numLoopsFused = {fused}")
    log.log(f"numLoopsFused = {fused}")
    with timer.phase("verify"):
        why = mlir.verify(module.operation)
    if why is not None:  # defensive: each step was verified, so this is a bug; emit the input instead
        log.add("internal", MISSED, f"[INTERNAL] module rolled back: {why}")
        return PassResult(fallback_text, log, 0, _stats(0, timer), ir_after, input_text)
    with timer.phase("print"):
        text = mlir.print_module(module)
    return PassResult(text, log, fused, _stats(fused, timer), ir_after, input_text)


def vector_width_text(bits: int, asked: int | None) -> str:
    """The remark naming the vector width the cpu plan assumes and where it comes from."""
    why = ("--vector-bits" if asked is not None else
           "the host's widest registers, the default; --vector-bits 256 plans for any AVX2 core")
    return f"cpu code generation plans for {bits}-bit vectors ({why})"


def _stats(fused: int, timer: PhaseTimer) -> dict:
    return {"numLoopsFused": fused, "time": dict(timer.times), "total_time": timer.total()}
