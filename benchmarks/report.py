"""Render bench.json and scaling.json into results.md, speedups.png, scaling.md and compile_time.png."""
from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time

from suite import human_bytes

COMPARED = ("loopopt", "loopopt-256", "loopopt-fast", "mlir-fusion", "mlir-greedy")
SHORT = {"loopopt": "lo", "loopopt-256": "l256", "loopopt-fast": "lf", "mlir-fusion": "mf", "mlir-greedy": "mg"}
MLIR = ("mlir-fusion", "mlir-greedy")


STAT = "median"  # which time the tables use; "best" gives the least-disturbed call
# Timing regimes (run.py): "flushed" reads the flush buffer before every timed call, "warm" not.
REGIMES = ("flushed", "warm")
FLOOR = 0.95  # issue 12: no program may run slower than this fraction of the input's speed
# The per-program check and the side-by-side table use each variant's lower quartile of its
# timed calls ("q1"): on a shared 2-core machine a call that loses the core to another process
# for a scheduler tick or more comes out 4 ms (or 2x) slower, often for half of the calls, so a
# median moves by that much between runs; and a few calls run faster than the rest while the
# other core is idle, so the single fastest call is not robust either.
FLOOR_STAT = "q1"


def quantile(xs: list, q: float) -> float | None:
    """The q-quantile of xs (linear interpolation between order statistics)."""
    if not xs:
        return None
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _key(stat: str, regime: str) -> str:
    """The bench.json field of a statistic in a regime: the flushed regime has the plain names."""
    return stat if regime == "flushed" else f"{regime}_{stat}"


def valid_time(v: dict | None, stat: str | None = None, regime: str = "flushed") -> float | None:
    """A variant's time counts only if it ran and gave the input's results."""
    stat = stat or STAT
    if stat == "q1":
        if not v or v.get("status") != "ok" or v.get("equal") is False:
            return None
        return quantile(v.get(_key("times", regime)) or [], 0.25)
    key = _key(stat, regime)
    if not v or v.get("status") != "ok" or v.get(key) is None or v.get("equal") is False:
        return None
    return v[key]


def geomean(xs) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _fmt(x, spec=".2f", none="n/a") -> str:
    return none if x is None else format(x, spec)


def speedups(prog: dict, stat: str | None = None, regime: str = "flushed") -> dict[str, float | None]:
    """Input time over each variant's time (in one regime)."""
    base = valid_time(prog["variants"].get("input"), stat, regime)
    out = {}
    for name in COMPARED:
        t = valid_time(prog["variants"].get(name), stat, regime)
        out[name] = base / t if base and t else None
    return out


def ratio_to(prog: dict, mlir: str, stat: str | None = None, regime: str = "flushed") -> float | None:
    """MLIR variant's time over loopopt's: above 1 means loopopt's program is faster."""
    lo = valid_time(prog["variants"].get("loopopt"), stat, regime)
    ml = valid_time(prog["variants"].get(mlir), stat, regime)
    return ml / lo if lo and ml else None


def regimes_of(bench: dict) -> tuple[str, ...]:
    """The regimes a bench.json holds (an older file has only the flushed one)."""
    return tuple(bench.get("regimes") or ("flushed",))


def slow_programs(bench: dict, floor: float = FLOOR, stat: str = FLOOR_STAT) -> list[tuple[str, str, float]]:
    """(program, regime, loopopt speedup) for every program loopopt slows below `floor`."""
    out = []
    for p in _programs(bench):
        for regime in regimes_of(bench):
            sp = speedups(p, stat, regime)["loopopt"]
            if sp is not None and sp < floor:
                out.append((p["name"], regime, sp))
    return out


def slowest(bench: dict, regime: str, stat: str = FLOOR_STAT) -> tuple[str, float] | None:
    """loopopt's lowest speedup in a regime and its program."""
    cells = [(speedups(p, stat, regime)["loopopt"], p["name"]) for p in _programs(bench)]
    cells = [(sp, n) for sp, n in cells if sp is not None]
    if not cells:
        return None
    sp, name = min(cells)
    return name, sp


def bandwidths(bench: dict) -> dict[str, float]:
    """Bytes/s of each bandwidth kernel: (bytes read + bytes written) / best time."""
    out = {}
    for prog in bench["programs"]:
        t = valid_time(prog["variants"].get("input"), "best")
        if "bandwidth" in prog["tags"] and t:
            out[prog["name"]] = (prog["read_bytes"] + prog["written_bytes"]) / t
    return out


def copy_bandwidth(bench: dict) -> float | None:
    """The machine's streaming bandwidth: the best of the bandwidth kernels."""
    return max(bandwidths(bench).values(), default=None)


def peaks(bench: dict) -> dict[str, float]:
    """FLOP/s of each peak kernel: its FLOPs / its best time (flushed regime)."""
    out = {}
    for prog in bench["programs"]:
        t = valid_time(prog["variants"].get("input"), "best")
        if "peak" in prog["tags"] and t and prog.get("flops"):
            out[prog["name"]] = prog["flops"] / t
    return out


def peak_flops(bench: dict) -> float | None:
    """The machine's peak FLOP/s: the best of the peak kernels (each vector width its own kernel)."""
    return max(peaks(bench).values(), default=None)


def attainable(prog: dict, peak: float | None, bw: float | None) -> float | None:
    """The program's roofline time: max(FLOPs / peak, compulsory bytes / bandwidth)."""
    flops = prog.get("flops")
    if flops is None or not peak or not bw:
        return None
    return max(flops / peak, (prog["read_bytes"] + prog["written_bytes"]) / bw)


def roofline_share(prog: dict, variant: str, peak: float | None, bw: float | None,
                   regime: str = "flushed") -> float | None:
    """Attainable time / the variant's best time: 1.0 runs at the roofline."""
    t_roof = attainable(prog, peak, bw)
    t = valid_time(prog["variants"].get(variant), "best", regime)
    return t_roof / t if t_roof and t else None


def machine_line(bench: dict) -> str:
    """The roofline of the core, as measured in this run."""
    bw, peak = copy_bandwidth(bench), peak_flops(bench)
    kernels = ", ".join(f"{name} {rate / 1e9:.1f} GFLOP/s" for name, rate in peaks(bench).items()) or "n/a"
    ridge = f"; ridge point {peak / bw:.1f} FLOP/byte" if peak and bw else ""
    return (f"Roofline of this core, measured in this run (one thread, the same lowering): peak "
            f"**{_fmt(peak and peak / 1e9, '.1f')} GFLOP/s** ({kernels}), streaming bandwidth "
            f"**{_fmt(bw and bw / 1e9, '.1f')} GB/s**{ridge}.")


def _equal_cell(v: dict | None) -> str:
    if not v:
        return "—"
    if v["status"] != "ok":
        return "FAIL (" + v["status"].split(":")[0] + ")"
    return {True: "yes", False: "NO", None: "?"}[v["equal"]]


def _programs(bench: dict) -> list[dict]:
    return [p for p in bench["programs"] if "bandwidth" not in p["tags"] and "peak" not in p["tags"]]


def geomean_rows(bench: dict, regime: str = "flushed") -> list[tuple[str, int, dict]]:
    groups = [("all programs", lambda p: True, None), ("symbolic bounds", lambda p: "symbolic" in p["tags"], None),
              ("static bounds", lambda p: "symbolic" not in p["tags"], None),
              ("memory-bound chains", lambda p: "memory" in p["tags"], None),
              ("all programs, best calls", lambda p: True, "best"),
              ("symbolic bounds, best calls", lambda p: "symbolic" in p["tags"], "best"),
              ("all programs, lower quartile", lambda p: True, "q1"),
              ("static bounds, lower quartile", lambda p: "symbolic" not in p["tags"], "q1")]
    rows = []
    for label, keep, stat in groups:
        progs = [p for p in _programs(bench) if keep(p)]
        if not progs:
            continue
        cells = {name: geomean(speedups(p, stat, regime)[name] for p in progs) for name in COMPARED}
        for m in MLIR:
            cells[f"vs {m}"] = geomean(ratio_to(p, m, stat, regime) for p in progs)
        rows.append((label, len(progs), cells))
    return rows


def _regime_text(bench: dict) -> str:
    parts = []
    for regime in regimes_of(bench):
        if regime == "flushed":
            parts.append(f"**flushed**: each timed call preceded by reading {bench.get('flush_mib', 0)} MiB to evict "
                         "the caches")
        else:
            parts.append("**warm**: the timed calls back to back, so data the previous call left in the caches "
                         "stays there (as in a hot inner kernel)")
    return "; ".join(parts)


def _speedup_cell(x: float | None) -> str:
    if x is None:
        return "—"
    cell = f"{x:.2f}×"
    return f"**{cell}**" if x < FLOOR else cell


def floor_lines(bench: dict) -> list[str]:
    """Issue 12's check: no program slower than FLOOR in either regime, and the slowest ones."""
    slow = slow_programs(bench)
    worst = []
    for regime in regimes_of(bench):
        w = slowest(bench, regime)
        if w is not None:
            worst.append(f"{regime} {w[0]} {w[1]:.2f}×")
    verdict = ("none" if not slow else ", ".join(f"{n} ({r} {sp:.2f}×)" for n, r, sp in slow))
    return [f"Programs loopopt makes slower than {FLOOR:.2f}× of the input (lower quartile of the calls): **{verdict}**. "
            f"Slowest loopopt speedup per regime: {'; '.join(worst) or 'n/a'}."]


def geomean_table(bench: dict) -> list[str]:
    """Geometric-mean speedups, one column per variant and regime."""
    regimes = regimes_of(bench)
    head = [f"{n} {r}" for n in COMPARED for r in regimes] + [f"loopopt vs {m} {r}" for m in MLIR for r in regimes]
    lines = ["| programs | n | " + " | ".join(head) + " |", "|---|---:|" + "---:|" * len(head)]
    by_regime = {r: geomean_rows(bench, r) for r in regimes}
    for k, (label, n, _) in enumerate(by_regime[regimes[0]]):
        cells = [_fmt(by_regime[r][k][2][name]) + "×" for name in COMPARED for r in regimes]
        cells += [_fmt(by_regime[r][k][2][f"vs {m}"]) for m in MLIR for r in regimes]
        lines.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
    return lines


def bench_markdown(bench: dict) -> list[str]:
    m = bench["machine"]
    lines = [
        f"Machine: {m.get('cpu', '?')}, {m.get('cpus')} CPUs, {m.get('memory_gib', '?')} GiB; {m.get('mlir_opt', '')}; "
        f"load average at start {', '.join(f'{x:.2f}' for x in m.get('load_average', []))}.",
        f"Each variant runs in {bench.get('rounds', 1)} mlir-runner -O3 process(es) per regime (variant and regime "
        f"order alternating), each {bench['warmup']} warm-up call(s) then {bench['reps']} timed kernel calls. "
        f"Regimes: {_regime_text(bench)}. Times are medians over all timed "
        f"calls. Whole run: {bench['wall_seconds']:.0f} s{' (--quick)' if bench.get('quick') else ''}; load average "
        f"at the end {', '.join(f'{x:.2f}' for x in bench.get('load_average_end', []))}; niceness "
        f"{bench.get('niceness', 0)}.",
        "",
    ]
    bw = copy_bandwidth(bench)
    kernels = ", ".join(f"{name} {rate / 1e9:.1f} GB/s" for name, rate in bandwidths(bench).items())
    lines += [f"Measured memory bandwidth (bytes read + bytes written by a streaming kernel / its best time, "
              f"flushed regime; the best one is the reference): {kernels or 'n/a'} → "
              f"**{_fmt(bw and bw / 1e9, '.1f')} GB/s**.", "", machine_line(bench), ""]
    lines += floor_lines(bench) + [""]
    lines += ["## Geometric means", "",
              "Speedup = input time / variant time, per regime. `vs X` = X's time / loopopt's time (above 1: loopopt "
              "faster). A variant that failed or changed the results is left out of its mean.", ""]
    lines += geomean_table(bench)
    lines += ["", "## Per program: results, loops, intermediate bytes", "",
              "Equal: the variant's printed outputs (every memref argument, every result) equal the input's "
              "(exactly, unless the program sets an rtol; loopopt-fast within "
              f"{bench.get('variant_rtol', {}).get('loopopt-fast', 0):g} relative, as its switches give up "
              "bit-exactness: docs/cpu_codegen.md). Loops: affine.for ops. Intermediate: bytes of "
              "memref.alloc/alloca in the kernel at the benchmark sizes.", "",
              "| program | tags | equal " + " / ".join(SHORT[n] for n in COMPARED) + " | loops in / "
              + " / ".join(SHORT[n] for n in COMPARED) + " | intermediate in / " + " / ".join(SHORT[n] for n in COMPARED)
              + " |",
              "|---|---|---|---|---|"]
    for p in _programs(bench):
        v = p["variants"]
        eq = " / ".join(_equal_cell(v.get(n)) for n in COMPARED)
        loops = " / ".join(str(v[n]["loops"]) if v.get(n) and v[n]["loops"] is not None else "—" for n in ("input",) + COMPARED)
        placed = " / ".join(v[n]["placed"] or "—" if v.get(n) else "—" for n in ("input",) + COMPARED)
        lines.append(f"| {p['name']} | {', '.join(p['tags'])} | {eq} | {loops} | {placed} |")
    regimes = regimes_of(bench)
    lines += ["", "## Per program: speedups, flushed and warm side by side", "",
              f"Speedup = input time / variant time, each the lower quartile of the variant's timed calls (on "
              f"this shared machine a call that loses the core for a scheduler tick comes out 4 ms or 2x "
              f"slower, often for half of the calls, and a few run fast while the other core idles; the lower "
              f"quartile is robust to both); below {FLOOR:.2f}× in bold. Medians and best calls are in the "
              f"time tables below.", "",
              "| program | " + " | ".join(f"{n} {r}" for n in COMPARED for r in regimes) + " |",
              "|---|" + "---:|" * (len(COMPARED) * len(regimes))]
    for p in _programs(bench):
        cells = [_speedup_cell(speedups(p, FLOOR_STAT, r)[n]) for n in COMPARED for r in regimes]
        lines.append(f"| {p['name']} | " + " | ".join(cells) + " |")
    for regime in regimes:
        lines += ["", f"## Per program: kernel time, {regime}", "",
                  "Times: median (best) in ms. Speedups and ratios use the medians.", "",
                  "| program | input ms | " + " | ".join(f"{n} ms" for n in COMPARED) + " | "
                  + " | ".join(f"{n} speedup" for n in COMPARED) + " | loopopt vs mlir-fusion | loopopt vs mlir-greedy |",
                  "|---|---:|" + "---:|" * (2 * len(COMPARED) + 2)]
        for p in _programs(bench):
            v = p["variants"]
            ms = [_ms_cell(v.get(n), regime) for n in ("input",) + COMPARED]
            sp = speedups(p, None, regime)
            lines.append(f"| {p['name']} | " + " | ".join(ms) + " | "
                         + " | ".join(_fmt(sp[n], ".2f", "—") + ("×" if sp[n] else "") for n in COMPARED) + " | "
                         + " | ".join(_fmt(ratio_to(p, mm, None, regime), ".2f", "—") for mm in MLIR) + " |")
    lines += roofline_markdown(bench)
    lines += gflops_markdown(bench)
    lines += bandwidth_markdown(bench, bw)
    fails = [(p["name"], n, v) for p in bench["programs"] for n, v in p["variants"].items()
             if v["status"] != "ok" or v["equal"] is False]
    if fails:
        lines += ["", "## Failures and mismatches", ""]
        for name, variant, v in fails:
            why = v["status"] if v["status"] != "ok" else f"outputs differ: {v['mismatch']}"
            lines.append(f"- {name} / {variant}: {why}")
    return lines


def _ms_cell(v: dict | None, regime: str = "flushed") -> str:
    med, best = valid_time(v, None, regime), valid_time(v, "best", regime)
    return "—" if med is None else f"{med * 1e3:.2f} ({best * 1e3:.2f})"


def roofline_markdown(bench: dict) -> list[str]:
    """Each program's FLOPs, compulsory bytes, attainable time and every variant's share of it."""
    bw, peak = copy_bandwidth(bench), peak_flops(bench)
    names = [n for n in ("input",) + COMPARED if any(n in p["variants"] for p in _programs(bench))]
    lines = ["", "## Per program against the roofline", "",
             machine_line(bench), "",
             "FLOPs: floating-point arithmetic ops per execution and lane (fma 2, a math function 1), counted from "
             "the input program at its benchmark sizes (`loopopt.analysis.roofline`; *declared* when the program "
             "header gives `bench.flops`, *over* when an op under a condition was counted as always running). "
             "Compulsory bytes: every memref argument read once and every one written once. Attainable = "
             "max(FLOPs / peak, bytes / bandwidth); % of roofline = attainable / best call (flushed regime).", "",
             "| program | GFLOP | compulsory MB | FLOP/byte | bound | attainable ms | "
             + " | ".join(f"% of roofline {n}" for n in names) + " |",
             "|---|---:|---:|---:|---|---:|" + "---:|" * len(names)]
    for p in _programs(bench):
        flops, nbytes = p.get("flops"), p["read_bytes"] + p["written_bytes"]
        t_roof = attainable(p, peak, bw)
        bound = "—" if t_roof is None else ("compute" if flops / peak >= nbytes / bw else "memory")
        note = " (declared)" if p.get("flops_note") == "declared" else ("" if p.get("flops_exact", True) else " (over)")
        cells = [_fmt(flops and flops / 1e9, ".3f") + note if flops is not None else "?",
                 f"{nbytes / 1e6:.1f}", _fmt(flops / nbytes if flops is not None and nbytes else None, ".2f", "—"),
                 bound, _fmt(t_roof and t_roof * 1e3, ".3f", "—")]
        cells += [_fmt(_pct(roofline_share(p, n, peak, bw)), ".1f", "—") + ("%" if roofline_share(p, n, peak, bw)
                                                                             else "") for n in names]
        lines.append(f"| {p['name']} | " + " | ".join(cells) + " |")
    return lines


def gflops_markdown(bench: dict) -> list[str]:
    """GFLOP/s (counted FLOPs / best call, flushed) and % of the measured peak of every variant,
    for the programs with at least one FLOP per compulsory byte (those a core's arithmetic can
    limit: the products, the stencils)."""
    peak = peak_flops(bench)
    names = [n for n in ("input",) + COMPARED if any(n in p["variants"] for p in _programs(bench))]
    progs = [p for p in _programs(bench) if p.get("flops") and p["flops"] >= p["read_bytes"] + p["written_bytes"]]
    if not progs or not peak:
        return []
    lines = ["", "## GFLOP/s of the compute-bound programs", "",
             f"Counted FLOPs / best call (flushed regime), and the share of the measured peak "
             f"({peak / 1e9:.1f} GFLOP/s) in parentheses. loopopt plans for this machine's vector registers "
             "(its default); loopopt-256 for AVX2's 256 bits (`--vector-bits 256`), bit-exact like loopopt.", "",
             "| program | GFLOP | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    for p in progs:
        cells = []
        for n in names:
            t = valid_time(p["variants"].get(n), "best")
            cells.append("—" if not t else f"{p['flops'] / t / 1e9:.1f} ({100 * p['flops'] / t / peak:.0f}%)")
        lines.append(f"| {p['name']} | {p['flops'] / 1e9:.3f} | " + " | ".join(cells) + " |")
    return lines


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def bandwidth_markdown(bench: dict, bw: float | None) -> list[str]:
    lines = ["", "## Memory-bound chains against the measured bandwidth", "",
             "Ideal bytes = every memref argument the kernel reads, read once, plus every one it writes, written once. "
             "Achieved = ideal bytes / best time (the physical question is what the code can reach, "
             "so the least-disturbed call is used, as for the reference kernels); % = of the measured bandwidth above.", "",
             "| program | ideal bytes | " + " | ".join(f"{n} GB/s" for n in ("input",) + COMPARED) + " |",
             "|---|---:|" + "---:|" * (1 + len(COMPARED))]
    for p in _programs(bench):
        if "memory" not in p["tags"]:
            continue
        ideal = p["read_bytes"] + p["written_bytes"]
        cells = []
        for n in ("input",) + COMPARED:
            t = valid_time(p["variants"].get(n), "best")
            if t is None:
                cells.append("—")
            else:
                rate = ideal / t
                cells.append(f"{rate / 1e9:.1f} ({100 * rate / bw:.0f}%)" if bw else f"{rate / 1e9:.1f}")
        lines.append(f"| {p['name']} | {human_bytes(ideal)} | " + " | ".join(cells) + " |")
    return lines


def _seconds_cell(m: dict | None) -> str:
    if m is None:
        return "—"
    if m["seconds"] is not None:
        return f"{m['seconds']:.2f}"
    status = m["status"]
    if status.startswith("timeout"):
        return f"> {status[len('timeout ('):].rstrip(')')} (timeout)"
    if status.startswith("skipped"):
        return "skipped"
    return "FAIL (" + status.split(":")[0] + ")"


def _exponent_cell(fit: dict) -> str:
    if fit.get("exponent_last") is not None:
        return f"{fit['exponent_last']:.2f}"
    if fit.get("exponent_at_least") is not None:
        return f"≥ {fit['exponent_at_least']:.2f}"
    return "n/a"


def _yes(flag: bool) -> str:
    return "yes" if flag else "**NO**"


def scaling_target_markdown(sc: dict) -> list[str]:
    """The issues' targets per pattern and loopopt tool, at the largest size: the pattern's time
    goal (faster than mlir-opt, within 2x of max(mlir-opt, 0.5 s), or under a bound) on wall
    time and on CPU time, and its growth limit."""
    lines = ["| pattern | largest N | loopopt tool | loopopt s | fastest mlir-opt s | k (last two) | "
             "k net of start-up | k on CPU time | goal | met | met on CPU time | k ≤ limit |",
             "|---|---:|---|---:|---:|---:|---:|---:|---|---|---|---|"]
    for v in sc.get("verdicts", []):
        fit = sc["fits"][v["pattern"]][v["tool"]]
        mlir = _fmt(v["mlir_seconds"], ".2f", v["mlir_status"].split(":")[0] if v["mlir_tool"] else "not run")
        if v["mlir_tool"] and v["mlir_seconds"] is None and v["mlir_status"].startswith("timeout"):
            mlir = "> " + v["mlir_status"][len("timeout ("):].rstrip(")") + " (timeout)"
        elif v["mlir_tool"] and v["mlir_status"].startswith("skipped (timed out at "):
            at = v["mlir_status"][len("skipped (timed out at "):].rstrip(")")
            mlir = f"> {sc.get('timeout', 0):.0f} s already at N = {at} (timeout)"
        limit = v.get("limit", sc.get("target_exponent", 1.3))
        cpu_ok = v.get("cpu_ok")
        lines.append(f"| {v['pattern']} | {v['size']} | {v['tool']} | {_fmt(v['seconds'], '.2f', 'FAIL')} | {mlir} | "
                     f"{_fmt(v['exponent_last'])} | {_fmt(fit.get('exponent_last_net'), '.2f', '—')} | "
                     f"{_fmt(fit.get('exponent_last_cpu'), '.2f', '—')} | {v.get('goal', 'faster than mlir-opt')} | "
                     f"{_yes(v['faster'])} | {'—' if cpu_ok is None else _yes(cpu_ok)} | "
                     f"{_yes(v['grows_ok'])} ({limit:g}) |")
    return lines


def scaling_pattern_markdown(sc: dict, pattern: str) -> list[str]:
    """Seconds per size and tool for one pattern, then the exponents, peak RSS and loops left."""
    ms = [m for m in sc["measurements"] if m["pattern"] == pattern]
    tools = list(dict.fromkeys(m["tool"] for m in ms))
    sizes = sorted({m["size"] for m in ms})
    at = {(m["tool"], m["size"]): m for m in ms}
    unit = sc.get("units", {}).get(pattern, "")
    lines = [f"### {pattern}", "", f"N = {unit}; seconds of one process per compile.", "",
             f"| N | " + " | ".join(tools) + " |", "|---:|" + "---:|" * len(tools)]
    for n in sizes:
        lines.append(f"| {n} | " + " | ".join(_seconds_cell(at.get((t, n))) for t in tools) + " |")
    fits = sc["fits"][pattern]
    largest = sizes[-1]
    lines.append("| k (last two) | " + " | ".join(_exponent_cell(fits[t]) for t in tools) + " |")
    lines.append("| k (fit, all N) | " + " | ".join(_fmt(fits[t].get("exponent")) for t in tools) + " |")
    lines.append(f"| CPU s at {largest} | " + " | ".join(
        _fmt((at.get((t, largest)) or {}).get("cpu_seconds"), ".2f", "—") for t in tools) + " |")
    lines.append("| k on CPU time (last two) | " + " | ".join(
        _fmt(fits[t].get("exponent_last_cpu"), ".2f", "—") for t in tools) + " |")
    lines.append(f"| peak MiB at {largest} | " + " | ".join(
        _fmt((at.get((t, largest)) or {}).get("peak_rss_mib"), ".0f", "—") for t in tools) + " |")
    lines.append(f"| loops after at {largest} | " + " | ".join(
        _fmt((at.get((t, largest)) or {}).get("loops_after"), "d", "—") for t in tools) + " |")
    return lines


def scaling_markdown(sc: dict) -> list[str]:
    """The scaling section: the issue-13 target table, then one table per pattern."""
    m = sc.get("machine", {})
    limit = sc.get("target_exponent", 1.3)
    startup = sc.get("startup_seconds")
    lines = ["## Compile-time scaling", "",
             f"Machine: {m.get('cpu', '?')}, {m.get('cpus', '?')} CPUs; {m.get('mlir_opt', '')}; load average at "
             f"start {', '.join(f'{x:.2f}' for x in m.get('load_average', []))}; niceness {sc.get('niceness', 0)}. "
             f"Per compile timeout {sc.get('timeout', 0):.0f} s (a tool that times out skips the larger sizes of "
             f"that pattern); whole run {sc.get('wall_seconds', 0):.0f} s"
             + (" (--quick)" if sc.get("quick") else "") + ".",
             f"loopopt's start-up on an empty function: {_fmt(startup, '.2f')} s.", "",
             f"k = log(t2/t1) / log(N2/N1) between the two largest sizes that ran (≥: a lower bound from a "
             f"timeout); 'net of start-up' subtracts loopopt's start-up from both times first; 'on CPU time' uses "
             f"the user + system time of each compile instead of its wall time (a loaded machine stretches the "
             f"wall time of each process by a different factor). Targets: at the largest N every loopopt tool "
             f"meets its pattern's goal (issue 13: faster than the fastest mlir-opt tool; issue 38: single loops "
             f"within 2x of max(mlir-opt, 0.5 s), start-up included, the in-place chain at 2,000 loops under "
             f"10 s), and k ≤ the pattern's limit ({limit:g} by default, 1.2 for issue 38's layouts).", ""]
    lines += scaling_target_markdown(sc)
    for pattern in sc["fits"]:
        lines += [""] + scaling_pattern_markdown(sc, pattern)
    return lines


def write_scaling(results_dir: str) -> None:
    """scaling.md and compile_time.png from scaling.json."""
    sc = _load(os.path.join(results_dir, "scaling.json"))
    if not sc:
        return
    lines = ["# loopopt compile-time scaling", "",
             f"Generated {time.strftime('%Y-%m-%d %H:%M')} from scaling.json (`python3 benchmarks/scaling.py`). "
             "The patterns are described in benchmarks/README.md.", ""]
    lines += scaling_markdown(sc)[2:] + ["", "![compile time](compile_time.png)"]
    with open(os.path.join(results_dir, "scaling.md"), "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")
    try:
        compile_chart(sc, os.path.join(results_dir, "compile_time.png"))
    except ImportError as e:  # scaling.md is written; the chart needs matplotlib
        print(f"report.py: compile_time.png not regenerated ({e})", file=sys.stderr)


README_BEGIN = "<!-- scaling-target: generated from results/scaling.json by report.py; do not edit -->"
README_END = "<!-- end of scaling-target -->"


def replace_between(path: str, begin: str, end: str, lines: list[str]) -> bool:
    """Replace the text from marker `begin` to marker `end` (both kept) in a file with `lines`;
    False (file untouched) when either marker is missing."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return False
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        return False
    body = "\n".join([begin, *lines, end])
    with open(path, "w") as f:
        f.write(text[:start] + body + text[stop + len(end):])
    return True


def quote_in_readme(readme_path: str, sc: dict) -> bool:
    """Replace the text between README_BEGIN and README_END in the README with the target table
    (so the README never carries hand-typed numbers); False when the markers are missing."""
    m = sc.get("machine", {})
    when = f" of {sc['date']}" if sc.get("date") else ""
    run = (f"Run{when}: {sc.get('wall_seconds', 0):.0f} s, niceness {sc.get('niceness', 0)}, "
           f"load average at start {', '.join(f'{x:.2f}' for x in m.get('load_average', []))}, "
           f"loopopt start-up {_fmt(sc.get('startup_seconds'))} s, timeout {sc.get('timeout', 0):.0f} s per compile.")
    return replace_between(readme_path, README_BEGIN, README_END, [run, ""] + scaling_target_markdown(sc))


BENCH_BEGIN = "<!-- bench-results: generated from benchmarks/results/bench.json by benchmarks/report.py; do not edit -->"
BENCH_END = "<!-- end of bench-results -->"


def roofline_lines(bench: dict) -> list[str]:
    """One README line: loopopt's GFLOP/s and share of the measured peak on the compute-bound
    programs (as gflops_markdown), and the range of its share of the measured bandwidth on the
    memory-bound chains (as bandwidth_markdown)."""
    peak, bw = peak_flops(bench), copy_bandwidth(bench)
    if not peak or not bw:
        return []
    compute, shares = [], []
    for p in _programs(bench):
        t = valid_time(p["variants"].get("loopopt"), "best")
        if t is None:
            continue
        if p.get("flops") and p["flops"] >= p["read_bytes"] + p["written_bytes"]:
            compute.append(f"{p['name']} {p['flops'] / t / 1e9:.1f} GFLOP/s ({100 * p['flops'] / t / peak:.0f}%)")
        if "memory" in p["tags"]:
            shares.append(100 * (p["read_bytes"] + p["written_bytes"]) / t / bw)
    out = [f"Against the roofline measured in the same run (peak {peak / 1e9:.1f} GFLOP/s, streaming bandwidth "
           f"{bw / 1e9:.1f} GB/s; loopopt's best call): on the programs of at least one FLOP per compulsory byte "
           f"{', '.join(compute) or 'none'}"]
    if shares:
        out[0] += (f"; the {len(shares)} memory-bound chains at {min(shares):.0f}-{max(shares):.0f}% of the bandwidth "
                   f"(median {statistics.median(shares):.0f}%)")
    out[0] += "."
    return out


def readme_bench_markdown(bench: dict) -> list[str]:
    """The README's results table: geometric-mean speedups per group, each variant in each
    regime, then the per-program floor check."""
    regimes = regimes_of(bench)
    by_regime = {r: geomean_rows(bench, r) for r in regimes}
    head = [f"{n} {r}" for n in COMPARED for r in regimes]
    lines = ["| geometric-mean speedup over the input | " + " | ".join(head) + " |",
             "|---|" + "---:|" * len(head)]
    labels = {"all programs": "all {n} programs (medians)", "symbolic bounds": "{n} symbolic-bound programs (medians)",
              "static bounds": "{n} static programs (medians)",
              "all programs, lower quartile": "all {n} programs (lower quartile)",
              "static bounds, lower quartile": "{n} static programs (lower quartile)"}
    for k, (label, n, _) in enumerate(by_regime[regimes[0]]):
        if label not in labels:
            continue
        cells = [_fmt(by_regime[r][k][2][name]) + "x" for name in COMPARED for r in regimes]
        lines.append(f"| {labels[label].format(n=n)} | " + " | ".join(cells) + " |")
    when = time.strftime("%Y-%m-%d", time.localtime(bench["date"])) if bench.get("date") else ""
    lines += ["", *floor_lines(bench), "", *roofline_lines(bench), "",
              f"Run{' of ' + when if when else ''}: {bench.get('wall_seconds', 0):.0f} s, {bench.get('rounds', 1)} "
              f"process(es) x {bench.get('reps')} timed calls per variant and regime"
              f"{' (--quick)' if bench.get('quick') else ''}; flushed = {bench.get('flush_mib', 0)} MiB read before "
              "every timed call, warm = calls back to back."]
    return lines


def quote_bench_in_readme(readme_path: str, bench: dict) -> bool:
    """The README's benchmark table, regenerated from bench.json between BENCH_BEGIN and BENCH_END."""
    return replace_between(readme_path, BENCH_BEGIN, BENCH_END, readme_bench_markdown(bench))


def speedup_chart(bench: dict, path: str) -> None:
    """One bar panel per regime: each variant's speedup over the input, per program (log)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    progs = _programs(bench)
    names = [p["name"] for p in progs]
    regimes = regimes_of(bench)
    fig, axes = plt.subplots(len(regimes), 1, figsize=(max(8, 0.55 * len(names)), 4.2 * len(regimes)),
                             squeeze=False)
    width = 0.8 / len(COMPARED)
    for ax, regime in zip(axes.flat, regimes):
        for k, variant in enumerate(COMPARED):
            vals = [speedups(p, FLOOR_STAT, regime)[variant] or 0 for p in progs]
            ax.bar([i + (k - (len(COMPARED) - 1) / 2) * width for i in range(len(names))], vals, width, label=variant)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(FLOOR, color="red", linewidth=0.6, linestyle="--")
        ax.set_yscale("log")
        ax.set_ylabel("speedup over the input (log)")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
        ax.set_title(f"Kernel speedup over the unoptimised input, {regime} caches "
                     "(mlir-runner -O3, lower quartile of the calls)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def compile_chart(sc: dict, path: str) -> None:
    """One log-log panel per pattern: seconds against N per tool; a timeout is an x at its limit."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter
    patterns = list(sc["fits"])
    cols = 3
    rows = (len(patterns) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False)
    colors = {}
    for ax, pattern in zip(axes.flat, patterns):
        ms = [m for m in sc["measurements"] if m["pattern"] == pattern]
        for tool in dict.fromkeys(m["tool"] for m in ms):
            color = colors.setdefault(tool, f"C{len(colors)}")
            pts = sorted((m["size"], m["seconds"]) for m in ms if m["tool"] == tool and m["seconds"])
            k = sc["fits"][pattern][tool].get("exponent_last")
            label = f"{tool} (k={k:.2f})" if k is not None else tool
            if pts:
                ax.plot([n for n, _ in pts], [t for _, t in pts], marker="o", color=color, label=label)
            late = [(m["size"], float(m["status"][len("timeout ("):].split()[0]))
                    for m in ms if m["tool"] == tool and m["status"].startswith("timeout (")]
            if late:
                ax.plot([n for n, _ in late], [t for _, t in late], marker="x", markersize=10, linestyle="none",
                        color=color)
        sizes = sorted({m["size"] for m in ms})
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(n) for n in sizes], fontsize=7)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(f"N ({sc.get('units', {}).get(pattern, '')})", fontsize=8)
        ax.set_ylabel("seconds", fontsize=8)
        ax.set_title(pattern, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(patterns):]:
        ax.axis("off")
    fig.suptitle("Compile time against size (log-log; x = timed out at the per-compile limit)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_all(results_dir: str, speedup_png: bool = True, scaling_files: bool = True) -> None:
    """results.md (+ charts, + scaling.md) from whichever of bench.json / scaling.json exist;
    speedup_png=False leaves speedups.png as it is (a scaling-only run); scaling_files=False
    leaves scaling.md and compile_time.png as they are (a benchmark-only run)."""
    bench = _load(os.path.join(results_dir, "bench.json"))
    sc = _load(os.path.join(results_dir, "scaling.json"))
    lines = ["# loopopt benchmark results", "",
             f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `python3 benchmarks/run.py` "
             "(scaling: `python3 benchmarks/scaling.py`). See benchmarks/README.md for the columns.", ""]
    if bench:
        lines += bench_markdown(bench)
        lines += ["", "![speedups](speedups.png)", ""]
        if speedup_png:
            try:
                speedup_chart(bench, os.path.join(results_dir, "speedups.png"))
            except ImportError as e:  # results.md is written all the same; the chart needs matplotlib
                print(f"report.py: speedups.png not regenerated ({e})", file=sys.stderr)
    if sc:
        lines += ["", "## Compile-time scaling", "", "Per pattern and tool, every size: [scaling.md](scaling.md).", ""]
        lines += scaling_target_markdown(sc) + ["", "![compile time](compile_time.png)", ""]
        if scaling_files:
            write_scaling(results_dir)
    with open(os.path.join(results_dir, "results.md"), "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")


def _load(path: str) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
