"""Command line: `loopopt INPUT [-o OUTPUT] [options]`."""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from .errors import EXIT_BROKEN_PIPE, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, ErasedOpInUse, \
    LoopOptError, UsageError, printable
from .options import DEFAULT_TARGET, SWITCHES, TARGETS, Options, flag_of
from .outputs import CLOSED_STREAMS, Output, check_outputs, guard_std_streams, write_output

CHECKPOINT_FILE = "__loop_opt_chkpt.txt"  # also loopopt.api.CHECKPOINT_FILE (not imported: --help stays fast)


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {text!r}")


class _Parser(argparse.ArgumentParser):
    """argparse with the project's error contract: one line on stderr, exit 2 (bad command line),
    before any input is read (argparse reads no file)."""

    def error(self, message: str):
        self.exit(2, f"loopopt: error: {message} (see loopopt --help)\n")


def version_text() -> str:
    """`loopopt --version`: loopopt's version and the MLIR of its bindings (from the wheel's
    metadata and its bundled iree-opt's `--version`, without loading the bindings)."""
    from importlib import metadata

    from .version import __version__

    lines = [f"loopopt {__version__}"]
    try:
        dist = metadata.distribution("iree-base-compiler")
    except metadata.PackageNotFoundError:
        return "\n".join(lines + ["MLIR Python bindings: iree-base-compiler not installed"]) + "\n"
    llvm = _bundled_llvm_version(str(dist.locate_file("iree/compiler/_mlir_libs/iree-opt")))
    lines.append(f"MLIR Python bindings: iree-base-compiler {dist.version} (MLIR/LLVM {llvm})")
    lines.append("reads and writes the MLIR 22 textual format (mlir-opt 22)")
    return "\n".join(lines) + "\n"


def _bundled_llvm_version(tool: str) -> str:
    import re
    import subprocess

    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return "version unknown"
    m = re.search(r"LLVM version (\S+)", out)
    return m.group(1) if m else "version unknown"


class _VersionAction(argparse.Action):
    """Prints the version and exits before the input is required (computed only when asked)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            write_output(Output("--version", "-"), version_text())
        except LoopOptError as e:
            parser.exit(EXIT_INPUT, f"{e}\n")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="loopopt", description="Loop-nest optimizer for MLIR affine programs "
                                "(LICM, greedy profit-based fusion, distribution, interchange, GCD tiling).")
    p.add_argument("--version", action=_VersionAction,
                   help="print loopopt's version and the MLIR version of its bindings, then exit")
    p.add_argument("input", nargs="?", help="MLIR file (affine, or linalg/tensor/StableHLO/torch-dialect text, "
                   "which is lowered first), an ONNX model (.onnx), or - for stdin")
    p.add_argument("-o", "--output", default="-", help="output file, or - for stdout (default)")
    p.add_argument("--target", choices=sorted(TARGETS), default=DEFAULT_TARGET,
                   help=f"hardware target (default {DEFAULT_TARGET}; cpu has no partition constraint)")
    p.add_argument("--loop-opt-distance-threshold", type=int, default=8, metavar="N",
                   help="legitimate candidate loop pair distance threshold (the seed's help text: the "
                        "positional gap between two loops of a block, default 8)")
    p.add_argument("--loop-opt-sb-size", type=int, default=0, metavar="BYTES",
                   help="SBUF bytes per partition; 0 = target's figure")
    p.add_argument("--loop-opt-psum-size", type=int, default=0, metavar="BYTES",
                   help="PSUM bytes per partition; 0 = target's figure")
    p.add_argument("--enable-loop-distribution", type=_bool, default=True, metavar="BOOL")
    p.add_argument("--enable-profitable-loop-fusion", type=_bool, default=True, metavar="BOOL",
                   help="greedy profit-ordered fusion (default); false = classic program-order fusion")
    p.add_argument("--enable-licm", type=_bool, default=True, metavar="BOOL")
    p.add_argument("--no-lowering", action="store_true",
                   help="take linalg/tensor input as it is (its ops stay barriers) instead of lowering it first")
    p.add_argument("--lowering", metavar="PIPELINE", default=None,
                   help="lower with this pass pipeline instead of the built one (see --print-lowering)")
    p.add_argument("--print-lowering", action="store_true",
                   help="print the lowering pipeline for INPUT's kind (linalg when no INPUT is given), then exit")
    for f in SWITCHES:  # declared once, in options.Options
        p.add_argument(flag_of(f.name), type=_bool, nargs="?", const=True, default=f.default, metavar="BOOL",
                       help=f.metadata["help"])
    p.add_argument("--vector-bits", choices=("128", "256", "512", "host"), default=None,
                   help="cpu: the vector register width the code generation plans for (host: this machine's "
                        "widest, e.g. 512 with AVX-512; default: host; 256 plans for any AVX2 core); "
                        "bit-exact output stays bit-exact")
    p.add_argument("--emit", choices=("mlir", "prepared", "llvm", "object", "shared"), default="mlir",
                   help="what -o receives (default mlir: the optimized module); with --target cpu, a stage of the build "
                        "loopopt.compile runs: prepared (the module as the build's mlir-opt reads it), llvm (LLVM IR "
                        "text), object (a relocatable object) or shared (a shared library) for this machine, plus a C "
                        "header of the entry points beside -o (OUT with the extension .h; see --header) and, for "
                        "prepared and llvm, the library's C the kernel's code calls (OUT with the extension .c; see "
                        "--library-c)")
    p.add_argument("--header", metavar="FILE", default=None,
                   help="with --emit prepared|llvm|object|shared: write the C header here (default: beside -o; none for -o -)")
    p.add_argument("--library-c", metavar="FILE", default=None,
                   help="with --emit prepared|llvm: write the library's C here, which the emitted code calls (the "
                        "temporaries' allocator, the run-time check wrappers; compile it with cc -std=gnu11 -O2 -fPIC "
                        "-c and link it beside the kernel's object) (default: -o's path with the extension .c; "
                        "required with -o -)")
    p.add_argument("--cache-sizes", default=None, metavar="L1,L2,L3",
                   help="cpu: the data cache sizes of one core the cache tiling plans for, in bytes, K or M "
                        "(e.g. 48K,2M,8M; the third is the core's share of L3; default: the host's, from sysfs)")
    p.add_argument("--fma-pipes", default=None, metavar="PIPESxBITSxLATENCY",
                   help="cpu: the core's FMA pipes, the bits each holds and an FMA's latency in cycles, which "
                        "decide how many independent sums keep them busy (e.g. 2x256x4; default: the host's)")
    p.add_argument("--passes", default=None,
                   help="run an explicit pipeline instead of the whole pass, e.g. fusion,licm (see --print-pipeline)")
    p.add_argument("--print-pipeline", action="store_true",
                   help="print the steps a run takes on --target (for INPUT's kind when given, else affine "
                        "input; --passes: that pipeline), as --passes takes them, then exit")
    p.add_argument("--print-params", action="store_true", help="print the pass parameters (stderr)")
    p.add_argument("--print-analysis", action="store_true",
                   help="print loops, trip counts, memory locations and dependences (stderr)")
    p.add_argument("--remarks", action="store_true", help="print every decision (stderr)")
    p.add_argument("--remarks-json", metavar="FILE", help="write remarks as JSON lines to FILE")
    p.add_argument("--remarks-yaml", metavar="FILE",
                   help="write remarks as LLVM optimization records (YAML) to FILE")
    p.add_argument("--trace", action="store_true",
                   help="print the seed's log lines (printParams, updateFPG, [LOOP FUSION], numLoopsFused) (stderr)")
    p.add_argument("--fpg-dot", metavar="FILE", help="write the Fusion Profit Graphs as Graphviz DOT to FILE")
    p.add_argument("--checkpoint", action="store_true",
                   help=f"write {CHECKPOINT_FILE} (parameters, IR after each phase) in the current directory; "
                        "never overwrites one (remove it first)")
    p.add_argument("--timing", action="store_true", help="print the wall time of each phase (stderr)")
    p.add_argument("--print-ir-after-all", action="store_true",
                   help="print each function's IR after each step (stderr)")
    return p


def vector_bits(choice: str | None) -> int | None:
    """--vector-bits as a width: a number as given, `host` the widest vector registers of this
    machine's CPU (what a JIT compiling for the host, as mlir-runner does, will use), None (not
    given) the per-input default (Options.resolved)."""
    if choice is None:
        return None
    if choice == "host":
        from .codegen.cpu.host import host_vector_bits

        return host_vector_bits()
    return int(choice)


def cache_sizes(text: str | None) -> tuple[int, int, int] | None:
    """--cache-sizes as (L1, L2, L3) bytes, None when not given (the host's: Options.resolved);
    UsageError for anything but three sizes."""
    if text is None:
        return None
    from .codegen.cpu.host import parse_size

    parts = text.split(",")
    try:
        if len(parts) != 3:
            raise ValueError(f"three sizes L1,L2,L3 are needed (e.g. 48K,2M,8M), got {text!r}")
        return tuple(parse_size(p) for p in parts)
    except ValueError as e:
        raise UsageError(f"loopopt: error: --cache-sizes: {e}") from None


def fma_pipes(text: str | None) -> tuple[int, int, int] | None:
    """--fma-pipes as (pipes, bits per pipe, latency), None when not given (the host's:
    Options.resolved); UsageError for anything but three positive numbers."""
    if text is None:
        return None
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(x.isascii() and x.isdigit() and int(x) > 0 for x in parts):
        raise UsageError(f"loopopt: error: --fma-pipes: three positive numbers PIPESxBITSxLATENCY are needed "
                         f"(e.g. 2x256x4), got {text!r}")
    return tuple(int(x) for x in parts)


def options_from_args(a: argparse.Namespace) -> Options:
    """The Options the flags ask for; UsageError (exit 2) for a knob out of its range."""
    from .options import KNOB_FLAGS, KNOB_RANGES, knob_range_error

    for name in KNOB_RANGES:
        flag = KNOB_FLAGS[name]
        why = knob_range_error(name, getattr(a, flag[2:].replace("-", "_")), flag)
        if why is not None:
            raise UsageError(f"loopopt: error: {why}")
    return Options(
        target=TARGETS[a.target],
        distance_threshold=a.loop_opt_distance_threshold,
        sb_size=a.loop_opt_sb_size,
        psum_size=a.loop_opt_psum_size,
        enable_loop_distribution=a.enable_loop_distribution,
        enable_profitable_loop_fusion=a.enable_profitable_loop_fusion,
        enable_licm=a.enable_licm,
        vector_bits=vector_bits(a.vector_bits),
        cache_sizes=cache_sizes(a.cache_sizes),
        fma_pipes=fma_pipes(a.fma_pipes),
        lower=not a.no_lowering,
        lowering_pipeline=a.lowering or "",
        **{f.name: getattr(a, f.name) for f in SWITCHES},
    )


@dataclass
class Request:
    """What a command line asks for, checked: the input, the options and pipeline, and every
    output in writing order (`-o` last)."""

    args: argparse.Namespace
    input: str  # a path, or - for stdin
    filename: str  # the input's name in every message, remark and record
    options: Options
    passes: list[str] | None
    outputs: list[Output]


def validate(args: argparse.Namespace) -> Request:
    """The one place flags are checked, all before any input is read: knob ranges, the pipeline
    and its conflicts with the switches (UsageError, exit 2), and the outputs: none may destroy
    another or the input (exit 2), each must be writable (exit 1)."""
    from . import api

    if args.input is None:
        raise UsageError("loopopt: error: the following arguments are required: input (see loopopt --help)")
    options = options_from_args(args)
    if args.no_lowering and args.lowering:
        raise UsageError("loopopt: error: --no-lowering conflicts with --lowering; drop one of them")
    if args.lowering is not None:
        check_lowering(args.lowering)
    passes = api.check_request(options, args.passes)
    header = check_emit(args)
    outputs = []
    if args.checkpoint:
        outputs.append(Output("--checkpoint", CHECKPOINT_FILE, exclusive=True))
    for flag, path in (("--remarks-json", args.remarks_json), ("--remarks-yaml", args.remarks_yaml),
                       ("--fpg-dot", args.fpg_dot)):
        if path is not None:
            outputs.append(Output(flag, path))
    if header is not None:
        outputs.append(Output("--header", header))
    library_c = library_c_path(args)
    if library_c is not None:
        outputs.append(Output("--library-c", library_c))
    outputs.append(Output("-o", args.output))
    check_outputs(outputs, args.input)
    if args.emit != "mlir":
        from .runtime.build import missing_tools

        why = missing_tools()
        if why is not None:
            raise LoopOptError(f"loopopt: error: --emit {args.emit}: {why}")
    filename = "<stdin>" if args.input == "-" else printable(args.input)
    return Request(args, args.input, filename, options, passes, outputs)


BINARY_EMITS = ("object", "shared")
SOURCE_EMITS = ("prepared", "llvm")  # stages before the link: the library's C goes beside them


def source_path(output: str) -> str:
    """Where --emit prepared|llvm writes the library's C by default: -o's path with the extension .c."""
    root, ext = os.path.splitext(output)
    return (root if ext else output) + ".c"


def library_c_path(args: argparse.Namespace) -> str | None:
    """Where the library's C goes (None: nowhere, for a kind that links it in or has no build):
    --library-c, else beside -o. UsageError (exit 2, before any input is read) for --library-c
    with a kind that has no use for it, and for --emit prepared|llvm to stdout without
    --library-c: the emitted code calls functions only that C defines."""
    if args.emit not in SOURCE_EMITS:
        if args.library_c is not None:
            raise UsageError("loopopt: error: --library-c goes with --emit prepared|llvm (object and shared "
                             "have the library's C compiled in)")
        return None
    if args.library_c is not None:
        return args.library_c
    if args.output == "-":
        raise UsageError(f"loopopt: error: --emit {args.emit} -o - leaves the library's C its code calls unwritten: "
                         "name a file with -o FILE (FILE.c is written beside it) or add --library-c FILE")
    return source_path(args.output)


def header_path(output: str) -> str:
    """The C header's default path: -o's path with its extension replaced by .h (k.so -> k.h)."""
    root, ext = os.path.splitext(output)
    return (root if ext else output) + ".h"


def check_emit(args: argparse.Namespace) -> str | None:
    """--emit and --header, before any input is read (UsageError, exit 2): a built kind needs
    --target cpu (it runs on this machine), a binary is never written to a terminal; returns the
    header's path (None: no header)."""
    if args.emit == "mlir":
        if args.header is not None:
            raise UsageError("loopopt: error: --header goes with --emit prepared|llvm|object|shared (the C interface of a build)")
        return None
    if args.target != "cpu":
        raise UsageError(f"loopopt: error: --emit {args.emit} builds for this machine's CPU: it needs --target cpu "
                         f"(not {args.target})")
    if args.emit in BINARY_EMITS and args.output == "-" and 1 not in CLOSED_STREAMS and _stdout_is_terminal():
        raise UsageError(f"loopopt: error: --emit {args.emit} writes binary data; refusing to write it to a terminal: "
                         "name a file with -o FILE (or redirect stdout)")
    if args.header is not None:
        return args.header
    return None if args.output == "-" else header_path(args.output)


def _stdout_is_terminal() -> bool:
    try:
        return os.isatty(1)
    except OSError:
        return False


def check_lowering(pipeline: str) -> None:
    """--lowering PIPELINE, checked before any input is read: non-empty, brackets balanced, every
    step a registered pass or one of loopopt's own rewrites (UsageError, exit 2)."""
    from .frontend.pipeline import check_pipeline
    from .mlir import new_context

    if not pipeline.strip():
        raise UsageError("loopopt: error: --lowering '': empty pipeline (see --print-lowering)")
    try:
        check_pipeline(pipeline, new_context())
    except LoopOptError as e:
        raise UsageError(str(e).replace("loopopt: error: ", "loopopt: error: --lowering: ", 1)) from None


def print_lowering(args: argparse.Namespace) -> int:
    """`--print-lowering [INPUT]`: the pipeline the front end runs on INPUT (recognised as
    `loopopt` would), one step a line, or the linalg pipeline when no INPUT is given; with
    `--lowering`, that pipeline; with --elementwise-fusion, that step included."""
    from .frontend import LoweringOptions, format_pipeline, lowering_pipeline

    if args.emit != "mlir":
        return print_backend(args)
    if args.lowering is not None:
        check_lowering(args.lowering)
    options = LoweringOptions(elementwise_fusion=args.elementwise_fusion, pipeline=args.lowering)
    kind = "linalg"
    if args.input is not None:
        filename = "<stdin>" if args.input == "-" else printable(args.input)
        kind = "onnx" if _is_onnx(args.input) else _input_kind(read_input(args.input, filename), filename)
    if kind == "affine" and args.lowering is None:
        write_output(Output("-o", "-"), f"// {printable(args.input)}: affine input, nothing to lower\n")
        return EXIT_OK
    write_output(Output("-o", "-"), format_pipeline(lowering_pipeline(options, kind)))
    return EXIT_OK


def print_pipeline(args: argparse.Namespace) -> int:
    """`--print-pipeline [INPUT]`: the steps of the run the other flags ask for, in order, as the
    text --passes takes (as `mlir-opt --dump-pass-pipeline` prints its pipeline): the default
    pipeline of --target with the switches resolved for INPUT's kind (affine input when none is
    given), or the --passes pipeline with every name spelled as the step table names it."""
    from . import api
    from .pipeline import canonical_pass, default_pipeline, pipeline_text, resolve_options

    options = options_from_args(args)
    passes = api.check_request(options, args.passes)
    if passes is not None:
        text = ",".join(canonical_pass(p) for p in passes)
    else:
        kind = "affine"
        if args.input is not None:
            filename = "<stdin>" if args.input == "-" else printable(args.input)
            kind = "onnx" if _is_onnx(args.input) else _input_kind(read_input(args.input, filename), filename)
        if args.no_lowering:
            kind = "affine"
        text = pipeline_text(default_pipeline(resolve_options(options, framework_input=kind != "affine")))
    write_output(Output("-o", "-"), text + "\n")
    return EXIT_OK


def print_backend(args: argparse.Namespace) -> int:
    """`--print-lowering --target cpu --emit KIND`: the back end's build as shell commands (the
    MLIR to LLVM pipeline, translation, opt, llc, cc), runnable by hand on loopopt's output."""
    from .runtime import build

    check_emit(argparse.Namespace(**{**vars(args), "output": "/dev/null"}))
    why = build.missing_tools()
    if why is not None:
        raise LoopOptError(f"loopopt: error: --emit {args.emit}: {why}")
    write_output(Output("-o", "-"), build.recipe(build.toolchain(), args.emit))
    return EXIT_OK


def _input_kind(data: bytes, filename: str) -> str:
    from .frontend import input_kind
    from .mlir import parse_module

    return input_kind(parse_module(data, filename))


def _is_onnx(path: str) -> bool:
    from .frontend.onnx import is_onnx_path

    return path != "-" and is_onnx_path(path)


def read_source(path: str, filename: str) -> bytes:
    """The input as MLIR text: an ONNX model (`.onnx`) through the importer (iree-import-onnx),
    anything else read as text (read_input)."""
    if _is_onnx(path):
        from .frontend.onnx import import_onnx

        if not os.path.exists(path):
            raise LoopOptError(f"{filename}: error: cannot read input: No such file or directory")
        return import_onnx(path).encode("utf-8")
    return read_input(path, filename)


MAX_INPUT_BYTES = 256 * 1024 * 1024  # far more than any program loopopt finishes in reasonable time
_CHUNK = 1024 * 1024


def read_input(path: str, filename: str) -> bytes:
    """The input's bytes, read in chunks and refused as soon as they cannot be MLIR text: MLIR
    bytecode (its magic first), a NUL byte (/dev/zero, binary files), more than MAX_INPUT_BYTES
    (an endless stream); a closed stdin or an unreadable path in one line."""
    from .mlir import BYTECODE_MAGIC, bytecode_message

    if path == "-":
        if 0 in CLOSED_STREAMS or sys.stdin is None:
            raise LoopOptError(f"{filename}: error: cannot read input: stdin is closed")
        stream, close = sys.stdin.buffer, False
    else:
        try:
            stream, close = open(path, "rb", buffering=0), True
        except OSError as e:
            raise LoopOptError(f"{filename}: error: cannot read input: {e.strerror}") from None
    chunks, size = [], 0
    try:
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            if size == 0 and chunk.startswith(BYTECODE_MAGIC):  # (a shorter first read: parse_module's check)
                raise LoopOptError(bytecode_message(filename))
            nul = chunk.find(b"\x00")
            if nul >= 0:
                raise LoopOptError(f"{filename}: error: input contains NUL bytes (byte {size + nul}); "
                                   "expected MLIR text")
            size += len(chunk)
            if size > MAX_INPUT_BYTES:
                raise LoopOptError(f"{filename}: error: input is larger than {MAX_INPUT_BYTES >> 20} MiB, "
                                   "the most loopopt reads")
            chunks.append(chunk)
    except OSError as e:
        raise LoopOptError(f"{filename}: error: cannot read input: {e.strerror}") from None
    finally:
        if close:
            stream.close()
    return b"".join(chunks)


def _err(text: str) -> None:
    """Diagnostics to stderr, best effort: a closed or full stderr loses them (as mlir-opt's
    do), never the run and never into stdout."""
    stream = sys.stderr
    if stream is None or not text:
        return
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass


def write_outputs(req: Request, result, data: bytes) -> None:
    """The one place a run's results are written: the reports on stderr, then the files in
    `req.outputs` order (the checkpoint, side files, `-o` last; a failure stops there with exit 1,
    and every file written before it is whole)."""
    a = req.args
    if a.print_ir_after_all:
        _err(result.ir_after_all_text())
    if a.print_params:
        _err(req.options.params_text() + "\n")
    if a.print_analysis:
        from .analysis.report import analysis_report
        from .mlir import call_with_big_stack

        _err(call_with_big_stack(lambda: analysis_report(data, req.filename), interrupt="raise"))
    if a.trace:
        _err("".join(line + "\n" for line in result.trace))
    if a.remarks:
        _err(result.remarks_text())
    texts = {"--checkpoint": result.checkpoint_text, "--remarks-json": result.remarks_json,
             "--remarks-yaml": result.remarks_yaml, "--fpg-dot": result.fpg_dot, "-o": lambda: result.text}
    if a.emit != "mlir":
        built, header, c_source = build_outputs(req, result, data)
        texts["-o"], texts["--header"], texts["--library-c"] = (lambda: built), (lambda: header), (lambda: c_source)
    for out in req.outputs:
        write_output(out, texts[out.flag]())
    if a.emit in SOURCE_EMITS:
        c_out = next(o for o in req.outputs if o.flag == "--library-c")
        o_out = next(o for o in req.outputs if o.flag == "-o")
        _err(f"loopopt: note: {o_out.shown} calls functions of the library's C, written to {c_out.shown}: compile it "
             f"with `cc -std=gnu11 -O2 -fPIC -c` and link its object beside the kernel's (the whole build: "
             f"loopopt --print-lowering --target cpu --emit shared)\n")
    if a.timing:
        _err(result.timing_text())


def build_outputs(req: Request, result, data: bytes) -> tuple[bytes | str, str, str]:
    """(what --emit asks for, the C header, the library's C) of the optimized module, built before
    anything is written: a failed build leaves every output untouched. Every kind is a stage of
    loopopt.compile's build (runtime.build.build): the module marked and its checks lowered as
    compiler.prepare does it, the same passes, the same C."""
    from .runtime import build, compiler, memref
    from .mlir import call_with_big_stack

    def work():
        counts = compiler.output_counts(data.decode("utf-8"), req.filename)
        marked, _ = compiler.mark_all(result.text)
        specs = compiler.all_specs(marked, counts)
        return (*compiler.with_checks(marked, specs, result.text), specs)

    prepared, checks_c, messages, specs = call_with_big_stack(work, interrupt="raise")
    c_source = build.runtime_source(checks_c)
    built = prepared if req.args.emit == "prepared" else build.build(prepared, req.args.emit, checks_c=checks_c)
    named = [o.path for o in req.outputs if o.flag == "--header" and o.path != "-"]
    guard = os.path.splitext(os.path.basename(named[0]))[0] if named else "loopopt_kernel"
    header = memref.c_header(specs, guard, source=req.filename, messages=messages)
    return built, header, c_source


def run(argv: list[str] | None = None) -> int:
    """Parse, check (before any input is read), read, optimize, write. Errors raise: LoopOptError
    (exit 1), UsageError (exit 2); `main` turns them into one line and the exit code."""
    args = build_parser().parse_args(argv)
    if args.print_lowering:
        return print_lowering(args)
    if args.print_pipeline:
        return print_pipeline(args)
    req = validate(args)
    data = read_source(req.input, req.filename)
    from . import api

    result = api.run(data, req.options, filename=req.filename, passes=req.passes,
                     explain=args.trace or bool(args.fpg_dot),
                     ir_after_each=args.print_ir_after_all or args.checkpoint, interrupt="raise")
    write_outputs(req, result, data)
    return EXIT_OK


def main(argv: list[str] | None = None) -> None:
    guard_std_streams()
    try:
        code = run(argv)
    except LoopOptError as e:  # UsageError too: its exit_code is 2
        _err(str(e) + "\n")
        code = e.exit_code
    except KeyboardInterrupt:
        _err("loopopt: interrupted\n")
        code = EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader closed the pipe (`loopopt x.mlir | head`): like any filter, stop quietly.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno() if sys.stdout else 1)
        code = EXIT_BROKEN_PIPE
    except RecursionError:
        _err("loopopt: error: input nests too deeply to process\n")
        code = EXIT_INPUT
    except MemoryError:
        _err("loopopt: error: out of memory\n")
        code = EXIT_INPUT
    except (Exception, ErasedOpInUse) as e:  # an internal error is reported in one line, never a traceback
        _err(f"loopopt: internal error: {type(e).__name__}: {e} (please report with the input)\n")
        code = EXIT_INTERNAL
    _flush_quietly()
    sys.exit(code)


def _flush_quietly() -> None:
    """Flush stdout now, dropping what a dead or full stdout cannot take: the interpreter's own
    flush at exit would print a traceback-like warning and change the exit code to 120."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        except OSError:
            pass


if __name__ == "__main__":
    main()
