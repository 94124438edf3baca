"""`python3 -m loopopt.fuzz --minutes M [--seed S] [--out DIR]`: differential fuzzing for M minutes.

Program k of seed S is generated from `Random(f"{S}/{k}")`, so any report can be replayed.
A failure is a crash, invalid output, different results, a time-out, or an `[INTERNAL]` remark
(a step rolled back); each program is checked in a child process, so a crash of that process
(SIGSEGV) is counted as class `crash:SegmentationFault` and the campaign goes on (`--in-process`
checks in this process instead). Failures are counted by class (`Failure.signature`); the first
`--max-per-class` of each class are shrunk (keeping the class) and saved as DIR/<hash>.mlir
with their options in the header. The last lines give the counts by class, then how many
programs exercised each issue 22 forwarding class (`generator.probe_classes`), on every
target and on cpu (where scalar replacement runs): a program with a forwarding probe runs on
cpu three times in four; then each issue 33 class the same way (also three in four on cpu), with
the failures of the programs that had it, by class.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import sys
import signal
import time
from dataclasses import replace

from .differential import (BAD_INPUT, IsolatedChecker, Regression, check_program, options_flags, random_options,
                           save_regression)
from .generator import (CODEGEN_CLASSES, FORWARD_CLASSES, ISSUE33_CLASSES, ISSUE35_CLASSES, GeneratorConfig,
                        generate_program, probe_classes)
from ..options import TARGETS

# Share of programs with a forwarding probe (issue 22) or an issue 33 class that run on cpu, where
# scalar replacement, the recompute rescue, register tiling and constant panels (the transforms
# they aim at) run; the rest keep the random target.
FORWARD_CPU_SHARE = 0.75
# Programs one checking process answers before a new one takes over (IsolatedChecker.recycle_after):
# the caches a process keeps across programs are bounded, this bounds them to a few hundred
# programs' worth (a new process costs about a second).
RECYCLE_AFTER = 400
from .shrink import shrink


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m loopopt.fuzz",
                                description="Differential fuzzing of loopopt against the reference interpreter.")
    p.add_argument("--minutes", type=float, required=True, help="how long to run")
    p.add_argument("--seed", type=int, default=None, help="base seed (default: from the clock; printed)")
    p.add_argument("--out", default=os.path.join("tests", "regressions"),
                   help="directory for shrunk failing programs (default tests/regressions)")
    p.add_argument("--mlir-opt-every", type=int, default=10, metavar="K",
                   help="also verify every K-th output with mlir-opt (0 = never)")
    p.add_argument("--timeout", type=float, default=120, help="seconds allowed per optimize() call")
    p.add_argument("--max-programs", type=int, default=0, help="stop after this many programs (0 = no limit)")
    p.add_argument("--no-shrink", action="store_true", help="save failing programs as generated")
    p.add_argument("--max-per-class", type=int, default=2, metavar="N",
                   help="shrink and save at most N failures of each class (default 2)")
    p.add_argument("--recycle-after", type=int, default=RECYCLE_AFTER, metavar="N",
                   help=f"start a new checking process after N programs (default {RECYCLE_AFTER}; 0 = never)")
    p.add_argument("--in-process", action="store_true",
                   help="check programs in this process (a crash ends the run) instead of a child process")
    return p


def program_case(seed: int, k: int, config: GeneratorConfig | None = None):
    """(program, options, interpreter seed) of case k under base seed `seed`.

    Without a config: every construct, issue 10's classes at their `CLASS_RATES`; one case in
    five uses i32 elements (wrapping integer arithmetic)."""
    rng = random.Random(f"{seed}/{k}")
    if config is None:
        config = GeneratorConfig(element_type="i32" if rng.random() < 0.2 else "f32", adversarial_rate=1.0)
    prog = generate_program(rng, config)
    options = random_options(rng)
    if prog.features & (FORWARD_CLASSES | ISSUE33_CLASSES | ISSUE35_CLASSES | CODEGEN_CLASSES) \
            and rng.random() < FORWARD_CPU_SHARE:
        options = replace(options, target=TARGETS["cpu"])
    return prog, options, rng.randrange(2 ** 31)


def run(args: argparse.Namespace, out=sys.stdout) -> int:
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    print(f"fuzz: seed {seed}, {args.minutes} minute(s), failures to {args.out}", file=out, flush=True)
    start = time.monotonic()
    deadline = start + args.minutes * 60
    tried = failures = minute_tried = minute_failures = 0
    minute_end = start + 60
    saved: list = []
    by_class: collections.Counter = collections.Counter()
    exercised: collections.Counter = collections.Counter()  # (probe class, "all" | "cpu") -> programs
    k = 0
    old_term = signal.signal(signal.SIGTERM, _interrupt) if _main_thread() else None
    checker = None if args.in_process else IsolatedChecker(recycle_after=args.recycle_after)
    args.check = _checking(checker)
    try:
        while time.monotonic() < deadline and (not args.max_programs or k < args.max_programs):
            k, tried, failures = _one_case(args, seed, k, tried, failures, by_class, exercised, saved, out)
            now = time.monotonic()
            if now >= minute_end:
                m = int((now - start) // 60)
                print(f"[minute {m}] {tried - minute_tried} programs, {failures - minute_failures} failures "
                      f"(total {tried} programs, {failures} failures; with a forwarding probe "
                      f"{exercised['any', 'all']}, on cpu {exercised['any', 'cpu']})", file=out, flush=True)
                minute_tried, minute_failures = tried, failures
                minute_end = now + 60
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the summary of what ran
        print("fuzz: interrupted", file=out, flush=True)
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        if checker is not None:
            checker.close()
    return _summary(start, tried, failures, saved, by_class, exercised, out)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _checking(checker: IsolatedChecker | None):
    """check_program, in the checker's child process when there is one."""
    if checker is None:
        return check_program

    def check(prog, options, **kw):
        return checker.check(prog.text, prog.func_name, prog.sizes, options, **kw)
    return check


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _one_case(args, seed, k, tried, failures, by_class, exercised, saved, out):
    """Generate and check case k; returns (next k, programs tried, failures)."""
    use_opt = bool(args.mlir_opt_every) and k % args.mlir_opt_every == 0
    try:
        prog, options, check_seed = program_case(seed, k)
    except Exception as e:  # a generator bug: report it and carry on
        print(f"  case {k}: generator error {type(e).__name__}: {e}", file=out, flush=True)
        by_class[f"generator:{type(e).__name__}"] += 1
        return k + 1, tried, failures + 1
    failure = args.check(prog, options, seed=check_seed, use_mlir_opt=use_opt, timeout=args.timeout)
    classes = probe_classes(prog.model) if prog.model is not None else set()
    classes |= {f"issue33:{c}" for c in prog.features & ISSUE33_CLASSES}
    classes |= {f"issue35:{c}" for c in prog.features & ISSUE35_CLASSES}
    classes |= {f"codegen:{c}" for c in prog.features & CODEGEN_CLASSES}
    for c in classes | ({"any"} if classes - _ISSUE33_KEYS else set()):
        exercised[c, "all"] += 1
        if options.target.name == "cpu":
            exercised[c, "cpu"] += 1
    if failure is not None:
        failures += 1
        by_class[failure.signature] += 1
        for c in classes & _ISSUE33_KEYS:
            exercised[c, f"fail:{failure.signature}"] += 1
        keep = by_class[failure.signature] <= args.max_per_class
        path = _report(k, prog, options, check_seed, failure, use_opt, args, out, keep)
        if path:
            saved.append(path)
    return k + 1, tried + 1, failures


# The cpu classes counted apart from the forwarding probes (issue 33's and issue 35's): keys "issueNN:class".
_ISSUE33_KEYS = frozenset(f"issue33:{c}" for c in ISSUE33_CLASSES) | frozenset(f"issue35:{c}" for c in ISSUE35_CLASSES) \
    | frozenset(f"codegen:{c}" for c in CODEGEN_CLASSES)


def _summary(start, tried, failures, saved, by_class, exercised, out) -> int:
    elapsed = time.monotonic() - start
    print(f"fuzz: done: {tried} programs in {elapsed / 60:.1f} min "
          f"({tried / max(elapsed / 60, 1e-9):.0f}/min), {failures} failures, {len(saved)} saved",
          file=out, flush=True)
    for sig, n in by_class.most_common():
        print(f"fuzz: class {sig}: {n}", file=out, flush=True)
    print(f"fuzz: programs with a forwarding probe: {exercised['any', 'all']}, on cpu {exercised['any', 'cpu']}",
          file=out, flush=True)
    for c in sorted({c for c, _ in exercised} - {"any"} - _ISSUE33_KEYS):
        print(f"fuzz: forwarding class {c}: {exercised[c, 'all']} programs, {exercised[c, 'cpu']} on cpu",
              file=out, flush=True)
    for c in sorted({c for c, _ in exercised} & _ISSUE33_KEYS):
        fails = ", ".join(f"{w[5:]} {n}" for (k, w), n in sorted(exercised.items()) if k == c and w.startswith("fail:"))
        group, name = c.split(":", 1)
        label = f"issue {group[5:]}" if group.startswith("issue") else group
        print(f"fuzz: {label} class {name}: {exercised[c, 'all']} programs, {exercised[c, 'cpu']} on cpu; "
              f"failures: {fails or 'none'}", file=out, flush=True)
    return 1 if failures else 0


def _report(k, prog, options, check_seed, failure, use_opt, args, out, keep=True) -> str | None:
    print(f"  FAIL case {k} [{failure.signature}] {failure.message}", file=out, flush=True)
    print(f"       options: {options_flags(options)}", file=out, flush=True)
    if prog.features & (ISSUE33_CLASSES | ISSUE35_CLASSES | CODEGEN_CLASSES):
        named = sorted(prog.features & (ISSUE33_CLASSES | ISSUE35_CLASSES | CODEGEN_CLASSES))
        print(f"       issue 33/35 and codegen classes: {', '.join(named)}",
              file=out, flush=True)
    if failure.kind == BAD_INPUT:
        print("       (the generator produced an invalid program; not saved)", file=out, flush=True)
        return None
    if not keep:
        print(f"       (class already saved {args.max_per_class} times; not saved)", file=out, flush=True)
        return None

    def still_fails(cand) -> bool:
        f = args.check(cand, options, seed=check_seed, use_mlir_opt=use_opt, timeout=args.timeout)
        return f is not None and f.signature == failure.signature

    small = prog if args.no_shrink else shrink(prog, still_fails)
    final = args.check(small, options, seed=check_seed, use_mlir_opt=use_opt, timeout=args.timeout) or failure
    reg = Regression(text=small.text, func_name=small.func_name, sizes=small.sizes, options=options,
                     seed=check_seed, note=f"{final.kind}: {final.message}", open=True)
    path = save_regression(reg, args.out)
    print(f"       shrunk {len(prog.text)} -> {len(small.text)} chars, saved {path}", file=out, flush=True)
    return path


def main(argv: list | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        code = run(args)
    except KeyboardInterrupt:
        print("fuzz: interrupted", file=sys.stderr)
        code = 130
    sys.exit(code)


if __name__ == "__main__":
    main()
