"""The differential property: loopopt's output verifies and computes what its input computes.

`check_program` runs the whole pass on a generated program and returns None when the
property holds, or a `Failure` that names what broke (crash, invalid output, different
results, an `[INTERNAL]` remark, time limit). Failures are saved as regression files whose header comments carry
everything needed to replay them (options, function, sizes, seed).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import signal
from dataclasses import dataclass

from ..options import TARGETS, Options
from .generator import GeneratedProgram

CRASH = "crash"  # optimize() raised
INVALID = "invalid"  # the output does not parse or verify
MISMATCH = "mismatch"  # the reference interpreter gives different results
TIMEOUT = "timeout"  # optimize() ran past the time limit
INTERNAL = "internal"  # an [INTERNAL] remark: a step raised or left invalid IR and was rolled back
BAD_INPUT = "bad-input"  # the input itself is rejected: a generator bug, not a loopopt failure


@dataclass(frozen=True)
class Failure:
    kind: str
    message: str  # one line
    options: Options
    output: str | None = None

    @property
    def signature(self) -> str:
        """The failure's class: the kind, plus for an internal error or crash the step and the
        exception type (or the verifier's words), with numbers and names taken out. Shrinking
        keeps the signature, and a campaign counts failures by it."""
        return failure_signature(self.kind, self.message)


_INTERNAL_RE = re.compile(r"\[INTERNAL\] (\S+) rolled back: (.*)$")


def failure_signature(kind: str, message: str) -> str:
    if kind == INTERNAL:
        m = _INTERNAL_RE.search(message)
        if m:
            return f"{kind}:{m.group(1)}:{_cause(m.group(2))}"
    if kind == CRASH:
        return f"{kind}:{_cause(message)}"
    return kind


def _cause(why: str) -> str:
    """`KeyError: 'x'` -> `KeyError`; a verifier message -> its first words, names and numbers out."""
    head = why.split(":", 1)[0].strip()
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*(Error|Exception|Fault|Interrupt)", head):
        return head
    text = re.sub(r"[%@^#]\w+|\d+|'[^']*'|\"[^\"]*\"", "_", why)
    return " ".join(text.split()[:6])


def internal_remarks(remarks) -> list[str]:
    """The messages of the `[INTERNAL] ... rolled back` remarks of a pass result."""
    return [r.message for r in remarks if r.message.startswith("[INTERNAL]")]


def random_options(rng: random.Random) -> Options:
    """Random knob settings: each target, distance threshold 0..10, distribution and greedy on/off."""
    return Options(
        target=TARGETS[rng.choice(["trn1", "inf2", "trn2", "cpu"])],
        distance_threshold=rng.randint(0, 10),
        enable_loop_distribution=rng.random() < 0.5,
        enable_profitable_loop_fusion=rng.random() < 0.5,
    )


def options_flags(o: Options) -> str:
    """The CLI flags that reproduce `o` (the knobs the fuzzer varies, plus LICM)."""
    return (f"--target={o.target.name} --loop-opt-distance-threshold={o.distance_threshold} "
            f"--enable-loop-distribution={str(o.enable_loop_distribution).lower()} "
            f"--enable-profitable-loop-fusion={str(o.enable_profitable_loop_fusion).lower()} "
            f"--enable-licm={str(o.enable_licm).lower()}")


_FLAG_RE = re.compile(r"--([a-z-]+)=(\S+)")


def parse_options_flags(text: str) -> Options:
    """Inverse of `options_flags`."""
    flags = dict(_FLAG_RE.findall(text))
    kw = {}
    if "target" in flags:
        kw["target"] = TARGETS[flags["target"]]
    if "loop-opt-distance-threshold" in flags:
        kw["distance_threshold"] = int(flags["loop-opt-distance-threshold"])
    for flag, name in (("enable-loop-distribution", "enable_loop_distribution"),
                       ("enable-profitable-loop-fusion", "enable_profitable_loop_fusion"),
                       ("enable-licm", "enable_licm")):
        if flag in flags:
            kw[name] = flags[flag] == "true"
    return Options(**kw)


class _TimeLimit(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float | None):
    """Raise _TimeLimit in the block after `seconds` (main thread, POSIX); None means no limit."""
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise _TimeLimit()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def interpreter_available() -> bool:
    try:
        from .. import testing  # noqa: F401
    except ImportError:
        return False
    return True


_BEFORE_FAILS = "the BEFORE program fails"


def compare_results(before: str, after: str, func_name: str, sizes: dict, seed: int,
                    trials: int = 2) -> tuple[str, str] | None:
    """None if the reference interpreter gives the same results for both texts, else (kind, why).

    kind is BAD_INPUT when the input program itself cannot run, MISMATCH otherwise.
    """
    from .. import testing

    try:
        testing.assert_same_results(before, after, seed, sizes=sizes, func=func_name, trials=trials)
    except AssertionError as e:
        kind = BAD_INPUT if _BEFORE_FAILS in str(e) else MISMATCH
        return kind, _one_line(e) or "results differ"
    return None


def check_text(text: str, func_name: str, sizes: dict, options: Options, *, seed: int = 0,
               use_mlir_opt: bool = False, timeout: float | None = 120,
               compare: bool = True) -> Failure | None:
    """The differential property on one program text under `options`."""
    from .. import driver, mlir
    from ..errors import LoopOptError

    try:
        mlir.parse_module(text, "<fuzz-input>")
    except LoopOptError as e:
        return Failure(BAD_INPUT, _one_line(e), options)
    try:
        with time_limit(timeout):
            result = driver.optimize(text, options, filename="<fuzz>")
    except _TimeLimit:
        return Failure(TIMEOUT, f"optimize() ran longer than {timeout}s", options)
    except Exception as e:  # any escape from the pass is a failure to report
        return Failure(CRASH, _one_line(f"{type(e).__name__}: {e}"), options)
    out = result.text
    try:
        mlir.parse_module(out, "<fuzz-output>")
    except LoopOptError as e:
        return Failure(INVALID, _one_line(e), options, out)
    if use_mlir_opt:
        from ..toolchain import verify_with_mlir_opt

        err = verify_with_mlir_opt(out)
        if err:
            return Failure(INVALID, _one_line(f"mlir-opt: {err}"), options, out)
    if compare and interpreter_available():
        try:
            verdict = compare_results(text, out, func_name, sizes, seed)
        except Exception as e:  # the interpreter rejecting the output is a failure too
            verdict = MISMATCH, _one_line(f"interpreter: {type(e).__name__}: {e}")
        if verdict:
            return Failure(verdict[0], verdict[1], options, out)
    internal = internal_remarks(result.remarks)
    if internal:
        more = f" (and {len(internal) - 1} more)" if len(internal) > 1 else ""
        return Failure(INTERNAL, _one_line(internal[0]) + more, options, out)
    return None


def check_program(prog: GeneratedProgram, options: Options, *, seed: int = 0, use_mlir_opt: bool = False,
                  timeout: float | None = 120) -> Failure | None:
    """None when loopopt keeps `prog` valid and its results unchanged under `options`."""
    return check_text(prog.text, prog.func_name, prog.sizes, options, seed=seed,
                      use_mlir_opt=use_mlir_opt, timeout=timeout)


# ---------------------------------------------------------------- a crash is a failure too


# What a signal that ends the checking process is called in a failure's class (`crash:<name>`).
_SIGNAL_NAMES = {"SIGSEGV": "SegmentationFault", "SIGABRT": "AbortFault", "SIGBUS": "BusFault",
                 "SIGILL": "IllegalInstructionFault", "SIGFPE": "FloatingPointFault", "SIGKILL": "KilledFault"}


class IsolatedChecker:
    """`check_text` in a child process, started again after it dies: a crash of the process (a
    step that reads an erased op dies of SIGSEGV, MLIR aborts) is a failure of class
    `crash:SegmentationFault` etc., not the end of a campaign or of the test run. The child is a
    new interpreter (`python -c`; not a fork, whose copies of MLIR's thread pools would lack their
    threads) serving requests on its stdin and stdout, pickled. `serve` ("module:function"):
    the child's loop (tests give one that crashes). `recycle_after`: a child that has answered
    that many checks is closed and the next check starts a new one (0: never), so whatever a
    long-lived interpreter accumulates (bounded caches of every program's analyses, the
    reference interpreter's compiled modules) is given back every so often."""

    def __init__(self, serve: str = "loopopt.fuzz.differential:serve_checks", recycle_after: int = 0) -> None:
        self._serve = serve
        self._proc = None
        self.recycle_after = recycle_after
        self._answered = 0  # checks the current child has answered
        self.started = 0  # children started so far

    def _start(self) -> None:
        import subprocess
        import sys

        self._answered = 0
        self.started += 1
        module, fn = self._serve.split(":")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self._proc = subprocess.Popen([sys.executable, "-c", f"import {module} as m; m.{fn}()"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def check(self, text: str, func_name: str, sizes: dict, options: Options, *, seed: int = 0,
              use_mlir_opt: bool = False, timeout: float | None = 120) -> "Failure | None":
        import pickle
        import select

        if self._proc is not None and self.recycle_after and self._answered >= self.recycle_after:
            self.close()
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        kw = dict(seed=seed, use_mlir_opt=use_mlir_opt, timeout=timeout)
        answer, answered = None, False
        try:
            pickle.dump((text, func_name, sizes, options, kw), self._proc.stdin)
            self._proc.stdin.flush()
            # the child's own time limit comes first; this is for a child that hangs
            if select.select([self._proc.stdout], [], [], 3 * (timeout or 120) + 120)[0]:
                answer, answered = pickle.load(self._proc.stdout), True
        except (EOFError, OSError, pickle.UnpicklingError):
            answered = None
        if answered:
            self._answered += 1
            return answer
        if answered is False:
            self._proc.kill()
        code = self._proc.wait()
        self._proc = None
        if answered is False:
            return Failure(TIMEOUT, "the checking process did not answer", options)
        return Failure(CRASH, _death(code), options)

    def close(self) -> None:
        if self._proc is not None:
            self._proc.stdin.close()
            try:
                self._proc.wait(10)
            except Exception:
                self._proc.kill()
            self._proc = None


def _death(code: int | None) -> str:
    """`SegmentationFault: the checking process died of SIGSEGV (exit 139)` for a child's exit code."""
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        return f"{_SIGNAL_NAMES.get(name, name + 'Fault')}: the checking process died of {name} (exit {128 - code})"
    return f"ProcessExit: the checking process exited with {code}"


def serve_checks() -> None:
    """The child's loop: a `check_text` per pickled request on stdin, the answer pickled on the
    process's stdout (anything else printed goes to stderr), until stdin closes."""
    import pickle
    import sys

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    while True:
        try:
            text, func_name, sizes, options, kw = pickle.load(requests)
        except EOFError:
            return
        pickle.dump(check_text(text, func_name, sizes, options, **kw), out)
        out.flush()


# ---------------------------------------------------------------- regression files


@dataclass(frozen=True)
class Regression:
    """A saved failing program and how to replay it.

    `open`: the failure is not fixed yet (header line `// status: open ...`); the suite expects
    it to fail and reports when it passes, so the line is removed with the fix."""

    text: str
    func_name: str
    sizes: dict
    options: Options
    seed: int
    note: str = ""
    open: bool = False


def regression_text(reg: Regression) -> str:
    """The file form: `//` header lines (valid MLIR comments) followed by the program."""
    sizes = " ".join(f"{k}={v}" for k, v in sorted(reg.sizes.items())) or "-"
    header = [
        f"// loopopt regression: {reg.note}" if reg.note else "// loopopt regression",
        *(["// status: open"] if reg.open else []),
        f"// options: {options_flags(reg.options)}",
        f"// func: {reg.func_name}",
        f"// sizes: {sizes}",
        f"// seed: {reg.seed}",
    ]
    return "\n".join(header) + "\n" + reg.text


def parse_regression(text: str) -> Regression:
    """Inverse of `regression_text`; missing header lines take defaults."""
    fields = {}
    for line in text.splitlines():
        m = re.match(r"//\s*([a-z]+):\s*(.*)$", line.strip())
        if m and m.group(1) in ("options", "func", "sizes", "seed", "status"):
            fields[m.group(1)] = m.group(2).strip()
    sizes = {}
    for item in fields.get("sizes", "-").split():
        if "=" in item:
            k, v = item.split("=", 1)
            sizes[k] = int(v)
    note = ""
    first = text.splitlines()[0] if text else ""
    if first.startswith("// loopopt regression:"):
        note = first.split(":", 1)[1].strip()
    return Regression(text=text, func_name=fields.get("func", "kernel"), sizes=sizes,
                      options=parse_options_flags(fields.get("options", "")),
                      seed=int(fields.get("seed", "0")), note=note,
                      open=fields.get("status", "").split(" ", 1)[0] == "open")


def save_regression(reg: Regression, directory: str) -> str:
    """Write `reg` as DIR/<hash>.mlir (hash of program, options and sizes); returns the path."""
    os.makedirs(directory, exist_ok=True)
    key = f"{reg.text}\n{options_flags(reg.options)}\n{sorted(reg.sizes.items())}"  # not `open`
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    path = os.path.join(directory, f"{digest}.mlir")
    with open(path, "w") as f:
        f.write(regression_text(reg))
    return path


def check_regression(reg: Regression, *, use_mlir_opt: bool = True) -> Failure | None:
    return check_text(reg.text, reg.func_name, reg.sizes, reg.options, seed=reg.seed,
                      use_mlir_opt=use_mlir_opt)
