"""The front end: programs as front ends emit them (linalg on tensors, StableHLO) lowered to the
affine programs loopopt optimizes. One layer, before the pass: input -> lower -> analyse ->
transform -> print.

    from loopopt import frontend
    frontend.needs_lowering(module)                   # tensor/linalg/StableHLO input?
    print(frontend.lowering_pipeline())               # the pipeline, as text (rerunnable)
    low = frontend.lower(text, filename="block.mlir")  # -> Lowered
    low.text, low.steps, low.checks                   # affine module, what each step did, run-time checks

Every step is a registered MLIR pass run by the bindings' pass manager, or one of loopopt's own
small rewrites registered beside them by name (`loopopt-*`, frontend/rewrites.py). Anything that
does not lower is a one-line `file:line:col: error: cannot lower 'dialect.op': ...`, never a
half-lowered module. docs/frontend.md describes the pipeline and the calling convention.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import mlir
from ..errors import LoopOptError
from ..mlir import ir
from . import linalg, stablehlo, torch_dialect
from .pipeline import REWRITES, PipelineRun, StepRecord, join_pipeline, mlir_only, run_pipeline, split_pipeline

__all__ = ["LoweringOptions", "Lowered", "lower", "lowering_pipeline", "needs_lowering", "input_kind",
           "mlir_only", "split_pipeline", "REWRITES", "StepRecord", "INPUT_KINDS"]

INPUT_KINDS = ("auto", "linalg", "stablehlo", "torch", "onnx")


@dataclass(frozen=True)
class LoweringOptions:
    """Typed options of the lowering.

    input_kind: "auto" (recognise it), "linalg" (linalg on tensors), "stablehlo", "torch" (the
        torch dialect) or "onnx" (ONNX operators in the torch dialect, from iree-import-onnx).
    elementwise_fusion: run linalg-fuse-elementwise-ops on tensors first (fewer, fatter nests).
    pipeline: a whole pipeline text that replaces the built one (`--lowering PIPELINE`)."""

    input_kind: str = "auto"
    elementwise_fusion: bool = False
    pipeline: str | None = None

    def __post_init__(self):
        if self.input_kind not in INPUT_KINDS:
            raise ValueError(f"loopopt: unknown input kind {self.input_kind!r} (known: {', '.join(INPUT_KINDS)})")


@dataclass
class Lowered:
    """The affine module and what the lowering did."""

    module: ir.Module  # lowered in place (the input module when it was a Module)
    kind: str  # "linalg", "stablehlo", "torch", "onnx", or "affine" (nothing to lower)
    pipeline: str  # the pipeline text that ran ("" for affine input)
    steps: list[StepRecord] = field(default_factory=list)
    ir_after: list = field(default_factory=list)  # (step, module text) with dump_ir=True

    @property
    def text(self) -> str:
        return mlir.print_module(self.module)

    @property
    def checks(self) -> list[str]:
        """The run-time checks the lowering added (cf.assert messages): the equalities the
        lowered program relies on, e.g. `f: dim 0 of output argument 1 must equal dim 0 of argument 0`."""
        from .rewrites import CHECK_PREFIX

        out = []
        for op in mlir.walk(self.module.operation):
            if op.name == "cf.assert":
                msg = ir.StringAttr(op.attributes["msg"]).value
                if msg.startswith(CHECK_PREFIX):
                    out.append(msg[len(CHECK_PREFIX):])
        return out

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.steps)

    def report(self) -> str:
        """One line per step: time, op-count changes, note."""
        return "".join(f"lowering: {s.render()}\n" for s in self.steps)


def input_kind(module: ir.Module) -> str:
    """"stablehlo", "onnx", "torch", "linalg" (tensors/linalg), or "affine" (already what
    loopopt takes)."""
    if stablehlo.is_stablehlo_program(module):
        return "stablehlo"
    torch_kind = torch_dialect.torch_kind(module)
    if torch_kind is not None:
        return torch_kind
    if linalg.is_tensor_program(module):
        return "linalg"
    return "affine"


def needs_lowering(module: ir.Module) -> bool:
    """True for tensor/linalg/StableHLO/torch input, False for an affine (memref) program."""
    return input_kind(module) != "affine"


def lowering_steps(options: LoweringOptions | None = None, kind: str | None = None) -> list[str]:
    """The pipeline's top-level steps for `kind` (default: the options' kind; auto = linalg)."""
    options = options or LoweringOptions()
    if options.pipeline is not None:
        return split_pipeline(options.pipeline)
    kind = kind or options.input_kind
    if kind == "stablehlo":
        return stablehlo.steps(options.elementwise_fusion)
    if kind in ("torch", "onnx"):
        return torch_dialect.steps(kind, options.elementwise_fusion)
    return linalg.steps(options.elementwise_fusion)


def lowering_pipeline(options: LoweringOptions | None = None, kind: str | None = None) -> str:
    """The lowering as one pass-pipeline text, `builtin.module(...)`: print it, edit it, pass it
    back as LoweringOptions(pipeline=...). `mlir_only(text)` drops loopopt's own steps, which
    leaves a pipeline stock `mlir-opt --pass-pipeline=...` runs (without what those steps fix)."""
    return join_pipeline(lowering_steps(options, kind))


def format_pipeline(text: str) -> str:
    """The pipeline one step per line (split_pipeline reads it back)."""
    return "builtin.module(\n" + ",\n".join(f"  {s}" for s in split_pipeline(text)) + ")\n"


def parse_input(source, filename: str = "<input>") -> ir.Module:
    """A module from MLIR text (str or UTF-8 bytes). Bytecode is refused in one line by
    loopopt.mlir.parse_module (torch-mlir's bytecode is MLIR 24, which the bindings cannot read)."""
    return mlir.parse_module(source, filename)


def lower(source, options: LoweringOptions | None = None, filename: str = "<input>",
          dump_ir: bool = False) -> Lowered:
    """Lower a tensor/linalg or StableHLO program (text, bytes or ir.Module, lowered in place)
    to an affine module. Affine input is returned unchanged (kind "affine", no steps).
    Raises LoopOptError with one line on anything that does not lower."""
    options = options or LoweringOptions()
    module = source if isinstance(source, ir.Module) else parse_input(source, filename)
    kind = input_kind(module) if options.input_kind == "auto" else options.input_kind
    if kind == "affine" and options.pipeline is None:
        return Lowered(module, kind, "")
    pipeline = lowering_pipeline(options, kind)
    run: PipelineRun = run_pipeline(module, pipeline, filename, dump_ir=dump_ir,
                                    on_error=lambda e, step: _pass_error(e, step, module, filename))
    return Lowered(module, kind, pipeline, run.steps, run.ir_after)


def _pass_error(e: "ir.MLIRError", step: str, module: ir.Module, filename: str) -> LoopOptError:
    """A failed MLIR step as one line: the place and op of its first diagnostic."""
    diags = list(getattr(e, "error_diagnostics", []) or [])
    if not diags:
        return LoopOptError(f"{filename}: error: lowering step {step} failed: {' '.join(str(e).split())}")
    d = diags[0]
    loc = str(d.location)
    msg = " ".join(str(d.message).split())
    where = mlir._where(loc, filename)
    name = next((op.name for op in mlir.walk(module.operation)
                 if str(op.location) == loc and op.name not in ("func.func", "builtin.module")), None)
    what = f"cannot lower '{name}'" if name else "cannot lower"
    return LoopOptError(f"{where}: error: {what}: {step} failed: {msg}")
