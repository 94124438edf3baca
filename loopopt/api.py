"""The Python API: `loopopt.optimize(source, target=..., **knobs)`; the command line is built on it.

    import loopopt
    res = loopopt.optimize(open("examples/chain3.mlir").read(), target="cpu",
                           distance_threshold=4, filename="examples/chain3.mlir")
    res.text                      # the optimized module (MLIR text)
    res.remarks                   # the decisions, loopopt.remarks.Remark records
    res.stats["numLoopsFused"]    # and res.stats["time"]: seconds per phase
    res.remarks_yaml()            # LLVM optimization records

Knobs are the fields of `loopopt.options.Options` (the seed's cl::opt knobs and loopopt's
switches); an unknown knob or a value of the wrong type is a TypeError, a value out of range, a
bad pipeline or a pipeline naming a pass its switch turns off a ValueError (loopopt.errors.
UsageError), all raised before any IR is read. The contract (source types, interrupts, state
kept across calls) is in docs/interfaces.md.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .errors import UsageError, printable
from .options import TARGETS, VECTOR_WIDTHS, Options, Target, knob_range_error, knob_type
from .remarks import Remark, fpg_dot, remarks_yaml

CHECKPOINT_FILE = "__loop_opt_chkpt.txt"  # the seed's checkpoint dump (loop_opt_doctor.cpp)


def knob_names() -> list[str]:
    """The keyword arguments `optimize` accepts as knobs: Options' fields but `target`."""
    return [f.name for f in dataclasses.fields(Options) if f.name != "target"]


def make_options(target: str | Target = "trn1", *, caller: str = "loopopt.optimize", **knobs) -> Options:
    """Options for a target name (trn1, inf2, trn2, cpu) or Target and knobs (Options fields);
    `caller` names the API function in the messages."""
    if isinstance(target, str):
        if target not in TARGETS:
            raise ValueError(f"loopopt: unknown target {target!r} (known: {', '.join(sorted(TARGETS))})")
        target = TARGETS[target]
    elif not isinstance(target, Target):
        raise TypeError(f"loopopt: target must be a name or a loopopt.options.Target, not {type(target).__name__}")
    known = {f.name: f for f in dataclasses.fields(Options)}
    for name, value in knobs.items():
        if name not in known or name == "target":
            raise TypeError(f"{caller}: unknown knob {name!r} (knobs: {', '.join(knob_names())})")
        want = knob_type(name)
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise TypeError(f"{caller}: knob {name!r} must be {want.__name__}, not {type(value).__name__}")
        if name == "lowering_pipeline" and value:
            from .frontend.pipeline import split_pipeline

            split_pipeline(value)  # brackets balanced (each step is checked when it runs)
        if name == "vector_bits" and value not in VECTOR_WIDTHS:
            raise UsageError(f"{caller}: knob 'vector_bits' must be one of "
                             f"{', '.join(map(str, VECTOR_WIDTHS))}, got {value}")
        if name == "cache_sizes" and not (len(value) == 3 and all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)):
            raise UsageError(f"{caller}: knob 'cache_sizes' must be three positive byte counts "
                             f"(L1, L2, L3), got {value!r}")
        if name == "fma_pipes" and not (len(value) == 3 and all(
                isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in value)):
            raise UsageError(f"{caller}: knob 'fma_pipes' must be three positive numbers "
                             f"(pipes, bits per pipe, latency), got {value!r}")
        if want is int and name != "vector_bits":
            why = knob_range_error(name, value, f"{caller}: knob {name!r}")
            if why is not None:
                raise UsageError(why)
    return Options(target=target, **knobs)


@dataclass
class Result:
    """What one run produced. `trace` and `fpg` are filled with `explain=True`, `ir_after` (and
    the checkpoint's phases) with `ir_after_each=True`."""

    text: str  # the optimized module
    remarks: list[Remark]  # every decision, in order
    stats: dict  # numLoopsFused, time: {phase: seconds}, total_time
    options: Options
    filename: str = "<input>"
    trace: list[str] = field(default_factory=list)  # the seed's log lines (--trace)
    fpg: list = field(default_factory=list)  # remarks.FPGGraph per block with candidates
    ir_after: list = field(default_factory=list)  # (step, function, IR) after each step
    input_text: str = ""

    @property
    def num_loops_fused(self) -> int:
        return self.stats.get("numLoopsFused", 0)

    def remarks_text(self) -> str:
        return "".join(r.render() + "\n" for r in self.remarks)

    def remarks_json(self) -> str:
        return "".join(r.to_json() + "\n" for r in self.remarks)

    def remarks_yaml(self) -> str:
        """LLVM optimization records; `File` is this run's filename."""
        return remarks_yaml(self.remarks, self.filename)

    def fpg_dot(self) -> str:
        return fpg_dot(self.fpg, self.filename)

    def timing_text(self) -> str:
        from .driver import timing_report

        return timing_report(self.stats.get("time", {}), self.stats.get("total_time", 0.0))

    def ir_after_all_text(self) -> str:
        from .driver import ir_dump_header

        return "".join(f"{ir_dump_header(step, fn)}\n{text.rstrip()}\n\n" for step, fn, text in self.ir_after)

    def checkpoint_text(self) -> str:
        """The content of `__loop_opt_chkpt.txt`: the parameters, the input, the IR of each
        function after each phase, and the output module."""
        from .driver import ir_dump_header

        out = [f"// loopopt checkpoint ({CHECKPOINT_FILE}): parameters and the IR after each phase",
               f"// input: {self.filename}", f"// target: {self.options.target.name}",
               f"// params: {self.options.params_text()}", f"// numLoopsFused = {self.num_loops_fused}", ""]
        if self.input_text:
            out += ["// -----// the input module //----- //", self.input_text.rstrip(), ""]
        for step, fn, text in self.ir_after:
            out += [ir_dump_header(step, fn), text.rstrip(), ""]
        out += ["// -----// the output module //----- //", self.text.rstrip()]
        return "\n".join(out) + "\n"


SOURCE_TYPES = "MLIR text (str, or UTF-8 bytes) or an ir.Module (loopopt.mlir.ir.Module)"


def optimize(source, target: str | Target = "trn1", *, filename: str | None = None,
             passes: list[str] | str | None = None, explain: bool = False, ir_after_each: bool = False,
             **knobs) -> Result:
    """Run loopopt on MLIR text (str or bytes) or an `ir.Module` (optimized in place).

    target: trn1 (default), inf2, trn2 or cpu. knobs: `Options` fields, e.g. distance_threshold,
    sb_size, psum_size, enable_loop_distribution, enable_profitable_loop_fusion, enable_licm,
    verify_each. filename: the name every location, detail and record gives the input (default:
    `<input>` for text, for a module the file `loopopt.mlir.parse_module` read it from). passes:
    an explicit pipeline (`["fuse", "licm"]` or "fuse,licm") instead of the whole pass. explain:
    also keep the seed's log lines (`Result.trace`) and the Fusion Profit Graphs (`Result.fpg`).
    ir_after_each: keep each function's IR after each step (`Result.ir_after`).

    Bad input raises loopopt.errors.LoopOptError with one line `file:line:col: error: ...`; a
    module is then left as it was. So it is after an interrupt: if KeyboardInterrupt (or any
    BaseException) stops the call before the optimized module is complete, the module is restored
    to its state before the call, then the exception propagates."""
    return run(source, make_options(target, **knobs), filename=filename, passes=passes, explain=explain,
               ir_after_each=ir_after_each)


def check_request(options: Options, passes) -> list[str] | None:
    """The pipeline as a checked list (None: the whole pass); raises UsageError for a bad one or
    one that names a pass a switch turns off. The CLI calls it before reading the input."""
    from .pipeline import parse_passes, pipeline_conflict

    pipeline = parse_passes(passes) if passes is not None else None
    conflict = pipeline_conflict(options, pipeline)
    if conflict is not None:
        raise UsageError(conflict)
    return pipeline


def run(source, options: Options, *, filename: str | None = None, passes=None, explain: bool = False,
        ir_after_each: bool = False, interrupt: str = "forward") -> Result:
    """`optimize` with built Options. `interrupt`: what an interrupt does while the work runs on
    its big-stack thread (mlir.call_with_big_stack): `forward` (stop it, restore the module,
    re-raise) or `raise` (re-raise at once: the CLI, which exits). A module's snapshot is taken
    and put back (or dropped) on threads no interrupt stops, so a restore always runs whole."""
    from . import driver, mlir

    is_module = isinstance(source, mlir.ir.Module)
    if not is_module and not isinstance(source, (str, bytes, bytearray)):
        raise TypeError(f"loopopt.optimize: source must be {SOURCE_TYPES}, not {type(source).__name__}"
                        + _source_hint(source))
    if filename is None:
        filename = mlir.source_file(source.operation) if is_module else "<input>"
    elif not isinstance(filename, str):
        raise TypeError(f"loopopt.optimize: filename must be a str, not {type(filename).__name__}")
    filename = printable(filename)
    pipeline = check_request(options, passes)
    if is_module:
        depth = mlir.region_depth(source.operation)
        if depth > mlir.MAX_NESTING_DEPTH:
            from .errors import LoopOptError

            raise LoopOptError(f"{filename}: error: module nests {depth} regions deep; loopopt handles at most "
                               f"{mlir.MAX_NESTING_DEPTH}")

    def work():
        return driver.optimize(source, options, filename=filename, passes=pipeline, explain=explain,
                               dump_ir=ir_after_each)

    snapshot: list = []

    def take_snapshot():
        snapshot.append(mlir.snapshot_module(source))

    def settle(final: bool, res) -> None:
        """The module as the call leaves it: the optimized one, or (interrupted, bad input, or a
        module rolled back, whose text is the input's) the one before the call."""
        if final and not any(r.message.startswith("[INTERNAL] module rolled back") for r in res.remarks):
            mlir.erase_innermost_first(snapshot.pop())
        else:
            mlir.restore_module(source, snapshot.pop())

    from .analysis.memory import clear_argument_classes

    try:
        if not is_module:
            res = mlir.call_with_big_stack(work, interrupt=interrupt)
        else:
            with mlir.source_named(source.context, filename):
                res = mlir.call_with_big_stack(work, interrupt=interrupt, setup=take_snapshot, settle=settle)
    finally:
        clear_argument_classes()  # keyed by op addresses, which later modules reuse
    return Result(text=res.text, remarks=list(res.remarks.remarks), stats=dict(res.stats), options=options,
                  filename=filename, trace=list(res.remarks.trace), fpg=list(res.remarks.fpg),
                  ir_after=list(res.ir_after), input_text=res.input_text)


def _source_hint(source) -> str:
    """What to pass instead of a path or a bare operation."""
    import os

    if isinstance(source, os.PathLike):
        return " (to optimize a file, pass its text: open(path).read())"
    if type(source).__name__ in ("Operation", "OpView") or hasattr(source, "operation"):
        return " (pass the ir.Module that holds it)"
    return ""


def compile(source, target: str | Target = "cpu", *, function: str | None = None, filename: str | None = None,
            passes: list[str] | str | None = None, cache: bool = True, **knobs):
    """Optimize `source` for the host CPU, build it into a shared object and load it: a
    loopopt.runtime.kernel.Kernel, called with numpy arrays (docs/runtime.md).

    source: MLIR text (str or UTF-8 bytes) or an ir.Module (printed; left unchanged), affine or
    as a front end emits it (linalg, StableHLO, torch dialect). target: "cpu" (the only target
    with a runtime here). function: the entry function (default: the module's only public one).
    knobs, passes, filename: as for `optimize`, checked the same way before anything is read.
    cache: reuse and keep built objects in the cache directory (loopopt.runtime.cache).

    Raises what `optimize` raises for bad knobs or input, loopopt.runtime.spec.SpecError for an
    entry function the runtime cannot call, loopopt.runtime.build.BuildError for a missing tool
    or a failed build step; each a one-line message. Text input found in the cache loads without
    importing the MLIR bindings."""
    options = make_options(target, caller="loopopt.compile", **knobs)
    if options.target.name != "cpu":
        raise UsageError(f"loopopt.compile: target {options.target.name!r} has no runtime here; it builds for "
                         "this machine's CPU (target='cpu')")
    if function is not None and not isinstance(function, str):
        raise TypeError(f"loopopt.compile: function must be a str, not {type(function).__name__}")
    if not isinstance(cache, bool):
        raise TypeError(f"loopopt.compile: cache must be a bool, not {type(cache).__name__}")
    if not isinstance(source, (str, bytes, bytearray)) and isinstance(source, _bindings().ir.Module):
        mlir = _bindings()
        text = mlir.print_module(source)
        if filename is None:
            filename = mlir.source_file(source.operation)
    elif isinstance(source, (bytes, bytearray)):
        try:
            text = bytes(source).decode("utf-8")
        except UnicodeDecodeError as e:
            from .errors import LoopOptError

            raise LoopOptError(f"{filename or '<input>'}: error: input is not UTF-8 text (byte {e.start})") from None
    elif isinstance(source, str):
        text = source
    else:
        raise TypeError(f"loopopt.compile: source must be {SOURCE_TYPES}, not {type(source).__name__}"
                        + _source_hint(source))
    if filename is not None and not isinstance(filename, str):
        raise TypeError(f"loopopt.compile: filename must be a str, not {type(filename).__name__}")
    pipeline = check_request(options, passes)
    from .runtime.compiler import compile_kernel

    return compile_kernel(text, options, optimize=run, function=function, filename=printable(filename or "<input>"),
                          passes=pipeline, cache=cache)


def _bindings():
    from . import mlir

    return mlir
