"""`python3 -m loopopt.frontend INPUT [-o OUT]`: print the lowered (affine) module.

Until the loopopt CLI runs the lowering itself, this is how the lowering runs alone (and what
tests/lit/frontend/ calls). Options mirror the planned CLI flags: --print-lowering prints the
pipeline and exits, --lowering PIPELINE replaces it, --elementwise-fusion adds that step,
--report prints what each step did (stderr), --print-ir-after-all the module after each step.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import LoopOptError


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m loopopt.frontend",
                                description="Lower linalg-on-tensors or StableHLO to affine loops.")
    p.add_argument("input", nargs="?", help="MLIR text file, an ONNX model (.onnx), or - for stdin")
    p.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    p.add_argument("--input-kind", default="auto", choices=["auto", "linalg", "stablehlo", "torch", "onnx"])
    p.add_argument("--elementwise-fusion", action="store_true", help="run linalg-fuse-elementwise-ops first")
    p.add_argument("--lowering", metavar="PIPELINE", help="run this pipeline instead of the built one")
    p.add_argument("--print-lowering", action="store_true", help="print the pipeline (one step a line) and exit")
    p.add_argument("--mlir-only", action="store_true",
                   help="with --print-lowering: only the MLIR passes, one line, for mlir-opt --pass-pipeline")
    p.add_argument("--report", action="store_true", help="print what each step did (stderr)")
    p.add_argument("--print-ir-after-all", action="store_true", help="print the module after each step (stderr)")
    return p


def run(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    from . import LoweringOptions, format_pipeline, lower, lowering_pipeline, mlir_only

    try:
        options = LoweringOptions(input_kind=a.input_kind, elementwise_fusion=a.elementwise_fusion, pipeline=a.lowering)
    except ValueError as e:
        raise LoopOptError(str(e)) from None
    if a.print_lowering:
        kind = None if a.input_kind == "auto" else a.input_kind
        text = lowering_pipeline(options, kind)
        sys.stdout.write(mlir_only(text) + "\n" if a.mlir_only else format_pipeline(text))
        return 0
    if a.input is None:
        raise LoopOptError("loopopt.frontend: error: no input file (see --help)")
    if a.input == "-":
        data, filename = sys.stdin.buffer.read(), "<stdin>"
    elif a.input.endswith(".onnx"):
        from .onnx import import_onnx

        data, filename = import_onnx(a.input), a.input
    else:
        try:
            with open(a.input, "rb") as f:
                data, filename = f.read(), a.input
        except OSError as e:
            raise LoopOptError(f"{a.input}: error: cannot read input: {e.strerror}") from None
    low = lower(data, options, filename=filename, dump_ir=a.print_ir_after_all)
    if a.print_ir_after_all:
        for step, text in low.ir_after:
            sys.stderr.write(f"// -----// IR Dump After {step} //----- //\n{text}\n")
    if a.report:
        sys.stderr.write(low.report())
        for check in low.checks:
            sys.stderr.write(f"lowering: run-time check: {check}\n")
    if a.output == "-":
        sys.stdout.write(low.text)
    else:
        with open(a.output, "w") as f:
            f.write(low.text)
    return 0


def main(argv: list[str] | None = None) -> None:
    try:
        code = run(argv)
    except LoopOptError as e:
        print(str(e), file=sys.stderr)
        code = 1
    except BrokenPipeError:
        code = 141
    except Exception as e:  # an internal error is one line, never a traceback
        print(f"loopopt.frontend: internal error: {type(e).__name__}: {e} (please report with the input)", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
