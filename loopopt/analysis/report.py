"""`--print-analysis`: per function, the loops, trip counts, memory locations, dependences, and
liveN of each placed buffer between sibling loops that both touch it (analysis/liveness.py)."""
from __future__ import annotations

from .. import mlir
from .accesses import collect_accesses
from .affine import Scope
from .dependence import distance_set
from .effects import op_effects
from .facts import Facts
from .liveness import live_between
from .loops import loop_dims, loops_in_block, nesting_level, trip_count, is_perfect_nest
from .memory import is_placed, memory_location


def analysis_report(text, filename: str = "<input>") -> str:
    module = mlir.parse_module(text, filename)
    out = []
    for fn in mlir.functions(module):
        if mlir.func_body(fn) is None:
            continue
        scope = Scope()
        out.append(f"func @{mlir.func_name(fn)}")
        loops = [o for o in mlir.walk(fn) if o.name == "affine.for"]
        out.append("  loops:")
        for lp in loops:
            (d,) = loop_dims(lp, scope)
            tc = trip_count(lp, scope)
            out.append(f"    {mlir.location_of(lp, filename)}  level {nesting_level(lp)}  iv {d.name}  "
                       f"trip count {tc if tc is not None else '?'}  perfect {is_perfect_nest(lp)}")
        roots = {}
        for o in mlir.walk(fn):
            if o.name in ("memref.alloc", "memref.alloca"):
                roots[o.results[0]] = None
        for a in mlir.func_body(fn).arguments:
            if mlir.memref_type(a) is not None:
                roots[a] = None
        out.append("  memory locations:")
        for r in roots:
            loc = memory_location(r)
            shape = "x".join("?" if s is None else str(s) for s in loc.shape) or "scalar"
            out.append(f"    {loc.name:12s} {loc.kind:8s} {shape:12s} elem {loc.elem_size} B  liveN {loc.live_n} (static count)")
        out.append("  dependences between sibling loops (distance along the fused axis):")
        for block_loops in _sibling_groups(fn):
            for i, l1 in enumerate(block_loops):
                for l2 in block_loops[i + 1:]:
                    shared = op_effects(l1).touches() & op_effects(l2).touches()
                    if not shared:
                        continue
                    (ax1,), (ax2,) = loop_dims(l1, scope), loop_dims(l2, scope)
                    for a in collect_accesses(l1, scope):
                        for b in collect_accesses(l2, scope):
                            if a.key != b.key or not (a.is_write or b.is_write):
                                continue
                            if a.index is None or b.index is None:
                                d = "unknown"
                            else:
                                d = str(distance_set(a, b, ax1, ax2, scope))
                            out.append(f"    {mlir.location_of(a.op, filename)} -> {mlir.location_of(b.op, filename)}"
                                       f"  {'W' if a.is_write else 'R'}{'W' if b.is_write else 'R'}  {d}")
        out.append("  liveN between sibling loops (placed buffers both touch; written by/before the first, "
                   "read by/after the second):")
        out.extend(live_lines(fn, filename))
    return "\n".join(out) + "\n"


def live_lines(fn, filename: str) -> list[str]:
    """One line per sibling pair and shared placed buffer: `loc1 -> loc2  buffer  liveN n of N (how)`."""
    facts = Facts()
    out = []
    for block_loops in _sibling_groups(fn):
        for i, l1 in enumerate(block_loops):
            for l2 in block_loops[i + 1:]:
                e1, e2 = facts.effects(l1), facts.effects(l2)
                for key in sorted(e1.touches() & e2.touches(), key=lambda k: facts.location(e1.values[k]).name
                                  if is_placed(e1.values[k]) else ""):
                    root = e1.values[key]
                    if not is_placed(root):
                        continue
                    live = live_between(root, l1, l2, facts)
                    out.append(f"    {mlir.location_of(l1, filename)} -> {mlir.location_of(l2, filename)}  "
                               f"{facts.location(root).name}  liveN {live}")
    return out


def _sibling_groups(fn):
    groups = [loops_in_block(mlir.func_body(fn))]
    for o in mlir.walk(fn):
        for region in o.regions:
            for b in region.blocks:
                ls = loops_in_block(b)
                if len(ls) > 1:
                    groups.append(ls)
    return [g for g in groups if len(g) > 1]
