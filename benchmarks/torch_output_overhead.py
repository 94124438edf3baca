"""Per-call cost of the torch backend's outputs: views made after the kernel, results in eager's
layout (docs/runtime.md, "Outputs"). Each case is a small graph through
`torch.compile(f, backend=loopopt.torch_backend)`, timed warm: µs per call, the best of --repeats
runs of --calls calls, wall and this process's CPU time, one torch thread.

    /work/venv-torch/bin/python benchmarks/torch_output_overhead.py [--calls N] [--repeats R] [CASE...]

Run it from two trees in turn (PYTHONPATH=A, PYTHONPATH=B, alternately, several rounds) to
compare code versions on a shared machine. With --copy, the cases whose result eager lays out
otherwise also time the alternative to writing the result in eager's layout: the row-major result
copied into a tensor of eager's strides (`torch.empty_strided(...).copy_(result)`). With --eager,
each case is also timed eagerly (the function itself, same inputs, same thread count).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import timeit
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))


def per_call(fn, calls: int, repeats: int) -> dict:
    fn()
    wall = min(timeit.repeat(fn, number=calls, repeat=repeats)) / calls * 1e6
    cpu = min(timeit.Timer(fn, timer=time.process_time).repeat(number=calls, repeat=repeats)) / calls * 1e6
    return {"wall": round(wall, 2), "cpu": round(cpu, 2)}


def cases():
    import torch

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(16, 16, 3, padding=1).eval()
    cl = torch.channels_last
    block = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU()).eval()
    block[1].running_mean.uniform_(-0.5, 0.5)
    block[1].running_var.uniform_(0.5, 1.5)
    return {
        # name: (fn, input maker, dynamic)
        "fma64": (lambda x, y, z: x * y + z, lambda: (torch.rand(64), torch.rand(64), torch.rand(64)), False),
        "view_of_input": (lambda x: (x + 1, x.t()), lambda: (torch.rand(8, 8),), False),
        "transposed_result": (lambda x: (x * 2).t(), lambda: (torch.rand(8, 8),), False),
        "channels_last_small": (lambda x: x * 2 + 1, lambda: (torch.rand(1, 4, 4, 4).to(memory_format=cl),), False),
        "dynamic_derived_view": (lambda x: (x[:, : x.shape[1] // 2], x + 1), lambda: (torch.rand(4, 8),), True),
        "channels_last_math_large": (lambda x: torch.sigmoid(x * 2 + 1),
                                     lambda: (torch.rand(8, 64, 32, 32).to(memory_format=cl),), False),
        "channels_last_conv": (lambda x: conv(x), lambda: (torch.rand(2, 16, 32, 32).to(memory_format=cl),), False),
        "channels_last_conv_block": (lambda x: block(x), lambda: (torch.rand(2, 16, 32, 32).to(memory_format=cl),), False),
        "channels_last_add": (lambda x, y: torch.relu(x + y), lambda: (torch.rand(8, 64, 32, 32).to(memory_format=cl),
                                                                      torch.rand(8, 64, 32, 32).to(memory_format=cl)), False),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--copy", action="store_true")
    ap.add_argument("--eager", action="store_true")
    a = ap.parse_args()
    import torch

    import loopopt

    torch.set_num_threads(1)
    out = {"loadavg": os.getloadavg()[0]}
    for name, (fn, make, dynamic) in cases().items():
        if a.names and name not in a.names:
            continue
        f = torch.compile(fn, backend=loopopt.torch_backend, dynamic=dynamic)
        xs = make()
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f(*xs)
            big = xs[0].numel() > 10000
            calls = max(a.calls // 50, 20) if big else a.calls
            out[name] = per_call(lambda: f(*xs), calls, a.repeats)
            if a.eager:
                out[name + " eager"] = per_call(lambda: fn(*xs), calls, a.repeats)
            if a.copy:
                want = fn(*xs)
                if isinstance(want, torch.Tensor) and not want.is_contiguous():
                    row = want.contiguous()
                    out[name + " copy"] = per_call(
                        lambda: torch.empty_strided(want.shape, want.stride()).copy_(row), calls, a.repeats)
    out["loadavg_after"] = os.getloadavg()[0]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
