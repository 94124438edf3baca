"""The LoopOptimization pass driver: owns the phase order of the seed's run().

run(): resolve budgets -> print params -> liveness -> greedy fusion per function, per block
(distribution, tiling and interchange inside the fusion driver) -> contraction of fused
intermediates -> LICM (module-wide, after fusion) -> report numLoopsFused.

Every transform step runs on one function at a time behind a guard: if the function no
longer verifies, or the step raises, the function is restored from a snapshot and an
`[INTERNAL] <transform> rolled back: <why>` remark is emitted. Invalid IR is never emitted.
"""
from __future__ import annotations

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
    stats: dict = field(default_factory=dict)


# A step transforms one function in place and returns a count (fused loops, hoists, ...).
Step = Callable[[ir.Operation, Options, RemarkLog, str], int]

# Wraps each (name, step) before it runs: how tests inject faults (testing.inject_fault).
StepWrapper = Callable[[str, Step], Step]


def guarded(name: str, fn: ir.Operation, step: Step, options: Options, log: RemarkLog, filename: str) -> tuple[ir.Operation, int]:
    """Run `step` on function `fn`; roll back to a snapshot if it fails or leaves invalid IR.

    Returns the (possibly replaced) function op and the step's count."""
    snapshot = fn.clone(ip=ir.InsertionPoint(fn)) if options.verify_each else None
    why = None
    count = 0
    staged = RemarkLog()
    try:
        count = step(fn, options, staged, filename)
        if snapshot is not None:
            why = mlir.verify(fn)
    except LoopOptError:
        raise
    except Exception as e:  # an internal error must not lose the user's program
        why = f"{type(e).__name__}: {e}"
    if why is None:
        log.remarks.extend(staged.remarks)
        if snapshot is not None:
            snapshot.erase()
        return fn, count
    if snapshot is None:
        raise RuntimeError(f"{name} failed: {why}")
    fn.erase()
    log.add("internal", MISSED, f"[INTERNAL] {name} rolled back: {why}", function=mlir.func_name(snapshot))
    return snapshot, 0


def _fusion_step(fn, options, log, filename) -> int:
    from .transforms.fusion import GreedyFusion

    return GreedyFusion(fn, options, log, filename).run()


def _contraction_step(fn, options, log, filename) -> int:
    from .transforms.contraction import contract_function

    return contract_function(fn, options, log, filename)


def _licm_step(fn, options, log, filename) -> int:
    from .transforms.licm import licm_function

    return licm_function(fn, log, filename)


def _pipeline_steps(passes: list[str]) -> list[tuple[str, Step]]:
    steps: list[tuple[str, Step]] = []
    for p in passes:
        name, _, arg = p.partition("=")
        if name in ("fuse", "fusion"):
            steps.append(("fusion", _fusion_step))
        elif name == "contract":
            steps.append(("contraction", _contraction_step))
        elif name == "licm":
            steps.append(("licm", _licm_step))
        elif name in ("tile", "interchange", "distribute"):
            steps.append((name, _restructuring_step(name, arg)))
        else:
            raise LoopOptError(f"loopopt: error: unknown pass '{name}' in --passes "
                               "(known: fuse, contract, licm, tile=N, interchange=P, distribute)")
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


def report_unsupported_ops(module: ir.Module, log: RemarkLog, filename: str) -> None:
    """One remark per kind of op outside the supported dialects: it is kept exactly as written
    and treated as a barrier (unknown effects: nothing moves across it)."""
    seen: dict = {}
    for op in mlir.walk(module.operation):
        if op.name.split(".", 1)[0] not in SUPPORTED_DIALECTS and op.name not in seen:
            seen[op.name] = mlir.location_of(op, filename)
    for name, where in seen.items():
        log.add("driver", ANALYSIS, f"[UNSUPPORTED] {name} kept as is; treated as a barrier (unknown effects)",
                location=where)


def report_argument_assumptions(module: ir.Module, log: RemarkLog, filename: str) -> None:
    """Once per function with two or more memref arguments: public functions keep the documented
    no-alias assumption; private ones follow their call sites (memory.argument_classes)."""
    from .analysis.memory import argument_classes, is_memref_value

    for fn in mlir.functions(module):
        body = mlir.func_body(fn)
        if body is None:
            continue
        args = [a for a in body.arguments if is_memref_value(a)]
        if len(args) < 2:
            continue
        where = mlir.location_of(fn, filename)
        classes = argument_classes(fn)
        if classes is None:
            log.add("driver", ANALYSIS, f"[ASSUMPTION] the {len(args)} memref arguments of public @"
                    f"{mlir.func_name(fn)} are assumed not to alias each other", function=mlir.func_name(fn),
                    location=where)
            continue
        keys = [classes[a.arg_number] for a in args]
        shared = len(keys) - len(set(keys))
        log.add("driver", ANALYSIS, f"[ASSUMPTION] private @{mlir.func_name(fn)}: argument aliasing taken from "
                f"its call sites ({shared} argument(s) may alias another)", function=mlir.func_name(fn),
                location=where)


def optimize(source, options: Options | None = None, filename: str = "<input>",
             passes: list[str] | None = None, wrap: StepWrapper | None = None) -> PassResult:
    """Run the whole LoopOptimization pass (or an explicit pipeline) on MLIR text or a module."""
    options = options or Options()
    module = source if isinstance(source, ir.Module) else mlir.parse_module(source, filename)
    input_text = mlir.print_module(module)
    log = RemarkLog()
    log.add("driver", ANALYSIS, options.params_text())
    report_unsupported_ops(module, log, filename)
    clear_argument_classes()
    report_argument_assumptions(module, log, filename)
    if passes is None:
        steps = [("fusion", _fusion_step), ("contraction", _contraction_step)]
        if options.enable_licm:
            steps.append(("licm", _licm_step))
    else:
        steps = _pipeline_steps(passes)
    fused = 0
    for fn in list(mlir.functions(module)):
        if mlir.func_body(fn) is None:
            continue
        for name, step in steps:
            step = wrap(name, step) if wrap is not None else step
            fn, n = guarded(name, fn, step, options, log, filename)
            if name == "fusion":
                fused += n
    log.add("driver", ANALYSIS, f"numLoopsFused = {fused}")
    why = mlir.verify(module.operation)
    if why is not None:  # defensive: each step was verified, so this is a bug; emit the input instead
        log.add("internal", MISSED, f"[INTERNAL] module rolled back: {why}")
        return PassResult(input_text, log, 0)
    return PassResult(mlir.print_module(module), log, fused)
