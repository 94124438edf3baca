"""Command line: `loopopt INPUT [-o OUTPUT] [options]`."""
from __future__ import annotations

import argparse
import errno
import os
import secrets
import stat
import sys

from .errors import LoopOptError
from .options import DEFAULT_TARGET, TARGETS, Options

CHECKPOINT_FILE = "__loop_opt_chkpt.txt"  # also loopopt.api.CHECKPOINT_FILE (not imported: --help stays fast)


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {text!r}")


class _Parser(argparse.ArgumentParser):
    """argparse with the project's error contract: one line on stderr, exit 2 (bad command line)."""

    def error(self, message: str):
        self.exit(2, f"loopopt: error: {message} (see loopopt --help)\n")


def version_text() -> str:
    """`loopopt --version`: loopopt's version and the MLIR of its bindings (from the wheel's
    metadata and its bundled iree-opt's `--version`, without loading the bindings)."""
    from importlib import metadata

    from . import __version__

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
        sys.stdout.write(version_text())
        sys.stdout.flush()
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="loopopt", description="Loop-nest optimizer for MLIR affine programs "
                                "(LICM, greedy profit-based fusion, distribution, interchange, GCD tiling).")
    p.add_argument("--version", action=_VersionAction,
                   help="print loopopt's version and the MLIR version of its bindings, then exit")
    p.add_argument("input", help="MLIR file, or - for stdin")
    p.add_argument("-o", "--output", default="-", help="output file, or - for stdout (default)")
    p.add_argument("--target", choices=sorted(TARGETS), default=DEFAULT_TARGET,
                   help=f"hardware target (default {DEFAULT_TARGET}; cpu has no partition constraint)")
    p.add_argument("--loop-opt-distance-threshold", type=int, default=8, metavar="N",
                   help="candidate loop pair positional distance threshold (default 8)")
    p.add_argument("--loop-opt-sb-size", type=int, default=0, metavar="BYTES",
                   help="SBUF bytes per partition; 0 = target's figure")
    p.add_argument("--loop-opt-psum-size", type=int, default=0, metavar="BYTES",
                   help="PSUM bytes per partition; 0 = target's figure")
    p.add_argument("--enable-loop-distribution", type=_bool, default=True, metavar="BOOL")
    p.add_argument("--enable-profitable-loop-fusion", type=_bool, default=True, metavar="BOOL",
                   help="greedy profit-ordered fusion (default); false = classic program-order fusion")
    p.add_argument("--enable-licm", type=_bool, default=True, metavar="BOOL")
    p.add_argument("--passes", default=None,
                   help="run an explicit pipeline instead of the whole pass, e.g. fuse,licm")
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
                   help=f"write {CHECKPOINT_FILE} (parameters, IR after each phase) in the current directory")
    p.add_argument("--timing", action="store_true", help="print the wall time of each phase (stderr)")
    p.add_argument("--print-ir-after-all", action="store_true",
                   help="print each function's IR after each step (stderr)")
    return p


def options_from_args(a: argparse.Namespace) -> Options:
    if a.loop_opt_distance_threshold < 0:
        raise LoopOptError("loopopt: error: --loop-opt-distance-threshold must be >= 0")
    if a.loop_opt_sb_size < 0 or a.loop_opt_psum_size < 0:
        raise LoopOptError("loopopt: error: --loop-opt-sb-size and --loop-opt-psum-size must be >= 0 bytes")
    return Options(
        target=TARGETS[a.target],
        distance_threshold=a.loop_opt_distance_threshold,
        sb_size=a.loop_opt_sb_size,
        psum_size=a.loop_opt_psum_size,
        enable_loop_distribution=a.enable_loop_distribution,
        enable_profitable_loop_fusion=a.enable_profitable_loop_fusion,
        enable_licm=a.enable_licm,
    )


def _read_input(path: str) -> tuple[bytes, str]:
    if path == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    try:
        with open(path, "rb") as f:
            return f.read(), path
    except OSError as e:
        raise LoopOptError(f"{path}: error: cannot read input: {e.strerror}") from None


def _write_output(path: str, text: str) -> None:
    """Write `text` to `path` without ever damaging what the path names.

    `-` is stdout. A symlink is followed to the file it names (the link stays). A regular file, or a
    path that does not exist yet, is replaced atomically: a failure leaves the old file or no file,
    never half a file. Anything else (a character device such as /dev/null, a FIFO, a descriptor
    under /proc such as /dev/stdout) cannot be replaced, only written to, so it is written straight.
    """
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    data = text.encode("utf-8")
    try:
        target = _resolve_output(path)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        if target is not None and (st is None or stat.S_ISREG(st.st_mode)):
            _replace_file(target, data, st)
        else:
            _write_through(path, data)
    except OSError as e:
        raise LoopOptError(f"{path}: error: cannot write output: {e.strerror or e}") from None


def _resolve_output(path: str) -> str | None:
    """The path of the file that `path` names after following symlinks, or None if the path leads
    into /proc: there a link names an open descriptor (/dev/stdout), which is written, never replaced."""
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        d = os.path.realpath(os.path.dirname(p))
        if d == "/proc" or d.startswith("/proc/"):
            return None
        p = os.path.join(d, os.path.basename(p))
        if not os.path.islink(p):
            return p
        p = os.path.join(d, os.readlink(p))
    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))


def _replace_file(target: str, data: bytes, old: os.stat_result | None) -> None:
    """Write a temporary file beside `target`, then rename it over `target`.

    A new file gets the mode the umask allows (0666 & ~umask, as any program's new file); a replaced
    file keeps its mode and, where permitted, its owner."""
    d = os.path.dirname(target)
    for _ in range(100):
        tmp = os.path.join(d, f".loopopt-{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise OSError(errno.EEXIST, f"no free temporary file name in {d}")
    try:
        if old is not None:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
            if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fd, old.st_uid, old.st_gid)
                except PermissionError:
                    pass
        _write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_through(path: str, data: bytes) -> None:
    """Write into what `path` names as it is (device, FIFO, descriptor): opened for appending, so a
    descriptor that names a regular file is never truncated."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def run(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from . import api  # imported late: `--help` stays fast
    data, filename = _read_input(args.input)
    opts = options_from_args(args)
    passes = None
    if args.passes is not None:
        passes = [p.strip() for p in args.passes.split(",") if p.strip()]
    knobs = {name: getattr(opts, name) for name in api.knob_names()}
    result = api.optimize(data, opts.target, filename=filename, passes=passes,
                          explain=args.trace or bool(args.fpg_dot),
                          ir_after_each=args.print_ir_after_all or args.checkpoint, **knobs)
    if args.print_ir_after_all:
        sys.stderr.write(result.ir_after_all_text())
    if args.print_params:
        print(opts.params_text(), file=sys.stderr)
    if args.print_analysis:
        from .analysis.report import analysis_report
        print(analysis_report(data, filename), file=sys.stderr, end="")
    if args.trace:
        sys.stderr.write("".join(line + "\n" for line in result.trace))
    if args.remarks:
        sys.stderr.write(result.remarks_text())
    if args.remarks_json:
        _write_output(args.remarks_json, result.remarks_json())
    if args.remarks_yaml:
        _write_output(args.remarks_yaml, result.remarks_yaml())
    if args.fpg_dot:
        _write_output(args.fpg_dot, result.fpg_dot())
    if args.checkpoint:
        _write_output(CHECKPOINT_FILE, result.checkpoint_text())
    _write_output(args.output, result.text)
    if args.timing:
        sys.stderr.write(result.timing_text())
    return 0


def main(argv: list[str] | None = None) -> None:
    try:
        code = run(argv)
    except LoopOptError as e:
        print(str(e), file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        print("loopopt: interrupted", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        # The reader closed the pipe (`loopopt x.mlir | head`): like any filter, stop quietly.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141
    except RecursionError:
        print("loopopt: error: input nests too deeply to process", file=sys.stderr)
        code = 1
    except MemoryError:
        print("loopopt: error: out of memory", file=sys.stderr)
        code = 1
    except Exception as e:  # an internal error is reported in one line, never a traceback
        print(f"loopopt: internal error: {type(e).__name__}: {e} (please report with the input)", file=sys.stderr)
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
