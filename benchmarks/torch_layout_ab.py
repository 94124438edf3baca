"""Inputs in a permuted layout, A/B in one process (docs/runtime.md, "Inputs in a permuted layout").

Each case through `torch.compile(f, backend=loopopt.torch_backend)` twice: A with every input's
memory_order forced to None (row-major: a channels_last input copied before the kernel, the
result written row-major and copied into eager's layout after: the path before), B as the backend
does it; and eager. 25 pairs of (A, B, eager), each the CPU time of n calls, one torch thread;
prints the medians and B/A's median (quartiles).

    PYTHONPATH=$PWD /work/venv-torch/bin/python benchmarks/torch_layout_ab.py [CASE...]
"""
import time, statistics, sys, warnings, torch, loopopt
from loopopt.runtime import torch_backend as tb
torch.set_num_threads(1)
torch.manual_seed(0)
cl = torch.channels_last
conv = torch.nn.Conv2d(16, 16, 3, padding=1).eval()
block = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU()).eval()
cases = {
  "math_large": (lambda x: torch.sigmoid(x * 2 + 1), (torch.rand(8, 64, 32, 32).to(memory_format=cl),)),
  "conv": (lambda x: conv(x), (torch.rand(2, 16, 32, 32).to(memory_format=cl),)),
  "conv_block": (lambda x: block(x), (torch.rand(2, 16, 32, 32).to(memory_format=cl),)),
  "add": (lambda x, y: torch.relu(x + y), (torch.rand(8, 64, 32, 32).to(memory_format=cl), torch.rand(8, 64, 32, 32).to(memory_format=cl))),
}
real = tb.memory_order
def old_path(f, xs):
    tb.memory_order = lambda t: None
    try: return f(*xs)
    finally: tb.memory_order = real
for name in sys.argv[1:] or cases:
    fn, xs = cases[name]
    fa = torch.compile(fn, backend=loopopt.torch_backend)
    fb = torch.compile(lambda *a: fn(*a), backend=loopopt.torch_backend)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", tb.LoopoptFallbackWarning)
        want = fn(*xs)
        for f, old in ((fa, True), (fb, False)):
            got = old_path(f, xs) if old else f(*xs)
            assert got.stride() == want.stride() and torch.allclose(got, want, atol=1e-5)
        n = 10 if xs[0].numel() > 100000 else 40
        ta, tb_, te, ratios = [], [], [], []
        for p in range(25):
            t0 = time.process_time(); [old_path(fa, xs) for _ in range(n)]; a = (time.process_time() - t0) / n * 1e6
            t0 = time.process_time(); [fb(*xs) for _ in range(n)]; b = (time.process_time() - t0) / n * 1e6
            t0 = time.process_time(); [fn(*xs) for _ in range(n)]; e = (time.process_time() - t0) / n * 1e6
            ta.append(a); tb_.append(b); te.append(e); ratios.append(b / a)
        q = statistics.quantiles(ratios, n=4)
        print(f"{name:11s} old {statistics.median(ta):7.0f}  new {statistics.median(tb_):7.0f}  eager {statistics.median(te):7.0f} us CPU (medians of 25 pairs); new/old {statistics.median(ratios):.3f} ({q[0]:.3f}-{q[2]:.3f}); new/eager {statistics.median(tb_)/statistics.median(te):.2f}", flush=True)
