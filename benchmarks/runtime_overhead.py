"""Per-call overhead of loopopt.compile's callable against IREE's runtime and torch eager, on one
small 4-argument kernel: out = a * b + c over 64 f32 (linalg on tensors: 3 inputs, 1 result).

    python3 benchmarks/runtime_overhead.py              # the columns this Python can run
    /work/venv-torch/bin/python benchmarks/runtime_overhead.py   # with torch and iree.runtime

Columns (µs per call, the best of --repeats runs of --calls back-to-back calls, one thread; each as
wall time and as this process's CPU time, which a machine shared with other work inflates less):
  loopopt out=         k(a, b, c, out=o): four descriptors built from the numpy arrays on every call
  loopopt allocating   k(a, b, c): the output allocated on every call (np.empty)
  loopopt bound        k.bind(a, b, c, out=o) once, then the bound call (descriptors kept)
  iree numpy           iree-compile (benchmarks/models/run.py's flags) on the same text, local-sync
                       device, fn(a, b, c) with numpy arrays (converted by the runtime on every call)
  iree device          the same with the inputs made device arrays once (rt.asdevicearray)
  torch eager          torch.addcmul(c, a, b, out=o) on tensors sharing the arrays' memory
  torch.compile        torch.compile(f, backend=loopopt.torch_backend) on a * b + c (with --torch-compile)
  numpy                np.multiply(a, b, out=o); np.add(o, c, out=o)
The machine's load averages before and after are printed and saved with the numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
if REPO not in sys.path:
    sys.path.insert(0, REPO)

import numpy as np  # noqa: E402

import loopopt  # noqa: E402

FMA4 = """#map = affine_map<(d0) -> (d0)>
func.func @fma4(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b, %c : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %z : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
"""
IREE_FLAGS = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
              "--iree-llvmcpu-target-cpu=host")


def per_call(fn, calls: int, repeats: int) -> dict:
    """{"wall": µs, "cpu": µs} per call, each the best of `repeats` runs of `calls` calls."""
    fn()
    wall = min(timeit.repeat(fn, number=calls, repeat=repeats)) / calls * 1e6
    cpu = min(timeit.repeat(fn, number=calls, repeat=repeats, timer=time.process_time)) / calls * 1e6
    return {"wall": round(wall, 3), "cpu": round(cpu, 3)}


def iree_columns(a, b, c, want, calls, repeats) -> dict:
    try:
        import iree.runtime as rt
    except ImportError as e:
        return {"iree": f"skipped: {e}"}
    compiler = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    with tempfile.TemporaryDirectory() as d:
        src, vmfb = os.path.join(d, "fma4.mlir"), os.path.join(d, "fma4.vmfb")
        with open(src, "w") as f:
            f.write(FMA4)
        p = subprocess.run([compiler, src, *IREE_FLAGS, "-o", vmfb], capture_output=True, text=True)
        if p.returncode != 0:
            return {"iree": f"skipped: iree-compile failed: {p.stderr.strip().splitlines()[-1:]}"}
        config = rt.Config("local-sync")
        ctx = rt.SystemContext(config=config)
        ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, vmfb))
    fn = ctx.modules.module["fma4"]
    assert np.allclose(np.asarray(fn(a, b, c).to_host()), want)
    da, db, dc = (rt.asdevicearray(config.device, x) for x in (a, b, c))
    return {"iree numpy": per_call(lambda: fn(a, b, c), calls, repeats),
            "iree device": per_call(lambda: fn(da, db, dc), calls, repeats)}


def torch_columns(a, b, c, o, want, calls, repeats, compiled: bool) -> dict:
    try:
        import torch
    except ImportError as e:
        return {"torch eager": f"skipped: {e}"}
    torch.set_num_threads(1)
    ta, tb, tc, to = (torch.from_numpy(x) for x in (a, b, c, o))
    out = {"torch eager": per_call(lambda: torch.addcmul(tc, ta, tb, out=to), calls, repeats)}
    assert np.allclose(o, want)
    if compiled:
        f = torch.compile(lambda x, y, z: x * y + z, backend=loopopt.torch_backend, dynamic=False)
        assert np.allclose(f(ta, tb, tc).numpy(), want)
        out["torch.compile(loopopt)"] = per_call(lambda: f(ta, tb, tc), calls, repeats)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--torch-compile", action="store_true", help="also time torch.compile with loopopt's backend")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "runtime_overhead.json"))
    a_ = ap.parse_args(argv)
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    k = loopopt.compile(FMA4, filename="fma4.mlir")
    compile_seconds = time.perf_counter() - t0
    rng = np.random.default_rng(26)
    a, b, c = (rng.standard_normal(64).astype(np.float32) for _ in range(3))
    o = np.empty(64, np.float32)
    want = a * b + c
    assert np.allclose(k(a, b, c), want)
    bound = k.bind(a, b, c, out=o)
    res = {"loopopt out=": per_call(lambda: k(a, b, c, out=o), a_.calls, a_.repeats),
           "loopopt allocating": per_call(lambda: k(a, b, c), a_.calls, a_.repeats),
           "loopopt bound": per_call(bound, a_.calls, a_.repeats)}
    res.update(iree_columns(a, b, c, want, a_.calls, a_.repeats))
    res.update(torch_columns(a, b, c, o, want, a_.calls, a_.repeats, a_.torch_compile))
    res["numpy"] = per_call(lambda: (np.multiply(a, b, out=o), np.add(o, c, out=o)), a_.calls, a_.repeats)
    load_after = os.getloadavg()
    data = {"date": time.time(), "kernel": "out = a * b + c, 64 x f32 (3 inputs, 1 output)", "calls": a_.calls,
            "repeats": a_.repeats, "us_per_call": res, "compile_seconds": compile_seconds,
            "cache": k.info.get("cache"), "load_before": load_before, "load_after": load_after,
            "cpus": os.cpu_count(), "python": sys.version.split()[0], "numpy": np.__version__}
    print(f"load averages before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} ({os.cpu_count()} CPUs)")
    for name, v in res.items():
        print(f"  {name:24s} {v['wall']:8.2f} µs/call wall, {v['cpu']:8.2f} cpu" if isinstance(v, dict) else f"  {name:24s} {v}")
    os.makedirs(os.path.dirname(a_.out), exist_ok=True)
    with open(a_.out, "w") as f:
        json.dump(data, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
