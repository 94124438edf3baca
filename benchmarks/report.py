"""Render bench.json and scaling.json into results.md, speedups.png and compile_time.png."""
from __future__ import annotations

import json
import math
import os
import time

from suite import human_bytes

COMPARED = ("loopopt", "mlir-fusion", "mlir-greedy")
MLIR = ("mlir-fusion", "mlir-greedy")


STAT = "median"  # which time the tables use; "best" gives the least-disturbed call


def valid_time(v: dict | None, stat: str | None = None) -> float | None:
    """A variant's time counts only if it ran and gave the input's results."""
    stat = stat or STAT
    if not v or v.get("status") != "ok" or v.get(stat) is None or v.get("equal") is False:
        return None
    return v[stat]


def geomean(xs) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _fmt(x, spec=".2f", none="n/a") -> str:
    return none if x is None else format(x, spec)


def speedups(prog: dict, stat: str | None = None) -> dict[str, float | None]:
    """Input time over each variant's time."""
    base = valid_time(prog["variants"].get("input"), stat)
    out = {}
    for name in COMPARED:
        t = valid_time(prog["variants"].get(name), stat)
        out[name] = base / t if base and t else None
    return out


def ratio_to(prog: dict, mlir: str, stat: str | None = None) -> float | None:
    """MLIR variant's time over loopopt's: above 1 means loopopt's program is faster."""
    lo, ml = valid_time(prog["variants"].get("loopopt"), stat), valid_time(prog["variants"].get(mlir), stat)
    return ml / lo if lo and ml else None


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


def _equal_cell(v: dict | None) -> str:
    if not v:
        return "—"
    if v["status"] != "ok":
        return "FAIL (" + v["status"].split(":")[0] + ")"
    return {True: "yes", False: "NO", None: "?"}[v["equal"]]


def _programs(bench: dict) -> list[dict]:
    return [p for p in bench["programs"] if "bandwidth" not in p["tags"]]


def geomean_rows(bench: dict) -> list[tuple[str, int, dict]]:
    groups = [("all programs", lambda p: True, None), ("symbolic bounds", lambda p: "symbolic" in p["tags"], None),
              ("static bounds", lambda p: "symbolic" not in p["tags"], None),
              ("memory-bound chains", lambda p: "memory" in p["tags"], None),
              ("all programs, best calls", lambda p: True, "best"),
              ("symbolic bounds, best calls", lambda p: "symbolic" in p["tags"], "best")]
    rows = []
    for label, keep, stat in groups:
        progs = [p for p in _programs(bench) if keep(p)]
        if not progs:
            continue
        cells = {name: geomean(speedups(p, stat)[name] for p in progs) for name in COMPARED}
        for m in MLIR:
            cells[f"vs {m}"] = geomean(ratio_to(p, m, stat) for p in progs)
        rows.append((label, len(progs), cells))
    return rows


def bench_markdown(bench: dict) -> list[str]:
    m = bench["machine"]
    lines = [
        f"Machine: {m.get('cpu', '?')}, {m.get('cpus')} CPUs, {m.get('memory_gib', '?')} GiB; {m.get('mlir_opt', '')}; "
        f"load average at start {', '.join(f'{x:.2f}' for x in m.get('load_average', []))}.",
        f"Each variant runs in {bench.get('rounds', 1)} mlir-runner -O3 process(es) (variant order alternating), each "
        f"{bench['warmup']} warm-up call(s) then {bench['reps']} timed kernel calls, each timed call preceded by reading "
        f"{bench.get('flush_mib', 0)} MiB to evict the caches; times are medians over all timed "
        f"calls. Whole run: {bench['wall_seconds']:.0f} s{' (--quick)' if bench.get('quick') else ''}; load average "
        f"at the end {', '.join(f'{x:.2f}' for x in bench.get('load_average_end', []))}; niceness "
        f"{bench.get('niceness', 0)}.",
        "",
    ]
    bw = copy_bandwidth(bench)
    kernels = ", ".join(f"{name} {rate / 1e9:.1f} GB/s" for name, rate in bandwidths(bench).items())
    lines += [f"Measured memory bandwidth (bytes read + bytes written by a streaming kernel / its best time; "
              f"the best one is the reference): {kernels or 'n/a'} → **{_fmt(bw and bw / 1e9, '.1f')} GB/s**.", ""]
    lines += ["## Geometric means", "",
              "Speedup = input time / variant time. `vs X` = X's time / loopopt's time (above 1: loopopt faster). "
              "A variant that failed or changed the results is left out of its mean.", "",
              "| programs | n | loopopt | mlir-fusion | mlir-greedy | loopopt vs mlir-fusion | loopopt vs mlir-greedy |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for label, n, c in geomean_rows(bench):
        lines.append(f"| {label} | {n} | {_fmt(c['loopopt'])}× | {_fmt(c['mlir-fusion'])}× | {_fmt(c['mlir-greedy'])}× | "
                     f"{_fmt(c['vs mlir-fusion'])} | {_fmt(c['vs mlir-greedy'])} |")
    lines += ["", "## Per program: results, loops, intermediate bytes", "",
              "Equal: the variant's printed outputs (every memref argument, every result) equal the input's "
              "(exactly, unless the program sets an rtol). Loops: affine.for ops. Intermediate: bytes of "
              "memref.alloc/alloca in the kernel at the benchmark sizes.", "",
              "| program | tags | equal lo / mf / mg | loops in / lo / mf / mg | intermediate in / lo / mf / mg |",
              "|---|---|---|---|---|"]
    for p in _programs(bench):
        v = p["variants"]
        eq = " / ".join(_equal_cell(v.get(n)) for n in COMPARED)
        loops = " / ".join(str(v[n]["loops"]) if v.get(n) and v[n]["loops"] is not None else "—" for n in ("input",) + COMPARED)
        placed = " / ".join(v[n]["placed"] or "—" if v.get(n) else "—" for n in ("input",) + COMPARED)
        lines.append(f"| {p['name']} | {', '.join(p['tags'])} | {eq} | {loops} | {placed} |")
    lines += ["", "## Per program: kernel time", "",
              "Times: median (best) in ms. Speedups and ratios use the medians.", "",
              "| program | input ms | loopopt ms | mlir-fusion ms | mlir-greedy ms | loopopt speedup | mlir-fusion speedup "
              "| mlir-greedy speedup | loopopt vs mlir-fusion | loopopt vs mlir-greedy |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in _programs(bench):
        v = p["variants"]
        ms = [_ms_cell(v.get(n)) for n in ("input",) + COMPARED]
        sp = speedups(p)
        lines.append(f"| {p['name']} | " + " | ".join(ms) + " | "
                     + " | ".join(_fmt(sp[n], ".2f", "—") + ("×" if sp[n] else "") for n in COMPARED) + " | "
                     + " | ".join(_fmt(ratio_to(p, mm), ".2f", "—") for mm in MLIR) + " |")
    lines += bandwidth_markdown(bench, bw)
    fails = [(p["name"], n, v) for p in bench["programs"] for n, v in p["variants"].items()
             if v["status"] != "ok" or v["equal"] is False]
    if fails:
        lines += ["", "## Failures and mismatches", ""]
        for name, variant, v in fails:
            why = v["status"] if v["status"] != "ok" else f"outputs differ: {v['mismatch']}"
            lines.append(f"- {name} / {variant}: {why}")
    return lines


def _ms_cell(v: dict | None) -> str:
    med, best = valid_time(v), valid_time(v, "best")
    return "—" if med is None else f"{med * 1e3:.2f} ({best * 1e3:.2f})"


def bandwidth_markdown(bench: dict, bw: float | None) -> list[str]:
    lines = ["", "## Memory-bound chains against the measured bandwidth", "",
             "Ideal bytes = every memref argument the kernel reads, read once, plus every one it writes, written once. "
             "Achieved = ideal bytes / best time (the physical question is what the code can reach, "
             "so the least-disturbed call is used, as for the reference kernels); % = of the measured bandwidth above.", "",
             "| program | ideal bytes | input GB/s | loopopt GB/s | mlir-fusion GB/s | mlir-greedy GB/s |",
             "|---|---:|---:|---:|---:|---:|"]
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


def scaling_markdown(sc: dict) -> list[str]:
    ms = sc["measurements"]
    tools = list(dict.fromkeys(m["tool"] for m in ms))
    sizes = sorted({m["loops"] for m in ms})
    head = "| loops | " + " | ".join(f"{t} s | peak MiB | loops after" for t in tools) + " |"
    lines = ["## Compile-time scaling", "",
             "Chains of N elementwise loops through N-1 placed buffers; wall time and peak RSS of one process each, "
             "and the affine.for ops left in the output (1 = the whole chain fused).", "",
             head, "|---:|" + "---:|" * (3 * len(tools))]
    for n in sizes:
        cells = []
        for t in tools:
            m = next((x for x in ms if x["tool"] == t and x["loops"] == n), None)
            if m is None:
                cells += ["—", "—", "—"]
            else:
                cells += [_fmt(m["seconds"], ".2f", m["status"]), _fmt(m["peak_rss_mib"], ".0f", "—"),
                          _fmt(m.get("loops_after"), "d", "—")]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    lines += ["", "Growth exponent (time ~ N^k): least-squares over all sizes; and between the two largest "
              "(for reference, N·log N has k ≈ 1.1–1.15 over these sizes; a Python start-up of ~0.4 s flattens the fit for loopopt).", "",
              "| tool | k (fit) | k (last two sizes) |", "|---|---:|---:|"]
    for t, f in sc["fits"].items():
        lines.append(f"| {t} | {_fmt(f['exponent'])} | {_fmt(f['exponent_last'])} |")
    lines.append("")
    lines.append(f"Scaling run: {sc.get('wall_seconds', 0):.0f} s.")
    return lines


def speedup_chart(bench: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    progs = _programs(bench)
    names = [p["name"] for p in progs]
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(names)), 5))
    width = 0.27
    for k, variant in enumerate(COMPARED):
        vals = [speedups(p)[variant] or 0 for p in progs]
        ax.bar([i + (k - 1) * width for i in range(len(names))], vals, width, label=variant)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speedup over the input (log)")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_title("Kernel speedup over the unoptimised input (mlir-runner -O3, median)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def compile_chart(sc: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for tool in dict.fromkeys(m["tool"] for m in sc["measurements"]):
        pts = sorted((m["loops"], m["seconds"], m["peak_rss_mib"]) for m in sc["measurements"] if m["tool"] == tool)
        ok = [(n, s) for n, s, _ in pts if s]
        k = sc["fits"].get(tool, {}).get("exponent")
        label = f"{tool} (k={k:.2f})" if k is not None else tool
        if ok:
            a1.plot([n for n, _ in ok], [s for _, s in ok], marker="o", label=label)
        a2.plot([n for n, _, r in pts if r], [r for _, _, r in pts if r], marker="o", label=tool)
    from matplotlib.ticker import NullFormatter
    sizes = sorted({m["loops"] for m in sc["measurements"]})
    a1.set_yscale("log")
    for ax, what in ((a1, "wall time (s)"), (a2, "peak RSS (MiB)")):
        ax.set_xscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(n) for n in sizes])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("loops in the chain")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    a1.set_title("Compile time vs loop count")
    a2.set_title("Peak memory vs loop count")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_all(results_dir: str) -> None:
    """results.md (+ charts) from whichever of bench.json / scaling.json exist."""
    bench = _load(os.path.join(results_dir, "bench.json"))
    sc = _load(os.path.join(results_dir, "scaling.json"))
    lines = ["# loopopt benchmark results", "",
             f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `python3 benchmarks/run.py` "
             "(scaling: `python3 benchmarks/run.py --scaling`). See benchmarks/README.md for the columns.", ""]
    if bench:
        lines += bench_markdown(bench)
        lines += ["", "![speedups](speedups.png)", ""]
        speedup_chart(bench, os.path.join(results_dir, "speedups.png"))
    if sc:
        lines += [""] + scaling_markdown(sc) + ["", "![compile time](compile_time.png)", ""]
        compile_chart(sc, os.path.join(results_dir, "compile_time.png"))
    with open(os.path.join(results_dir, "results.md"), "w") as f:
        f.write("\n".join(lines).rstrip() + "\n")


def _load(path: str) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
