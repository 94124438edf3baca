"""loopopt.compile's callable against loopopt.native's harness on the same optimized code, paired.

    python3 benchmarks/runtime_vs_harness.py                       # the full-size PyTorch blocks
    python3 benchmarks/runtime_vs_harness.py --only mlp_relu,softmax --rounds 5

For each block: `loopopt.optimize(BLOCK.mlir, target="cpu")` (the models benchmark's loopopt
column), run by the harness (`native.run_native`, mlir-runner -O3, calls timed inside the JIT
process), and the same text through `loopopt.compile`, called in this process with
`k(*inputs, out=outputs)` on the harness's inputs, placed as the harness places them (64-byte
aligned; the outputs are the callable's own, which it aligns so too). The two alternate, round by round, so the
machine's load (shared, 2 cores) weighs on both alike; each round is `--reps` calls after
`--warmup` untimed ones, back to back (the warm regime). Reported: the lower quartile of all calls
of each and their ratio (callable / harness), with the load averages.
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


def aligned_copy(x):
    """`x` copied to a 64-byte aligned array: the harness allocates its arguments so (native.py)."""
    from loopopt.runtime import aligned_empty

    y = aligned_empty(x.shape, x.dtype)
    y[...] = x
    return y


def q1(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 4]


def pair(name: str, rounds: int, reps: int, warmup: int) -> dict:
    import run as models_run  # benchmarks/models/run.py: inline_resources

    fx = fixtures.load_fixture(name)
    text = loopopt.optimize(fx.text, target="cpu", filename=f"{name}.mlir").text
    k = loopopt.compile(fx.text, filename=f"{name}.mlir")
    harness_text = models_run.inline_resources(text)
    sizes = fixtures.harness_sizes(fx.runs[0])
    inputs = [aligned_copy(x) for x in fixtures.run_inputs(fx.runs[0])]  # placed as the harness's
    outs = k(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    assert fixtures.compare_arrays_with_expected(inputs, outs, fx.runs[0]) is None
    harness, callable_ = [], []
    for _ in range(rounds):
        harness += native.run_native(harness_text, fx.function, sizes, reps=reps, warmup=warmup).times
        for _ in range(warmup):
            k(*inputs, out=outs)
        for _ in range(reps):
            t0 = time.perf_counter()
            k(*inputs, out=outs)
            callable_.append(time.perf_counter() - t0)
    return {"name": name, "harness": harness, "callable": callable_, "harness_q1": q1(harness),
            "callable_q1": q1(callable_), "ratio": q1(callable_) / q1(harness)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(BLOCKS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "runtime_vs_harness.json"))
    a = ap.parse_args(argv)
    load_before = os.getloadavg()
    rows = []
    print("| block | harness ms | callable ms | callable / harness |\n|---|---|---|---|")
    for name in a.only.split(","):
        r = pair(name.strip(), a.rounds, a.reps, a.warmup)
        rows.append(r)
        print(f"| {r['name']} | {r['harness_q1'] * 1e3:.3f} | {r['callable_q1'] * 1e3:.3f} | {r['ratio']:.2f}x |",
              flush=True)
    load_after = os.getloadavg()
    print(f"load averages before {' '.join(f'{x:.2f}' for x in load_before)}, after "
          f"{' '.join(f'{x:.2f}' for x in load_after)} ({os.cpu_count()} CPUs); {a.rounds} rounds x {a.reps} calls each")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"date": time.time(), "rounds": a.rounds, "reps": a.reps, "warmup": a.warmup,
                   "load_before": load_before, "load_after": load_after, "blocks": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
