"""Tables of the model-block benchmark from its results file (standard library only).

    python3 benchmarks/models/report.py                 models.md and README's section from models.json
    python3 benchmarks/models/report.py FILE.json --md OUT.md [--readme README.md]

Rules (each table says them too):
* a column's time is the lower quartile of all its timed calls in a regime (benchmarks/report.py's
  rule: on a shared machine the median moves with other work, the single best call with an idle
  sibling core); "best" is the fastest call;
* a column counts only if it ran and is correct: WRONG (a miscompile: an error above the
  tolerance against any reference) and failed columns are left out of every time and ratio;
* speedup = plain's time / the column's; "x fw" = the column's time / the faster of torch's and
  IREE's (above 1: slower than the frameworks);
* best MLIR = the fastest correct one of mlir-fusion, mlir-greedy, mlir-scalrep (per regime);
* roofline = the block's attainable time (max(FLOPs / peak, compulsory bytes / bandwidth), the
  roofs measured in the same run) over the column's time.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RESULTS = os.path.join(REPO, "benchmarks", "results")
MLIR = ("mlir-fusion", "mlir-greedy", "mlir-scalrep")
FRAMEWORKS = ("torch", "iree")
README_BEGIN = "<!-- models-results: generated from benchmarks/results/models.json by benchmarks/models/report.py; do not edit -->"
README_END = "<!-- end of models-results -->"
RUNTIME_BEGIN = "<!-- runtime-results: generated from a benchmarks/models/run.py results file by benchmarks/models/report.py --runtime-readme; do not edit -->"
RUNTIME_END = "<!-- end of runtime-results -->"
TITLES = {"plain": "plain", "best-mlir": "best MLIR", "best-lf-mlir": "linalg-fusion + best MLIR",
          "loopopt": "loopopt", "loopopt-256": "loopopt --vector-bits 256",
          "linalg-fusion+loopopt": "linalg-fusion + loopopt", "torch": "torch", "iree": "IREE"}
SUMMARY = ("plain", "best-mlir", "best-lf-mlir", "loopopt", "loopopt-256", "linalg-fusion+loopopt", "torch", "iree")


def quantile(xs, q: float):
    """The q-quantile of xs (linear interpolation between order statistics)."""
    if not xs:
        return None
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def counts(col: dict | None) -> bool:
    """A column's times count only if it ran and every reference agreed with it."""
    return bool(col) and col.get("status") == "ok" and col.get("correct") is True


def time_of(col: dict | None, regime: str, stat: str = "q1"):
    if not counts(col):
        return None
    xs = (col.get("times") or {}).get(regime) or []
    return quantile(xs, 0.25) if stat == "q1" else (min(xs) if xs else None)


def best_mlir(block: dict, regime: str, prefix: str = "") -> tuple[str | None, float | None]:
    """(name, time) of the fastest correct MLIR pipeline (on the plain or, with the prefix, the
    fused lowering)."""
    cells = [(time_of(block["columns"].get(prefix + m), regime), prefix + m) for m in MLIR]
    cells = [(t, n) for t, n in cells if t is not None]
    if not cells:
        return None, None
    t, n = min(cells)
    return n, t


def resolve(block: dict, key: str, regime: str) -> tuple[str | None, float | None]:
    """The column a summary key stands for and its time."""
    if key == "best-mlir":
        return best_mlir(block, regime)
    if key == "best-lf-mlir":
        return best_mlir(block, regime, "linalg-fusion+")
    return key, time_of(block["columns"].get(key), regime)


def framework_time(block: dict, regime: str):
    ts = [time_of(block["columns"].get(f), regime) for f in FRAMEWORKS]
    ts = [t for t in ts if t is not None]
    return min(ts) if ts else None


def attainable(block: dict, roof: dict):
    peak, bw = (roof or {}).get("peak_flops"), (roof or {}).get("bandwidth")
    if not peak or not bw or block.get("flops") is None or block.get("bytes") is None:
        return None
    return max(block["flops"] / peak, block["bytes"] / bw)


def _ms(t) -> str:
    if t is None:
        return "n/a"
    ms = t * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def _x(r) -> str:
    return "n/a" if r is None else f"{r:.2f}x" if r < 10 else f"{r:.1f}x"


def _err(e) -> str:
    if e is None:
        return "n/a"
    if isinstance(e, str) or math.isinf(e) or math.isnan(e):
        return "inf (NaN or sizes)" if not isinstance(e, str) else e
    return "0" if e == 0 else f"{e:.1e}"


def verdict(col: dict | None) -> str:
    """One cell: ok / WRONG (error vs reference) / FAIL (step) / skipped."""
    if not col:
        return "n/a"
    status = col.get("status", "")
    if status.startswith("skipped"):
        return "skipped"
    if col.get("correct") is False:
        return f"**WRONG** ({_err(col.get('error'))} vs {col.get('error_against')})"
    if status != "ok":
        return f"FAIL ({status.split(':', 1)[0]})"
    if col.get("correct") is None:
        return "unchecked"
    return "ok"


def column_line(block: str, col: dict, regimes) -> str:
    """One log line per column."""
    shown = "  ".join(f"{r} {_ms(time_of(col, r))} ms" for r in regimes if time_of(col, r) is not None)
    loops = f"loops {col['loops']:>3d}" if col.get("loops") is not None else " " * 9
    if not shown:
        shown = "(times not counted)" if col.get("correct") is False else col.get("status", "")
    return f"{block:12s} {col['name']:28s} {loops}  {verdict(col):40s} {shown}"


def summary_cell(block: dict, key: str, regime: str) -> str:
    name, t = resolve(block, key, regime)
    if key in ("best-mlir", "best-lf-mlir"):
        prefix = "linalg-fusion+" if key == "best-lf-mlir" else ""
        wrong = [m.replace("mlir-", "") for m in MLIR if (block["columns"].get(prefix + m) or {}).get("correct") is False]
        if t is None:
            return "**WRONG**: all" if len(wrong) == len(MLIR) else "n/a"
        return f"{_ms(t)} ({name.replace(prefix, '').replace('mlir-', '')})"
    col = block["columns"].get(key)
    if t is None:
        v = verdict(col)
        return v if v != "ok" else "n/a"
    return _ms(t)


def miscompiles(block: dict) -> list[str]:
    """The WRONG columns, the MLIR pipelines of one lowering grouped: `mlir-{fusion,greedy}
    (max 4.2e-01 vs fixture)`."""
    cols = block["columns"]
    out, grouped = [], set()
    for prefix in ("", "linalg-fusion+"):
        wrong = [m for m in MLIR if (cols.get(prefix + m) or {}).get("correct") is False]
        if len(wrong) > 1:
            worst = max((cols[prefix + m] for m in wrong), key=lambda c: c.get("error") or 0)
            names = ",".join(m.replace("mlir-", "") for m in wrong)
            out.append(f"{prefix}mlir-{{{names}}} (max {_err(worst.get('error'))} vs {worst.get('error_against')})")
            grouped.update(prefix + m for m in wrong)
    out += [f"{n} ({_err(c.get('error'))} vs {c.get('error_against')})" for n, c in cols.items()
            if c.get("correct") is False and n not in grouped]
    return out


def split_sets(data: dict) -> tuple[list, list]:
    """(main blocks, held-out blocks): the held-out set is reported in tables of its own."""
    blocks = data.get("blocks", [])
    return [b for b in blocks if b.get("set") != "heldout"], [b for b in blocks if b.get("set") == "heldout"]


HELDOUT_TITLE = ("held-out blocks (benchmarks/models/heldout/: no threshold tuned on them; t5_ffn, pool_head and "
                 "vit_patch_embed were diagnosed on, docs/cpu_codegen.md sections 29-33)")


def measured_keys(blocks: list) -> list[str]:
    """The SUMMARY columns some block of the run measured (a run with --columns has fewer)."""
    names = {n for b in blocks for n in b["columns"]}

    def has(key: str) -> bool:
        if key == "best-mlir":
            return any(n.startswith("mlir-") for n in names)
        if key == "best-lf-mlir":
            return any(n.startswith("linalg-fusion+mlir-") for n in names)
        return key in names

    return [k for k in SUMMARY if has(k)]


def summary_table(data: dict, regime: str, blocks: list | None = None) -> list[str]:
    """Blocks (default: all of the run's) x the columns the run measured: each column's time
    (ms), the best correct MLIR pipeline named, the miscompiles listed, loopopt's speedup over
    plain and its time over the faster framework."""
    blocks = data["blocks"] if blocks is None else blocks
    keys = measured_keys(blocks)
    ratios = [("loopopt speedup", "plain", "loopopt", False), ("loopopt x fw", None, "loopopt", True),
              ("loopopt --vector-bits 256 x fw", None, "loopopt-256", True),
              ("linalg-fusion + loopopt x fw", None, "linalg-fusion+loopopt", True)]
    ratios = [r for r in ratios if r[2] in keys and (r[1] is None or r[1] in keys)]
    head = ("| block | " + " | ".join(TITLES[k] for k in keys) + "".join(f" | {r[0]}" for r in ratios)
            + " | WRONG (error vs reference) |")
    lines = [head, "|---" * (len(keys) + len(ratios) + 2) + "|"]
    for b in blocks:
        fw = framework_time(b, regime)
        cells = [summary_cell(b, k, regime) for k in keys]
        for _, base, col, over_fw in ratios:
            t = time_of(b["columns"].get(col), regime)
            if over_fw:
                cells.append(_x(t / fw if t and fw else None))
            else:
                p = time_of(b["columns"].get(base), regime)
                cells.append(_x(p / t if p and t else None))
        cells.append("; ".join(miscompiles(b)) or "none")
        lines.append(f"| {b['name']} | " + " | ".join(cells) + " |")
    return lines


def _geomean(xs: list) -> float | None:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def is_convolution(block: dict) -> bool:
    """A block whose description names a convolution (its exporter's `what`: conv, Conv1d,
    depthwise)."""
    what = block.get("what", "").lower()
    return "conv" in what or "depthwise" in what


def goal_lines(data: dict) -> list[str]:
    """Issue 35's measures, per regime and set: loopopt's time over the faster framework
    (geomean, convolutions and the rest apart, the worst block, the blocks over 2x) and each
    block's FLOP rate as a share of the peak measured in the same run."""
    main, heldout = split_sets(data)
    peak = (data.get("roofline") or {}).get("peak_flops")
    out = []
    for r in data.get("regimes", ["flushed", "warm"]):
        for title, blocks in (("main", main), ("held-out", heldout)):
            rows = []
            for b in blocks:
                lo, fw = time_of(b["columns"].get("loopopt"), r), framework_time(b, r)
                if lo and fw:
                    rows.append((b, lo / fw))
            if not rows:
                continue
            conv = [x for b, x in rows if is_convolution(b)]
            rest = [x for b, x in rows if not is_convolution(b)]
            worst_b, worst = max(rows, key=lambda bx: bx[1])
            over = [f"{b['name']} {x:.2f}x" for b, x in rows if x > 2]
            parts = [f"geomean **{_geomean([x for _, x in rows]):.2f}x** over {len(rows)} blocks"]
            if conv:
                parts.append(f"convolutions {_geomean(conv):.2f}x ({len(conv)})")
            if rest:
                parts.append(f"the others {_geomean(rest):.2f}x ({len(rest)})")
            out.append(f"* {r}, {title}: loopopt / the faster of torch and IREE: " + ", ".join(parts)
                       + f"; worst {worst_b['name']} {worst:.2f}x; over 2x: {', '.join(over) or 'none'}")
            if peak:
                shares = []
                for b, _ in rows:
                    t = time_of(b["columns"].get("loopopt"), r)
                    if b.get("flops") and t:
                        shares.append((b["flops"] / t / peak, b))
                shares.sort(key=lambda sb: -sb[0])
                out.append(f"  * share of the measured peak ({peak / 1e9:.0f} GFLOP/s), loopopt: "
                           + ", ".join(f"{b['name']} {_pct(sh)}" + (" (conv)" if is_convolution(b) else "")
                                       for sh, b in shares))
    return out


def block_table(block: dict, data: dict) -> list[str]:
    """Every column of one block: correctness, loops, and per regime time, best, speedup over
    plain, time over the faster framework and share of the roofline."""
    regimes = data.get("regimes", ["flushed", "warm"])
    roof = attainable(block, data.get("roofline"))
    head = "| column | correct | error (vs) | loops | intermediate KiB |"
    for r in regimes:
        head += f" {r} ms | {r} best | {r} speedup | {r} x fw | {r} roofline |"
    lines = [head, "|---" * (5 + 5 * len(regimes)) + "|"]
    best = {r: {best_mlir(block, r)[0], best_mlir(block, r, "linalg-fusion+")[0]} for r in regimes}
    for name, col in block["columns"].items():
        err = "" if col.get("error") is None else f"{_err(col['error'])} ({col.get('error_against')})"
        placed = "" if col.get("placed_bytes") is None else f"{col['placed_bytes'] / 1024:.0f}"
        won = [r for r in regimes if name in best[r]]
        lowering = "on the fused lowering" if name.startswith("linalg-fusion+") else "on the plain lowering"
        mark = f" (best correct MLIR {lowering}: {', '.join(won)})" if won else ""
        row = [f"{name}{mark}", verdict(col), err, "" if col.get("loops") is None else str(col["loops"]), placed]
        for r in regimes:
            t = time_of(col, r)
            plain = time_of(block["columns"].get("plain"), r)
            fw = framework_time(block, r)
            row += [_ms(t), _ms(time_of(col, r, "best")), _x(plain / t if plain and t else None),
                    _x(t / fw if t and fw else None), _pct(roof / t if roof and t else None)]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _pct(share) -> str:
    if share is None:
        return "n/a"
    return f"{100 * share:.1f}%" if share < 0.1 else f"{100 * share:.0f}%"


def roofline_line(data: dict) -> str:
    roof = data.get("roofline") or {}
    peak, bw = roof.get("peak_flops"), roof.get("bandwidth")
    if not peak or not bw:
        return "Roofline: not measured in this run (" + (roof.get("note") or "--no-roofline") + ")."
    kernels = ", ".join(f"{n} {k['rate'] / 1e9:.1f} {'GFLOP/s' if k['kind'] == 'peak' else 'GB/s'}"
                        for n, k in roof.get("kernels", {}).items() if "rate" in k)
    return (f"Roofline measured in this run (benchmarks/run.py's kernels, the same harness, best flushed call): "
            f"peak **{peak / 1e9:.1f} GFLOP/s**, streaming bandwidth **{bw / 1e9:.1f} GB/s** ({kernels}).")


def run_line(data: dict) -> str:
    m = data.get("machine", {})
    date = time.strftime("%Y-%m-%d", time.gmtime(data.get("date", 0)))
    fw = data.get("frameworks", {})
    notes = "; ".join(f"{k} column skipped: {v['note']}" for k, v in fw.items() if not v.get("tool"))
    wall = f"{data['wall_seconds']:.0f} s, " if data.get("wall_seconds") else ""
    return (f"Run of {date} on {m.get('cpu', '?')} ({m.get('cpus', '?')} CPUs): {wall}{data.get('rounds')} process(es) x "
            f"{data.get('reps')} timed calls per column and regime ({data.get('warmup')} warm-up), flushed = "
            f"{data.get('flush_mib')} MiB read before every timed call, warm = calls back to back; niceness "
            f"{data.get('niceness')}. Machine load: at start `{data.get('uptime_start', '?')}`, at end "
            f"`{data.get('uptime_end', '?')}`." + (f" {notes}." if notes else "") + code_text(data))


def _load_of(uptime: str) -> str:
    return uptime.split("load average:")[-1].strip() if "load average" in uptime else uptime


def code_text(data: dict) -> str:
    """Which code the run measured: the commits at start and end (the tree is shared, so code may
    change during a run), the blocks measured again later (`run.py --update`)."""
    start, end = data.get("code_start") or {}, data.get("code_end") or {}
    out = ""
    if start.get("commit"):
        span = start["commit"] if end.get("commit") in (None, start["commit"]) else f"{start['commit']}..{end['commit']}"
        dirty = start.get("dirty_files")
        changed = f"plus {dirty} files changed in the shared working tree" if dirty is not None else "plus the shared working tree's uncommitted changes"
        out += f" Code: commit {span} ({changed}{'' if not data.get('code_note') else '; ' + data['code_note']})."
    updated = [b for b in data.get("blocks", []) if b.get("updated")]
    for b in updated:
        m = b.get("measured") or {}
        when = time.strftime("%H:%M", time.gmtime(m.get("date", 0)))
        out += (f" {b['name']} measured again at {when} UTC (commit {m.get('commit', '?')}, load average "
                f"{_load_of(m.get('uptime', '?'))}){': ' + b['update_note'] if b.get('update_note') else ''}.")
    return out


def versions_line(data: dict) -> str:
    vs = {}
    for b in data["blocks"]:
        for n in FRAMEWORKS:
            v = (b["columns"].get(n) or {}).get("version")
            if v:
                vs[n] = v
    return ", ".join(f"{n} {v}" for n, v in vs.items())


def markdown(data: dict) -> list[str]:
    regimes = data.get("regimes", ["flushed", "warm"])
    out = ["# Model blocks: MLIR's pipelines, loopopt, torch eager and IREE (benchmarks/models/run.py)", "",
           "Generated from `models.json` by `benchmarks/models/report.py`; do not edit.", "", run_line(data), "",
           "**The machine was shared with other work during this run: compare ratios within it; the numbers are "
           "to be regenerated on an idle machine.**" if _busy(data) else "", "",
           roofline_line(data), "",
           f"Correctness: every column against the fixture's saved torch outputs (checksums, or values when "
           f"small), against torch's full outputs when torch is installed, and the affine columns against the "
           f"plain lowering; error = max |got - want| / max |want| (checksums: difference / sum |x|), tolerance "
           f"{data.get('rtol')}. A WRONG column is left out of every time. Frameworks: {versions_line(data) or 'none'}; "
           f"IREE flags: `{' '.join(data.get('iree_flags', []))}`, device local-sync.", "",
           "Times are the lower quartile of all timed calls (ms); speedup = plain / column; x fw = column / "
           "the faster of torch and IREE (1.00x: as fast); best MLIR = the fastest correct of mlir-fusion, "
           "mlir-greedy, mlir-scalrep (named in the cell).", ""]
    main, heldout = split_sets(data)
    for r in regimes:
        if main:
            out += [f"## {r}", ""] + summary_table(data, r, main) + [""]
        if heldout:
            out += [f"## {r}: {HELDOUT_TITLE}", ""] + summary_table(data, r, heldout) + [""]
    goals = goal_lines(data)
    if goals:
        out += ["## Against the frameworks and the peak", ""] + goals + [""]
    if any(runtime_table(data, r) for r in regimes):
        out += ["## loopopt's runtime", ""] + runtime_lines(data) + [""]
    out += ["## Per block", "", "roofline = attainable time / the column's time (above 100% only where the warm "
            "working set sits in the caches); intermediate = bytes of memref.alloc/alloca left in the kernel.", ""]
    for b in data["blocks"]:
        work = ""
        if b.get("flops") is not None:
            work = (f" {b['flops'] / 1e6:.1f} MFLOP, {b.get('bytes', 0) / 2**20:.2f} MiB compulsory "
                    f"({b.get('weight_bytes', 0) / 2**20:.2f} MiB of it weights)")
        sizes = " / ".join(str(s) for s in b.get("run_sizes", [b.get("sizes")]))
        out += [f"### {b['name']}", "", f"{b.get('what', '')}. Sizes (inputs, outputs; timed: the first) {sizes};{work}.", ""]
        out += block_table(b, data) + [""]
        fails = [f"{n}: {c['status']}" for n, c in b["columns"].items() if c.get("status") not in ("ok", None)]
        if fails:
            out += ["Not run: " + "; ".join(fails) + ".", ""]
    out += ["Pipelines: " + "; ".join(f"`{k}` = `mlir-opt {' '.join(v)}`" for k, v in data.get("mlir_pipelines", {}).items())
            + "; `linalg-fusion+X` = X on `frontend.lower(..., LoweringOptions(elementwise_fusion=True))`; "
            "`loopopt` = `loopopt --target cpu` on the plain lowering.", ""]
    return [ln for ln in out if ln is not None]


def runtime_table(data: dict, regime: str) -> list[str]:
    """loopopt's runtime per block: the harness's time of the loopopt column, the same code through
    loopopt.compile's callable and their ratio; torch eager and torch.compile with loopopt's backend
    timed in one process (calls alternating) and eager's time over the compiled one. Empty when no
    block has a runtime column."""
    rows = []
    for b in data["blocks"]:
        cols = b["columns"]
        call, tc = cols.get("loopopt-callable"), cols.get("torch-compile")
        if call is None and tc is None:
            continue
        harness = time_of(cols.get("loopopt"), regime)
        t_call = time_of(call, regime)
        t_tc = time_of(tc, regime)
        eager = quantile(((tc or {}).get("eager_times") or {}).get(regime) or [], 0.25) if t_tc else None
        rows.append(f"| {b['name']} | {_ms(harness)} | {_ms(t_call) if t_call else verdict(call)} | "
                    f"{_x(t_call / harness if t_call and harness else None)} | {_ms(eager)} | "
                    f"{_ms(t_tc) if t_tc else verdict(tc)} | {_x(eager / t_tc if eager and t_tc else None)} |")
    if not rows:
        return []
    return ["| block | loopopt (harness) | loopopt.compile callable | callable / harness | torch eager | "
            "torch.compile(loopopt) | speedup over eager |", "|---" * 7 + "|", *rows]


def runtime_lines(data: dict) -> list[str]:
    out = ["Times in ms, the lower quartile of each column's calls on one thread. The callable runs the loopopt "
           "column's code built by `loopopt.compile`, called from Python with its argument checks; the harness times "
           "the same code inside mlir-runner. Eager and torch.compile(backend=loopopt.torch_backend) were timed in "
           "one process, their calls alternating.", ""]
    for r in data.get("regimes", ["flushed", "warm"]):
        table = runtime_table(data, r)
        if table:
            out += [f"**{r}**:", ""] + table + [""]
    return out + [run_line(data)]


def _one_minute_load(uptime: str) -> float | None:
    """The 1-minute load average of an `uptime` line, or None."""
    try:
        return float(uptime.split("load average:")[1].split(",")[0])
    except (IndexError, ValueError):
        return None


def _busy(data: dict) -> bool:
    """Whether other work shared the machine: the median 1-minute load read at each block (while
    the run's own worker kept one CPU busy) above 1 + half the CPUs; a file without those readings
    is judged by the load at its start (nothing of the run running yet) above half the CPUs."""
    cpus = (data.get("machine") or {}).get("cpus") or 1
    during = sorted(x for x in (_one_minute_load((b.get("measured") or {}).get("uptime", ""))
                                for b in data.get("blocks", [])) if x is not None)
    if during:
        return during[len(during) // 2] > 1 + 0.5 * cpus
    load = (data.get("machine") or {}).get("load_average") or [0]
    return bool(load) and load[0] > 0.5 * cpus


def readme_lines(data: dict) -> list[str]:
    """The README's section: the two summary tables and the run line."""
    out = ["Times in ms, the lower quartile of each column's calls on one thread; best MLIR = the fastest correct "
           "of three MLIR 22 affine pipelines (named); loopopt speedup = plain / loopopt; x fw = the column's time "
           "over the faster of torch and IREE (1.00x: as fast); WRONG = a miscompile (error = max |got - want| / "
           f"max |want| against torch's outputs, the fixture or the plain lowering, over {data.get('rtol', 1e-4)}), "
           "left out of the times.", ""]
    main, heldout = split_sets(data)
    for r in data.get("regimes", ["flushed", "warm"]):
        if main:
            out += [f"**{r}**:", ""] + summary_table(data, r, main) + [""]
        if heldout:
            out += [f"**{r}, {HELDOUT_TITLE}**:", ""] + summary_table(data, r, heldout) + [""]
    goals = goal_lines(data)
    if goals:
        out += goals + [""]
    out += [run_line(data), "", roofline_line(data)]
    if _busy(data):
        out += ["", "The machine was shared during this run: ratios measured in it compare; the numbers are to be "
                "regenerated on an idle machine."]
    return out


def write_markdown(data: dict, path: str) -> str:
    with open(path, "w") as f:
        f.write("\n".join(markdown(data)).replace("\n\n\n", "\n\n") + "\n")
    return path


def replace_between(path: str, begin: str, end: str, lines: list[str]) -> bool:
    """Replace everything from the line starting like `begin` (up to its first colon) through the
    `end` line with begin, `lines`, end; False (and nothing written) when a marker is missing."""
    with open(path) as f:
        text = f.read()
    b = text.find(begin.split(":")[0] + ":")
    e = text.find(end, b + 1) if b >= 0 else -1
    if b < 0 or e < 0:
        return False
    new = text[:b] + begin + "\n" + "\n".join(lines) + "\n" + text[e:]
    if new != text:
        with open(path, "w") as f:
            f.write(new)
    return True


def quote_in_readme(readme: str, data: dict) -> bool:
    return replace_between(readme, README_BEGIN, README_END, readme_lines(data))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default=os.path.join(RESULTS, "models.json"))
    ap.add_argument("--md", default=None, help="markdown output (default: models.md beside the results)")
    ap.add_argument("--readme", default=None, help="README to update between the models-results markers "
                    "(default: the repository's, only for benchmarks/results/models.json)")
    ap.add_argument("--runtime-readme", default=None, metavar="README",
                    help="also put the runtime table (loopopt-callable, torch-compile) between its markers in README")
    a = ap.parse_args(argv)
    with open(a.results) as f:
        data = json.load(f)
    md = a.md or os.path.join(os.path.dirname(a.results), os.path.basename(a.results)[:-5] + ".md")
    write_markdown(data, md)
    readme = a.readme or (os.path.join(REPO, "README.md") if os.path.abspath(a.results) == os.path.join(RESULTS, "models.json") else None)
    if readme and not quote_in_readme(readme, data):
        print(f"report.py: {readme} has no models-results markers; left unchanged", file=sys.stderr)
    if a.runtime_readme and not replace_between(a.runtime_readme, RUNTIME_BEGIN, RUNTIME_END, runtime_lines(data)):
        print(f"report.py: {a.runtime_readme} has no runtime-results markers; left unchanged", file=sys.stderr)
    print(f"wrote {md}" + (f" and {readme}" if readme else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
