"""loopopt next to `mlir-opt --affine-loop-fusion` on MLIR's own affine fusion test inputs.

The inputs belong to LLVM and are not bundled: copy `mlir/test/Dialect/Affine/loop-fusion*.mlir`
from an llvm-project checkout into a directory and pass it. Each file is split at `// -----`
(as `--split-input-file` does); a chunk counts when mlir-opt 22 and loopopt both accept it.
Per file the report gives the loops (`affine.for` ops) in the input and after each tool, then
lists every chunk where loopopt leaves more loops than mlir-opt with loopopt's first refusal,
and checks with the reference interpreter that loopopt's output computes what the input does
(chunks the interpreter cannot run are counted as not checked).

    python3 benchmarks/mlir_tests.py DIR [--out benchmarks/results/mlir_tests.md] [--only FILE#N,...]
                                         [--json PATH]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from loopopt import optimize  # noqa: E402
from loopopt.errors import LoopOptError  # noqa: E402
from loopopt.toolchain import find_tool, mlir_opt  # noqa: E402

TARGETS = ("cpu", "trn1")
_FOR = re.compile(r"^\s*(?:%[\w#:, ]+=\s*)?affine\.for\b", re.M)


def split_chunks(text: str) -> list[str]:
    """The file's chunks, split at `// -----` lines; FileCheck comments are dropped."""
    chunks = re.split(r"^// -----\s*$", text, flags=re.M)
    out = []
    for c in chunks:
        lines = [ln for ln in c.splitlines() if not ln.lstrip().startswith("//")]
        body = "\n".join(lines).strip()
        if body:
            out.append(body + "\n")
    return out


def count_loops(text: str) -> int:
    return len(_FOR.findall(text))


_RUN = re.compile(r"^//\s*RUN:(.*)$", re.M)
# Steps after fusion that add loops on their own account (code generation, docs/cpu_codegen.md).
CODEGEN_PASSES = ("register-tile", "isolate-products", "pack-operands", "block-transposes")


def runs_affine_loop_fusion(text: str) -> bool:
    """True iff some RUN line of the file runs mlir-opt's affine-loop-fusion pass (not the
    -test-loop-fusion utility tests, whose chunks are checked with other means)."""
    return any(re.search(r"affine-loop-fusion", line) for line in _RUN.findall(text))


def codegen_loops_added(res) -> int:
    """Loops the cpu code generation steps added (their remarks' `loops_added`)."""
    return sum(int(r.args.get("loops_added", 0)) for r in res.remarks
               if r.pass_name in CODEGEN_PASSES and isinstance(r.args, dict))


@dataclass
class Chunk:
    file: str
    index: int
    loops_in: int
    mlir: int | None  # loops after mlir-opt; None: mlir-opt rejected the chunk
    loopopt: dict = field(default_factory=dict)  # target -> loops after, or None (rejected)
    first_refusal: dict = field(default_factory=dict)  # target -> first Missed fusion remark
    results: dict = field(default_factory=dict)  # target -> "same" | "DIFFERENT: ..." | "not run: ..."
    codegen: dict = field(default_factory=dict)  # target -> loops code generation added (not counted)
    opaque: bool = False  # loopopt (cpu) met an op it does not model (a barrier, sound by default)
    refusals: dict = field(default_factory=dict)  # target -> [(code, message)] of every refused pair
    tilings: dict = field(default_factory=dict)  # target -> the seed's GCD tilings ([LOOP TILING] remarks)


# Why a refused pair stays apart, by refusal code (loopopt/analysis/refusal.py): a rule of the seed
# (its [STOP FUSION] reasons: trip counts, partition dimension, profit; its SBUF budget), or a
# sound barrier (fusing would reverse a dependence, move an op that must stay, separate carried
# values from their loop, or cross effects loopopt does not model). Anything else is "other".
SEED_RULES = {"UNMATCHED_TRIP_COUNT": "seed rule", "NO_PARTITION_DIM": "seed rule", "NO_BENEFIT": "seed rule",
              "OVER_BUDGET": "seed rule (SBUF budget)"}
SOUND_BARRIERS = {"NEGATIVE_DISTANCE", "BLOCKED_BY_OPS", "CARRIES_VALUES", "UNMODELLED"}


def classify(code: str) -> str:
    """'seed rule', 'seed rule (SBUF budget)', 'sound barrier' or 'other' for a refusal code."""
    if code in SEED_RULES:
        return SEED_RULES[code]
    return "sound barrier" if code in SOUND_BARRIERS else "other"


def refusals(res) -> list[tuple[str, str]]:
    """(code, message) of every refused pair of the fusion driver, in order."""
    out = []
    for r in res.remarks:
        if r.pass_name == "fusion" and r.kind == "Missed" and r.message.startswith("[STOP FUSION]"):
            code = r.args.get("code", "") if isinstance(r.args, dict) else ""
            out.append((code or "?", r.message))
    return out


def chunk_verdict(codes: list[str], tilings: int = 0) -> str:
    """A chunk's loops beyond mlir-opt's count are explained when some pair was refused and every
    refusal is a seed rule or a sound barrier, or when no pair was refused but the seed's GCD
    tiling ran (its tile loops stay: 'seed rule (GCD tiling)'); with neither, the loops never met
    as a pair (no shared buffer, outside the distance window): 'other'."""
    kinds = {classify(c) for c in codes}
    if not kinds and tilings:
        return "seed rule (GCD tiling)"
    if not kinds or "other" in kinds:
        return "other"
    return "sound barrier" if kinds == {"sound barrier"} else "seed rule"


def first_refusal(res) -> str:
    for r in res.remarks:
        if r.pass_name == "fusion" and r.kind == "Missed":
            return r.message
    return ""


def check_results(before: str, after: str) -> str:
    from loopopt.testing import assert_same_results

    try:
        assert_same_results(before, after, seed=0, trials=2)
    except AssertionError as e:
        text = str(e)
        if "fails on every input" in text:
            return "not run: " + text.split(": ", 2)[-1][:80]
        return "DIFFERENT: " + text[:160]
    except Exception as e:  # the interpreter does not model an op of the chunk
        return f"not run: {type(e).__name__}: {str(e)[:80]}"
    return "same"


def run_chunk(file: str, index: int, text: str) -> Chunk:
    p = mlir_opt(text, ["--allow-unregistered-dialect", "--affine-loop-fusion"], timeout=120)
    ch = Chunk(file, index, count_loops(text), count_loops(p.stdout) if p.returncode == 0 else None)
    for target in TARGETS:
        try:
            res = optimize(text, target, filename=f"{file}#{index}")
        except LoopOptError:
            ch.loopopt[target] = None
            continue
        ch.codegen[target] = codegen_loops_added(res)
        ch.loopopt[target] = count_loops(res.text) - ch.codegen[target]
        ch.first_refusal[target] = first_refusal(res)
        ch.refusals[target] = refusals(res)
        ch.tilings[target] = sum(r.kind == "Passed" and r.message.startswith("[LOOP TILING]") for r in res.remarks)
        if target == "cpu":
            ch.opaque = any(isinstance(r.args, dict) and r.args.get("code") == "UNMODELLED" for r in res.remarks)
        ch.results[target] = check_results(text, res.text)
    return ch


def report(chunks: list[Chunk], seconds: float) -> str:
    files = sorted({c.file for c in chunks})
    both = [c for c in chunks if c.mlir is not None and all(c.loopopt.get(t) is not None for t in TARGETS)]
    out = ["# loopopt and mlir-opt --affine-loop-fusion on MLIR's affine fusion tests", "",
           f"Generated {time.strftime('%Y-%m-%d %H:%M')} by `python3 benchmarks/mlir_tests.py` "
           f"({seconds:.0f} s). Inputs: mlir/test/Dialect/Affine/loop-fusion*.mlir from llvm-project "
           "(not bundled), split at `// -----`; a chunk counts when both tools accept it. Loops = "
           "`affine.for` ops in the output.", "",
           "| file | chunks | both accept | loops in | mlir-opt | loopopt cpu | loopopt trn1 |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for f in files + ["**total**"]:
        mine = chunks if f == "**total**" else [c for c in chunks if c.file == f]
        ok = [c for c in mine if c in both]
        out.append(f"| {f} | {len(mine)} | {len(ok)} | {sum(c.loops_in for c in ok)} | "
                   f"{sum(c.mlir for c in ok)} | {sum(c.loopopt['cpu'] for c in ok)} | "
                   f"{sum(c.loopopt['trn1'] for c in ok)} |")
    modelled = [c for c in both if not c.opaque]
    out.append(f"| chunks without ops loopopt does not model | | {len(modelled)} | "
               f"{sum(c.loops_in for c in modelled)} | {sum(c.mlir for c in modelled)} | "
               f"{sum(c.loopopt['cpu'] for c in modelled)} | {sum(c.loopopt['trn1'] for c in modelled)} |")
    out.append("")
    out.append(f"{len(both) - len(modelled)} chunks hold an op loopopt does not model (an unregistered op such as "
               "`\"foo\"`, a call to an external function, an op it has no effects model for): it is a "
               "barrier there (sound by default), and mlir-opt fuses across some of them.")
    added = sum(c.codegen.get("cpu", 0) for c in both)
    out.append(f"Loops code generation added after fusion on cpu (register tiling, product isolation; "
               f"not counted above): {added}.")
    out.append("")
    for t in TARGETS:
        more = [c for c in both if c.loopopt[t] > c.mlir]
        fewer = [c for c in both if c.loopopt[t] < c.mlir]
        out.append(f"- loopopt {t}: fewer loops than mlir-opt on {len(fewer)} chunks, more on {len(more)}, "
                   f"as many on {len(both) - len(more) - len(fewer)}.")
    verdicts = [c.results.get(t, "") for c in chunks for t in TARGETS if c.loopopt.get(t) is not None]
    same = sum(v == "same" for v in verdicts)
    diff = [v for v in verdicts if v.startswith("DIFFERENT")]
    out.append(f"- Results (reference interpreter, input vs loopopt's output): {same} same, {len(diff)} "
               f"different, {len(verdicts) - same - len(diff)} not run (ops the interpreter does not model).")
    out += ["", "## Chunks where loopopt leaves more loops than mlir-opt", "",
            "| chunk | loops in | mlir-opt | loopopt cpu | loopopt trn1 | loopopt's first refusal (cpu) |",
            "|---|---:|---:|---:|---:|---|"]
    for c in both:
        if any(c.loopopt[t] > c.mlir for t in TARGETS):
            why = c.first_refusal.get("cpu", "").replace("|", "\\|")[:140]
            out.append(f"| {c.file}#{c.index} | {c.loops_in} | {c.mlir} | {c.loopopt['cpu']} | "
                       f"{c.loopopt['trn1']} | {why} |")
    out += cpu_gaps_section(both)
    out += trn1_section(both)
    if diff:
        out += ["", "## Results that differ", ""]
        out += [f"- {c.file}#{c.index} ({t}): {c.results[t]}" for c in chunks for t in TARGETS
                if c.results.get(t, "").startswith("DIFFERENT")]
    rejected = [c for c in chunks if c not in both]
    if rejected:
        out += ["", "## Chunks not compared", ""]
        for c in rejected:
            who = ["mlir-opt"] * (c.mlir is None) + [f"loopopt {t}" for t in TARGETS if c.loopopt.get(t) is None]
            out.append(f"- {c.file}#{c.index}: rejected by {', '.join(who)}")
    return "\n".join(out) + "\n"


# Why a chunk keeps two or more loops beyond mlir-opt's count on cpu (checked by hand against
# loopopt's remarks; the report prints them for the chunks still in that state).
CPU_GAPS = {
    "loop-fusion-3.mlir#22": "sound barriers, both 1-loop functions: in `@unknown_memref_def_op` the loops "
                             "share only a memref returned by an external call (`call @bar`), which loopopt "
                             "does not trace to a buffer (it may alias anything, so the pair is no candidate); "
                             "in `@alias_escaping_memref` both loops go through a `memref.reinterpret_cast` "
                             "view whose elements loopopt does not map to the buffer's (unknown elements: "
                             "no profit can be shown and a conflict cannot be ruled out). "
                             "`@fuse_large_number_of_loops` fuses to 2 loops, as mlir-opt.",
    "loop-fusion-inner.mlir#0": "sound barrier: `@fusion_inner_long` reads and returns memrefs carried "
                                "through `scf.for` iter_args, which loopopt does not trace to a buffer "
                                "(`[STOP FUSION] unmodelled effects`); the chunk counts as one with "
                                "unmodelled ops.",
}


def cpu_gaps_section(both: list[Chunk]) -> list[str]:
    """The modelled chunks where loopopt cpu leaves two or more loops beyond mlir-opt, each with
    its reason (CPU_GAPS) or 'not explained'."""
    over = [c for c in both if not c.opaque and c.loopopt["cpu"] >= c.mlir + 2]
    out = ["", "## cpu: modelled chunks two or more loops over mlir-opt", ""]
    if not over:
        return out + ["None."]
    for c in over:
        why = CPU_GAPS.get(f"{c.file}#{c.index}", "not explained")
        out.append(f"- {c.file}#{c.index} ({c.loopopt['cpu']} vs {c.mlir}): {why}")
    return out


def trn1_section(both: list[Chunk]) -> list[str]:
    """Per trn1 chunk with more loops than mlir-opt: the refusals that kept its loops apart (each
    code once, with how often and one message), classified (`classify`), and a summary line."""
    over = [c for c in both if c.loopopt["trn1"] > c.mlir]
    out = ["", "## trn1: what keeps the loops beyond mlir-opt's count apart", "",
           "Every pair the fusion driver refused on trn1, by refusal code: a seed rule (the seed's "
           "[STOP FUSION] reasons: trip counts, partition dimension, profit, and the SBUF budget) or "
           "a sound barrier (a reversed dependence, an op between the loops that must stay, carried "
           "values, effects loopopt does not model); anything else is 'other'.", "",
           "| chunk | mlir-opt | trn1 | verdict | refusals (code x count: one message) |", "|---|---:|---:|---|---|"]
    verdicts = {}
    for c in over:
        pairs = c.refusals.get("trn1", [])
        codes = [code for code, _ in pairs]
        verdict = chunk_verdict(codes, c.tilings.get("trn1", 0))
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
        seen = {}
        for code, msg in pairs:
            seen.setdefault(code, [0, msg])[0] += 1
        why = "; ".join(f"{code} x{n} ({classify(code)}): {msg.split(': ', 1)[0]}"
                        for code, (n, msg) in seen.items()) or "no pair was refused"
        if c.tilings.get("trn1"):
            why += f"; [LOOP TILING] x{c.tilings['trn1']} (the seed's GCD tiling: its tile loops stay)"
        out.append(f"| {c.file}#{c.index} | {c.mlir} | {c.loopopt['trn1']} | {verdict} | {why.replace('|', '/')} |")
    out += ["", "trn1 chunks over mlir-opt's count: " + (", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()))
                                                      or "none") + "."]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="directory holding MLIR's loop-fusion*.mlir test files")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                  "mlir_tests.md"))
    ap.add_argument("--only", default="", help="comma-separated chunks (FILE#N) or files to run; the report "
                    "is printed, not written")
    ap.add_argument("--json", help="also write each chunk's loop counts and first refusals here")
    args = ap.parse_args(argv)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    if find_tool("mlir-opt") is None:
        print("mlir_tests: error: mlir-opt not found (run scripts/setup.sh)", file=sys.stderr)
        return 2
    files = []
    for f in sorted(f for f in os.listdir(args.dir) if f.endswith(".mlir")):
        with open(os.path.join(args.dir, f)) as fh:
            if runs_affine_loop_fusion(fh.read()):
                files.append(f)
            else:
                print(f"{f}: skipped (no RUN line runs affine-loop-fusion)", file=sys.stderr)
    if not files:
        print(f"mlir_tests: error: no .mlir files in {args.dir}", file=sys.stderr)
        return 2
    start = time.time()
    chunks = []
    for f in files:
        with open(os.path.join(args.dir, f)) as fh:
            for i, text in enumerate(split_chunks(fh.read())):
                if only and f not in only and f"{f}#{i}" not in only:
                    continue
                chunks.append(run_chunk(f, i, text))
        print(f"{f}: {sum(c.file == f for c in chunks)} chunks", file=sys.stderr)
    text = report(chunks, time.time() - start)
    if args.json:
        import json

        with open(args.json, "w") as fh:
            json.dump([{"chunk": f"{c.file}#{c.index}", "in": c.loops_in, "mlir": c.mlir, "loopopt": c.loopopt,
                        "codegen": c.codegen, "refusal": c.first_refusal, "results": c.results, "opaque": c.opaque,
                        "refusals": c.refusals}
                       for c in chunks], fh, indent=1)
    if only:
        print(text)
        return 0
    tmp = args.out + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, args.out)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
