"""Benchmark the PyTorch model blocks: MLIR's pipelines, loopopt, torch eager and IREE side by side.

    python3 benchmarks/models/run.py                    every full-size block, every column, both regimes
    python3 benchmarks/models/run.py --quick --only softmax,mlp_relu
    python3 benchmarks/models/report.py                 tables again from benchmarks/results/models.json

Each block is a fixture of benchmarks/models/blocks/ (torch-mlir's linalg-on-tensors text and
torch's outputs on the native harness's inputs). Its columns, all on one thread:

  plain                      loopopt.frontend.lower (the lowering only)
  mlir-fusion, mlir-greedy   MLIR 22's affine pipelines as benchmarks/run.py defines them, and
  mlir-scalrep               --affine-loop-fusion --affine-scalrep --affine-loop-invariant-code-motion
                             --canonicalize --cse (the pipeline of shared/notes/frontdoor.md), on the plain lowering
  linalg-fusion+mlir-*       the same pipelines on the lowering with LoweringOptions(elementwise_fusion=True)
  loopopt                    `loopopt --target cpu` on the plain lowering (framework input: planned for this
                             machine's vector registers, as IREE's column is compiled with --iree-llvmcpu-target-cpu=host)
  loopopt-256                `loopopt --target cpu --vector-bits 256`: planned for AVX2's 256-bit registers
                             (the portable plan, the default for affine input)
  linalg-fusion+loopopt      `loopopt --target cpu` on the fused lowering
  torch                      torch eager (torch.set_num_threads(1)), the exporter's own nn.Module and weights
  iree                       iree-compile (IREE_FLAGS) on the linalg text, run on IREE's local-sync device
  loopopt-callable           loopopt.compile on the block (the loopopt column's code as a shared object), called
                             in the worker's process: k(*inputs, *outputs) (docs/runtime.md)
  torch-compile              torch.compile(model, backend=loopopt.torch_backend) in the torch Python; eager is
                             timed in the same process, calls alternating (its times: eager_times)

The affine columns are verified with mlir-opt 22, lowered with loopopt.native's lowering and run
with mlir-runner -O3 in its harness, every one with the temporaries served as loopopt.compile's
libraries serve them (native temporaries="cache", TEMPORARIES: freed blocks kept per thread and
reused, the same C), so no column pays for mapping and page-faulting its temporaries on every call
where the callable does not; torch and IREE run in benchmarks/models/workers.py.
Correctness: every column's outputs, for every run size the fixture saves, against the fixture's
saved torch outputs, against torch's outputs in full when torch is installed, and (affine columns)
against the plain lowering: each within RTOL of the output's largest magnitude. A column outside it
is WRONG, shown with its error, and left out of every time column.
Timing: in every round each column runs once per regime in a fresh process (flushed: --flush-mib
MiB read before every timed call; warm: calls back to back), the order of columns and regimes
alternating between rounds; tables use the lower quartile of all calls of a regime. The affine
columns' buffers of 4 MiB and more (and the flush buffer) are aligned to 2 MiB and advised to
transparent huge pages, as numpy advises the arrays the framework columns are given and flush
with (loopopt.native, huge_pages): with 4 KiB pages the flushed elementwise block took 1-1.3 ms
more in the native harness (2.8-3.0 ms) than with them (1.7 ms) or called through
loopopt.compile on numpy arrays (1.8 ms).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
for _p in (REPO, BENCH):
    if _p not in sys.path:
        sys.path.append(_p)

import numpy as np  # noqa: E402

from loopopt import frontend, native  # noqa: E402
from loopopt.frontend import fixtures  # noqa: E402
from loopopt.toolchain import mlir_opt, verify_with_mlir_opt  # noqa: E402

import suite  # noqa: E402  (benchmarks/suite.py: the roofline kernels)


def _sibling(name: str, path: str):
    """Load a module from a file under its own name (benchmarks/ and benchmarks/models/ both have
    a run.py and a report.py)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


bench_run = _sibling("bench_run", os.path.join(BENCH, "run.py"))
models_report = _sibling("models_report", os.path.join(HERE, "report.py"))

RESULTS = os.path.join(BENCH, "results")
VARIANTS_DIR = os.path.join(RESULTS, "variants", "models")
BLOCKS = ("mlp_relu", "mlp_gelu", "mlp_dynamic", "layernorm", "softmax", "attention", "sdpa", "elementwise", "encoder",
          # issue 35: convolutions, BERT-size GEMMs and attention, RNN cells, a loss, a causal decoder, outer reductions
          "resnet_block", "small_cnn", "mobilenet_block", "strided_conv", "conv1d_block", "bert_ffn", "bert_attention",
          "lstm_cell", "gru_cell", "cross_entropy", "gpt2_layer", "reduce_dim0", "bn_stats",
          "resnext_block",
          # issue 35, round 4: language-model losses over a vocabulary
          "lm_loss", "lm_logprobs",
          # round 4: a transposed convolution (DCGAN's generator stage)
          "gan_upsample")
# the held-out set (benchmarks/models/heldout/): same kinds, other shapes; reported in a table of its own, never tuned on
HELDOUT = ("vgg_stack", "conv5x5_stride", "grouped_conv", "rnn_seq", "llama_mlp", "nll_loss",
           # round 4: kinds the main set lacks, exported as a new user would (export_torch.new_kind_blocks)
           "unet_resblock", "convnext_block", "vit_patch_embed", "t5_ffn", "upsample_block", "embedding_bag", "pool_head",
           "audio_upsample")
HELDOUT_DIR = os.path.join(HERE, "heldout")
SETS = {"main": BLOCKS, "heldout": HELDOUT, "all": BLOCKS + HELDOUT}
REGIMES = ("flushed", "warm")
RTOL = fixtures.RTOL  # |got - want| <= RTOL * max|want| per output (checksums: RTOL * sum|x|)
FULL = 1 << 62  # native full_limit for the correctness runs: every element printed
MLIR_SCALREP = ("--affine-loop-fusion", "--affine-scalrep", "--affine-loop-invariant-code-motion",
                "--canonicalize", "--cse")
MLIR_PIPELINES = {"mlir-fusion": bench_run.MLIR_FUSION, "mlir-greedy": bench_run.MLIR_GREEDY,
                  "mlir-scalrep": MLIR_SCALREP}
IREE_FLAGS = ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
              "--iree-llvmcpu-target-cpu=host", "--iree-opt-data-tiling", "--iree-llvmcpu-enable-ukernels=all")
TORCH_PYTHONS = (sys.executable, "/work/venv-torch/bin/python")  # tried in order (after --torch-python)
FRAMEWORKS = ("torch", "iree")
RUNTIME_COLUMNS = ("loopopt-callable", "torch-compile")  # loopopt's runtime, run like the frameworks (workers.py)
# how every affine column's memref.alloc/dealloc are lowered and served in the harness (loopopt.native):
# through the allocator of loopopt.compile's libraries, for every column alike
TEMPORARIES = "cache"


@dataclass(frozen=True)
class Variant:
    """An affine column: the lowering it starts from, then a tool. tool: "none" (the lowering as
    is), "mlir-opt" (args), "loopopt" (`loopopt --target cpu`, args appended) or "python" (fn:
    text -> text, for tests)."""

    name: str
    base: str  # "plain" or "linalg-fusion"
    tool: str
    args: tuple = ()
    fn: Callable | None = None


def default_variants() -> tuple[Variant, ...]:
    out = [Variant("plain", "plain", "none")]
    for base, prefix in (("plain", ""), ("linalg-fusion", "linalg-fusion+")):
        out += [Variant(prefix + name, base, "mlir-opt", tuple(args)) for name, args in MLIR_PIPELINES.items()]
    out += [Variant("loopopt", "plain", "loopopt"),
            Variant("loopopt-256", "plain", "loopopt", ("--vector-bits", "256")),
            Variant("linalg-fusion+loopopt", "linalg-fusion", "loopopt")]
    return tuple(out)


@dataclass
class Column:
    """What one column of one block did: status, correctness, loops left and its timed calls."""

    name: str
    kind: str  # "affine" or "framework"
    status: str = "ok"  # or what failed: "lower: ...", "transform: ...", "verify: ...", "run: ...", "skipped: ..."
    pipeline: str = ""
    transform_seconds: float | None = None
    loops: int | None = None
    placed_bytes: int | None = None
    correct: bool | None = None  # None: not checked (it did not run)
    error: float | None = None  # the largest error found (relative to max|want|), inf for NaN
    error_against: str = ""  # which reference gave it
    errors: dict = field(default_factory=dict)  # reference -> error
    mismatch: str = ""  # first difference against the fixture, one line
    times: dict = field(default_factory=dict)  # regime -> seconds of every timed call
    version: str = ""
    call_seconds: float | None = None  # one call, measured by the correctness run (the time budget)
    eager_times: dict = field(default_factory=dict)  # torch-compile: regime -> eager's calls in the same processes


# ----------------------------------------------------------------------------- text helpers

_RESOURCE = re.compile(r"dense_resource<([^>]+)>")
_BLOB = re.compile(r'^\s*"?([^":\s]+)"?\s*:\s*"0x([0-9A-Fa-f]*)"', re.MULTILINE)


def inline_resources(text: str) -> str:
    """The module with every `dense_resource<name>` replaced by `dense<"0x...">` of the same bytes
    and the `{-# dialect_resources #-}` trailer dropped. loopopt.native.make_harness appends @main
    before the text's last `}`, which is the trailer's when there is one; a blob's hex is its
    4-byte alignment header, then the raw little-endian elements, which is what a hex dense
    attribute holds."""
    start = text.rfind("{-#")
    if start < 0:
        return text
    blobs = {name: hexes[8:] for name, hexes in _BLOB.findall(text[start:])}

    def repl(m):
        name = m.group(1).strip('"')
        if name not in blobs:
            raise ValueError(f"dense_resource<{name}> has no blob")
        return f'dense<"0x{blobs[name]}">'

    return _RESOURCE.sub(repl, text[:start]).rstrip() + "\n"


_GLOBAL = re.compile(r"memref\.global\s+(?:\"\w+\"\s+)?constant\s+@\S+\s*:\s*memref<([0-9x]+)x(f16|bf16|f32|f64|i1|i8|i16|i32|i64)>")
_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i1": 8, "i8": 8, "i16": 16, "i32": 32, "i64": 64}


def constant_bytes(text: str) -> int:
    """Bytes of the module's constant globals (the weights): read once, whole, by any schedule."""
    total = 0
    for dims, elem in _GLOBAL.findall(text):
        n = 1
        for d in dims.split("x"):
            n *= int(d)
        total += n * _BITS[elem] // 8
    return total


def count_loops(text: str) -> int:
    return suite.count_loops(text)


# ----------------------------------------------------------------------------- correctness

def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want| (inf if the sizes differ or a NaN/inf appears where the
    reference has none); integers: 0 when equal, inf otherwise."""
    got, want = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    if got.size != want.size:
        return float("inf")
    if want.dtype.kind in "iub" or got.dtype.kind in "iub":
        return 0.0 if np.array_equal(got.astype(np.int64), want.astype(np.int64)) else float("inf")
    g, w = got.astype(np.float64), want.astype(np.float64)
    if not np.array_equal(np.isfinite(g), np.isfinite(w)) or not np.array_equal(np.isnan(g), np.isnan(w)):
        return float("inf")
    finite = np.isfinite(w)
    if not finite.any():
        return 0.0
    scale = float(np.max(np.abs(w[finite]))) or 1.0
    return float(np.max(np.abs(g[finite] - w[finite]))) / scale


def checksums(x: np.ndarray) -> tuple[float, float, float]:
    """The harness's checksums (sum, position-weighted sum, sum |x|) in f64."""
    x = np.asarray(x).reshape(-1).astype(np.float64)
    w = (np.arange(x.size) % native.WEIGHT_MODULUS + 1).astype(np.float64)
    return float(x.sum()), float((x * w).sum()), float(np.abs(x).sum())


def fixture_error(got: np.ndarray, record: dict) -> float:
    """Error of one output against a saved record: against its values when saved (small
    outputs), else the largest checksum difference over sum|x| (times 1009 for the weighted sum)."""
    if "values" in record:
        return relative_error(got, np.asarray(record["values"]))
    if np.asarray(got).size != record["numel"]:
        return float("inf")
    have, want = checksums(got), record["checksum"]
    if any(np.isnan(have)):
        return float("inf")
    mag = max(abs(have[2]), abs(want[2])) or 1.0
    return max(abs(h - w) / (mag * (native.WEIGHT_MODULUS if k == 1 else 1)) for k, (h, w) in enumerate(zip(have, want)))


def judge(col: Column, errors: dict[str, float], mismatch: str = "") -> None:
    """Record each reference's error; the column is correct iff every one is within RTOL. The
    error shown is the largest, naming its reference."""
    col.errors.update(errors)
    if not col.errors:
        return
    ref, worst = max(col.errors.items(), key=lambda kv: (np.nan_to_num(kv[1], nan=np.inf), kv[0]))
    col.error, col.error_against = worst, ref
    col.correct = all(e <= RTOL for e in col.errors.values())
    if mismatch and not col.mismatch:
        col.mismatch = mismatch


def output_arrays(outputs, n_inputs: int) -> list[np.ndarray]:
    """The out-parameters of a native run (every memref argument is printed: inputs first), as
    arrays; loopopt.native prints every element when run with full_limit=FULL."""
    arrays = []
    for out in outputs[n_inputs:]:
        if out.values is None:
            raise native.NativeError(f"{out.name} printed as checksums; run with full_limit")
        arrays.append(np.asarray(out.values))
    return arrays


def compare_run(outs: list[np.ndarray], run: dict, references: dict[str, list[np.ndarray]]) -> tuple[dict, str]:
    """Errors of one run's outputs against the fixture's record and each reference run (the
    worst output of each), and the first fixture difference as one line."""
    want = run["outputs"]
    if len(outs) != len(want):
        return {"fixture": float("inf")}, f"{len(outs)} outputs, the fixture has {len(want)}"
    errs = {"fixture": max(fixture_error(o, w) for o, w in zip(outs, want))}
    mismatch = ""
    for k, (o, w) in enumerate(zip(outs, want)):
        e = fixture_error(o, w)
        if e > RTOL:
            mismatch = f"output {k}: error {e:.3g} against the fixture"
            break
    for name, ref in references.items():
        errs[name] = max((relative_error(o, r) for o, r in zip(outs, ref)), default=0.0) if len(ref) == len(outs) else float("inf")
    return errs, mismatch


# ----------------------------------------------------------------------------- the block

@dataclass
class Block:
    name: str
    fixture: fixtures.Fixture

    @property
    def kernel(self) -> str:
        return self.fixture.function

    @property
    def runs(self) -> list[dict]:
        return self.fixture.runs

    def sizes(self, run: int = 0) -> list:
        return fixtures.harness_sizes(self.runs[run])

    @property
    def n_inputs(self) -> int:
        return len(self.runs[0]["inputs"])


def lower(block: Block, base: str) -> str:
    opts = frontend.LoweringOptions(elementwise_fusion=(base == "linalg-fusion"))
    return frontend.lower(block.fixture.text, options=opts, filename=f"{block.name}.mlir").text


def transform(variant: Variant, lowered: str, out_dir: str, source: str | None = None) -> str:
    """The variant's text from its lowering; RuntimeError with one line when the tool fails.
    loopopt takes the block as the framework emitted it (`source`) when given, as a user runs
    it: it lowers the block itself (`--elementwise-fusion` for that lowering), and the cpu
    target's numeric switches then default on as for any framework input."""
    if variant.tool == "none":
        return lowered
    if variant.tool == "python":
        return variant.fn(lowered)
    if variant.tool == "mlir-opt":
        p = mlir_opt(lowered, list(variant.args), timeout=1800)
        if p.returncode != 0:
            raise RuntimeError("mlir-opt: " + native.first_error_line(p.stderr))
        return p.stdout
    if variant.tool == "loopopt":
        out = os.path.join(out_dir, f"{variant.name}.out.mlir")
        extra = []
        if source is not None:
            src = os.path.join(out_dir, f"{variant.name}.block.mlir")
            text = source
            extra = ["--elementwise-fusion"] if variant.base == "linalg-fusion" else []
        else:
            src = os.path.join(out_dir, f"{variant.base}.lowered.mlir")
            text = lowered
        with open(src, "w") as f:
            f.write(text)
        p = subprocess.run([sys.executable, "-m", "loopopt", src, "--target", "cpu", *extra, *variant.args, "-o", out],
                           cwd=REPO, capture_output=True, text=True, timeout=1800)
        if p.returncode != 0:
            line = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
            raise RuntimeError(f"loopopt exited {p.returncode}: {line}")
        with open(out) as f:
            return f.read()
    raise ValueError(f"unknown tool {variant.tool}")


def pipeline_text(variant: Variant) -> str:
    base = "frontend.lower" + ("(elementwise_fusion=True)" if variant.base == "linalg-fusion" else "")
    if variant.tool == "loopopt":  # the front door: loopopt lowers the block itself
        fused = " --elementwise-fusion" if variant.base == "linalg-fusion" else ""
        return f"loopopt BLOCK.mlir --target cpu{fused} {' '.join(variant.args)}".strip()
    tool = {"none": "", "mlir-opt": " | mlir-opt " + " ".join(variant.args),
            "python": " | (test transform)"}[variant.tool]
    return (base + tool).strip()


@dataclass
class Prepared:
    """An affine column ready to run: its text for the harness (resources inlined)."""

    column: Column
    text: str | None
    llvm: dict = field(default_factory=dict)  # regime -> lowered harness (made once, run every round)


def prepare(block: Block, variant: Variant, lowerings: dict, out_dir: str, log) -> Prepared:
    col = Column(variant.name, "affine", pipeline=pipeline_text(variant))
    low = lowerings.get(variant.base)
    if isinstance(low, Exception):
        col.status = f"lower: {low}"
        return Prepared(col, None)
    start = time.perf_counter()
    try:
        text = transform(variant, low, out_dir, source=block.fixture.text)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        col.status = f"transform: {e}"
        return Prepared(col, None)
    col.transform_seconds = time.perf_counter() - start
    with open(os.path.join(out_dir, f"{variant.name}.mlir"), "w") as f:
        f.write(text)
    err = verify_with_mlir_opt(text)
    if err:
        col.status = f"verify: {err}"
        return Prepared(col, None)
    col.loops = count_loops(text)
    try:
        run_text = inline_resources(text)
    except ValueError as e:
        col.status = f"verify: {e}"
        return Prepared(col, None)
    try:
        col.placed_bytes = suite.placed_bytes(run_text, block.kernel, tuple(block.sizes())).bytes
    except Exception:  # a fact we cannot compute is left out, not fatal
        pass
    return Prepared(col, run_text)


def check_affine(block: Block, prep: Prepared, references: dict, log) -> dict | None:
    """Run the column once per fixture run with every element printed; judge it; return its
    outputs per run (for the plain column, the others' reference)."""
    col = prep.column
    outs_per_run = []
    for r, run in enumerate(block.runs):
        try:
            res = native.run_native(prep.text, block.kernel, block.sizes(r), reps=1, warmup=1, full_limit=FULL,
                                    timeout=1800, temporaries=TEMPORARIES)
            outs = output_arrays(res.outputs, block.n_inputs)
        except Exception as e:  # NativeError, or a parse error in a broken variant
            col.status = f"run: {e}"
            return None
        if r == 0 and res.times:
            col.call_seconds = min(res.times)
        errs, mismatch = compare_run(outs, run, {k: v[r] for k, v in references.items()})
        judge(col, {f"{k} (run {r})" if len(block.runs) > 1 else k: v for k, v in errs.items()}, mismatch)
        outs_per_run.append(outs)
    return {"runs": outs_per_run}


# A column's timed calls in one regime take at most about this long over all rounds: a column of
# seconds per call (the plain lowering of a BERT-size layer, MLIR's pipelines on it) gets fewer calls,
# at least one per round and no warm-up beyond the correctness run's; a fast column is not limited.
BUDGET_SECONDS = 30.0


def budgeted(reps: int, warmup: int, rounds: int, call_seconds: float | None) -> tuple[int, int]:
    """(timed calls, warm-up calls) per process for a column whose call takes `call_seconds`."""
    if call_seconds is None or call_seconds * (reps + warmup) * rounds <= BUDGET_SECONDS:
        return reps, warmup
    return max(1, min(reps, int(BUDGET_SECONDS / (call_seconds * rounds)))), 0


def time_affine(block: Block, prep: Prepared, regime: str, reps: int, warmup: int, flush_bytes: int,
                rounds: int = 1) -> None:
    """One more process of the column in one regime: loopopt.native's harness, lowered once per
    regime and run with mlir-runner (fewer calls for a slow column: `budgeted`)."""
    col = prep.column
    reps, warmup = budgeted(reps, warmup, rounds, col.call_seconds)
    try:
        if regime not in prep.llvm:
            harness = native.make_harness(prep.text, block.kernel, block.sizes(), reps=reps, warmup=warmup,
                                          flush_bytes=flush_bytes if regime == "flushed" else 0, huge_pages=True,
                                          temporaries=TEMPORARIES)
            prep.llvm[regime] = native.lower_to_llvm(harness, timeout=1800, temporaries=TEMPORARIES)
        stdout = native.run_lowered(prep.llvm[regime], timeout=1800)
        times, _ = native.parse_output(stdout, native.kernel_signature(prep.text, block.kernel))
    except Exception as e:
        col.status = f"run: {e}"
        return
    col.times.setdefault(regime, []).extend(times)


# ----------------------------------------------------------------------------- torch and IREE

def find_torch_python(preferred: str | None) -> tuple[str | None, str]:
    """A Python that imports torch (the --torch-python one, this one, /work/venv-torch), and its
    torch version; (None, why) when none does."""
    for py in ([preferred] if preferred else []) + list(TORCH_PYTHONS):
        if not py or not os.path.exists(py):
            continue
        p = subprocess.run([py, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                           timeout=300)
        if p.returncode == 0:
            return py, p.stdout.strip()
    return None, "torch is not importable here (tried " + ", ".join(p for p in ([preferred] if preferred else []) + list(TORCH_PYTHONS) if p) + ")"


def find_iree() -> tuple[str | None, str]:
    """iree-compile (next to this Python, or on PATH) and the iree-base-runtime version; (None,
    why) when either is missing."""
    from importlib import metadata

    compiler = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    compiler = compiler if os.path.exists(compiler) else shutil.which("iree-compile")
    if compiler is None:
        return None, "iree-compile not found (pip install iree-base-compiler==3.11.0)"
    try:
        version = metadata.version("iree-base-runtime")
    except metadata.PackageNotFoundError:
        return None, "iree.runtime is not installed (pip install iree-base-runtime==3.11.0)"
    return compiler, version


def find_callable() -> tuple[str | None, str]:
    """This Python (loopopt.compile builds with LLVM 22's tools) and loopopt's version."""
    from loopopt import __version__
    from loopopt.runtime.build import missing_tools

    why = missing_tools()
    return (None, why) if why else (sys.executable, f"loopopt {__version__}")


def find_torch_compile(torch_python: str | None) -> tuple[str | None, str]:
    """A Python with torch and torch-mlir (loopopt.torch_backend), and its torch version."""
    python, note = torch_python if torch_python else (None, "no torch")
    if python is None:
        return None, note
    p = subprocess.run([python, "-c", "import torch, torch_mlir.fx; print(torch.__version__)"], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        return None, f"torch-mlir is not importable in {python}"
    return python, f"torch {p.stdout.strip()} with loopopt.torch_backend"


def runtime_frameworks(a, torch: tuple) -> dict:
    """The runtime columns' (tool, note), or (None, why skipped)."""
    wanted = set(a.columns.split(",")) if getattr(a, "columns", None) else set(RUNTIME_COLUMNS)
    out = {}
    if "loopopt-callable" in wanted:
        out["loopopt-callable"] = (None, "--no-callable") if a.no_callable else find_callable()
    if "torch-compile" in wanted:
        out["torch-compile"] = (None, "--no-torch") if a.no_torch else find_torch_compile(torch)
    return out


def compile_iree(compiler: str, block: Block, out_dir: str) -> str:
    vmfb = os.path.join(out_dir, "iree.vmfb")
    p = subprocess.run([compiler, str(block.fixture.path), *IREE_FLAGS, "-o", vmfb], capture_output=True, text=True,
                       timeout=1800)
    if p.returncode != 0:
        raise RuntimeError("iree-compile: " + native.first_error_line(p.stderr))
    return vmfb


def run_worker(python: str, framework: str, block: Block, reps: int, warmup: int, flush_mib: int,
               vmfb: str | None = None, save: str | None = None) -> dict:
    cmd = [python, os.path.join(HERE, "workers.py"), framework, "--block", block.name, "--function", block.kernel,
           "--reps", str(reps), "--warmup", str(warmup), "--flush-mib", str(flush_mib)]
    if vmfb:
        cmd += ["--vmfb", vmfb]
    if save:
        cmd += ["--save", save]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, cwd=HERE)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        err = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith((" ", "nanobind", "See "))]
        raise RuntimeError(f"{framework} worker exited {p.returncode}: {(err or ['(no message)'])[-1].strip()}")
    return json.loads(lines[-1])


@dataclass
class Framework:
    column: Column
    python: str | None = None
    vmfb: str | None = None


def check_framework(block: Block, fw: Framework, references: dict, out_dir: str) -> list | None:
    col = fw.column
    save = os.path.join(out_dir, f"{col.name}-outputs")
    try:
        res = run_worker(fw.python, col.name, block, 1, 1, 0, vmfb=fw.vmfb, save=save)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        col.status = f"run: {e}"
        return None
    col.version = res.get("version", "")
    if res.get("fallbacks"):  # ran eagerly: not loopopt's numbers
        col.status = "fallback: " + "; ".join(res["fallbacks"])
    per_run = []
    for r, (run, paths) in enumerate(zip(block.runs, res["saved"])):
        outs = [np.load(p) for p in paths]
        refs = {k: v[r] for k, v in references.items() if k != col.name}
        errs, mismatch = compare_run(outs, run, refs)
        judge(col, {f"{k} (run {r})" if len(block.runs) > 1 else k: v for k, v in errs.items()}, mismatch)
        per_run.append(outs)
    shutil.rmtree(save, ignore_errors=True)
    return per_run


def time_framework(block: Block, fw: Framework, regime: str, reps: int, warmup: int, flush_mib: int) -> None:
    col = fw.column
    try:
        res = run_worker(fw.python, col.name, block, reps, warmup, flush_mib if regime == "flushed" else 0,
                         vmfb=fw.vmfb)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        col.status = f"run: {e}"
        return
    col.times.setdefault(regime, []).extend(res["times"])
    if res.get("eager_times"):
        col.eager_times.setdefault(regime, []).extend(res["eager_times"])
    if res.get("fallbacks"):
        col.status = "fallback: " + "; ".join(res["fallbacks"])


# ----------------------------------------------------------------------------- one block

def timed(col: Column) -> bool:
    """Only a column that ran and is correct is timed: a WRONG one is left out of every time."""
    return col.status == "ok" and col.correct is not False


def block_work(block: Block, plain_text: str) -> dict:
    """The block's roofline facts at its first run size: FLOPs counted on the plain lowering
    (one nest per linalg op, so matmul 2*M*N*K and so on: loopopt.analysis.roofline's count),
    compulsory bytes = its inputs and outputs plus its constant weights, each once."""
    from loopopt.analysis import roofline

    try:
        work = roofline.program_work(plain_text, block.kernel, block.sizes())
    except Exception as e:  # the roofline is a report, not a reason to stop
        return {"flops": None, "flops_note": f"{type(e).__name__}: {e}"}
    weights = constant_bytes(plain_text)
    return {"flops": work.flops, "flops_exact": work.exact, "flops_note": work.why, "read_bytes": work.read_bytes,
            "written_bytes": work.written_bytes, "weight_bytes": weights,
            "bytes": work.read_bytes + work.written_bytes + weights}


def bench_block(name: str, variants=None, frameworks: dict | None = None, reps: int = 10, warmup: int = 2,
                rounds: int = 3, regimes=REGIMES, flush_mib: int = 128, log=print, out_dir: str | None = None) -> dict:
    """Every column of one block prepared and checked once, then timed `rounds` times in every
    regime, the order of columns (and of regimes) alternating each round so slow drift in the
    machine's load favours none. frameworks: {"torch": python or None, "iree": compiler or
    None, ...: why skipped}; None runs none. Each column's text goes to out_dir (default
    results/variants/models/NAME/)."""
    variants = default_variants() if variants is None else tuple(variants)
    frameworks = frameworks or {}
    block = Block(name, load_fixture(name))
    measured = {"date": time.time(), "uptime": uptime(), **git_state()}
    out_dir = out_dir or os.path.join(VARIANTS_DIR, name)
    os.makedirs(out_dir, exist_ok=True)
    lowerings = {}
    for base in sorted({v.base for v in variants}):
        try:
            lowerings[base] = lower(block, base)
        except Exception as e:
            lowerings[base] = e
    t0 = time.perf_counter()
    prepared = {v.name: prepare(block, v, lowerings, out_dir, log) for v in variants}
    fws: dict[str, Framework] = {}
    for fw_name, (tool, note) in frameworks.items():
        col = Column(fw_name, "framework")
        fw = Framework(col)
        if tool is None:
            col.status = f"skipped: {note}"
        elif fw_name == "torch":
            fw.python, col.version, col.pipeline = tool, note, "torch eager, torch.set_num_threads(1)"
        elif fw_name in RUNTIME_COLUMNS:
            fw.python, col.version = tool, note
            col.pipeline = ("loopopt.compile(BLOCK.mlir) in-process, k(*inputs, *outputs)" if fw_name == "loopopt-callable"
                            else "torch.compile(model, backend=loopopt.torch_backend), torch.set_num_threads(1)")
        elif fw_name == "iree":
            col.pipeline = "iree-compile " + " ".join(IREE_FLAGS) + "; iree.runtime local-sync"
            fw.python = sys.executable
            start = time.perf_counter()
            try:
                fw.vmfb = compile_iree(tool, block, out_dir)
                col.transform_seconds = time.perf_counter() - start
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
                col.status = f"transform: {e}"
        fws[fw_name] = fw
    # correctness: torch first (its full outputs are a reference), then plain (the affine columns' reference)
    references: dict[str, list] = {}
    if "torch" in fws and fws["torch"].column.status == "ok":
        outs = check_framework(block, fws["torch"], {}, out_dir)
        if outs is not None:
            references["torch"] = outs
    plain = prepared.get("plain")
    if plain is not None and plain.text is not None:
        got = check_affine(block, plain, references, log)
        if got is not None:
            references_affine = dict(references, plain=got["runs"])
        else:
            references_affine = dict(references)
    else:
        references_affine = dict(references)
    for vname, prep in prepared.items():
        if vname != "plain" and prep.text is not None:
            check_affine(block, prep, references_affine, log)
    for fw_name, fw in fws.items():
        if fw_name != "torch" and fw.column.status == "ok":
            check_framework(block, fw, references, out_dir)
    check_seconds = time.perf_counter() - t0
    # timing (correct columns only)
    order = [("affine", n) for n in prepared] + [("framework", n) for n in fws]
    for r in range(rounds):
        for kind, cname in (order if r % 2 == 0 else list(reversed(order))):
            for regime in (regimes if r % 2 == 0 else tuple(reversed(regimes))):
                if kind == "affine":
                    prep = prepared[cname]
                    if prep.text is not None and timed(prep.column):
                        time_affine(block, prep, regime, reps, warmup, flush_mib << 20, rounds)
                else:
                    fw = fws[cname]
                    if timed(fw.column):
                        time_framework(block, fw, regime, reps, warmup, flush_mib)
        for prep in prepared.values():  # the LLVM text is per regime and reps; free it after the block
            if r == rounds - 1:
                prep.llvm.clear()
    columns = {n: p.column for n, p in prepared.items()}
    columns.update({n: f.column for n, f in fws.items()})
    for col in columns.values():
        log("  " + models_report.column_line(name, asdict(col), regimes))
    plain_text = lowerings.get("plain")
    work = block_work(block, plain_text) if isinstance(plain_text, str) else {"flops": None}
    return {"name": name, "set": "heldout" if name in HELDOUT else "main",
            "what": block.fixture.expected.get("what", ""), "function": block.kernel,
            "sizes": block.sizes(), "run_sizes": [block.sizes(r) for r in range(len(block.runs))],
            "check_seconds": check_seconds, "measured": measured, **work, "columns": {n: asdict(c) for n, c in columns.items()}}


# ----------------------------------------------------------------------------- the machine

def machine_roofline(reps: int, warmup: int, rounds: int, flush_mib: int, log=print) -> dict:
    """Peak FLOP/s and streaming bandwidth measured in this run with benchmarks/run.py's kernels
    (tags `peak` and `bandwidth` in benchmarks/programs/), the same harness and lowering: each
    kernel's FLOPs (or bytes) over its best flushed call, the best kernel of each kind."""
    try:
        programs = [p for p in suite.load_programs() if p.has("peak") or p.has("bandwidth")]
    except Exception as e:
        return {"note": f"roofline kernels not loaded: {e}"}
    kernels = {}
    for prog in programs:
        best = None
        for _ in range(rounds):
            try:
                run = native.run_native(prog.text, prog.kernel, prog.sizes, reps=reps, warmup=warmup,
                                        flush_bytes=flush_mib << 20, temporaries=TEMPORARIES)
            except Exception as e:
                kernels[prog.name] = {"status": f"run: {e}"}
                break
            best = min(best or run.best, run.best)
        if best is None:
            continue
        work = suite.program_work(prog.text, prog.kernel, prog.sizes, prog.flops)
        if prog.has("peak") and work.flops:
            kernels[prog.name] = {"kind": "peak", "best": best, "rate": work.flops / best}
        elif prog.has("bandwidth"):
            kernels[prog.name] = {"kind": "bandwidth", "best": best, "rate": (work.read_bytes + work.written_bytes) / best}
    peak = max((k["rate"] for k in kernels.values() if k.get("kind") == "peak"), default=None)
    bw = max((k["rate"] for k in kernels.values() if k.get("kind") == "bandwidth"), default=None)
    if peak or bw:
        log(f"roofline: peak {peak and peak / 1e9:.1f} GFLOP/s, bandwidth {bw and bw / 1e9:.1f} GB/s")
    return {"peak_flops": peak, "bandwidth": bw, "kernels": kernels}


def git_state() -> dict:
    """The commit the working tree is at and how many files differ from it: engineers share the
    tree, so a long run may see code change under it (each block records its own state)."""
    def git(*args):
        p = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=60)
        return p.stdout.strip() if p.returncode == 0 else ""

    return {"commit": git("rev-parse", "--short", "HEAD"), "dirty_files": len(git("status", "--porcelain",
                                                                                   "--untracked-files=no").splitlines())}


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "load average: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def load_fixture(name: str) -> fixtures.Fixture:
    """A block's fixture from benchmarks/models/blocks/, or heldout/ for a held-out block."""
    return fixtures.load_fixture(name, HELDOUT_DIR if name in HELDOUT else fixtures.BLOCKS_DIR)


def select(only: str | None, which: str = "main") -> list[str]:
    if not only:
        return list(SETS[which])
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    known = set(fixtures.fixture_names()) | set(HELDOUT)
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise SystemExit(f"run.py: error: unknown block(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return wanted


def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 process x 3 timed calls per column and regime")
    ap.add_argument("--only", metavar="BLOCKS", help="comma-separated block names (any fixture, *_small too)")
    ap.add_argument("--set", default="main", choices=tuple(SETS), help="the blocks measured without --only: main "
                    "(default), heldout (benchmarks/models/heldout/, reported in a table of their own) or all")
    ap.add_argument("--reps", type=int, default=None, help="timed calls per process (default 10, quick 3)")
    ap.add_argument("--rounds", type=int, default=None, help="processes per column and regime (default 3, quick 1)")
    ap.add_argument("--regimes", default=",".join(REGIMES), metavar="LIST", help="flushed, warm (default both)")
    ap.add_argument("--flush-mib", type=int, default=128, metavar="MIB",
                    help="flushed regime: memory read before every timed call (default 128)")
    ap.add_argument("--nice", type=int, default=10, metavar="N",
                    help="raise the priority by N nice steps when permitted (default 10; 0: leave it)")
    ap.add_argument("--torch-python", default=None, metavar="PYTHON", help="a Python that imports torch "
                    "(default: this one, else /work/venv-torch/bin/python)")
    ap.add_argument("--no-torch", action="store_true", help="leave out the torch column")
    ap.add_argument("--no-iree", action="store_true", help="leave out the IREE column")
    ap.add_argument("--no-callable", action="store_true", help="leave out the loopopt-callable column")
    ap.add_argument("--columns", default=None, metavar="LIST",
                    help="only these columns (affine variants, torch, iree, loopopt-callable, torch-compile)")
    ap.add_argument("--no-roofline", action="store_true", help="do not measure the peak FLOP/s and bandwidth")
    ap.add_argument("--update", action="store_true", help="measure the --only blocks again with the results "
                    "file's settings and replace them in it (each block keeps its own date, load and commit)")
    ap.add_argument("--note", default="", help="with --update: why the blocks were measured again (shown in the tables)")
    ap.add_argument("--out", default=None, help="results file (default benchmarks/results/models.json; a "
                    "--quick or --only run goes to results/variants/models-partial.json)")
    a = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    regimes = tuple(r.strip() for r in a.regimes.split(",") if r.strip())
    if not regimes or set(regimes) - set(REGIMES):
        raise SystemExit(f"run.py: error: --regimes takes some of {', '.join(REGIMES)}")
    if a.flush_mib <= 0 and "flushed" in regimes:
        raise SystemExit("run.py: error: the flushed regime needs --flush-mib > 0 (or --regimes warm)")
    names = select(a.only, a.set)
    if a.update:
        return update(names, a)
    reps = a.reps or (3 if a.quick else 10)
    warmup = 1 if a.quick else 2
    rounds = a.rounds or (1 if a.quick else 3)
    niceness = bench_run.raise_priority(a.nice)
    full = not a.quick and not a.only and a.set != "heldout"
    out_path = a.out or (os.path.join(RESULTS, "models.json") if full else os.path.join(RESULTS, "variants", "models-partial.json"))
    frameworks = {}
    torch_python = find_torch_python(a.torch_python)
    frameworks["torch"] = (None, "--no-torch") if a.no_torch else torch_python
    frameworks["iree"] = (None, "--no-iree") if a.no_iree else find_iree()
    frameworks.update(runtime_frameworks(a, torch_python))
    variants = None
    if a.columns:
        wanted = set(a.columns.split(","))
        frameworks = {k: v for k, v in frameworks.items() if k in wanted}
        variants = [v for v in default_variants() if v.name in wanted]
    for fw, (tool, note) in frameworks.items():
        print(f"{fw}: {tool} ({note})" if tool else f"{fw}: column skipped: {note}")
    start = time.perf_counter()
    data = {"date": time.time(), "machine": bench_run.machine_info(), "uptime_start": uptime(), "code_start": git_state(),
            "reps": reps,
            "warmup": warmup, "rounds": rounds, "quick": a.quick, "regimes": list(regimes), "flush_mib": a.flush_mib,
            "niceness": niceness, "rtol": RTOL, "lowering": frontend.lowering_pipeline(),
            "lowering_fused": frontend.lowering_pipeline(frontend.LoweringOptions(elementwise_fusion=True)),
            "native_lowering": list(native.lowering_passes(TEMPORARIES)), "native_temporaries": TEMPORARIES, "mlir_pipelines": {k: list(v) for k, v in MLIR_PIPELINES.items()},
            "iree_flags": list(IREE_FLAGS), "frameworks": {k: {"tool": t, "note": n} for k, (t, n) in frameworks.items()},
            "blocks": []}
    print(f"{len(names)} block(s); per column and regime {rounds} process(es) of {warmup} warm-up + {reps} timed calls")
    data["roofline"] = {} if a.no_roofline else machine_roofline(reps, warmup, rounds, a.flush_mib)
    for name in names:
        print(f"{name}:")
        data["blocks"].append(bench_block(name, variants=variants, frameworks=frameworks, reps=reps, warmup=warmup,
                                          rounds=rounds, regimes=regimes, flush_mib=a.flush_mib))
        _write(out_path, data)  # a partial file survives an interrupted run
    data["wall_seconds"] = time.perf_counter() - start
    data["uptime_end"] = uptime()
    data["code_end"] = git_state()
    _write(out_path, data)
    md = models_report.write_markdown(data, os.path.join(RESULTS, "models.md") if full else out_path[:-5] + ".md")
    if full:
        models_report.quote_in_readme(os.path.join(REPO, "README.md"), data)
    print(f"done in {data['wall_seconds']:.0f} s; {os.path.relpath(out_path)}, {os.path.relpath(md)}")
    return 0


def update(names: list[str], a) -> int:
    """Measure `names` again with the settings of the results file and put them in its place
    (a block's columns are always measured side by side in one run; blocks of one file may then
    come from different runs, each with its own `measured` date, load and commit)."""
    path = a.out or os.path.join(RESULTS, "models.json")
    if not a.only or a.quick:
        raise SystemExit("run.py: error: --update takes --only BLOCKS and the file's own settings (no --quick)")
    with open(path) as f:
        data = json.load(f)
    bench_run.raise_priority(a.nice)
    torch_python = find_torch_python(a.torch_python)
    frameworks = {"torch": (None, "--no-torch") if a.no_torch else torch_python,
                  "iree": (None, "--no-iree") if a.no_iree else find_iree(), **runtime_frameworks(a, torch_python)}
    blocks = {b["name"]: b for b in data["blocks"]}
    for name in names:
        print(f"{name} (update):")
        blocks[name] = bench_block(name, frameworks=frameworks, reps=data["reps"], warmup=data["warmup"],
                                   rounds=data["rounds"], regimes=tuple(data["regimes"]), flush_mib=data["flush_mib"])
        blocks[name]["updated"] = True
        if a.note:
            blocks[name]["update_note"] = a.note
    order = [n for n in SETS["all"] if n in blocks] + [n for n in blocks if n not in SETS["all"]]
    data["blocks"] = [blocks[n] for n in order]
    _write(path, data)
    md = models_report.write_markdown(data, path[:-5] + ".md")
    if os.path.abspath(path) == os.path.join(RESULTS, "models.json"):
        models_report.quote_in_readme(os.path.join(REPO, "README.md"), data)
    print(f"updated {', '.join(names)} in {os.path.relpath(path)}; {os.path.relpath(md)}")
    return 0


def _write(path: str, data: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, default=_json_default)
    os.replace(tmp, path)


def _json_default(x):
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    raise TypeError(f"not JSON: {type(x).__name__}")


if __name__ == "__main__":
    sys.exit(main())
