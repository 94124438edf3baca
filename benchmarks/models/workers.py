"""The framework columns of the model-block benchmark, one fresh process per measurement.

    python workers.py torch --block NAME --reps N --warmup W --flush-mib M [--save DIR]
    python workers.py iree  --block NAME --vmfb FILE --reps N --warmup W --flush-mib M [--save DIR]
    python workers.py loopopt-callable --block NAME ...   loopopt.compile's callable, in this process
    python workers.py torch-compile --block NAME ...      torch.compile(backend=loopopt.torch_backend), and eager

Imports only the standard library, numpy, common.py and the framework (torch, or IREE's runtime;
loopopt itself for the two runtime columns), so it runs in whichever environment has the framework
(torch lives in its own venv). It prints one
JSON object on stdout: the framework's version, the seconds of each timed call, and with --save the
.npy files of the outputs of every run size of the fixture (NAME.expected.json) on the inputs
loopopt's native harness makes (common.harness_fill).

Timing follows loopopt.native's harness: `warmup` untimed calls, then `reps` timed calls; with
--flush-mib M > 0 every timed call is preceded (untimed) by reading one 8-byte word of every
64-byte line of an M MiB buffer that was written once, so each call starts with cold caches. One
thread: torch.set_num_threads(1); IREE's `local-sync` device runs on the calling thread.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from common import SEED, fixture_dir, harness_fill  # noqa: E402


class Flusher:
    """Evicts the caches by reading a buffer (loopopt.native's flush, in numpy)."""

    def __init__(self, mib: int):
        self.words = np.arange(max(8, (mib << 20) // 8), dtype=np.int64) if mib > 0 else None
        self.total = 0

    def __call__(self) -> None:
        if self.words is not None:
            self.total += int(self.words[::8].sum())  # one word per 64-byte line; the sum keeps the reads


def fixture_runs(block: str) -> list[dict]:
    with open(os.path.join(fixture_dir(block), f"{block}.expected.json")) as f:
        return json.load(f)["runs"]


def run_inputs(run: dict) -> list:
    """Input k of one saved run, filled as the native harness fills argument k."""
    return [harness_fill(r["shape"], k, r["dtype"]) for k, r in enumerate(run["inputs"])]


def time_calls(fn, args: tuple, reps: int, warmup: int, flush: Flusher, kwargs: dict | None = None) -> list[float]:
    """`reps` timed calls of fn(*args, **kwargs) after `warmup` untimed ones, each after a flush.
    The framework's function is called between the two clock reads and nothing else (no lambda
    around it): the harness times its kernel call alone, and after a flush every Python frame
    more costs microseconds of cache misses (an empty lambda: 6 µs here). Without kwargs the call is
    fn(*args): `fn(*args, **{})` has the interpreter build a keyword dict on every call (about 3 µs
    after a flush, docs/runtime.md "The cold call, again"), which the harness's call has no part of."""
    for _ in range(max(1, warmup)):
        fn(*args, **(kwargs or {}))
    times = []
    clock = time.perf_counter
    if kwargs:
        for _ in range(reps):
            flush()
            t0 = clock()
            fn(*args, **kwargs)
            t1 = clock()
            times.append(t1 - t0)
        return times
    for _ in range(reps):
        flush()
        t0 = clock()
        fn(*args)
        t1 = clock()
        times.append(t1 - t0)
    return times


def save_outputs(directory: str, run_index: int, outputs) -> list[str]:
    os.makedirs(directory, exist_ok=True)
    paths = []
    for k, out in enumerate(outputs):
        path = os.path.join(directory, f"run{run_index}_out{k}.npy")
        np.save(path, np.ascontiguousarray(out))
        paths.append(path)
    return paths


# ----------------------------------------------------------------------------- torch

def torch_model(block: str):
    """The block's nn.Module exactly as export_torch.py builds it (seeded, eval mode)."""
    import torch

    import export_torch

    found = [b for b in export_torch.blocks() if b.name == block]
    if not found:
        raise SystemExit(f"workers.py: error: export_torch.py has no block {block}")
    torch.manual_seed(SEED)
    return found[0].build().eval()


def run_torch(a) -> dict:
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    model = torch_model(a.block)
    runs = fixture_runs(a.block)
    flush = Flusher(a.flush_mib)
    saved = []
    with torch.inference_mode():
        if a.save:
            for r, run in enumerate(runs):
                got = model(*[torch.from_numpy(x) for x in run_inputs(run)])
                got = got if isinstance(got, tuple) else (got,)
                saved.append(save_outputs(a.save, r, [y.numpy() for y in got]))
        inputs = [torch.from_numpy(x) for x in run_inputs(runs[0])]
        times = time_calls(model, tuple(inputs), a.reps, a.warmup, flush)
    return {"framework": "torch", "version": torch.__version__, "threads": torch.get_num_threads(),
            "times": times, "saved": saved, "flush_sum": flush.total}


# ----------------------------------------------------------------------------- IREE

def run_iree(a) -> dict:
    from importlib import metadata

    import iree.runtime as rt

    config = rt.Config("local-sync")
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(rt.VmModule.mmap(config.vm_instance, a.vmfb))
    fn = ctx.modules.module[a.function or a.block]
    runs = fixture_runs(a.block)
    flush = Flusher(a.flush_mib)
    saved = []
    if a.save:
        for r, run in enumerate(runs):
            got = fn(*run_inputs(run))
            got = got if isinstance(got, (tuple, list)) else (got,)
            saved.append(save_outputs(a.save, r, [np.asarray(y.to_host()) for y in got]))
    inputs = [rt.asdevicearray(config.device, x) for x in run_inputs(runs[0])]
    times = time_calls(fn, tuple(inputs), a.reps, a.warmup, flush)
    out = {"framework": "iree", "version": metadata.version("iree-base-runtime"), "device": "local-sync",
           "times": times, "saved": saved, "flush_sum": flush.total}
    return out


# ----------------------------------------------------------------------------- loopopt's runtime

def _import_loopopt():
    repo = os.path.dirname(os.path.dirname(HERE))
    if repo not in sys.path:
        sys.path.insert(0, repo)
    import loopopt

    return loopopt


def run_loopopt_callable(a) -> dict:
    """The block as torch-mlir printed it through loopopt.compile (the loopopt column's code,
    built into a shared object), called in this process: k(*inputs, *outputs), every argument in
    order as the harness's driver passes them (out= would add the interpreter's keyword dict to every
    timed call), every array 64-byte aligned as the harness's are."""
    loopopt = _import_loopopt()
    from loopopt.runtime import aligned_empty

    with open(os.path.join(fixture_dir(a.block), f"{a.block}.mlir")) as f:
        k = loopopt.compile(f.read(), filename=f"{a.block}.mlir")
    runs = fixture_runs(a.block)
    flush = Flusher(a.flush_mib)
    saved = []
    if a.save:
        for r, run in enumerate(runs):
            got = k(*run_inputs(run))
            saved.append(save_outputs(a.save, r, got if isinstance(got, tuple) else (got,)))
    from loopopt.native import HUGE_PAGE_ALIGNMENT, HUGE_PAGE_BYTES

    def placed(x):
        """`x` copied where the harness (huge_pages) puts its arguments: 64-byte aligned, and from
        HUGE_PAGE_BYTES on aligned to a huge page (numpy advises the allocation to huge pages; the
        harness aligns and advises it, so after a flush its pages cost one TLB entry per 2 MiB)."""
        y = aligned_empty(x.shape, x.dtype, HUGE_PAGE_ALIGNMENT if x.nbytes >= HUGE_PAGE_BYTES else 64)
        y[...] = x
        return y

    inputs = [placed(x) for x in run_inputs(runs[0])]
    outs = k(*inputs)
    outs = tuple(placed(o) for o in (outs if isinstance(outs, tuple) else (outs,)))
    times = time_calls(k, tuple(inputs) + outs, a.reps, a.warmup, flush)
    return {"framework": "loopopt-callable", "version": loopopt.__version__, "times": times, "saved": saved,
            "cache": k.info.get("cache"), "flush_sum": flush.total}


def run_torch_compile(a) -> dict:
    """torch.compile(model, backend=loopopt.torch_backend) and the eager model in one process, the
    timed calls alternating between the two (eager's in `eager_times`); any fallback to eager is
    reported in `fallbacks` (the column is then not loopopt's)."""
    import warnings

    import torch

    loopopt = _import_loopopt()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    model = torch_model(a.block)
    compiled = torch.compile(model, backend=loopopt.torch_backend)
    runs = fixture_runs(a.block)
    flush = Flusher(a.flush_mib)
    saved = []
    with warnings.catch_warnings(record=True) as caught, torch.inference_mode():
        warnings.simplefilter("always")
        for r, run in enumerate(runs):
            got = compiled(*[torch.from_numpy(x) for x in run_inputs(run)])
            got = got if isinstance(got, tuple) else (got,)
            if a.save:
                saved.append(save_outputs(a.save, r, [y.numpy() for y in got]))
        inputs = [torch.from_numpy(x) for x in run_inputs(runs[0])]
        for _ in range(max(1, a.warmup)):
            compiled(*inputs)
            model(*inputs)
        times, eager = [], []
        for _ in range(a.reps):
            for fn, into in ((lambda: compiled(*inputs), times), (lambda: model(*inputs), eager)):
                flush()
                t0 = time.perf_counter()
                fn()
                into.append(time.perf_counter() - t0)
    fallbacks = sorted({str(w.message) for w in caught if "loopopt.torch_backend" in str(w.message)})
    return {"framework": "torch-compile", "version": f"torch {torch.__version__}, loopopt {loopopt.__version__}",
            "times": times, "eager_times": eager, "saved": saved, "fallbacks": fallbacks, "flush_sum": flush.total}


RUNNERS = {"torch": lambda a: run_torch(a), "iree": lambda a: run_iree(a),
           "loopopt-callable": lambda a: run_loopopt_callable(a), "torch-compile": lambda a: run_torch_compile(a)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("framework", choices=tuple(RUNNERS))
    ap.add_argument("--block", required=True)
    ap.add_argument("--function", default=None, help="the exported function (default: the block name)")
    ap.add_argument("--vmfb", help="iree: the compiled module")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--flush-mib", type=int, default=0)
    ap.add_argument("--save", default=None, help="directory for the outputs of every run size (.npy)")
    a = ap.parse_args(argv)
    result = RUNNERS[a.framework](a)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    if a.framework == "iree":
        os._exit(0)  # skips the runtime's teardown, whose nanobind leak report is noise on stderr
    return 0


if __name__ == "__main__":
    sys.exit(main())
