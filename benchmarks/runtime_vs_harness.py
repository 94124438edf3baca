"""loopopt.compile's callable against loopopt.native's harness on the same optimized code, paired.

    python3 benchmarks/runtime_vs_harness.py                       # the main blocks, flushed and warm
    python3 benchmarks/runtime_vs_harness.py --only mlp_relu,softmax --rounds 5 --regimes warm
    python3 benchmarks/runtime_vs_harness.py --only gan_upsample --fresh   # the callable's rounds in new processes

For each block: `loopopt.optimize(BLOCK.mlir, target="cpu")` (the models benchmark's loopopt
column), run by the harness (`native`'s, mlir-runner -O3, calls timed inside the JIT process, as
the models benchmark runs it: temporaries served by loopopt.compile's allocator, buffers of 4 MiB
and more on huge pages; `--temporaries malloc` for MLIR's malloc/free), and the same text through
`loopopt.compile`, called in this process on the harness's inputs, placed as the harness places
them (64-byte aligned, and those of 4 MiB or more aligned to 2 MiB huge pages, as the harness's
huge_pages places them; the outputs too). The two alternate, round by round and regime by regime
(the order reversed every round), so the machine's load (shared, 2 cores) weighs on both alike;
each round is `--reps` calls of each after `--warmup` untimed ones: warm, the kernel's data in the
caches; flushed, each timed call after reading `--flush-mib` MiB (one word per 64-byte line: the
harness's flush in the JIT process, the models benchmark's workers.Flusher here).

Timed in this process, call by call in a rotated order, each between two clock reads and nothing
else (as workers.time_calls):
  callable      k(*args): every argument in order, the outputs too (the callable's `k(x, y)`), as
                the harness's driver calls its kernel and the models benchmark's worker calls k
  callable_out  k(*inputs, out=outputs): the same call with out= (the interpreter builds the
                keyword dict on every call: about 3 µs after a flush, none warm)
  timer         t0 = clock(); t1 = clock() with nothing between: what Python's clock costs itself
                (the harness's, gettimeofday in C, a fraction of it; it has 1 µs steps)
  c_floor       the same library's C function on the same descriptors, timed in C after the same
                flush done in C, in this process (benchmarks/call_paths.py's trampoline): what the
                harness measures, taken here. callable / C floor is the call from Python alone, C
                floor / harness the rest (the harness's code JIT-compiled by mlir-runner, the
                library's by llc; the two processes).
The inputs are a tuple (`k(*inputs, ...)` on a list makes the interpreter build one from it every
call, 1 µs after a flush: the caller's cost). Reported per regime: the lower quartile of all calls
of each and the ratios, with the load averages; and per round (`round_ratios`): the lower quartile
of the round's calls over the harness's in the same round, whose median is the `per round` column
(the pooled quartiles set one process against five harness processes at five loads); the JSON
holds every time.

By default every round of the callable runs in this one process, so one placement of the block's
library, arrays and temporaries (drawn when the block starts) is set against five harness processes,
each its own draw; `--fresh` runs each round of the callable in a new Python process too (this
script with --worker: compile from the cache, place the arrays, time the round), as each harness
round is.

Within a round the sides take turns going first (`round_order`: the harness first in round 0, the
callable in round 1, ...), so neither always runs right after the other's process. `--aa` adds a
second harness process per round on the same lowered text (`harness'`, in the rotation too) and
reports it over the first as the callable is: the harness against itself, the spread any ratio of
this run has without a difference in the code or the call (the noise floor a cell is judged by).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (REPO, os.path.join(HERE, "models")):
    if p not in sys.path:
        sys.path.insert(0, p)

import loopopt  # noqa: E402
from loopopt import native  # noqa: E402
from loopopt.frontend import fixtures  # noqa: E402

from run import BLOCKS  # noqa: E402  (benchmarks/models/run.py: the main set, never the held-out one)
from workers import Flusher  # noqa: E402  (the models benchmark's flush of the callable's column)

REGIMES = ("flushed", "warm")


def aligned_copy(x):
    """`x` copied to an array placed as the harness (huge_pages=True, as the models benchmark runs
    it) places its arguments: 64-byte aligned, and from native.HUGE_PAGE_BYTES on aligned to a
    huge page (numpy advises such an allocation to huge pages itself; aligned, every 2 MiB of it
    can be one)."""
    from loopopt.runtime import aligned_empty

    big = x.nbytes >= native.HUGE_PAGE_BYTES
    y = aligned_empty(x.shape, x.dtype, native.HUGE_PAGE_ALIGNMENT if big else 64)
    y[...] = x
    return y


def q1(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 4]


def round_ratios(times: list[float], harness: list[float], reps: int) -> list[float]:
    """Per round, q1 of its `reps` calls in `times` over q1 of the harness's `reps` calls of the
    same round (run next to them): a ratio the load of that round weighs on both sides of. The
    pooled lower quartiles set one process's calls against calls of five harness processes at
    five times; when the load (or the process's draw) changes between rounds, the two pools'
    quartiles fall in different rounds and their ratio is neither round's."""
    n = min(len(times), len(harness)) // reps
    return [q1(times[i * reps:(i + 1) * reps]) / q1(harness[i * reps:(i + 1) * reps]) for i in range(n)]


def round_order(sides: tuple[str, ...], rnd: int) -> tuple[str, ...]:
    """The order the sides run in round `rnd`: `sides` rotated by `rnd`, so over len(sides) rounds
    each side goes first once and follows each other side alike (a side always run right after
    another's process would carry whatever that process left behind: freed memory, the cache's
    and the memory controller's state)."""
    k = rnd % len(sides)
    return sides[k:] + sides[:k]


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def placed(name: str):
    """(fixture, the compiled callable, its inputs, its outputs), the arrays placed as the harness's."""
    fx = fixtures.load_fixture(name)
    k = loopopt.compile(fx.text, filename=f"{name}.mlir")
    inputs = tuple(aligned_copy(x) for x in fixtures.run_inputs(fx.runs[0]))  # placed as the harness's
    outs = k(*inputs)
    outs = tuple(aligned_copy(o) for o in (outs if isinstance(outs, tuple) else (outs,)))  # placed alike
    assert fixtures.compare_arrays_with_expected(inputs, outs, fx.runs[0]) is None
    return fx, k, inputs, outs


def time_round(k, inputs, outs, floor_call, flush, reps: int, warmup: int) -> dict:
    """One round in this process: `warmup` untimed calls, then `reps` calls of every form, the forms
    alternating call by call in an order rotated every call; {form: seconds per call}."""
    forms = FORMS if floor_call is not None else FORMS[:-1]
    args = inputs + outs  # every argument in order, as the harness's driver passes them
    t = {f: [] for f in forms}
    clock = time.perf_counter
    for _ in range(warmup):
        k(*args)
        k(*inputs, out=outs)
    for rep in range(reps):
        for form in forms[rep % len(forms):] + forms[:rep % len(forms)]:
            if form == "c_floor":
                t[form].append(floor_call(flush.words))
                continue
            flush()
            if form == "callable":
                t0 = clock()
                k(*args)  # the call alone between the clock reads, as workers.time_calls
                t1 = clock()
            elif form == "callable_out":
                t0 = clock()
                k(*inputs, out=outs)
                t1 = clock()
            else:
                t0 = clock()
                t1 = clock()
            t[form].append(t1 - t0)
    return t


def fresh_round(name: str, regime: str, reps: int, warmup: int, flush_mib: int) -> dict:
    """time_round in a new Python process (this script with --worker), as every harness round is a
    new mlir-runner process: each round then draws the placement of the block's library, arrays and
    temporaries anew on both sides."""
    import subprocess

    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, "--regimes", regime, "--reps", str(reps),
           "--warmup", str(warmup), "--flush-mib", str(flush_mib)]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def worker(name: str, regime: str, reps: int, warmup: int, flush_mib: int) -> dict:
    """--worker: one round of `name` in `regime` in this (new) process."""
    _, k, inputs, outs = placed(name)
    return time_round(k, inputs, outs, c_floor(k, inputs, outs), Flusher(flush_mib if regime == "flushed" else 0),
                      reps, warmup)


def pair(name: str, rounds: int, reps: int, warmup: int, regimes=REGIMES, flush_mib: int = 128,
         temporaries: str = "cache", fresh: bool = False, aa: bool = False) -> dict:
    import run as models_run  # benchmarks/models/run.py: inline_resources

    fx, k, inputs, outs = placed(name)
    text = loopopt.optimize(fx.text, target="cpu", filename=f"{name}.mlir").text
    harness_text = models_run.inline_resources(text)
    sizes = fixtures.harness_sizes(fx.runs[0])
    sig = native.kernel_signature(harness_text, fx.function)
    lowered = {}
    for regime in regimes:  # lowered once per regime, run in a new mlir-runner process every round
        flush_bytes = flush_mib << 20 if regime == "flushed" else 0
        h = native.make_harness(harness_text, fx.function, sizes, reps=reps, warmup=warmup, flush_bytes=flush_bytes,
                                huge_pages=True, temporaries=temporaries)
        lowered[regime] = native.lower_to_llvm(h, temporaries=temporaries)
    flushers = {r: Flusher(flush_mib if r == "flushed" else 0) for r in regimes} if not fresh else {}
    floor_call = c_floor(k, inputs, outs)
    forms = FORMS if floor_call is not None else FORMS[:-1]
    t = {r: {f: [] for f in ("harness", "harness_aa") + forms} for r in regimes}
    sides = ("harness", "callable") + (("harness_aa",) if aa else ())
    for rnd in range(rounds):
        for regime in (regimes if rnd % 2 == 0 else tuple(reversed(regimes))):
            for side in round_order(sides, rnd):
                if side != "callable":  # the harness, or with aa its second process
                    times, _ = native.parse_output(native.run_lowered(lowered[regime]), sig)
                    t[regime][side] += times
                    continue
                got = fresh_round(name, regime, reps, warmup, flush_mib) if fresh else \
                    time_round(k, inputs, outs, floor_call, flushers[regime], reps, warmup)
                for form, xs in got.items():
                    t[regime][form] += xs
    out = {"name": name}
    for r in regimes:
        x = t[r]
        h = q1(x["harness"])
        out[r] = {**x, "harness_q1": h, "callable_q1": q1(x["callable"]), "ratio": q1(x["callable"]) / h,
                  "callable_out_q1": q1(x["callable_out"]), "ratio_out": q1(x["callable_out"]) / h,
                  "timer_q1": q1(x["timer"])}
        rr = round_ratios(x["callable"], x["harness"], reps)
        out[r].update(round_ratios=rr, round_ratio=median(rr))
        if x["harness_aa"]:
            ar = round_ratios(x["harness_aa"], x["harness"], reps)
            out[r].update(aa_ratio=q1(x["harness_aa"]) / h, aa_round_ratios=ar, aa_round_ratio=median(ar))
        if x.get("c_floor"):
            f = q1(x["c_floor"])
            fr = round_ratios(x["c_floor"], x["harness"], reps)
            out[r].update(c_floor_q1=f, callable_over_floor=q1(x["callable"]) / f, floor_over_harness=f / h,
                          floor_round_ratios=fr, floor_round_ratio=median(fr))
    return out


# what pair() times in this process, call by call: k(*inputs, *outputs); k(*inputs, out=outputs); the
# empty timed region; the C floor
FORMS = ("callable", "callable_out", "timer", "c_floor")


_TRAMPOLINE: dict = {}


def c_floor(k, inputs, outs):
    """f(words) -> seconds: k's C function (the one its call runs) on the descriptors of
    k(*inputs, out=outs), timed in C after reading `words` (one per 64-byte line; None: no flush)
    in C; None when k has no such function (a scalar argument or result)."""
    import ctypes
    import tempfile

    import numpy as np
    from call_paths import trampoline  # benchmarks/call_paths.py: its C floor

    if k._fn_prebuilt is None:
        return None
    if "fn" not in _TRAMPOLINE:
        _TRAMPOLINE["dir"] = tempfile.TemporaryDirectory(prefix="runtime-vs-harness-")
        _TRAMPOLINE["fn"] = trampoline(_TRAMPOLINE["dir"].name)
    tramp = _TRAMPOLINE["fn"]
    c = type(k)(k.spec, k.library, call="ctypes")  # its Python memo holds the descriptors' addresses
    c(*inputs, out=outs)
    ptrs = [p.value for p in c._memo[2]]
    fn = ctypes.cast(k._fn_prebuilt, ctypes.c_void_p).value
    packed = (ctypes.c_uint64 * (3 + len(ptrs)))(fn, int(k._checked), len(ptrs), *ptrs)
    sink = ctypes.c_int64()
    none = np.zeros(8, np.int64)

    def call(words) -> float:
        w = none if words is None else words
        n = 0 if words is None else w.size
        if words is None:
            tramp.flushed_call(ctypes.byref(packed), ctypes.c_void_p(w.ctypes.data), ctypes.c_int64(0),
                               ctypes.byref(sink))  # warm: the call before
        return tramp.flushed_call(ctypes.byref(packed), ctypes.c_void_p(w.ctypes.data), ctypes.c_int64(n),
                                  ctypes.byref(sink))

    call.keep = (c, packed)
    return call


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(BLOCKS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--regimes", default=",".join(REGIMES), help="flushed, warm (default both)")
    ap.add_argument("--flush-mib", type=int, default=128, help="flushed: MiB read before every timed call (128)")
    ap.add_argument("--temporaries", choices=native.TEMPORARIES, default="cache",
                    help="the harness's memref.alloc: cache (default; loopopt.compile's allocator) or malloc")
    ap.add_argument("--fresh", action="store_true",
                    help="each round of the callable in a new Python process, as each harness round is")
    ap.add_argument("--aa", action="store_true",
                    help="a second harness process per round, reported over the first: the run's noise floor")
    ap.add_argument("--worker", help=argparse.SUPPRESS)  # fresh_round's process: one round, JSON on stdout
    ap.add_argument("--out", default=os.path.join(HERE, "results", "runtime_vs_harness.json"))
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.worker, a.regimes, a.reps, a.warmup, a.flush_mib)))
        return 0
    regimes = tuple(r.strip() for r in a.regimes.split(",") if r.strip())
    if not regimes or set(regimes) - set(REGIMES):
        raise SystemExit(f"runtime_vs_harness.py: error: --regimes takes some of {', '.join(REGIMES)}")
    load_before = os.getloadavg()
    rows = []
    print("| block | regime | harness ms | k(*args) ms | / harness | k(*in, out=) ms | / harness | C floor ms | "
          "k(*args) / floor | floor / harness | timer µs | per round: k(*args) / harness | floor / harness |"
          + (" harness' / harness | per round |" if a.aa else "") + "\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if a.aa else ""))
    for name in a.only.split(","):
        r = pair(name.strip(), a.rounds, a.reps, a.warmup, regimes, a.flush_mib, a.temporaries, a.fresh, a.aa)
        rows.append(r)
        for regime in regimes:
            x = r[regime]
            fl = (f"{x['c_floor_q1'] * 1e3:.3f} | {x['callable_over_floor']:.2f}x | {x['floor_over_harness']:.2f}x"
                  if "c_floor_q1" in x else "- | - | -")
            fr = f"{x['floor_round_ratio']:.2f}x" if "floor_round_ratio" in x else "-"
            print(f"| {r['name']} | {regime} | {x['harness_q1'] * 1e3:.3f} | {x['callable_q1'] * 1e3:.3f} | "
                  f"{x['ratio']:.2f}x | {x['callable_out_q1'] * 1e3:.3f} | {x['ratio_out']:.2f}x | {fl} | "
                  f"{x['timer_q1'] * 1e6:.1f} | {x['round_ratio']:.2f}x | {fr} |"
                  + (f" {x['aa_ratio']:.2f}x | {x['aa_round_ratio']:.2f}x |" if "aa_ratio" in x else ""), flush=True)
    load_after = os.getloadavg()
    print(f"load averages before {' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in load_after)} ({os.cpu_count()} CPUs); {a.rounds} rounds x {a.reps} calls each")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"date": time.time(), "rounds": a.rounds, "reps": a.reps, "warmup": a.warmup, "regimes": regimes,
                   "flush_mib": a.flush_mib, "temporaries": a.temporaries, "fresh": a.fresh, "aa": a.aa, "load_before": load_before,
                   "load_after": load_after, "blocks": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
