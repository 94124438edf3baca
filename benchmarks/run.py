"""Benchmark loopopt against MLIR 22 on the same machine in the same run.

    python3 benchmarks/run.py              every program, every variant (writes benchmarks/results/)
    python3 benchmarks/run.py --quick      fewer repetitions
    python3 benchmarks/run.py --only chain3_1d,atax   (written to results/variants/bench-only.json)
    python3 benchmarks/run.py --scaling    compile-time scaling only (slow)
    python3 benchmarks/run.py --vector-forms   explicit vectors against LLVM's vectorizer (docs/cpu_codegen.md)
    python3 benchmarks/run.py --gemm-forms     register-tiled products against the loops LLVM vectorizes

The machine's roofline is measured in the same run: its streaming bandwidth (the `bandwidth`
kernels, copy and triad) and its peak FLOP/s (the `peak` kernels, independent vector FMAs); each
program's FLOPs and compulsory bytes are counted (loopopt.analysis.roofline) and every time is
also reported as a share of the program's attainable time.

For each program: the input, loopopt's output (also with its code generation switches on:
loopopt-fast, compared within VARIANT_RTOL) and two MLIR pipelines' outputs are verified,
lowered with one pipeline (loopopt.native.LOWERING_PASSES) and run with mlir-runner -O3 on
identical inputs; the results are compared with the input's and the kernel is timed in two
regimes: cache-flushed (every timed call preceded by reading --flush-mib MiB) and warm (the same
calls back to back, data left in the caches by the previous call).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for path in (REPO, HERE):
    if path not in sys.path:
        sys.path.insert(0, path)

from loopopt import native  # noqa: E402
from loopopt.toolchain import find_tool, mlir_opt, verify_with_mlir_opt  # noqa: E402

import report  # noqa: E402
import scaling  # noqa: E402
import suite  # noqa: E402

RESULTS = os.path.join(HERE, "results")
MLIR_FUSION = ("--affine-loop-fusion", "--affine-loop-invariant-code-motion")
# The issue's spelling (affine-scalrep at module level) is rejected by mlir-opt 22: affine-scalrep
# is a func.func pass, so it is nested with the fusion.
MLIR_GREEDY = ("--pass-pipeline=builtin.module(func.func(affine-loop-fusion{mode=greedy},affine-scalrep),canonicalize,cse)",)
VARIANTS = ("input", "loopopt", "loopopt-256", "loopopt-fast", "mlir-fusion", "mlir-greedy")
# The vector width of this machine, which mlir-runner's JIT targets (loopopt's default plan).
from loopopt.codegen.cpu.host import host_vector_bits  # noqa: E402

HOST_BITS = host_vector_bits()
# loopopt-256: loopopt --target cpu --vector-bits 256, the plan for any AVX2 core (bit-exact, as
# loopopt, which plans for this machine's registers); the same text as loopopt on a 256-bit machine.
PORTABLE_KNOBS = {"vector_bits": 256}
# loopopt-fast: loopopt with the code generation switches that give up bit-exactness
# (docs/cpu_codegen.md): math functions as polynomials (<= 1-2 ulp each), float sums reassociated,
# multiply-adds contracted into FMAs (one rounding instead of two).
FAST_KNOBS = {"approximate_math": True, "reassociate": True, "contract": True, "vector_bits": HOST_BITS}
KNOBS = {"loopopt-256": PORTABLE_KNOBS, "loopopt-fast": FAST_KNOBS}
# Its outputs are compared with the input's within this tolerance, norm-wise: each element within
# rtol times the largest magnitude of its output (checksums: rtol times the sum of magnitudes). A
# reassociated sum of n terms differs by at most ~n * 2^-24 times the sum of its terms' magnitudes
# (Higham), by ~sqrt(n) * 2^-24 in practice, whatever its own (possibly cancelled) value; a math
# function by 1-2 ulp. 1e-4 covers n = 5000 (atax).
VARIANT_RTOL = {"loopopt-fast": 1e-4}
_FAST_SCRIPT = ("import sys, loopopt; src = open(sys.argv[1]).read(); "
                "res = loopopt.optimize(src, target='cpu', filename=sys.argv[1], **{knobs}); "
                "open(sys.argv[2], 'w').write(res.text)")
# Timing regimes: "flushed" evicts the caches before every timed call, "warm" does not.
REGIMES = ("flushed", "warm")


@dataclass
class VariantResult:
    variant: str
    status: str  # "ok", or what failed: "transform: ...", "verify: ...", "run: ..."
    transform_seconds: float = 0.0
    loops: int | None = None
    placed: str = ""
    placed_bytes: int | None = None
    equal: bool | None = None  # outputs equal to the input's (None: not compared)
    mismatch: str = ""
    times: list | None = None  # the flushed regime (kept under these names for older reports)
    median: float | None = None
    best: float | None = None
    warm_times: list | None = None  # the warm regime
    warm_median: float | None = None
    warm_best: float | None = None
    same_as: str = ""  # the text is another variant's: its measurements are that variant's


def transform(program: suite.Program, variant: str, out_dir: str) -> tuple[str, float]:
    """The variant's text and the seconds it took to produce; raises RuntimeError on failure."""
    start = time.perf_counter()
    if variant == "input":
        text = program.text
    elif variant == "loopopt":
        out = os.path.join(out_dir, "loopopt.mlir")
        p = subprocess.run([sys.executable, "-m", "loopopt", program.path, "--target", "cpu", "-o", out],
                           cwd=REPO, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            line = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
            raise RuntimeError(f"loopopt exited {p.returncode}: {line}")
        text = open(out).read()
    elif variant in KNOBS:
        out = os.path.join(out_dir, f"{variant}.mlir")
        p = subprocess.run([sys.executable, "-c", _FAST_SCRIPT.format(knobs=KNOBS[variant]), program.path, out],
                           cwd=REPO, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            line = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
            raise RuntimeError(f"loopopt exited {p.returncode}: {line}")
        text = open(out).read()
    else:
        args = MLIR_FUSION if variant == "mlir-fusion" else MLIR_GREEDY
        p = mlir_opt(program.text, list(args), timeout=1800)
        if p.returncode != 0:
            raise RuntimeError("mlir-opt: " + native.first_error_line(p.stderr))
        text = p.stdout
    return text, time.perf_counter() - start


def prepare_variant(program: suite.Program, variant: str, out_dir: str) -> tuple[VariantResult, str | None]:
    """Produce, save, verify and measure statically one variant; never raises for a bad variant."""
    res = VariantResult(variant, "ok")
    try:
        text, res.transform_seconds = transform(program, variant, out_dir)
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        res.status = f"transform: {e}"
        return res, None
    with open(os.path.join(out_dir, f"{variant}.mlir"), "w") as f:
        f.write(text)
    err = verify_with_mlir_opt(text)
    if err:
        res.status = f"verify: {err}"
        return res, None
    res.loops = suite.count_loops(text)
    try:
        placed = suite.placed_bytes(text, program.kernel, program.sizes)
        res.placed, res.placed_bytes = placed.render(), placed.bytes
    except Exception as e:  # a fact we cannot compute is reported, not fatal
        res.placed = f"? ({type(e).__name__})"
    return res, text


def time_fields(regime: str) -> tuple[str, str, str]:
    """The VariantResult fields (times, median, best) of a regime."""
    prefix = "" if regime == "flushed" else f"{regime}_"
    return f"{prefix}times", f"{prefix}median", f"{prefix}best"


def measure_round(program: suite.Program, res: VariantResult, text: str, reference, reps: int, warmup: int,
                  flush_bytes: int, regime: str = "flushed"):
    """Run one variant once more in one regime (flush_bytes is 0 for "warm"); add its times to
    that regime's; compare its outputs with the reference run."""
    try:
        run = native.run_native(text, program.kernel, program.sizes, reps=reps, warmup=warmup,
                                flush_bytes=flush_bytes if regime == "flushed" else 0)
    except Exception as e:  # NativeError, or a parse error in a broken variant
        res.status = f"run: {e}"
        return None
    t_name, med_name, best_name = time_fields(regime)
    times = (getattr(res, t_name) or []) + list(run.times)
    setattr(res, t_name, times)
    setattr(res, med_name, statistics.median(times))
    setattr(res, best_name, min(times))
    if reference is not None and res.equal is not False:
        rtol = max(program.rtol, VARIANT_RTOL.get(res.variant, 0.0))
        diff = native.compare_outputs(reference.outputs, run.outputs, rtol=rtol, normwise=res.variant in VARIANT_RTOL)
        res.equal, res.mismatch = diff is None, diff or ""
    return run


def bench_program(program: suite.Program, variants, reps: int, warmup: int, rounds: int, flush_bytes: int,
                  log=print, regimes=REGIMES) -> dict:
    """Every variant prepared once, then run `rounds` times in every regime, alternating the
    order of the variants (and of the regimes) each round so slow drift in machine load does
    not favour one of them."""
    out_dir = os.path.join(RESULTS, "variants", program.name)
    os.makedirs(out_dir, exist_ok=True)
    prepared = {v: prepare_variant(program, v, out_dir) for v in variants}
    plain = prepared.get("loopopt")
    for name in KNOBS:  # the switches changed nothing: measured once, as loopopt
        other = prepared.get(name)
        if other and plain and other[1] is not None and other[1] == plain[1]:
            other[0].same_as = "loopopt"
    reference = None
    for r in range(rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for variant in order:
            for regime in (regimes if r % 2 == 0 else tuple(reversed(regimes))):
                res, text = prepared[variant]
                if text is None or res.status != "ok" or res.same_as:
                    continue
                run = measure_round(program, res, text, reference, reps, warmup, flush_bytes, regime)
                if variant == "input" and reference is None and run is not None:
                    reference, res.equal = run, True
    rows = {}
    for variant in variants:
        res = prepared[variant][0]
        if res.same_as:
            twin = prepared[res.same_as][0]
            for name in ("equal", "mismatch", "times", "median", "best", "warm_times", "warm_median", "warm_best"):
                setattr(res, name, getattr(twin, name))
        rows[variant] = asdict(res)
        shown = "  ".join(f"{regime} {getattr(res, time_fields(regime)[1]) * 1e3:8.2f} ms"
                          for regime in regimes if getattr(res, time_fields(regime)[1]) is not None) or res.status
        eq = {True: "equal", False: f"DIFFERENT ({res.mismatch})", None: ""}[res.equal]
        twin = f"  (same text as {res.same_as})" if res.same_as else ""
        log(f"  {program.name:22s} {variant:12s} loops {res.loops!s:>3s}  {shown}  {eq}{twin}")
    work = suite.program_work(program.text, program.kernel, program.sizes, program.flops)
    return {"name": program.name, "summary": program.summary, "tags": sorted(program.tags),
            "rtol": program.rtol, "read_bytes": work.read_bytes, "written_bytes": work.written_bytes,
            "flops": work.flops, "flops_exact": work.exact, "flops_note": work.why, "variants": rows}


def machine_info() -> dict:
    info = {"cpus": os.cpu_count()}
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    p = subprocess.run([find_tool("mlir-opt") or "mlir-opt", "--version"], capture_output=True, text=True)
    info["mlir_opt"] = " ".join(ln.strip() for ln in p.stdout.splitlines() if "version" in ln.lower())[:120]
    info["load_average"] = os.getloadavg()
    return info


def select(programs: list[suite.Program], only: str | None) -> list[suite.Program]:
    if not only:
        return programs
    wanted = {w.strip() for w in only.split(",") if w.strip()}
    unknown = wanted - {p.name for p in programs}
    if unknown:
        raise SystemExit(f"run.py: error: unknown program(s): {', '.join(sorted(unknown))}")
    return [p for p in programs if p.name in wanted or is_machine_kernel(p)]


def is_machine_kernel(program: suite.Program) -> bool:
    """The kernels that measure the machine's roofline (bandwidth, peak FLOP/s): run in every
    run, input variant only."""
    return program.has("bandwidth") or program.has("peak")


# ----------------------------------------------------------------------------- vector forms

def _form_kernel(body: str, rows: int, n: int, reps: int, out_rank: int) -> str:
    """A warm-cache kernel: `body` (over %i < rows, using %a, %g, %b, %out) repeated `reps` times."""
    out_t = f"memref<{rows}x{n}xf32>" if out_rank == 2 else f"memref<{rows}xf32>"
    return (f"func.func @k(%a: memref<{rows}x{n}xf32>, %g: memref<{n}xf32>, %b: memref<{n}xf32>, %out: {out_t}) {{\n"
            "  %mu = arith.constant 0.25 : f32\n  %r = arith.constant 1.5 : f32\n  %z = arith.constant 0.0 : f32\n"
            f"  affine.for %rep = 0 to {reps} {{\n  affine.for %i = 0 to {rows} {{\n{body}\n  }}\n  }}\n  return\n}}\n")


def _form_bodies(kind: str, n: int, w: int, unroll: int) -> str:
    """The innermost loop of one measured kernel: scalar (w == 0: LLVM vectorizes it) or explicit
    vector<w x f32> loads and stores unrolled `unroll` times, with a scalar remainder loop."""
    m2 = f"memref<ROWSx{n}xf32>"
    if kind == "sum":
        if not w:
            return (f"    %s = affine.for %j = 0 to {n} iter_args(%acc = %z) -> (f32) {{\n"
                    f"      %x = affine.load %a[%i, %j] : {m2}\n      %y = arith.addf %acc, %x fastmath<reassoc> : f32\n"
                    "      affine.yield %y : f32\n    }\n    affine.store %s, %out[%i] : memref<ROWSxf32>")
        vt = f"vector<{w}xf32>"
        accs = ", ".join(f"%v{u} = %vz" for u in range(unroll))
        lines = [f"    %vz = arith.constant dense<0.0> : {vt}",
                 f"    %p:{unroll} = affine.for %j = 0 to {n} step {w * unroll} iter_args({accs}) -> ("
                 + ", ".join([vt] * unroll) + ") {"]
        for u in range(unroll):
            lines += [f"      %x{u} = affine.vector_load %a[%i, %j + {u * w}] : {m2}, {vt}",
                      f"      %y{u} = arith.addf %v{u}, %x{u} : {vt}"]
        lines.append("      affine.yield " + ", ".join(f"%y{u}" for u in range(unroll)) + " : " + ", ".join([vt] * unroll))
        lines.append("    }")
        cur, k = [f"%p#{u}" for u in range(unroll)], 0
        while len(cur) > 1:
            nxt = []
            for x, y in zip(cur[::2], cur[1::2]):
                k += 1
                lines.append(f"    %t{k} = arith.addf {x}, {y} : {vt}")
                nxt.append(f"%t{k}")
            cur = nxt
        lines += [f"    %s = vector.reduction <add>, {cur[0]} : {vt} into f32",
                  "    affine.store %s, %out[%i] : memref<ROWSxf32>"]
        return "\n".join(lines)

    def scalar(lo: int) -> str:
        if kind == "exp":
            return (f"    affine.for %j = {lo} to {n} {{\n      %x = affine.load %a[%i, %j] : {m2}\n"
                    f"      %y = math.exp %x : f32\n      affine.store %y, %out[%i, %j] : {m2}\n    }}")
        return (f"    affine.for %j = {lo} to {n} {{\n      %x = affine.load %a[%i, %j] : {m2}\n"
                f"      %gg = affine.load %g[%j] : memref<{n}xf32>\n      %bb = affine.load %b[%j] : memref<{n}xf32>\n"
                "      %d = arith.subf %x, %mu : f32\n      %e = arith.mulf %d, %r : f32\n"
                "      %f = arith.mulf %e, %gg : f32\n      %y = arith.addf %f, %bb : f32\n"
                f"      affine.store %y, %out[%i, %j] : {m2}\n    }}")

    if not w:
        return scalar(0)
    vt, main = f"vector<{w}xf32>", n - n % (w * unroll)
    lines = [f"    %vmu = vector.broadcast %mu : f32 to {vt}", f"    %vr = vector.broadcast %r : f32 to {vt}",
             f"    affine.for %j = 0 to {main} step {w * unroll} {{"]
    for u in range(unroll):
        at = f"%j + {u * w}"
        lines.append(f"      %x{u} = affine.vector_load %a[%i, {at}] : {m2}, {vt}")
        if kind == "exp":
            lines.append(f"      %y{u} = math.exp %x{u} : {vt}")
        else:
            lines += [f"      %g{u} = affine.vector_load %g[{at}] : memref<{n}xf32>, {vt}",
                      f"      %b{u} = affine.vector_load %b[{at}] : memref<{n}xf32>, {vt}",
                      f"      %d{u} = arith.subf %x{u}, %vmu : {vt}", f"      %e{u} = arith.mulf %d{u}, %vr : {vt}",
                      f"      %f{u} = arith.mulf %e{u}, %g{u} : {vt}", f"      %y{u} = arith.addf %f{u}, %b{u} : {vt}"]
        lines.append(f"      affine.vector_store %y{u}, %out[%i, {at}] : {m2}, {vt}")
    lines.append("    }")
    if main < n:
        lines.append(scalar(main))
    return "\n".join(lines)


VECTOR_FORM_CASES = (  # kind, rows, n, reps: working sets in L1/L2, ~1 ms per call
    ("elementwise", 8, 1024, 1000), ("elementwise", 8, 1000, 1000), ("elementwise", 1, 8191, 1000),
    ("exp", 16, 1024, 200), ("sum", 16, 1024, 400))
VECTOR_FORMS = (("LLVM (scalar loop)", 0, 1), ("vec8", 8, 1), ("vec8 x2", 8, 2), ("vec8 x4", 8, 4), ("vec16", 16, 1))


def vector_forms(rounds: int = 3, reps: int = 10, log=print) -> list[dict]:
    """docs/cpu_codegen.md's measurement: each kernel in each form, Gelem/s of the best call over
    `rounds` alternating rounds. Math is approximated by transforms/math_approx (scalar: as the
    cpu phase emits it; vectors: the same code on vector<w x f32>), the explicit sum keeps
    `unroll` vector accumulators; every form's outputs are compared with the scalar form's."""
    from loopopt import mlir
    from loopopt.codegen.cpu.math import math_approx

    def approximate(text: str) -> str:
        module = mlir.parse_module(text)
        with module.context:
            for op in list(mlir.walk(module.operation)):
                if op.name == "math.exp":
                    math_approx.approximate(op)
            return mlir.print_module(module)

    rows_out = []
    for kind, rows, n, kreps in VECTOR_FORM_CASES:
        texts = {}
        for name, w, unroll in VECTOR_FORMS:
            if kind == "sum" and not w and unroll > 1:
                continue
            body = _form_bodies(kind, n, w, unroll).replace("ROWS", str(rows))
            texts[name] = approximate(_form_kernel(body, rows, n, kreps, 1 if kind == "sum" else 2))
        best, ref = {k: float("inf") for k in texts}, None
        for r in range(rounds):
            for name in (list(texts) if r % 2 == 0 else list(reversed(texts))):
                run = native.run_native(texts[name], "k", [None] * 4, reps=reps, warmup=2)
                best[name] = min(best[name], min(run.times))
                if ref is None:
                    ref = run.outputs
                elif native.compare_outputs(ref, run.outputs, rtol=1e-4, normwise=True) is not None:
                    raise RuntimeError(f"{kind} {name}: outputs differ")
        row = {"kernel": f"{kind} {rows}x{n}", **{k: kreps * rows * n / t / 1e9 for k, t in best.items()}}
        log("  " + "  ".join(f"{k} {v:.2f}" if isinstance(v, float) else v for k, v in row.items()))
        rows_out.append(row)
    return rows_out


# ----------------------------------------------------------------------------- GEMM forms

def _gemm_text(n: int, form: str) -> str:
    """C = A B (n x n x n, f32) as `ijk` (the dot product loop, C in iter_args), `ikj` (the axpy
    over a row LLVM vectorizes) or `uj4x16` (4 rows x 16 columns of scalar accumulators, the
    unroll-and-jam left to LLVM's SLP vectorizer)."""
    t = f"memref<{n}x{n}xf32>"
    head = f"func.func @k(%A: {t}, %B: {t}, %C: {t}) {{\n  %z = arith.constant 0.0 : f32\n"
    if form == "ijk":
        return head + (f"  affine.for %i = 0 to {n} {{\n  affine.for %j = 0 to {n} {{\n"
                       f"    %r = affine.for %k = 0 to {n} iter_args(%a = %z) -> (f32) {{\n"
                       f"      %x = affine.load %A[%i, %k] : {t}\n      %y = affine.load %B[%k, %j] : {t}\n"
                       "      %p = arith.mulf %x, %y : f32\n      %s = arith.addf %a, %p : f32\n"
                       f"      affine.yield %s : f32\n    }}\n    affine.store %r, %C[%i, %j] : {t}\n  }}\n  }}\n"
                       "  return\n}\n")
    if form == "ikj":
        return head + (f"  affine.for %i = 0 to {n} {{\n  affine.for %j = 0 to {n} {{\n"
                       f"    affine.store %z, %C[%i, %j] : {t}\n  }}\n  affine.for %k = 0 to {n} {{\n"
                       f"    %x = affine.load %A[%i, %k] : {t}\n    affine.for %j = 0 to {n} {{\n"
                       f"      %y = affine.load %B[%k, %j] : {t}\n      %c = affine.load %C[%i, %j] : {t}\n"
                       "      %p = arith.mulf %x, %y : f32\n      %s = arith.addf %c, %p : f32\n"
                       f"      affine.store %s, %C[%i, %j] : {t}\n    }}\n  }}\n  }}\n  return\n}}\n")
    mr, nr = 4, 16
    accs = ", ".join(f"%a{r}_{c} = %z" for r in range(mr) for c in range(nr))
    lines = [head + f"  affine.for %i = 0 to {n} step {mr} {{\n  affine.for %j = 0 to {n} step {nr} {{",
             f"    %r:{mr * nr} = affine.for %k = 0 to {n} iter_args({accs}) -> ({', '.join(['f32'] * mr * nr)}) {{"]
    ys = []
    for c in range(nr):
        lines.append(f"      %b{c} = affine.load %B[%k, %j + {c}] : {t}")
    for r in range(mr):
        lines.append(f"      %x{r} = affine.load %A[%i + {r}, %k] : {t}")
        for c in range(nr):
            lines += [f"      %p{r}_{c} = arith.mulf %x{r}, %b{c} : f32", f"      %y{r}_{c} = arith.addf %a{r}_{c}, %p{r}_{c} : f32"]
            ys.append(f"%y{r}_{c}")
    lines.append(f"      affine.yield {', '.join(ys)} : {', '.join(['f32'] * mr * nr)}\n    }}")
    for r in range(mr):
        for c in range(nr):
            lines.append(f"    affine.store %r#{r * nr + c}, %C[%i + {r}, %j + {c}] : {t}")
    return "\n".join(lines) + "\n  }\n  }\n  return\n}\n"


def gemm_forms(n: int = 384, rounds: int = 3, reps: int = 5, log=print) -> list[dict]:
    """docs/cpu_codegen.md's measurement for register tiling: C = A B at n^3 (the working set in
    L2), warm, best call of `rounds` alternating rounds, in GFLOP/s (2 n^3 / time): the scalar loops
    LLVM gets (dot product, axpy, scalar unroll-and-jam 4 x 16) against what
    codegen/cpu/register_tile.py emits for 256 and 512-bit vectors, with and without contract
    (every bit-exact form's outputs compared with the dot product's)."""
    from loopopt import mlir
    from loopopt.options import TARGETS, Options
    from loopopt.remarks import RemarkLog
    from loopopt.codegen.cpu.register_tile import register_tile_function

    def tiled(bits: int, contract: bool) -> tuple[str, str]:
        module = mlir.parse_module(_gemm_text(n, "ijk"))
        log_ = RemarkLog()
        with module.context:
            fn = mlir.functions(module)[0]
            register_tile_function(fn, Options(target=TARGETS["cpu"], vector_bits=bits, contract=contract), log_)
            return mlir.print_module(module), list(log_)[0].message

    texts, notes = {}, {}
    for form in ("ijk", "ikj", "uj4x16"):
        texts[f"LLVM {form}"] = _gemm_text(n, form)
    for bits in (256, 512):
        for contract in (False, True):
            name = f"tiled {bits}{' fma' if contract else ''}"
            texts[name], notes[name] = tiled(bits, contract)
    best, ref = {k: float("inf") for k in texts}, None
    for r in range(rounds):
        for name in (list(texts) if r % 2 == 0 else list(reversed(texts))):
            run = native.run_native(texts[name], "k", [None] * 3, reps=reps, warmup=1)
            best[name] = min(best[name], run.best)
            if ref is None:
                ref = run.outputs
            elif native.compare_outputs(ref, run.outputs, rtol=1e-4 if "fma" in name else 0.0,
                                        normwise="fma" in name) is not None:
                raise RuntimeError(f"gemm form {name}: outputs differ")
    rows = [{"form": k, "gflops": 2 * n ** 3 / t / 1e9, "ms": t * 1e3, "tile": notes.get(k, "")}
            for k, t in best.items()]
    for row in rows:
        log(f"  {row['form']:18s} {row['gflops']:7.1f} GFLOP/s  {row['tile']}")
    return rows


def raise_priority(step: int) -> int:
    """Lower this process's nice value by `step` where allowed (children inherit it), so that
    other work on a shared machine preempts the timed runs less; returns the niceness in force."""
    if step > 0:
        try:
            os.nice(-step)
        except OSError:
            pass
    return os.nice(0)


def _terminate(signum, frame):
    raise SystemExit(128 + signum)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 timed repetitions instead of 10")
    ap.add_argument("--only", metavar="NAMES", help="comma-separated program names (the bandwidth and peak kernels "
                    "always run)")
    ap.add_argument("--reps", type=int, default=None, help="timed kernel calls per process (default 10, quick 3)")
    ap.add_argument("--rounds", type=int, default=None, help="processes per variant, order alternating (default 3, quick 1)")
    ap.add_argument("--flush-mib", type=int, default=128, metavar="MIB",
                    help="flushed regime: read this much memory before every timed call (default 128)")
    ap.add_argument("--regimes", default=",".join(REGIMES), metavar="LIST",
                    help="timing regimes to run, comma-separated: flushed, warm (default both)")
    ap.add_argument("--nice", type=int, default=10, metavar="N",
                    help="raise the priority by N nice steps when permitted (default 10; 0: leave it)")
    ap.add_argument("--scaling", action="store_true", help="run only the compile-time scaling study")
    ap.add_argument("--vector-forms", action="store_true",
                    help="only measure explicit vector loops against LLVM's own vectorizer (docs/cpu_codegen.md)")
    ap.add_argument("--gemm-forms", action="store_true",
                    help="only measure register-tiled products against the loops LLVM vectorizes (docs/cpu_codegen.md)")
    ap.add_argument("--scaling-sizes", default=None, help="comma-separated loop counts (default 250..4000)")
    ap.add_argument("--scaling-timeout", type=float, default=300, metavar="SECONDS",
                    help="per compile; a tool that exceeds it skips the larger sizes (default 300)")
    ap.add_argument("--no-report", action="store_true", help="do not rewrite results.md and the charts")
    a = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)  # so children are cleaned up on kill
    niceness = raise_priority(a.nice)
    os.makedirs(RESULTS, exist_ok=True)
    start = time.perf_counter()
    if a.vector_forms:
        print("Gelem/s per form (warm caches, best call):")
        rows = vector_forms()
        with open(os.path.join(RESULTS, "variants", "vector-forms.json"), "w") as f:
            json.dump({"machine": machine_info(), "rows": rows}, f, indent=1)
        return 0
    if a.gemm_forms:
        print("C = A B, 384^3 f32, GFLOP/s per form (warm caches, best call):")
        rows = gemm_forms()
        with open(os.path.join(RESULTS, "variants", "gemm-forms.json"), "w") as f:
            json.dump({"machine": machine_info(), "host_vector_bits": HOST_BITS, "rows": rows}, f, indent=1)
        return 0
    if a.scaling:
        sizes = tuple(int(s) for s in a.scaling_sizes.split(",")) if a.scaling_sizes else scaling.SIZES
        print(f"compile-time scaling on chains of {', '.join(map(str, sizes))} loops")
        data = scaling.summarize(scaling.run_scaling(sizes, timeout=a.scaling_timeout))
        data["timeout"] = a.scaling_timeout
        data["niceness"] = niceness
        data["wall_seconds"] = time.perf_counter() - start
        data["machine"] = machine_info()
        with open(os.path.join(RESULTS, "scaling.json"), "w") as f:
            json.dump(data, f, indent=1)
    else:
        regimes = tuple(r.strip() for r in a.regimes.split(",") if r.strip())
        if not regimes or set(regimes) - set(REGIMES):
            raise SystemExit(f"run.py: error: --regimes takes some of {', '.join(REGIMES)}")
        if a.flush_mib <= 0 and "flushed" in regimes:
            raise SystemExit("run.py: error: the flushed regime needs --flush-mib > 0 (or --regimes warm)")
        reps = a.reps or (3 if a.quick else 10)
        warmup = 1 if a.quick else 2
        rounds = a.rounds or (1 if a.quick else 3)
        programs = select(suite.load_programs(), a.only)
        print(f"{len(programs)} programs; per variant {rounds} process(es) of {warmup} warm-up + {reps} timed calls")
        data = {"machine": machine_info(), "reps": reps, "warmup": warmup, "rounds": rounds, "quick": a.quick,
                "flush_mib": a.flush_mib, "regimes": list(regimes), "niceness": niceness,
                "lowering": list(native.LOWERING_PASSES), "mlir_fusion": list(MLIR_FUSION),
                "fast_knobs": FAST_KNOBS, "portable_knobs": PORTABLE_KNOBS, "variant_rtol": VARIANT_RTOL,
                "mlir_greedy": list(MLIR_GREEDY), "programs": []}
        for program in programs:
            variants = ("input",) if is_machine_kernel(program) else VARIANTS
            data["programs"].append(bench_program(program, variants, reps, warmup, rounds, a.flush_mib << 20,
                                                  regimes=regimes))
        data["wall_seconds"] = time.perf_counter() - start
        data["load_average_end"] = os.getloadavg()
        data["date"] = time.time()
        if a.only:  # a partial run never replaces the committed results
            path = os.path.join(RESULTS, "variants", "bench-only.json")
            with open(path, "w") as f:
                json.dump(data, f, indent=1)
            for line in report.floor_lines(data):
                print(line)
            print(f"done in {time.perf_counter() - start:.0f} s; results in {os.path.relpath(path)}")
            return 0
        with open(os.path.join(RESULTS, "bench.json"), "w") as f:
            json.dump(data, f, indent=1)
    if not a.no_report:
        report.write_all(RESULTS, scaling_files=a.scaling)
        if not a.scaling and not a.quick:
            report.quote_bench_in_readme(os.path.join(REPO, "README.md"), data)
    print(f"done in {time.perf_counter() - start:.0f} s; see {os.path.relpath(os.path.join(RESULTS, 'results.md'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
