"""Inputs and results in a permuted layout, A/B in one process (docs/runtime.md, "Inputs in a
permuted layout").

Each case through `torch.compile(f, backend=loopopt.torch_backend)` three times: A with every
input's memory_order forced to None (row-major: a channels_last input copied before the kernel,
the result written row-major and copied into eager's layout after), C the rule before results
other than pointwise ones were written by the kernel (inputs passed as their memory where no
pointwise path leads them to a result copied after; every such result copied after: forced by
taking all of them as stored across), B as the backend does it now; and eager. 25 rounds of
(A, C, B, eager), each the CPU time of n calls, one torch thread; prints the medians and the
median (quartiles) of the per-round ratios B/A and B/C.

    PYTHONPATH=$PWD /work/venv-torch/bin/python benchmarks/torch_layout_ab.py [CASE...]
"""
import time, statistics, sys, warnings, torch, loopopt
from loopopt.runtime import torch_backend as tb
torch.set_num_threads(1)
torch.manual_seed(0)
cl = torch.channels_last


def conv_bn(cin, cout):
    m = torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False), torch.nn.BatchNorm2d(cout))
    m[1].running_mean.uniform_(-0.5, 0.5); m[1].running_var.uniform_(0.5, 2.0)
    m[1].weight.data.uniform_(0.5, 1.5); m[1].bias.data.uniform_(-0.5, 0.5)
    return m.eval()


class Basic(torch.nn.Module):
    """torchvision's ResNet BasicBlock (stride 1, no downsample), eval."""

    def __init__(self, c):
        super().__init__()
        self.a, self.b = conv_bn(c, c), conv_bn(c, c)

    def forward(self, x):
        return torch.relu(self.b(torch.relu(self.a(x))) + x)


conv = torch.nn.Conv2d(16, 16, 3, padding=1).eval()
block = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU()).eval()
res = conv_bn(16, 16)
basic = Basic(64).eval()
cases = {
  "math_large": (lambda x: torch.sigmoid(x * 2 + 1), (torch.rand(8, 64, 32, 32).to(memory_format=cl),)),
  "conv": (lambda x: conv(x), (torch.rand(2, 16, 32, 32).to(memory_format=cl),)),
  "conv_block": (lambda x: block(x), (torch.rand(2, 16, 32, 32).to(memory_format=cl),)),
  "conv_residual": (lambda x: torch.relu(res(x) + x), (torch.rand(2, 16, 32, 32).to(memory_format=cl),)),
  "basic_block": (lambda x: basic(x), (torch.rand(1, 64, 56, 56).to(memory_format=cl),)),
  "add": (lambda x, y: torch.relu(x + y), (torch.rand(8, 64, 32, 32).to(memory_format=cl), torch.rand(8, 64, 32, 32).to(memory_format=cl))),
}
real_order, real_rule = tb.memory_order, tb.kernel_layout


def rule_before(orders, positions, results, facts, across=frozenset()):
    """kernel_layout as before: every result that is not pointwise copied after."""
    if facts is not None:
        across = frozenset(j for j, p in enumerate(facts.pointwise) if not p)
    return real_rule(orders, positions, results, facts, across)


def path_a(f, xs):
    tb.memory_order = lambda t: None
    try: return f(*xs)
    finally: tb.memory_order = real_order


def path_c(f, xs):
    tb.kernel_layout = rule_before
    try: return f(*xs)
    finally: tb.kernel_layout = real_rule


for name in sys.argv[1:] or cases:
    fn, xs = cases[name]
    fa = torch.compile(fn, backend=loopopt.torch_backend)
    fc = torch.compile(lambda *a: fn(*a), backend=loopopt.torch_backend)
    fb = torch.compile(lambda *a: fn(*a), backend=loopopt.torch_backend)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", tb.LoopoptFallbackWarning)
        want = fn(*xs)
        for f, path in ((fa, path_a), (fc, path_c), (fb, None)):
            got = path(f, xs) if path else f(*xs)
            assert got.stride() == want.stride() and torch.allclose(got, want, atol=1e-4, rtol=1e-4), name
        n = 10 if xs[0].numel() > 100000 else 40
        t = {k: [] for k in "acbe"}
        rba, rbc = [], []
        for p in range(25):
            t0 = time.process_time(); [path_a(fa, xs) for _ in range(n)]; a = (time.process_time() - t0) / n * 1e6
            t0 = time.process_time(); [fc(*xs) for _ in range(n)]; c = (time.process_time() - t0) / n * 1e6
            t0 = time.process_time(); [fb(*xs) for _ in range(n)]; b = (time.process_time() - t0) / n * 1e6
            t0 = time.process_time(); [fn(*xs) for _ in range(n)]; e = (time.process_time() - t0) / n * 1e6
            for k, v in zip("acbe", (a, c, b, e)):
                t[k].append(v)
            rba.append(b / a); rbc.append(b / c)
        med = {k: statistics.median(v) for k, v in t.items()}
        qa, qc = statistics.quantiles(rba, n=4), statistics.quantiles(rbc, n=4)
        print(f"{name:13s} A {med['a']:7.0f}  C {med['c']:7.0f}  B {med['b']:7.0f}  eager {med['e']:7.0f} us CPU "
              f"(medians of 25 rounds); B/A {statistics.median(rba):.3f} ({qa[0]:.3f}-{qa[2]:.3f}); "
              f"B/C {statistics.median(rbc):.3f} ({qc[0]:.3f}-{qc[2]:.3f}); B/eager {med['b'] / med['e']:.2f}", flush=True)
