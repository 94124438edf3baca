"""Per-call cost of the check wrapper (`loopopt_call_NAME`: a setjmp, a thread-local pointer set
and restored; runtime/checks.py) against the direct call of `_mlir_ciface_NAME`, paired.

    python3 benchmarks/check_wrapper_cost.py [--rounds 21] [--calls 2000000]

One library, built by loopopt.compile from a kernel with a check in its loop over N f32 (sqrt of
non-negative elements; N = 16 by default, so the call itself is most of the time). Both entry
points are called on the same descriptors, in both orders, alternating round by round:
  C        a C program dlopens the library and times --calls back-to-back calls per round
           (clock_gettime, CLOCK_MONOTONIC): ns per call
  Python   ctypes function pointers to both, --calls / 20 calls per round (timeit): ns per call
  bound    the callable's bound call (Kernel.bind) as it runs (the wrapper, its return checked in
           Python) against the same bound call with the kernel's function swapped for the direct one
Reported per column: the median over rounds of each, and the median and quartiles of the paired
difference (wrapper minus direct, round by round). Load averages are printed and saved.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
if REPO not in sys.path:
    sys.path.insert(0, REPO)

import numpy as np  # noqa: E402

import loopopt  # noqa: E402

KERNEL = """func.func @k(%a: memref<{n}xf32>, %b: memref<{n}xf32>) {{
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to {n} {{
    %x = affine.load %a[%i] : memref<{n}xf32>
    %ok = arith.cmpf oge, %x, %z : f32
    cf.assert %ok, "elements must be non-negative"
    %y = math.sqrt %x : f32
    affine.store %y, %b[%i] : memref<{n}xf32>
  }}
  return
}}
"""

C_TIMER = r"""
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef struct { float *allocated; float *aligned; int64_t offset; int64_t sizes[1]; int64_t strides[1]; } m1;
typedef void (*direct_t)(m1 *, m1 *);
typedef int32_t (*wrapped_t)(m1 *, m1 *);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
int main(int argc, char **argv) {
  int n = atoi(argv[2]), rounds = atoi(argv[3]); long calls = atol(argv[4]);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  direct_t direct = (direct_t)dlsym(lib, "_mlir_ciface_k");
  wrapped_t wrapped = (wrapped_t)dlsym(lib, "loopopt_call_k");
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++) a[i] = (float)i;
  m1 x = {a, a, 0, {n}, {1}}, y = {b, b, 0, {n}, {1}};
  int32_t failed = 0;
  for (int r = 0; r < rounds; r++) {  /* the order alternates: odd rounds time the wrapper first */
    double td = 0, tw = 0;
    for (int half = 0; half < 2; half++) {
      double t0 = now();
      if ((half + r) % 2 == 0) {
        for (long c = 0; c < calls; c++) direct(&x, &y);
        td = now() - t0;
      } else {
        for (long c = 0; c < calls; c++) failed |= wrapped(&x, &y);
        tw = now() - t0;
      }
    }
    printf("%.4f %.4f\n", td / calls, tw / calls);
  }
  return failed;
}
"""


def summary(pairs: list[tuple[float, float]]) -> dict:
    direct = [d for d, _ in pairs]
    wrapped = [w for _, w in pairs]
    diff = sorted(w - d for d, w in pairs)
    q = statistics.quantiles(diff, n=4)
    return {"direct_ns": round(statistics.median(direct), 2), "wrapper_ns": round(statistics.median(wrapped), 2),
            "paired_difference_ns": {"median": round(statistics.median(diff), 2), "q1": round(q[0], 2),
                                     "q3": round(q[2], 2)},
            "rounds": [[round(d, 2), round(w, 2)] for d, w in pairs]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--calls", type=int, default=2_000_000)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "check_wrapper_cost.json"))
    args = ap.parse_args()
    load_before = os.getloadavg()
    k = loopopt.compile(KERNEL.format(n=args.n))
    assert k.spec.in_kernel == (1,)
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
        with open(src, "w") as f:
            f.write(C_TIMER)
        subprocess.run(["cc", "-O2", src, "-o", exe, "-ldl"], check=True)
        out = subprocess.run([exe, k.library, str(args.n), str(args.rounds), str(args.calls)], check=True,
                             capture_output=True, text=True).stdout
    c_pairs = [tuple(float(v) for v in line.split()) for line in out.splitlines()]

    lib = ctypes.CDLL(k.library)
    direct, wrapped = lib._mlir_ciface_k, lib.loopopt_call_k
    direct.argtypes = wrapped.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    direct.restype, wrapped.restype = None, ctypes.c_int32
    a, b = np.arange(args.n, dtype=np.float32), np.zeros(args.n, np.float32)
    bound = k.bind(a, b)
    xp, yp = (p.value for p in bound._call)  # the bound call's prebuilt c_void_p arguments
    direct_prebuilt = lib["_mlir_ciface_k"]  # as the bound call calls its function: no argtypes
    direct_prebuilt.argtypes, direct_prebuilt.restype = None, None
    py_calls = max(1, args.calls // 20)
    py_pairs = []
    for _ in range(args.rounds):
        if len(py_pairs) % 2:
            tw = timeit.timeit(lambda: wrapped(xp, yp), number=py_calls)
            td = timeit.timeit(lambda: direct(xp, yp), number=py_calls)
        else:
            td = timeit.timeit(lambda: direct(xp, yp), number=py_calls)
            tw = timeit.timeit(lambda: wrapped(xp, yp), number=py_calls)
        py_pairs.append((td / py_calls * 1e9, tw / py_calls * 1e9))
    wrapped_fn, bound_pairs = bound._fn, []  # the bound call keeps the kernel's C function: swapped there
    for _ in range(args.rounds):
        times = {}
        for which in (("direct", "wrapped") if len(bound_pairs) % 2 == 0 else ("wrapped", "direct")):
            bound._fn = direct_prebuilt if which == "direct" else wrapped_fn
            times[which] = timeit.timeit(bound, number=py_calls) / py_calls * 1e9
        bound_pairs.append((times["direct"], times["wrapped"]))
    bound._fn = wrapped_fn
    assert np.array_equal(b, np.sqrt(a))
    result = {"kernel": f"sqrt with a check per element, {args.n} f32", "calls_per_round_c": args.calls,
              "calls_per_round_python": py_calls, "c": summary(c_pairs), "python_ctypes": summary(py_pairs),
              "bound_call": summary(bound_pairs),
              "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
              "cpus": os.cpu_count()}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    for col in ("c", "python_ctypes", "bound_call"):
        r = result[col]
        print(f"{col:14s} direct {r['direct_ns']:8.2f} ns  wrapper {r['wrapper_ns']:8.2f} ns  paired difference "
              f"{r['paired_difference_ns']['median']:.2f} ns (q1 {r['paired_difference_ns']['q1']:.2f}, "
              f"q3 {r['paired_difference_ns']['q3']:.2f})")
    print(f"load {result['load_before']} -> {result['load_after']} on {result['cpus']} CPUs")


if __name__ == "__main__":
    main()
