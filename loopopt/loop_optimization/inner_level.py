"""Fusion at an inner level: where the seed's working-set bound refuses a pair, the cpu measures
what one iteration of the fused loop touches, and tries the next inner common loop.

The seed bounds a fused pair by its working set per partition row (`Facts.fused_working_set`,
one row of every buffer: all dimensions but the first) against SBSize. On the cpu that row is
the wrong measure twice over: a buffer whose first dimension is 1 counts whole, and a batch loop
whose iteration really touches more than the cache holds is refused where the loop inside it (a
group, a channel) would fuse with room to spare.

Rule (`inner_level_plan`, the cpu target: `TargetHooks.fuses_inner_level`). A pair the seed's
bound refuses, every other check of the battery passed, is measured by the bytes one iteration
of the fused loop touches (`fused_iteration_bytes`: per buffer, the box of the elements either
loop touches in one iteration, the loops inside projected out, exactly with isl; a buffer that
a load or store of one element reads or writes at unknown elements, a gather, by the elements
those accesses can reach in one iteration, one per execution, at most the whole buffer:
docs/cpu_codegen.md section 69). If that fits
SBSize the pair fuses at its own level. Else, when each loop's body is one loop and nothing else
(`shells`), those two loops are the next inner common loop: the pair fuses as shells and the
inner pair fuses inside them when it passes the whole battery (on scratch copies, the shells
fused) and one iteration of it fits, tried level by level down. Legality is the battery's,
unchanged, at every level; only the size bound is measured another way. Nothing here mutates
IR: the driver (fusion.py) plans with `inner_level_plan` and fuses.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import islpy as isl

from .. import mlir
from ..analysis.dependence import iteration_footprint
from ..analysis.loops import body_ops, has_iter_args, known_trip_count, loop_dims
from ..analysis.memory import UNTRACED
from ..mlir import ir

# The remark's words for a pair fused at an inner level (fusion.py adds the numbers).
FUSED_INNER = "fused at level {level}: one iteration of the fused loop there touches {bytes} bytes <= SBSize {budget}"
FUSED_OWN = "one iteration of the fused loop touches {bytes} bytes <= SBSize {budget}"


NOT_SHELLS = "and the loops' bodies are not one loop each"


def over_budget(need: int | None) -> str:
    """The remark's words for a fused iteration that does not fit (`need`: its bytes, or None)."""
    return (f"one iteration of the fused loop touches {need} bytes" if need is not None
            else "the bytes one iteration of the fused loop touches are not bounded")


@dataclass(frozen=True)
class InnerLevel:
    """Where a pair refused for its working set fuses: `depth` levels below its own (0: its own
    level, the shells above fused as they are), one iteration there touching `bytes`."""

    depth: int
    bytes: int


def shells(l1: ir.Operation, l2: ir.Operation) -> tuple[ir.Operation, ir.Operation] | None:
    """The two loops inside the pair when each loop's body is exactly one affine.for (besides
    its terminator) and none of the four carries values: fusing the pair then makes those two
    siblings with nothing between them. None otherwise."""
    inner = []
    for lp in (l1, l2):
        ops = body_ops(lp)
        if has_iter_args(lp) or len(ops) != 1 or ops[0].name != "affine.for" or has_iter_args(ops[0]):
            return None
        inner.append(ops[0])
    return inner[0], inner[1]




@functools.lru_cache(maxsize=4096)
def box_elements(texts: tuple[str, ...]) -> int | None:
    """Elements of the smallest box holding the union of the sets `texts` (one buffer's
    per-iteration footprints), for the iteration where it is largest: per coordinate, the
    greatest over the parameters of max - min + 1. None when unbounded (a symbolic size)."""
    sets = [isl.Set(t) for t in texts]
    u = sets[0]
    for s in sets[1:]:
        u, s = u.align_params(s.get_space()), s.align_params(u.get_space())
        u = u.union(s)
    if u.is_empty():
        return 0
    n = 1
    for d in range(u.dim(isl.dim_type.set)):
        span = u.dim_max(d).sub(u.dim_min(d)).max_val()
        if not span.is_int():
            return None
        n *= span.to_python() + 1
    return n


# Ops that read or write one element of their buffer per execution, at any index (an index
# loaded or computed: not affine); a vector access, a copy or a call touches more.
ELEMENT_ACCESSES = frozenset({"memref.load", "memref.store"})


def executions_per_iteration(a, axis) -> int | None:
    """How many elements the access `a` (an ELEMENT_ACCESSES op) can touch in one iteration of
    the loop `axis` around it: one per execution, the product of the constant trip counts of its
    loops inside `axis`. None for another op, a trip count that is not constant, or `a` not
    inside `axis`."""
    names = [lp.name for lp in a.loops]
    if a.op.name not in ELEMENT_ACCESSES or axis.name not in names:
        return None
    n = 1
    for lp in a.loops[names.index(axis.name) + 1:]:
        trips = known_trip_count(lp.op) if lp.op.name == "affine.for" else None
        if trips is None:
            return None
        n *= trips
    return n


def fused_iteration_bytes(l1: ir.Operation, l2: ir.Operation, facts) -> int | None:
    """Bytes one iteration of the fused loop touches: per buffer either loop touches, the box of
    the elements the two loops touch in the same iteration (`iteration_footprint` with the
    second loop's iteration as the first's), times its element size. A buffer accessed at
    unknown elements (a gather: an index loaded or computed) counts the elements those accesses
    can reach in one iteration, one per execution (`executions_per_iteration`), plus its box of
    known elements, and at most the whole buffer; whole when an access's executions are not
    constant. None when some buffer may be any (untraced) or unbounded."""
    scope = facts.scope
    (ax1,), (ax2,) = loop_dims(l1, scope), loop_dims(l2, scope)
    texts: dict = {}
    reached: dict = {}  # key -> (root, elements the unknown accesses reach, or None: any)
    for lp, ax in ((l1, ax1), (l2, ax2)):
        for a in facts.accesses(lp):
            if a.key is UNTRACED:
                return None
            t = iteration_footprint(a, ax, scope, outer_as_params=True)
            if t is not None:
                texts.setdefault(a.key, (a.root, []))[1].append(t)
                continue
            runs = executions_per_iteration(a, ax) if a.index is None else None
            _, before = reached.get(a.key, (a.root, 0))
            reached[a.key] = (a.root, None if runs is None or before is None else before + runs)
    total = 0
    for key, (root, runs) in reached.items():
        loc = facts.location(root)
        if any(d is None for d in loc.shape):
            return None
        whole = math.prod(loc.shape)
        known = box_elements(tuple(sorted(set(texts[key][1])))) if runs is not None and key in texts else 0
        total += (whole if runs is None or known is None else min(whole, runs + known)) * loc.elem_size
    for key, (root, ts) in texts.items():
        if key in reached:
            continue
        n = box_elements(tuple(sorted(set(ts))))
        if n is None:
            return None
        total += n * facts.location(root).elem_size
    return total


def inner_level_plan(l1: ir.Operation, l2: ir.Operation, facts, budget: int,
                     inner_legal: Callable, fuse_shells: Callable[[ir.Operation, ir.Operation], None],
                     make_facts: Callable) -> tuple[InnerLevel | None, str]:
    """Where the pair (l1 before l2, legal but for the seed's working-set bound) fuses: its own
    level when one fused iteration fits `budget`; else, for `shells`, the inner pair inside the
    shells fused by `fuse_shells` (the caller's scratch copies), when `inner_legal(i1, i2,
    facts)` (the battery without the bound, on `make_facts()`: the fused shells are new IR)
    passes it and it fits, tried level by level. Returns the plan and '', or None and why not
    (for the refusal's remark)."""
    need = fused_iteration_bytes(l1, l2, facts)
    if need is not None and need <= budget:
        return InnerLevel(0, need), ""
    own = over_budget(need)
    inner = shells(l1, l2)
    if inner is None:
        return None, f"{own}, {NOT_SHELLS}"
    fuse_shells(l1, l2)
    i1, i2 = inner
    inner_facts = make_facts()
    if not inner_legal(i1, i2, inner_facts):
        return None, f"{own}, and the loops inside are not fusable"
    plan, why = inner_level_plan(i1, i2, inner_facts, budget, inner_legal, fuse_shells, make_facts)
    if plan is None:
        return None, f"{own}; inside: {why}"
    return InnerLevel(plan.depth + 1, plan.bytes), ""
