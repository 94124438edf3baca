"""The LoopOptimization pass driver: owns the phase order of the seed's run().

run(): lower framework input (loopopt/frontend/: linalg, StableHLO, torch dialect; affine input
as it is) -> resolve budgets -> print params -> greedy fusion per function, per block
(distribution, tiling and interchange inside the fusion driver; liveN of each shared buffer is
computed from liveness when a pair is scored and again whenever fusion changed the block, see
analysis/liveness.py) -> contraction of fused intermediates -> on the cpu target: untiling,
scalar replacement, dead stores, product isolation and loop order (transforms/untile.py,
scalar_replacement.py, dead_stores.py, product_isolation.py, locality_interchange.py) -> LICM
-> on the cpu target: register tiling and vectorization (docs/cpu_codegen.md) -> report
numLoopsFused. Each phase runs over every function of the module before the next one starts, as
the seed's run() does (fusion per block of every function, then licm(m) module-wide).

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
from dataclasses import dataclass, field
from typing import Callable

from . import mlir
from .errors import LoopOptError
from .mlir import ir
from .analysis.memory import clear_argument_classes
from .options import Options
from .remarks import ANALYSIS, MISSED, RemarkLog


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
    return kind != "affine"


# A step transforms one function in place and returns a count (fused loops, hoists, ...).
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


def _restore(fn: ir.Operation, snapshot: ir.Operation | None) -> None:
    """Put the snapshot (already in place, just before `fn`) back instead of `fn`."""
    if snapshot is not None:
        fn.erase()


def _fusion_step(fn, options, log, filename) -> int:
    from .transforms.fusion import GreedyFusion

    return GreedyFusion(fn, options, log, filename).run()


def _contraction_step(fn, options, log, filename) -> int:
    from .transforms.contraction import contract_function

    return contract_function(fn, options, log, filename)


def _scalar_replacement_step(fn, options, log, filename) -> int:
    from .transforms.scalar_replacement import scalar_replacement_function

    return scalar_replacement_function(fn, options, log, filename)


def _untile_step(fn, options, log, filename) -> int:
    from .transforms.untile import untile_function

    return untile_function(fn, options, log, filename)


def _dead_stores_step(fn, options, log, filename) -> int:
    from .transforms.dead_stores import dead_stores_function

    return dead_stores_function(fn, options, log, filename)


def _licm_step(fn, options, log, filename) -> int:
    from .transforms.licm import licm_function

    return licm_function(fn, log, filename)


def _vectorize_step(fn, options, log, filename) -> int:
    from .transforms.vectorize import vectorize_function

    return vectorize_function(fn, options, log, filename)


def _isolate_products_step(fn, options, log, filename) -> int:
    from .transforms.product_isolation import isolate_products_function

    return isolate_products_function(fn, options, log, filename)


def _loop_order_step(fn, options, log, filename) -> int:
    """Loop order for locality (cpu; remarks what it permutes, as register tiling does)."""
    from .transforms.locality_interchange import loop_order_function

    return loop_order_function(fn, options, log, filename, report_refusals=False)


def _loop_order_explained(fn, options, log, filename) -> int:
    """`--passes loop-order`: also a remark per band whose cheaper order is illegal."""
    from .transforms.locality_interchange import loop_order_function

    return loop_order_function(fn, options, log, filename, report_refusals=True)


def _cleanup_step(fn, options, log, filename) -> int:
    """Empty loops the other steps left behind are erased (every target)."""
    from .transforms.cleanup import drop_empty_loops_function

    return drop_empty_loops_function(fn, options, log, filename)


def _pack_operands_step(fn, options, log, filename) -> int:
    """A product's operand walked across rows along the lanes loop is copied into rows first (cpu)."""
    from .transforms.operand_packing import pack_operands_function

    return pack_operands_function(fn, options, log, filename)


def _fold_constant_copies_step(fn, options, log, filename) -> int:
    """Copies of constants by a permutation become constants (cpu)."""
    from .transforms.constant_copies import fold_constant_copies_function

    return fold_constant_copies_function(fn, options, log, filename)


def _pack_constant_panels_step(fn, options, log, filename) -> int:
    """Products' loads of constants read them laid out in column panels (cpu)."""
    from .transforms.constant_panels import pack_constant_panels_function

    return pack_constant_panels_function(fn, options, log, filename)


def _transpose_blocking_step(fn, options, log, filename) -> int:
    """Transposing bands walk their column access one cache line wide (cpu)."""
    from .transforms.transpose_blocking import transpose_blocking_function

    return transpose_blocking_function(fn, options, log, filename, report_refusals=False)


def _transpose_blocking_explained(fn, options, log, filename) -> int:
    """`--passes block-transposes`: also a remark per transposing band the order would break."""
    from .transforms.transpose_blocking import transpose_blocking_function

    return transpose_blocking_function(fn, options, log, filename, report_refusals=True)


def _register_tile_step(fn, options, log, filename) -> int:
    """The default pipeline's register tiling: remarks what it tiles (a refused nest is left as
    it was, so the default output of a cpu run on nests it does not change stays the same)."""
    from .transforms.register_tiling import register_tile_function

    return register_tile_function(fn, options, log, filename, report_refusals=False)


def _register_tile_explained(fn, options, log, filename) -> int:
    """`--passes register-tile`: also one remark per refused nest, with its code."""
    from .transforms.register_tiling import register_tile_function

    return register_tile_function(fn, options, log, filename, report_refusals=True)


def _vectorize_with(**switches) -> Step:
    """The cpu code generation phase with a switch forced on (`--passes math-approx`, ...)."""

    def step(fn, options, log, filename) -> int:
        from .transforms.vectorize import vectorize_function

        return vectorize_function(fn, options, log, filename, **switches)

    return step


def _pipeline_steps(passes: list[str]) -> list[tuple[str, Step]]:
    steps: list[tuple[str, Step]] = []
    for p in passes:
        name, _, arg = p.partition("=")
        if name in ("fuse", "fusion"):
            steps.append(("fusion", _fusion_step))
        elif name == "contract":
            steps.append(("contraction", _contraction_step))
        elif name in ("scalrep", "scalar-replacement"):
            steps.append(("scalar-replacement", _scalar_replacement_step))
        elif name == "untile":
            steps.append(("untile", _untile_step))
        elif name == "dead-stores":
            steps.append(("dead-stores", _dead_stores_step))
        elif name == "licm":
            steps.append(("licm", _licm_step))
        elif name == "isolate-products":
            steps.append(("isolate-products", _isolate_products_step))
        elif name == "loop-order":
            steps.append(("loop-order", _loop_order_explained))
        elif name == "pack-operands":
            steps.append(("pack-operands", _pack_operands_step))
        elif name == "pack-constant-panels":
            steps.append(("pack-constant-panels", _pack_constant_panels_step))
        elif name == "fold-constant-copies":
            steps.append(("fold-constant-copies", _fold_constant_copies_step))
        elif name == "block-transposes":
            steps.append(("block-transposes", _transpose_blocking_explained))
        elif name == "register-tile":
            steps.append(("register-tile", _register_tile_explained))
        elif name == "vectorize":
            steps.append(("vectorize", _vectorize_step))
        elif name == "math-approx":
            steps.append(("math-approx", _vectorize_with(approximate_math=True)))
        elif name == "vector-reductions":
            steps.append(("vector-reductions", _vectorize_with(reassociate=True)))
        elif name in ("tile", "interchange", "distribute"):
            steps.append((name, _restructuring_step(name, arg)))
        elif name == "none" and len(passes) == 1:
            pass  # parse, verify, print: the input as loopopt reads and writes it (tests/lit/check_can_fail.py)
        else:
            raise LoopOptError(f"loopopt: error: unknown pass '{name}' in --passes "
                               "(known: fuse, contract, untile, scalrep, dead-stores, licm, isolate-products, loop-order, "
                               "fold-constant-copies, pack-operands, block-transposes, register-tile, pack-constant-panels, vectorize, math-approx, "
                               "vector-reductions, tile=N, interchange=P, distribute; or none alone)")
    return steps


def _restructuring_step(name: str, arg: str) -> Step:
    """A standalone restructuring pass: `distribute`, `tile=N`, `interchange=1:0`."""
    if name == "tile":
        try:
            size = int(arg)
        except ValueError:
            size = 0
        if size < 2:
            raise LoopOptError(f"loopopt: error: --passes tile={arg or '?'}: the tile size must be an integer >= 2")

        def tile_step(fn, options, log, filename) -> int:
            from .transforms.tiling import tile_function

            return tile_function(fn, options, log, size, filename)

        return tile_step
    if name == "interchange":
        from .transforms.interchange import parse_permutation

        try:
            perm = parse_permutation(arg)
        except ValueError as e:
            raise LoopOptError(f"loopopt: error: --passes: {e}") from None

        def interchange_step(fn, options, log, filename) -> int:
            from .transforms.interchange import interchange_function

            return interchange_function(fn, options, log, perm, filename)

        return interchange_step

    def distribute_step(fn, options, log, filename) -> int:
        from .transforms.distribution import distribute_function

        return distribute_function(fn, options, log, filename)

    return distribute_step


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
    `dump_ir` keeps the IR of each function after each step (PassResult.ir_after)."""
    options = options or Options()
    timer = PhaseTimer()
    with timer.phase("parse"):
        module = source if isinstance(source, ir.Module) else mlir.parse_module(source, filename)
        input_text = mlir.print_module(module)
    log = RemarkLog(explain=explain)
    ir_after: list = []
    lowered = lower_input(module, options, log, timer, filename, dump_ir, ir_after)
    asked_bits = options.vector_bits
    options = options.resolved(framework_input=lowered)
    fallback_text = mlir.print_module(module) if lowered else input_text  # what a module rollback emits
    log.add("driver", ANALYSIS, options.params_text())
    log.log(options.params_text())
    if not options.target.partitioned:
        log.add("driver", ANALYSIS, vector_width_text(options.vector_bits, asked_bits))
    with timer.phase("analysis"):
        report_unsupported_ops(module, log, filename)
        clear_argument_classes()
        report_argument_assumptions(module, log, filename)
    if passes is None:
        steps = [("fusion", _fusion_step), ("contraction", _contraction_step)]
        if not options.target.partitioned:  # the cpu cost model (docs/cost_model.md)
            steps.append(("untile", _untile_step))  # strip-mined loops flat again: they vectorize
            steps.append(("scalar-replacement", _scalar_replacement_step))  # fused reductions in registers
            steps.append(("dead-stores", _dead_stores_step))  # what forwarding left unread
            steps.append(("isolate-products", _isolate_products_step))  # a matrix product in a nest of its own
            steps.append(("fold-constant-copies", _fold_constant_copies_step))  # weights' transposes at compile time
            steps.append(("pack-operands", _pack_operands_step))  # a product's B walked by rows
            steps.append(("loop-order", _loop_order_step))  # stride-1 innermost loops, GEMMs k innermost
            steps.append(("block-transposes", _transpose_blocking_step))  # column walks one cache line wide
        if options.enable_licm:
            steps.append(("licm", _licm_step))
        if not options.target.partitioned:  # cpu code generation (docs/cpu_codegen.md)
            steps.append(("register-tile", _register_tile_step))  # tiles of C in registers; bit-exact
            steps.append(("pack-constant-panels", _pack_constant_panels_step))  # constant B in column panels
        if not options.target.partitioned and (options.approximate_math or options.reassociate):
            steps.append(("vectorize", _vectorize_step))  # cpu code generation (docs/cpu_codegen.md)
        elif not options.target.partitioned and options.exact_math:
            # with the numeric switches off only the loops that call math.exp change (bit-exactly)
            steps.append(("vectorize", _vectorize_with(math_only=True)))
        steps.append(("cleanup", _cleanup_step))  # empty loops hoisting and forwarding left
    else:
        steps = _pipeline_steps(passes)
    fused = 0
    # Phase by phase, as the seed's run(): fusion of every function, then the next step over
    # every function, ..., LICM module-wide after all fusion.
    functions = [fn for fn in mlir.all_functions(module) if mlir.func_body(fn) is not None]  # nested modules' too
    for name, step in steps:
        for k, fn in enumerate(functions):
            run_step = wrap(name, step) if wrap is not None else step
            with timer.phase(name):
                functions[k], n = guarded(name, fn, run_step, options, log, filename)
            if name == "fusion":
                fused += n
            if dump_ir:
                ir_after.append((name, mlir.func_name(functions[k]), str(functions[k])))
    log.add("driver", ANALYSIS, f"numLoopsFused = {fused}")
    log.log(f"numLoopsFused = {fused}")
    if any(name in ("fold-constant-copies", "pack-constant-panels") for name, _ in steps):
        from .transforms.constant_copies import erase_unread_sources

        erase_unread_sources(module.operation)  # no snapshot of a function reads them any more
    if any(name == "vectorize" for name, _ in steps):
        from .analysis.constant_copies import enclosing_module
        from .transforms.exact_math import erase_unused_tables

        for module_op in {mlir.op_key(m): m for m in map(enclosing_module, functions) if m is not None}.values():
            erase_unused_tables(module_op)  # a rolled-back vectorize step's table
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
