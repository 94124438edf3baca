"""Where a call right after a cache flush spends its time: each piece timed alone after the same flush.

    python3 benchmarks/cold_call_pieces.py --only fma4,cross_entropy --rounds 100

Per round every piece is timed once after reading --flush-mib MiB (one word per 64-byte line), the
pieces in an order rotated round by round, in one process; the clock reads surround the piece alone
(each written out between its own two reads: no lambda, whose frame costs microseconds cold).
  C clock          clock_gettime twice in C after the flush in C, nothing between
  C ciface         the kernel's _mlir_ciface_NAME on its descriptors, timed in C after the flush in C
                   (what the harness measures, in this process)
  C wrapper        its check wrapper loopopt_call_NAME the same way (modules with checks)
  py clock         t0 = clock(); t1 = clock()
  py empty(*a,out) an empty Python function called as the benchmarks call the kernel: *inputs (a
                   tuple), out=outputs (a tuple)
  py empty(*all)   the same with every argument positional: *args (inputs and outputs, one tuple)
  nop(*a,out)      the extension's call (the kernel's own memo: arrays, descriptors) of a C function
                   that does nothing, `out=` form
  nop(*all)        the same, every argument positional
  k(*a,out)        the kernel, `k(*inputs, out=outputs)`
  k(*all)          the kernel, `k(*args)`
  k(*list,out)     the kernel, `k(*inputs_list, out=outputs)`: the interpreter makes a tuple of the list
Reported: per piece the lower quartile, median and upper quartile in µs. `fma4` is
benchmarks/runtime_overhead.py's kernel (4 arguments); other names are model blocks.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (HERE, os.path.join(HERE, "models"), REPO):
    if p not in sys.path:
        sys.path.insert(0, p)

import numpy as np  # noqa: E402

SOURCE = r"""
#include <stdint.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static void flush(const volatile int64_t *w, int64_t n, int64_t *sink) {
  int64_t s = 0;
  for (int64_t i = 0; i < n; i += 8) s += w[i];
  *sink += s;
}
double t_clock(const volatile int64_t *w, int64_t n, int64_t *sink) {
  flush(w, n, sink);
  double a = now();
  return now() - a;
}
/* fn(p[0], ..., p[n-1]) after the flush, timed in C (at most 8 pointers) */
double t_call(void *fn, int64_t n, void **p, const volatile int64_t *w, int64_t nw, int64_t *sink) {
  typedef void (*f8)(void *, void *, void *, void *, void *, void *, void *, void *);
  void *q[8] = {0};
  for (int64_t i = 0; i < n && i < 8; i++) q[i] = p[i];
  flush(w, nw, sink);
  double a = now();
  ((f8)fn)(q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]);
  return now() - a;
}
"""


def _helpers(directory: str):
    src, so = os.path.join(directory, "pieces.c"), os.path.join(directory, "pieces.so")
    with open(src, "w") as f:
        f.write(SOURCE)
    subprocess.run(["cc", "-O2", "-fPIC", "-shared", src, "-o", so], check=True)
    lib = ctypes.CDLL(so)
    for name in ("t_clock", "t_call"):
        getattr(lib, name).restype = ctypes.c_double
    return lib


def measure(name: str, rounds: int, flush_mib: int, directory: str) -> dict:
    import call_paths
    from loopopt.runtime import checks
    from loopopt.runtime.kernel import Kernel
    from workers import Flusher

    helpers = _helpers(directory)
    tramp = call_paths.trampoline(directory)
    k, inputs, outs = call_paths.setup(name)
    if k._entry is None:
        raise SystemExit(f"cold_call_pieces.py: error: {name}: no extension ({k.call_path})")
    n = len(k.spec.params)
    if n > 8:
        raise SystemExit(f"cold_call_pieces.py: error: {name}: {n} arguments (at most 8 here)")
    ins, outs = tuple(inputs), tuple(outs)
    every = ins + outs
    c = Kernel(k.spec, k.library, call="ctypes")  # its Python memo: the descriptors' addresses
    c(*ins, out=outs)
    ptrs = [p.value for p in c._memo[2]]
    lib = ctypes.CDLL(k.library)
    fns = {"C ciface": lib[f"_mlir_ciface_{k.spec.name}"]}
    if k.spec.messages:
        fns["C wrapper"] = lib[checks.wrapper_name(k.spec.name)]
    fns = {label: ctypes.cast(f, ctypes.c_void_p) for label, f in fns.items()}
    nop = Kernel(k.spec, k.library)
    nop._entry = type(k._entry)(ctypes.cast(tramp.noop, ctypes.c_void_p).value, n, k.spec.n_inputs,
                                k.spec.n_outputs, 0, np.ndarray, print)
    nop._entry.remember(every, k._masks, tuple(ptrs), c._memo[6])
    k(*ins, out=outs)
    listed = list(ins)

    def empty(*args, out=None):
        pass

    flusher = Flusher(flush_mib)
    sink = ctypes.c_int64()
    words = (ctypes.c_void_p(flusher.words.ctypes.data), ctypes.c_int64(flusher.words.size), ctypes.byref(sink))
    pointers = (ctypes.c_void_p * n)(*ptrs)
    labels = ["C clock", *fns, "py clock", "py empty(*a,out)", "py empty(*all)", "nop(*a,out)", "nop(*all)",
              "k(*a,out)", "k(*all)", "k(*list,out)"]
    times = {label: [] for label in labels}
    clock = time.perf_counter
    for r in range(rounds):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            if label == "C clock":
                times[label].append(helpers.t_clock(*words))
                continue
            if label in fns:
                times[label].append(helpers.t_call(fns[label], ctypes.c_int64(n), pointers, *words))
                continue
            flusher()
            if label == "py clock":
                t0 = clock()
                t1 = clock()
            elif label == "py empty(*a,out)":
                t0 = clock()
                empty(*ins, out=outs)
                t1 = clock()
            elif label == "py empty(*all)":
                t0 = clock()
                empty(*every)
                t1 = clock()
            elif label == "nop(*a,out)":
                t0 = clock()
                nop(*ins, out=outs)
                t1 = clock()
            elif label == "nop(*all)":
                t0 = clock()
                nop(*every)
                t1 = clock()
            elif label == "k(*a,out)":
                t0 = clock()
                k(*ins, out=outs)
                t1 = clock()
            elif label == "k(*all)":
                t0 = clock()
                k(*every)
                t1 = clock()
            else:
                t0 = clock()
                k(*listed, out=outs)
                t1 = clock()
            times[label].append(t1 - t0)
    return {"name": name, "times": times}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="fma4,cross_entropy")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--flush-mib", type=int, default=128)
    a = ap.parse_args(argv)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cold-call-") as d:
        rows = [measure(x.strip(), a.rounds, a.flush_mib, d) for x in a.only.split(",") if x.strip()]
    load_after = os.getloadavg()
    print("| kernel | piece | q1 µs | median µs | q3 µs |\n|---|---|---:|---:|---:|")
    for r in rows:
        for label, xs in r["times"].items():
            q = np.percentile(np.array(xs) * 1e6, [25, 50, 75])
            print(f"| {r['name']} | {label} | {q[0]:.1f} | {q[1]:.1f} | {q[2]:.1f} |")
    print(f"load averages before {' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in load_after)} ({os.cpu_count()} CPUs); {a.rounds} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
