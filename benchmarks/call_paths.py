"""The callable's repeated call, `k(*inputs, out=outputs)`, through each call path, paired in one process.

    python3 benchmarks/call_paths.py --only cross_entropy,fma4 --pairs 40 --out /tmp/call_paths.json

Paths (one library, the same arrays; each a Kernel of its own, so each keeps its own memo):
  ctypes     Kernel.__call__ in Python: the memo compared on numpy attributes, the C function called
             by ctypes on four prebuilt c_void_p (the call path before runtime/callext.py)
  packed     the same memo check in Python, then one ctypes call with one pointer: a C trampoline
             (compiled here) reads the function, its argument count and the descriptors' addresses
             from one buffer packed once
  ext+frame  a Python __call__ that hands (args, out) to the extension's Entry.call (the memo's
             comparisons and the call in C, one Python frame)
  extension  the Kernel as loopopt.compile makes it with the extension: its C base's call, no Python frame
  ext no-op  the extension's call on the same arrays and descriptors of a C function that does nothing
             (kernels of at most 8 arguments): the call path alone
Per round every path is called once after a flush of --flush-mib MiB (flushed) and once after a
warm-up call (warm), in an order rotated round by round; the clock reads surround the call alone.
`C floor`: the kernel timed inside C after the same flush done in C (the trampoline's; no
interpreter between the clock reads), this process's floor for the harness's measurement; in the
rotation as a path of its own.
Reported: per path and regime the lower quartile and median µs, and the paired ratio to `ctypes`
(median and quartiles of the per-round ratios). `fma4` is benchmarks/runtime_overhead.py's kernel
(out = a * b + c, 64 f32, 4 arguments); other names are model blocks (benchmarks/models/blocks).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (REPO, os.path.join(HERE, "models"), HERE):
    if p not in sys.path:
        sys.path.insert(0, p)

import numpy as np  # noqa: E402

import loopopt  # noqa: E402
from loopopt.runtime import callext, memref  # noqa: E402
from loopopt.runtime.kernel import Kernel  # noqa: E402

TRAMPOLINE = """#include <stdint.h>
#include <time.h>
/* one buffer: the function, whether it returns a failed check's number, n, then n descriptor addresses */
struct packed { void *fn; int64_t checked, n; void *p[]; };
int32_t call_packed(const struct packed *c) {
  switch (c->n) {
%s
  }
  return -1;
}
/* a kernel that does nothing: what the call path costs by itself */
void noop(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h) {}
int32_t noop_checked(void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h) { return 0; }
/* the floor in this process: read `words` (one per 64-byte line) as the flush does, then time the call in C */
double flushed_call(const struct packed *c, const volatile int64_t *words, int64_t n, int64_t *sink) {
  int64_t s = 0;
  for (int64_t i = 0; i < n; i += 8)
    s += words[i];
  *sink += s;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  call_packed(c);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}
"""


def trampoline(directory: str):
    cases = []
    for n in range(callext.MAX_ARGS + 1):
        params = ", ".join(["void *"] * n) or "void"
        args = ", ".join(f"c->p[{i}]" for i in range(n))
        cases.append(f"  case {n}: if (c->checked) return ((int32_t (*)({params}))c->fn)({args}); "
                     f"((void (*)({params}))c->fn)({args}); return 0;")
    src, so = os.path.join(directory, "t.c"), os.path.join(directory, "t.so")
    with open(src, "w") as f:
        f.write(TRAMPOLINE % "\n".join(cases))
    subprocess.run(["cc", "-O2", "-fPIC", "-shared", src, "-o", so], check=True)
    lib = ctypes.CDLL(so)
    fn = lib.call_packed
    fn.argtypes, fn.restype = None, ctypes.c_int32
    fn.noop = lib.noop
    fn.flushed_call = lib.flushed_call
    fn.flushed_call.restype = ctypes.c_double
    return fn


class CtypesKernel(Kernel):
    """The call path before the extension: Kernel._call as __call__."""
    __call__ = Kernel._call


class PackedKernel(Kernel):
    """The Python memo check, then one ctypes call of the trampoline on one pointer."""

    def __call__(self, *args, out=None):
        memo = self._memo
        if memo is not None:
            checks, tramp, packed, checked, one_output, n_in, _buf = memo
            full = args + (out,) if (one_output and type(out) is np.ndarray) else \
                (args + out if type(out) is tuple and len(args) == n_in else None)
            if full is not None and len(full) == len(checks):
                for a, (r, shape, dtype, mask, want) in zip(full, checks):
                    if r() is not a or a.shape != shape or a.dtype is not dtype or a.flags.num & mask != want:
                        break
                else:
                    got = tramp(packed)
                    if checked and got:
                        self._failed(got)
                    return full[-1] if one_output else self._returned(full, None)
        return Kernel._call(self, *args, out=out)

    def pack(self, tramp, args, outs):
        """After a checked call made the (ctypes) memo: the trampoline's buffer for its descriptors."""
        checks, fn, call, checked, one_output, n_in, buf = self._memo
        ptrs = [c.value for c in call]
        words = (ctypes.c_uint64 * (3 + len(ptrs)))(ctypes.cast(fn, ctypes.c_void_p).value, int(checked), len(ptrs),
                                                      *ptrs)
        self._packed_words = words
        self._memo = (checks, tramp, ctypes.c_void_p(ctypes.addressof(words)), checked, one_output, n_in, buf)


class FrameKernel(Kernel):
    """A Python __call__ handing the call to the extension's Entry.call."""

    def __call__(self, *args, out=None):
        got = self._entry.call(args, out)
        if got is NotImplemented:
            return Kernel._call(self, *args, out=out)
        return got



def setup(name: str):
    """(the compiled Kernel, inputs, outputs) placed as runtime_vs_harness places them."""
    if name == "fma4":
        from runtime_overhead import FMA4 as text
        k = loopopt.compile(text, filename="fma4.mlir")
        rng = np.random.default_rng(26)
        inputs = []
        for _ in range(3):
            x = memref.aligned_empty((64,), np.float32)
            x[...] = rng.standard_normal(64)
            inputs.append(x)
        return k, inputs, (memref.aligned_empty((64,), np.float32),)
    from runtime_vs_harness import aligned_copy
    from loopopt.frontend import fixtures

    fx = fixtures.load_fixture(name)
    k = loopopt.compile(fx.text, filename=f"{name}.mlir")
    inputs = [aligned_copy(x) for x in fixtures.run_inputs(fx.runs[0])]
    outs = k(*inputs)
    outs = tuple(aligned_copy(o) for o in (outs if isinstance(outs, tuple) else (outs,)))
    return k, inputs, outs


def q(xs, f):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * f))]


def measure(name: str, pairs: int, flush_mib: int, tramp) -> dict:
    from workers import Flusher

    k, inputs, outs = setup(name)
    if k._entry is None:
        raise SystemExit(f"call_paths.py: error: {name}: no extension ({k.call_path})")
    kernels = {"ctypes": CtypesKernel(k.spec, k.library, call="ctypes"),
               "packed": PackedKernel(k.spec, k.library, call="ctypes"),
               "ext+frame": FrameKernel(k.spec, k.library), "extension": k}
    k(*inputs, out=outs)
    want = [o.copy() for o in outs]
    for label, kk in kernels.items():
        for o in outs:
            o[...] = 0
        if label == "ext no-op":  # the memo made by hand: the same arrays and descriptors as the kernel's
            e = kk._entry
            e.remember(tuple(inputs) + tuple(outs), k._masks, tuple(c.value for c in kernels["ctypes"]._memo[2]),
                       kernels["ctypes"]._memo[6])
            kk(*inputs, out=outs)
            assert e.has_memo()
            continue
        kk(*inputs, out=outs)  # a first call: checked, its memo made
        if label == "packed":
            kk.pack(tramp, inputs, outs)
        for o in outs:
            o[...] = 0
        kk(*inputs, out=outs)  # through the path's memo
        for o, w in zip(outs, want):
            assert o.tobytes() == w.tobytes(), f"{name}: {label} gives other bits"
    if len(k.spec.params) <= 8:  # the same call on a C function that does nothing (the kernel's own argument count)
        nop = Kernel(k.spec, k.library)
        nop._entry = type(k._entry)(ctypes.cast(tramp.noop, ctypes.c_void_p).value, len(k.spec.params),
                                    k.spec.n_inputs, k.spec.n_outputs, 0, np.ndarray, print)
        kernels["ext no-op"] = nop
    labels = list(kernels) + ["C floor"]
    flush = Flusher(flush_mib)
    clock = time.perf_counter
    # the floor: the kernel timed in C after the same flush in C (no interpreter between the clock reads)
    packed = kernels["packed"]._memo[2]
    words = flush.words if flush.words is not None else np.zeros(8, np.int64)
    sink = ctypes.c_int64()
    floor_args = (packed, ctypes.c_void_p(words.ctypes.data), ctypes.c_int64(words.size), ctypes.byref(sink))
    warm_args = (packed, ctypes.c_void_p(words.ctypes.data), ctypes.c_int64(0), ctypes.byref(sink))
    times = {r: {x: [] for x in labels} for r in ("flushed", "warm")}
    for rnd in range(pairs):
        order = labels[rnd % len(labels):] + labels[:rnd % len(labels)]
        for label in order:
            if label == "C floor":
                times["flushed"][label].append(tramp.flushed_call(*floor_args))
                tramp.flushed_call(*warm_args)
                times["warm"][label].append(tramp.flushed_call(*warm_args))
                continue
            kk = kernels[label]
            flush()
            t0 = clock()
            kk(*inputs, out=outs)
            t1 = clock()
            times["flushed"][label].append(t1 - t0)
            kk(*inputs, out=outs)
            t0 = clock()
            kk(*inputs, out=outs)
            t1 = clock()
            times["warm"][label].append(t1 - t0)
    out = {"name": name}
    for regime, per in times.items():
        out[regime] = {}
        for label in labels:
            ratios = [a / b for a, b in zip(per[label], per["ctypes"])]
            out[regime][label] = {"q1_us": q(per[label], 0.25) * 1e6, "median_us": q(per[label], 0.5) * 1e6,
                                  "ratio_median": q(ratios, 0.5), "ratio_q1": q(ratios, 0.25),
                                  "ratio_q3": q(ratios, 0.75), "times": per[label]}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="cross_entropy,fma4")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--flush-mib", type=int, default=128)
    ap.add_argument("--out", default=None, help="JSON of every time (default: none written)")
    a = ap.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        tramp = trampoline(d)
        rows = [measure(n.strip(), a.pairs, a.flush_mib, tramp) for n in a.only.split(",") if n.strip()]
    load_after = os.getloadavg()
    print("| kernel | regime | path | q1 µs | median µs | / ctypes, median (quartiles) |\n|---|---|---|---:|---:|---|")
    for r in rows:
        for regime in ("flushed", "warm"):
            for label, x in r[regime].items():
                print(f"| {r['name']} | {regime} | {label} | {x['q1_us']:.1f} | {x['median_us']:.1f} | "
                      f"{x['ratio_median']:.2f} ({x['ratio_q1']:.2f}, {x['ratio_q3']:.2f}) |")
    print(f"load averages before {' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in load_after)} ({os.cpu_count()} CPUs); {a.pairs} rounds")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"date": time.time(), "pairs": a.pairs, "flush_mib": a.flush_mib, "load_before": load_before,
                       "load_after": load_after, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
