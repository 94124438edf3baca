"""Side by side: loopopt's LICM and `mlir-opt --affine-loop-invariant-code-motion`.

Every op of each program is tagged with a discardable attribute `loopopt.licm_id`, both
passes run on the tagged text, and each op's loop depth (number of enclosing affine.for)
is read back from both outputs. An op is *hoisted* by a pass when its depth went down.
Every op that one pass hoists further than the other is listed with loopopt's reason
(its Missed remark, or the invariance test replayed on loopopt's output).

Inputs: examples/**/*.mlir plus the programs of tests/test_licm.py (PROGRAMS).

    PYTHONPATH=. python3 scripts/compare_licm.py [--markdown] [files...]
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loopopt import mlir  # noqa: E402
from loopopt.analysis.affine import Scope  # noqa: E402
from loopopt.mlir import ir  # noqa: E402
from loopopt.options import Options  # noqa: E402
from loopopt.remarks import MISSED, RemarkLog  # noqa: E402
from loopopt.toolchain import mlir_opt  # noqa: E402
from loopopt.loop_optimization.licm import (  # noqa: E402
    LoopFacts, in_loop_defs, invariance_reason, licm, loop_facts, operand_defined_in_loop,
)

TAG = "loopopt.licm_id"
MLIR_FLAG = "--affine-loop-invariant-code-motion"


def loop_depth(op: ir.Operation) -> int:
    """Number of affine.for ops enclosing `op`."""
    n, p = 0, op.parent
    while p is not None:
        p = mlir.operation(p)
        if p.name == "affine.for":
            n += 1
        if p.name in ("func.func", "builtin.module"):
            break
        p = p.parent
    return n


def tag_ops(text: str, filename: str) -> tuple[str, dict[int, str]]:
    """The program with every op inside a function tagged by a unique integer, and each
    tag's `line:col` in the original text."""
    module = mlir.parse_module(text, filename)
    where = {}
    with module.context:
        i64 = ir.IntegerType.get_signless(64)
        for k, op in enumerate(o for o in mlir.walk(module.operation)
                               if o.name not in ("func.func", "builtin.module")):
            where[k] = ":".join(mlir.location_of(op, filename).rsplit(":", 2)[-2:])
            op.attributes[TAG] = ir.IntegerAttr.get(i64, k)
    return mlir.print_module(module), where


def tagged_ops(module: ir.Module) -> dict[int, ir.Operation]:
    out = {}
    for op in mlir.walk(module.operation):
        if TAG in op.attributes:
            out[ir.IntegerAttr(op.attributes[TAG]).value] = op
    return out


@dataclass
class Difference:
    file: str
    op: str  # op name
    where: str  # line:col in the input
    depth: int  # depth in the input
    mlir_depth: int
    ours_depth: int
    reason: str


@dataclass
class FileResult:
    file: str
    ops_in_loops: int = 0
    mlir_hoisted: int = 0  # ops whose depth went down
    mlir_levels: int = 0  # loop levels left, summed over ops
    ours_hoisted: int = 0
    ours_levels: int = 0
    error: str = ""
    differences: list[Difference] = field(default_factory=list)


def replayed_reason(op: ir.Operation) -> str:
    """loopopt's reason for keeping `op` in its innermost affine.for (on loopopt's output)."""
    p = mlir.operation(op.parent)
    if p.name != "affine.for":
        return f"inside {p.name} (loopopt only hoists direct children of an affine.for)"
    defs = in_loop_defs(p)
    facts: LoopFacts = loop_facts(p, Scope(), {})
    refusal = invariance_reason(op, p, defs, Scope(), facts)
    reason = refusal.detail if refusal is not None else "invariant at the next level"
    v = operand_defined_in_loop(op, defs)
    if v is not None:
        owner, _ = mlir.value_owner(v)
        reason += f" (it depends on a {owner.name if owner is not None else 'block argument'} that stays)"
    return reason


def compare(text: str, name: str) -> FileResult:
    res = FileResult(name)
    tagged, original = tag_ops(text, name)
    before_module = mlir.parse_module(tagged, name)  # keep alive: ops die with their module
    before = tagged_ops(before_module)
    depth0 = {k: loop_depth(o) for k, o in before.items()}
    where = {k: mlir.location_of(o, name) for k, o in before.items()}
    res.ops_in_loops = sum(1 for d in depth0.values() if d > 0)

    p = mlir_opt(tagged, [MLIR_FLAG])
    if p.returncode != 0:
        res.error = (p.stderr.strip().splitlines() or ["mlir-opt failed"])[0]
        return res
    theirs_module = mlir.parse_module(p.stdout, name)
    theirs = {k: loop_depth(o) for k, o in tagged_ops(theirs_module).items()}

    module = mlir.parse_module(tagged, name)
    log = RemarkLog()
    licm(module, Options(), log, name)
    ours_ops = tagged_ops(module)
    ours = {k: loop_depth(o) for k, o in ours_ops.items()}
    missed = {r.location: r.args.get("reason", r.message) for r in log if r.kind == MISSED}

    tag_of = {o: k for k, o in ours_ops.items()}
    theirs_further = {k for k, d in depth0.items() if theirs.get(k, d) < ours.get(k, d)}
    for k, d in depth0.items():
        dm, do = theirs.get(k, d), ours.get(k, d)
        res.mlir_hoisted += dm < d
        res.mlir_levels += max(0, d - dm)
        res.ours_hoisted += do < d
        res.ours_levels += max(0, d - do)
        if dm == do:
            continue
        op = ours_ops[k]
        if do > dm:
            carrier = moved_with(op, tag_of, theirs_further)
            reason = (f"moved inside the {carrier.name} at {original[tag_of[carrier]]}, which mlir-opt moves whole"
                      if carrier is not None else missed.get(where[k]) or replayed_reason(op))
        else:
            reason = "mlir-opt " + mlir_reason(op)
        res.differences.append(Difference(name, op.name, original[k], d, dm, do, reason))
    return res


def moved_with(op: ir.Operation, tag_of: dict, tags: set) -> ir.Operation | None:
    """The outermost region op around `op` whose tag is in `tags` (moved further by mlir-opt)."""
    found, p = None, op.parent
    while p is not None:
        p = mlir.operation(p)
        if p.name in ("func.func", "builtin.module"):
            break
        if tag_of.get(p) in tags:
            found = p
        p = p.parent
    return found


def mlir_reason(op: ir.Operation) -> str:
    """Why the affine LICM of mlir-opt 22 keeps an op that loopopt hoists (its rule, stated)."""
    if op.name == "memref.load" or op.name == "memref.store":
        return "does not hoist non-affine memory ops (memref.load)"
    return "keeps ops whose memref has a store user in the loop, even on a disjoint element"


def programs(files: list[str]) -> list[tuple[str, str]]:
    if files:
        return [(f, Path(f).read_text()) for f in files]
    out = [(str(p.relative_to(ROOT)), p.read_text()) for p in sorted((ROOT / "examples").rglob("*.mlir"))]
    spec = importlib.util.spec_from_file_location("test_licm", ROOT / "tests" / "test_licm.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("test_licm", mod)  # dataclasses look their module up while executing it
    spec.loader.exec_module(mod)
    out += [(f"tests/test_licm.py::{k}", v) for k, v in mod.PROGRAMS.items()]
    return out


def render(results: list[FileResult], markdown: bool) -> str:
    lines = []
    if markdown:
        lines += ["| program | ops in loops | mlir-opt hoisted (levels) | loopopt hoisted (levels) | differ |",
                  "|---|---|---|---|---|"]
        for r in results:
            if r.error:
                lines.append(f"| {r.file} | - | error: {r.error} | | |")
                continue
            lines.append(f"| {r.file} | {r.ops_in_loops} | {r.mlir_hoisted} ({r.mlir_levels}) | "
                         f"{r.ours_hoisted} ({r.ours_levels}) | {len(r.differences)} |")
    else:
        for r in results:
            lines.append(f"{r.file}: in loops {r.ops_in_loops}, mlir-opt {r.mlir_hoisted} ({r.mlir_levels} levels), "
                         f"loopopt {r.ours_hoisted} ({r.ours_levels} levels)" + (f" ERROR {r.error}" if r.error else ""))
    ok = [r for r in results if not r.error]
    lines.append("")
    lines.append(f"Total over {len(ok)} programs: mlir-opt hoisted {sum(r.mlir_hoisted for r in ok)} ops "
                 f"({sum(r.mlir_levels for r in ok)} levels), loopopt {sum(r.ours_hoisted for r in ok)} ops "
                 f"({sum(r.ours_levels for r in ok)} levels).")
    diffs = [d for r in ok for d in r.differences]
    lines.append("")
    if markdown:
        lines += ["| program | op | at | depth | mlir-opt | loopopt | reason |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {d.file} | {d.op} | {d.where} | {d.depth} | {d.mlir_depth} | {d.ours_depth} | {d.reason} |"
                  for d in diffs]
    else:
        lines += [f"{d.file}:{d.where} {d.op}: depth {d.depth} -> mlir-opt {d.mlir_depth}, loopopt {d.ours_depth}: "
                  f"{d.reason}" for d in diffs]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables (for docs/licm.md)")
    args = ap.parse_args(argv)
    results = [compare(text, name) for name, text in programs(args.files)]
    print(render(results, args.markdown))
    return 1 if any(r.error for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
