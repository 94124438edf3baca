"""Restructuring a candidate pair so that it can fuse (seed 001, inside the fusion driver).

Per refused pair, in the seed's order: distribution (split off the statements that block the
fusion), then tiling by the GCD of the partition extents and interchange (so both loops walk
the same number of partitions outermost), then the fuse is retried. Before tiling we try
dead-iteration elimination: if the longer loop's extra iterations only write placed buffers
that nothing reads afterwards, its range shrinks to the shorter one and plain fusion applies.

Every restructuring is first tried on a scratch copy of the pair; only a plan that ends in
a legal fusion is replayed on the real IR, so a refused pair never leaves tiled or split loops.
Before any copy, the facts of the real loops decide whether the pair can meet the
restructuring's precondition at all (`interchange_cannot_align`, `distribution_cannot_split`,
`head_refusal`): a trial that is bound to fail is not made.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import islpy as isl

from .. import mlir
from ..analysis import dependence
from ..analysis.accesses import collect_accesses
from ..analysis.affine import NonAffine, Scope
from ..analysis.effects import READ_OPS, WRITE_OPS, op_effects
from ..analysis.loops import (collect_interchangeable_loops, constant_bounds, constant_trip,
                              has_iter_args, known_trip_count, loop_dims, nested_in)
from ..analysis.memory import UNTRACED, block_reentered, buffer_key_of, escaping_use, is_placed
from ..analysis.run_memo import run_memo
from ..mlir import ir

DEAD_ITERATIONS = "[DEAD ITERATIONS] shrink loop to the iterations whose writes are read"


def on_scratch_copy(seq: list[ir.Operation], ops: list[ir.Operation], plan: Callable[..., bool]) -> bool:
    """Plan a restructuring on copies: clone the consecutive sibling ops `seq` (the pair and every
    op between them) into a scratch `scf.execute_region` placed just before the last of them, and
    run `plan(*copies of ops)`. True iff the plan succeeded and the scratch region verifies. The
    region is always erased; the real IR is never touched. Only the pair is copied, not the
    function, so a trial costs what the pair costs.

    Every value the copies use is defined before the region (the originals dominate it), and no
    analysis counts `scf.execute_region` as a loop, so the copies see the pair's own context."""
    last = seq[-1]
    with last.context, last.location:
        region_op = ir.Operation.create("scf.execute_region", results=[], regions=1, ip=ir.InsertionPoint(last))
        block = region_op.regions[0].blocks.append()
        end = ir.Operation.create("scf.yield", ip=ir.InsertionPoint(block))
    try:
        copies = [mlir.operation(op.clone(ip=ir.InsertionPoint(end))) for op in seq]
        picked = [copies[next(k for k, o in enumerate(seq) if o == op)] for op in ops]
        ok = bool(plan(*picked))
        return ok and mlir.verify(region_op) is None
    except (ValueError, NonAffine, isl.Error):  # a refused step; anything else is a bug for the guard
        return False
    finally:
        region_op.erase()

def ops_after(loop: ir.Operation) -> list[ir.Operation]:
    """The function-level ops that may run after `loop` (a direct child of the function body);
    what is nested in them is theirs. The rest of its block; when the function has several
    blocks, every op of every other block; and when a branch can re-enter the loop's block, the
    whole block, the loop included (its next trip reads what this trip left)."""

    block = loop.block
    ops = mlir.block_ops(block)
    blocks = list(block.region.blocks)
    if len(blocks) > 1 and block_reentered(block):
        later = list(ops)
    else:
        later = ops[ops.index(loop) + 1:]
    if len(blocks) > 1:
        for b in blocks:
            if b != block:
                later.extend(mlir.block_ops(b))
    return later


def _may_read(a) -> bool:
    """A plain store or a dealloc only writes; any other access (a call or an unknown op on the
    buffer, recorded as a whole-buffer write) may also read."""
    return not a.is_write or (a.op.name not in WRITE_OPS and a.op.name != "memref.dealloc")


def escapes(buf: ir.Value) -> bool:
    """The buffer has a use other than a load, a store or its dealloc (memory.escaping_use)."""
    return escaping_use(buf, {**READ_OPS, **WRITE_OPS}) is not None


def dead_tail_violation(loop: ir.Operation, keep: int, scope: Scope, escaping=escapes,
                        accesses=None, start: int = 0) -> str | None:
    """None iff every iteration of `loop` outside `start..start + keep - 1` (its iteration
    numbers; `start` 0: the tail after the first `keep`) can be removed without changing the
    program.

    Rule: the loop sits at function level, has constant bounds, yields nothing, calls nothing
    unknown, writes only placed buffers that cannot escape, and no access that may run after the
    loop (`ops_after`, everything nested in them included) may read an element written by the
    removed iterations (exact, with isl; buffers compared by key, an untraced memref may be
    any buffer). `escaping(buf)`: `escapes`, or a memoized answer of it; `accesses(op)`:
    collect_accesses in `scope`, or a memoized answer of it."""
    accesses = accesses or (lambda op: collect_accesses(op, scope))
    parent = mlir.operation(loop.parent)
    if parent.name != "func.func":
        return "not at function level"
    cb = constant_bounds(loop)
    tc = known_trip_count(loop)
    if cb is None or tc is None or keep < 1 or start < 0 or start + keep > tc or keep == tc:
        return "bounds are not constant"
    if len(loop.results):
        return "the loop yields values"
    eff = op_effects(loop)
    if eff.unknown:
        return "the loop has unknown effects"
    if any(not is_placed(eff.values[k]) or escaping(eff.values[k]) for k in eff.writes):
        return "the loop writes a buffer that is not placed or escapes"
    (ax,) = loop_dims(loop, scope)
    step = mlir.int_attr(loop, 'step')
    cuts = [f"{ax.name} >= {cb[0] + (start + keep) * step}"]
    if start:
        cuts.append(f"{ax.name} < {cb[0] + start * step}")
    tails, heads = {}, {}
    for a in accesses(loop):
        if a.is_write:
            if a.index is None:
                return "a write at unknown elements"
            removed = [dependence.element_set(a, scope, [cut]) for cut in cuts]
            tails.setdefault(a.key, []).extend(removed)
            heads.setdefault(a.key, []).extend(removed[1:])  # cuts[1]: the head, when start
    tails = {key: dependence.union_all(sets) for key, sets in tails.items()}
    if start:  # the head runs before the kept iterations: its writes may reach them in the loop
        heads = {key: dependence.union_all(sets) for key, sets in heads.items()}
        kept = f"{ax.name} >= {cb[0] + start * step} and {ax.name} < {cb[0] + (start + keep) * step}"
        why = removed_read_violation(accesses(loop), heads, scope, [kept], KEPT_READS)
        if why is not None:
            return why
    for later in ops_after(loop):
        why = removed_read_violation(accesses(later), tails, scope, [], LATER_READS)
        if why is not None:
            return why
    return None


# Who reads, in removed_read_violation's refusals: (an access of unknown index, a read).
LATER_READS = ("a later access", "a later read")
KEPT_READS = ("an access in the loop", "a kept iteration's read")


def removed_read_violation(reads, removed: dict, scope: Scope, extra: list[str], who: tuple[str, str]) -> str | None:
    """None iff no access in `reads` that may read (restricted to the iterations `extra` states)
    touches an element in `removed` (per buffer key: the elements the removed iterations write),
    exact with isl; an untraced access or a read of unknown index refuses. A refusal where the
    kept iteration overwrites the element before reading it is sound, not exact."""
    for b in reads:
        if not _may_read(b):
            continue
        if b.key is UNTRACED:
            return f"the access at {mlir.location_of(b.op)} may read any buffer"
        if b.key not in removed:
            continue
        if b.index is None:
            return f"{who[0]} reads unknown elements"
        if dependence.sets_intersect(removed[b.key], dependence.element_set(b, scope, extra)):
            return f"{who[1]} at {mlir.location_of(b.op)} uses the removed iterations"
    return None


def shrink_loop(loop: ir.Operation, keep: int, start: int = 0) -> None:
    """Set a constant-bound loop's bounds to run exactly its iterations `start..start + keep - 1`."""
    lb, _ = constant_bounds(loop)
    step = mlir.int_attr(loop, "step")
    ub = lb + (start + keep) * step
    with loop.context:
        loop.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(ub))
        if start:
            loop.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(lb + start * step))


def aligned_start(long: ir.Operation, short: ir.Operation) -> int:
    """The iteration number of `long` at which `short` starts, when both have constant bounds and
    one step and `short`'s iterations are a run of `long`'s; else 0 (keep the head)."""
    cl, cs = constant_bounds(long), constant_bounds(short)
    step = mlir.int_attr(long, "step")
    if cl is None or cs is None or step != mlir.int_attr(short, "step"):
        return 0
    off = cs[0] - cl[0]
    if off <= 0 or off % step or cs[1] > cl[1]:
        return 0
    return off // step


def tile_and_interchange(l1: ir.Operation, l2: ir.Operation, options, log, function: str):
    """GCD-tile both loops' partition loops (the seed's `[LOOP TILING] by N`) and interchange each
    nest so its point loop (the N partitions) is outermost. Returns the two new roots, or None."""
    from ..transforms.interchange import outermost_permutation, try_interchange
    from ..transforms.tiling import gcd_tiling, partition_loop

    # A loop whose own IV is the partition loop is erased by tiling: its tile loop takes its place.
    replaced = [(p is not None and p == lp) for lp in (l1, l2) for p in [partition_loop(lp)]]
    parts = gcd_tiling(l1, l2, log, function)
    if parts is None:
        return None
    roots = []
    for gone, old, (tile, point) in zip(replaced, (l1, l2), parts):
        root = tile if gone else old
        nest = collect_interchangeable_loops(root)
        if point not in nest:
            return None
        k = nest.index(point)
        new, why = try_interchange(nest, outermost_permutation(len(nest), k), Scope(), options, log, function)
        if why is not None:
            return None
        roots.append(new[0])
    return roots[0], roots[1]


@dataclass(frozen=True)
class DistributionPlan:
    """Maximal distribution of a nest, as positions: `groups[g]` lists the positions in the
    innermost body of group g's statements, in the order the groups must run; `graph` is the
    statement graph they come from. Positions carry the plan to a copy of the nest (a scratch
    trial), so the graph (isl) is built once for both."""

    groups: tuple
    graph: object  # legality.StatementGraph of the nest it was planned on

    def on(self, loop: ir.Operation):
        """(groups of ops, statement graph) for `loop`, a nest of the planned nest's structure."""
        from ..analysis.legality import StatementGraph, innermost_body

        nest = collect_interchangeable_loops(loop)
        body = innermost_body(nest)
        old = innermost_body(list(self.graph.band))
        at = {mlir.op_key(o): k for k, o in enumerate(old)}
        pos = [at[mlir.op_key(st)] for st in self.graph.statements]
        graph = StatementGraph(tuple(nest), tuple(body[k] for k in pos),
                               tuple(body[at[mlir.op_key(o)]] for o in self.graph.pure),
                               self.graph.edges, self.graph.binds)
        return [[body[k] for k in grp] for grp in self.groups], graph


def distribution_plan(loop: ir.Operation) -> DistributionPlan | None:
    """The groups maximal distribution makes of `loop`'s nest (check_loop_distribution's
    rules), None when it carries values, is not a band, or has fewer than two groups."""
    from ..analysis.legality import innermost_body, is_band
    from ..transforms.distribution import distribution_groups

    nest = collect_interchangeable_loops(loop)
    if not nest or not is_band(nest):
        return None
    groups, graph = distribution_groups(loop)
    if len(groups) < 2:
        return None
    at = {mlir.op_key(o): k for k, o in enumerate(innermost_body(nest))}
    return DistributionPlan(tuple(tuple(at[mlir.op_key(o)] for o in grp) for grp in groups), graph)


def distribute_for_partner(loop: ir.Operation, log, function: str,
                           plan: DistributionPlan | None = None) -> list[ir.Operation] | None:
    """Maximally distribute `loop` (seed 001's split_for_distribution / loop_distribution);
    returns the new loops, or None if it has fewer than two statement groups. `plan`: its
    distribution_plan, made on this loop or one of the same structure."""
    from ..transforms.distribution import loop_distribution
    from ..remarks import PASSED

    plan = plan if plan is not None else distribution_plan(loop)
    if plan is None:
        return None
    groups, graph = plan.on(loop)
    where = mlir.location_of(loop)
    loops = loop_distribution(loop, groups, graph=graph)
    if len(loops) < 2:
        return None
    if log is not None:
        log.add("distribution", PASSED, f"[LOOP DISTRIBUTION] into {len(loops)} loops", function=function,
                location=where, args={"groups": [len(g) for g in groups], "reason": "to enable fusion"})
    return loops


def distribution_cannot_split(loop: ir.Operation) -> bool:
    """True when `distribute_for_partner` provably returns None for `loop`: its nest carries
    values or is not a band, or the def-use pairs of its innermost body already bind every
    statement into one group (legality.def_use_groups; dependences can only join groups)."""
    from ..analysis.legality import def_use_groups, is_band

    nest = collect_interchangeable_loops(loop)
    return not nest or not is_band(nest) or def_use_groups(nest) < 2


def interchange_outer_trips(loop: ir.Operation) -> list[tuple[list[int], tuple | None]]:
    """`interchange_options(loop)`, each with the constant trip (count, step) of the loop that
    permutation makes outermost (`band[perm[0]]`: interchange keeps each loop's bounds and step)."""
    band = collect_interchangeable_loops(loop)
    return [(perm, constant_trip(band[perm[0]])) for perm in interchange_options(loop)]


def interchange_cannot_align(outer_trip: tuple | None, partner_trip: tuple | None) -> bool:
    """True when the nest an interchange makes (its new outermost loop's constant trip count and
    step, `interchange_outer_trips`) is provably refused against a partner with
    `partner_trip` for its trip counts (check_trip_counts): both constant, and different."""
    return outer_trip is not None and partner_trip is not None and outer_trip != partner_trip


_HEADS: dict = run_memo()  # (a loop's accesses, the head's upper bound) -> (head Loop, the accesses cut to it); one run's


def head_refusal(loop: ir.Operation, keep: int, partner: ir.Operation, facts, loop_first: bool) -> str | None:
    """Why the head of `loop` split after `keep` iterations (`split_loop`) cannot fuse with
    `partner` whatever the split's placement, or None when a trial may succeed.

    Decided on `loop`'s own accesses with its range cut to the head's (the head is a copy of the
    loop with that upper bound, so it makes exactly these accesses): a dependence the fused
    pair would reverse (fusion_legality.negative_distance) refuses it on the copy too.
    `loop_first`: the loop comes before its partner (the head then stays before it)."""
    from dataclasses import replace

    from .fusion_legality import by_key, negative_distance

    cb = constant_bounds(loop)
    if cb is None or mlir.int_attr(loop, "step") != mlir.int_attr(partner, "step"):
        return None
    scope = facts.scope
    (ax,) = loop_dims(loop, scope)
    (bx,) = loop_dims(partner, scope)
    accesses = tuple(facts.accesses(loop))
    if any(not a.loops or a.loops[0].op != loop or a.loops[0].name != ax.name for a in accesses):
        return None  # not every access runs under the loop's own dimension: do not guess
    memo = (accesses, cb[0] + keep * ax.step)  # the same head for every partner: the same objects
    if memo not in _HEADS:
        if len(_HEADS) > 4096:
            _HEADS.clear()
        head = replace(ax, upper=(str(memo[1]),))
        _HEADS[memo] = head, [replace(a, loops=(head, *a.loops[1:])) for a in accesses]
    head, cut = _HEADS[memo]
    if loop_first:
        why = negative_distance(by_key(cut), facts.accesses(partner), head, bx, scope, explain=False)
    else:
        why = negative_distance(facts.accesses_by_root(partner), cut, bx, head, scope, explain=False)
    return None if why is None else why.message


def interchange_options(loop: ir.Operation, max_depth: int = 4) -> list[list[int]]:
    """Non-identity permutations of the loop's perfect band (depth 2..max_depth)."""
    from itertools import permutations

    band = collect_interchangeable_loops(loop)
    if not 2 <= len(band) <= max_depth:
        return []
    return [list(p) for p in permutations(range(len(band))) if list(p) != list(range(len(band)))]


def interchange_band(loop: ir.Operation, perm: list[int], options, log, function: str) -> ir.Operation | None:
    """Permute the loop's perfect band if legal (check_loop_interchange); the new root or None."""
    from ..transforms.interchange import try_interchange

    band = collect_interchangeable_loops(loop)[:len(perm)]
    new, why = try_interchange(band, perm, Scope(), options, log, function)
    return new[0] if why is None else None


def interchange_refused(loop: ir.Operation, perm: list[int], options) -> bool:
    """True when `interchange_band(loop, perm, ...)` would refuse (check_loop_interchange). A
    question about the band alone: a copy of the loop gets the same answer, so a trial that
    interchanges a copy is not made for a permutation the loop itself refuses. False when the
    check fails as a trial's plan may (`on_scratch_copy`): the trial then decides as it did."""
    from ..transforms.interchange import check_loop_interchange

    band = collect_interchangeable_loops(loop)[:len(perm)]
    try:
        return check_loop_interchange(band, perm, Scope(), options) is not None
    except (ValueError, NonAffine, isl.Error):
        return False


# ---------------------------------------------------------------------------------------
# Recompute (slice) fusion: a consumer that reads the intermediate in another order.

RECOMPUTED = "[RECOMPUTE] producer's value recomputed in the consumer; intermediate removed"
RECOMPUTED_AT_DEPTH = ("[RECOMPUTE] producer slice recomputed in the consumer at depth {depth} "
                      "(one producer iteration per read: {slice}); intermediate removed")
# Ops recomputed per element the consumer reads, above which the traffic saved (one write and one
# read of the intermediate) is not worth it; a math op (exp, sqrt, ...) counts as four.
RECOMPUTE_BUDGET = 8


@dataclass(frozen=True)
class RecomputePlan:
    """How to replace every read of a producer's intermediate by recomputing the stored value.

    The producer is a perfect nest whose innermost body holds loads, pure ops and one store to
    `buffer`, indexed by the nest's IVs, each exactly once (`positions[k]` is the IV written in
    index component k): each element is written by one iteration, and the iteration of an element
    is its index read backwards. `body` are the ops to clone per consumer load (in order),
    `loads` the consumer's reads of the buffer."""

    producer: ir.Operation
    consumer: ir.Operation
    buffer: ir.Value
    store: ir.Operation
    loads: tuple
    positions: tuple
    ivs: tuple
    body: tuple
    cost: int


def _op_cost(op: ir.Operation) -> int:
    return 4 if op.name.startswith("math.") else 0 if op.name in ("affine.load", "arith.constant") else 1


def plan_recompute(producer: ir.Operation, consumer: ir.Operation, scope: Scope,
                   budget: int = RECOMPUTE_BUDGET, at_depth: bool = False) -> tuple[RecomputePlan | None, str]:
    """(plan, "") when the consumer's reads of the producer's intermediate can be replaced by
    recomputing the stored value, else (None, why). Pure: reads the IR, never changes it.

    Rules: the producer is a perfect affine.for nest, steps 1, no iter_args; its innermost body is
    affine.loads, pure ops and one affine.store to a placed buffer that does not escape, indexed by
    the IVs (a permutation; each IV used as itself) and possibly by IVs of loops that enclose both
    nests when `at_depth` (the consumer then has the same value; `_reads_covered` makes its
    reads use it). Every value the recomputed ops and the stored value use must be had at the
    read (`remap_refusal`): a nest IV (it becomes the IV the read's index names, also where it is
    data: a counter stored or cast), a value an earlier recomputed op makes, or one defined
    outside the producer; the nest's IVs are used by nothing else (an inner loop's bound). The
    buffer is read only by affine.loads in the consumer, which writes no buffer the producer reads
    and writes nothing unknown; the ops between the two write nothing the producer reads (a read
    through a memref of untraced origin may read any buffer, so nothing may be written). Every
    element the consumer reads was written by the producer (isl). Recomputing costs at most
    `budget` ops per element read."""
    from ..analysis.effects import is_pure_op
    from ..analysis.loops import body_ops, has_iter_args, perfect_nest
    from .fusion_legality import ops_between

    nest = perfect_nest(producer)
    if any(lp.name != "affine.for" or has_iter_args(lp) or mlir.int_attr(lp, "step") != 1 for lp in nest):
        return None, "the producer is not a perfect nest of unit-step loops without iter_args"
    inner = body_ops(nest[-1])
    stores = [o for o in inner if o.name == "affine.store"]
    if len(stores) != 1 or any(o.regions or not (o.name in ("affine.load", "affine.store") or is_pure_op(o))
                               for o in inner):
        return None, "the producer's body is not loads, pure ops and one store"
    store = stores[0]
    buf = store.operands[1]
    if not is_placed(buf) or escaping_use(buf, {**READ_OPS, **WRITE_OPS}) is not None:
        return None, "the intermediate is not a placed buffer that stays private"
    ivs = tuple(mlir.operation(lp).regions[0].blocks[0].arguments[0] for lp in nest)
    shared = shared_outer_ivs(producer, consumer) if at_depth else []
    index = list(store.operands)[2:]
    amap = mlir.affine_map_attr(store, "map")
    positions = []
    for expr in amap.results:
        if not isinstance(expr, ir.AffineDimExpr) or not 0 <= expr.position < len(index):
            return None, "the store's index is not the nest's IVs"
        v = index[expr.position]
        pos = next((k for k, iv in enumerate(ivs) if iv == v), None)
        if pos is None and any(iv == v for iv in shared):
            positions.append(None)  # an IV of a loop around both nests: the same value in the consumer
            continue
        if pos is None:
            return None, "the store's index is not the nest's IVs"
        positions.append(pos)
    if sorted(p for p in positions if p is not None) != list(range(len(ivs))):
        return None, "the store does not write one element per iteration"
    body = tuple(o for o in inner if o != store)
    why = remap_refusal(producer, ivs, body, store)
    if why is not None:
        return None, why
    loads = []
    for use in buf.uses:
        user = mlir.operation(use.owner)
        if user == store or user.name == "memref.dealloc":
            continue
        if user.name != "affine.load" or not nested_in(user, consumer):
            return None, f"the intermediate is also used by {user.name} at {mlir.location_of(user)}"
        loads.append(user)
    if not loads:
        return None, "the consumer does not read the intermediate"
    reads = op_effects(nest[-1]).reads - {buffer_key_of(buf)}
    if buffer_key_of(buf) in op_effects(nest[-1]).reads:
        return None, "the producer reads its own intermediate"
    for op in [*ops_between(producer, consumer), consumer]:
        e = op_effects(op)
        # a read through a memref of untraced origin may read any buffer: any write may change it
        if e.unknown or (e.writes & reads) or UNTRACED in e.writes or (UNTRACED in reads and e.writes):
            return None, f"{op.name} at {mlir.location_of(op)} may change what the producer reads"
    cost = sum(_op_cost(o) for o in body) * len(loads)
    if cost > budget:
        return None, f"recomputing costs {cost} ops per element, over {budget}"
    if not _reads_covered(nest, store, loads, scope):
        return None, "the consumer may read elements the producer does not write"
    return RecomputePlan(producer, consumer, buf, store, tuple(loads), tuple(positions), ivs, body, cost), ""



# The start of every refusal of `remap_refusal` (the fusion driver reports those with a remark).
UNMAPPED = "a value of the producer's loops cannot be had in the consumer"


def _index_of(values, v: ir.Value) -> int | None:
    return next((k for k, x in enumerate(values) if x == v), None)


def remap_refusal(producer: ir.Operation, ivs: tuple, body: tuple, store: ir.Operation) -> str | None:
    """Why recomputing `body` and the stored value at a consumer's read would use a value that
    cannot be had there, else None.

    At the read, a value of the producer is had when it is one of the nest's IVs `ivs` (the read's
    index names the iteration that wrote the element: `recompute_into_consumer` computes the IV
    from it, wherever the IV is used, as an index or as data), a result of an earlier op of `body`
    (its clone), or defined outside the producer (it dominates the consumer, which follows the
    producer in one block). Anything else defined by the producer's loops (their headers, or an
    op of theirs that is not recomputed) would be freed with the producer: refused. So is an IV
    used by an op that is not recomputed (an inner loop's bound), which no read can stand for."""
    from ..analysis.memory import value_name

    made: list = []
    recomputed = [*body, store]
    for op in recomputed:
        operands = list(op.operands)[:1] if op == store else list(op.operands)
        for v in operands:
            if _index_of(ivs, v) is not None or _index_of(made, v) is not None:
                continue
            owner, block = mlir.value_owner(v)
            where = owner if owner is not None else mlir.operation(block.owner)
            if where == producer or nested_in(where, producer):
                return f"{UNMAPPED}: {value_name(v)}, defined by {where.name} at {mlir.location_of(where)}"
        if op != store:
            made += list(op.results)
    for iv in ivs:
        for use in iv.uses:
            user = mlir.operation(use.owner)
            if not any(user == op for op in recomputed):
                return (f"{UNMAPPED}: the induction variable {value_name(iv)} is used by {user.name} at "
                        f"{mlir.location_of(user)}, which is not recomputed")
    return None


def remapped(v: ir.Value, plan: RecomputePlan, iv_values: list, made: list) -> ir.Value:
    """What stands for the producer's value `v` at one read (`remap_refusal` allowed it): the
    IV's value the read's index names, the clone's result for a result of a recomputed op (`made`:
    (old, new) pairs), else `v` itself (defined outside the producer)."""
    pos = _index_of(plan.ivs, v)
    if pos is not None:
        return iv_values[pos]
    return next((new for old, new in made if old == v), v)


def redundant_recompute(plan: RecomputePlan) -> str | None:
    """Why recomputing at depth would do more work than the producer did, or None.

    Per iteration of the loops around both nests, the producer runs each of its iterations once;
    the consumer recomputes one producer iteration per read. When it reads more often than the
    producer wrote (reads of the same element in several consumer iterations: a transposed
    weight read in every row of a matrix product), every extra read repeats the producer's
    loads and ops, and the consumer's loops then read the producer's inputs where code generation
    planned for the intermediate: refused. Counted with constant trip counts (the loops of the
    consumer around each read, inside the consumer, against the producer nest's); a trip count
    known only at run time refuses too (the cost cannot be shown to be no worse)."""
    from ..analysis.loops import enclosing_loops, perfect_nest

    def trips(loops) -> int | None:
        n = 1
        for lp in loops:
            t = known_trip_count(lp) if lp.name == "affine.for" else None
            if t is None:
                return None
            n *= t
        return n

    writes = trips(perfect_nest(plan.producer))
    reads = 0
    for ld in plan.loads:
        r = trips([plan.consumer, *enclosing_loops(ld, stop=plan.consumer)])
        if r is None or writes is None:
            return "a trip count is known only at run time"
        reads += r
    if reads > writes:
        return f"the consumer reads {reads} elements where the producer wrote {writes}"
    return None


def slice_bounds(plan: RecomputePlan) -> str:
    """The producer iteration each consumer read recomputes, as `(producer IVs) = (indices)`
    per read, the indices written over the consumer's values (memory.value_name), joined by `; `."""
    import re

    from ..analysis.memory import value_name

    ivs = ", ".join(value_name(iv) for iv in plan.ivs)
    parts = []
    for ld in plan.loads:
        lmap = mlir.affine_map_attr(ld, "map")
        names = [value_name(v) for v in list(ld.operands)[1:]]

        def named(m, names=names, n_dims=lmap.n_dims):
            k = int(m.group(2))
            return names[k if m.group(1) == "d" else n_dims + k]

        exprs = [""] * len(plan.ivs)
        for comp, pos in enumerate(plan.positions):
            if pos is not None:
                exprs[pos] = re.sub(r"\b([ds])(\d+)\b", named, str(lmap.results[comp]))
        parts.append(f"({ivs}) = ({', '.join(exprs)})")
    return "; ".join(dict.fromkeys(parts))


def shared_outer_ivs(producer: ir.Operation, consumer: ir.Operation) -> list[ir.Value]:
    """The IVs of the affine.for loops that enclose both `producer` and `consumer` (siblings of
    one block, so every loop around one is around the other)."""
    ivs = []
    op = mlir.operation(producer.parent)
    while op.name == "affine.for":
        ivs.append(op.regions[0].blocks[0].arguments[0])
        op = mlir.operation(op.parent)
    return ivs


def _reads_covered(nest, store, loads, scope: Scope) -> bool:
    """Every element a load reads is written by the store in the same iteration of the loops
    that enclose both nests (isl). The enclosing IVs stay set dimensions, not existentials: an
    element written by an earlier iteration of an enclosing loop would be recomputed from what
    its inputs hold now, which later ops of that loop may have changed."""
    from ..analysis.accesses import access_pattern

    w = access_pattern(store, scope)
    if w.index is None:
        return False
    n_outer = len(w.loops) - len(nest)
    outer = [lp.name for lp in w.loops[:n_outer]]
    written = _elements_per_outer_iteration(w, n_outer, scope)
    for ld in loads:
        r = access_pattern(ld, scope)
        if r.index is None or [lp.name for lp in r.loops[:n_outer]] != outer:
            return False
        read = _elements_per_outer_iteration(r, n_outer, scope)
        read, wr = read.align_params(written.get_space()), written.align_params(read.get_space())
        if not read.is_subset(wr):
            return False
    return True


def _elements_per_outer_iteration(a, n_outer: int, scope: Scope):
    """{ [outer IVs, element] } that the access touches: the first `n_outer` loops of the access
    are kept as dimensions, the others projected out (isl)."""
    names = [lp.name for lp in a.loops]
    outer, inner = names[:n_outer], names[n_outer:]
    cons = [c for lp in a.loops for c in lp.constraints()]
    elems = [f"x{k}" for k in range(len(a.index))]
    cons += dependence.element_constraints(a, elems)
    body = " and ".join(cons) or "true"
    if inner:
        body = f"exists ({', '.join(inner)}: {body})"
    return isl.Set(f"[{', '.join(sorted(scope.params))}] -> {{ [{', '.join(outer + elems)}] : {body} }}")


def recompute_into_consumer(plan: RecomputePlan, erase_buffer: bool = True) -> None:
    """Apply a plan: before each consumer load, the producer's IVs are computed from the load's
    index (one affine.apply each), the producer's body is cloned on them, and the load's uses take
    the recomputed value; then the producer nest is erased, and with `erase_buffer` the buffer
    and its dealloc too (a driver that tracks block order erases those through its rewriter)."""
    for ld in plan.loads:
        with ld.context, ld.location:
            ip = ir.InsertionPoint(ld)
            lmap = mlir.affine_map_attr(ld, "map")
            operands = list(ld.operands)[1:]
            iv_values = [None] * len(plan.ivs)
            for comp, pos in enumerate(plan.positions):
                if pos is None:
                    continue  # an enclosing IV: _reads_covered proved the load reads it as stored
                m = ir.AffineMap.get(lmap.n_dims, lmap.n_symbols, [lmap.results[comp]])
                iv_values[pos] = mlir.affine_d.AffineApplyOp(m, operands, ip=ip).result
            made: list = []
            for op in plan.body:
                clone = mlir.operation(op.clone(ip=ip))
                for k, v in enumerate(op.operands):
                    clone.operands[k] = remapped(v, plan, iv_values, made)
                made += list(zip(op.results, clone.results))
            # the stored value is remapped like any operand: a stored counter is the read's IV
            ld.results[0].replace_all_uses_with(remapped(plan.store.operands[0], plan, iv_values, made))
            ld.erase()
    buf = plan.buffer
    plan.producer.erase()
    if not erase_buffer:
        return
    for use in list(buf.uses):
        mlir.operation(use.owner).erase()
    owner, _ = mlir.value_owner(buf)
    owner.erase()


# ---------------------------------------------------------------------------------------
# Loop splitting (cpu): a longer loop whose extra iterations are read later keeps them in a
# tail loop, and its head fuses with the shorter partner.

SPLIT_LOOP = "[LOOP SPLIT] split the loop at iteration {kept}: the head fuses, the tail keeps the rest"
STOP_SPLIT = "[STOP LOOP SPLIT]"


def split_violation(loop: ir.Operation, keep: int) -> str | None:
    """None iff `loop` can be split into a head over [lb, lb + keep * step) and a tail over
    [lb + keep * step, ub), one after the other, with the same body.

    Running the first `keep` iterations and then the rest is the loop's own order, so a split
    never changes what the program computes; the rule only admits loops we rebuild exactly: an
    affine.for at function level with constant bounds, no iter_args and no results, and
    1 <= keep < its trip count."""
    if loop.name != "affine.for":
        return "not an affine.for"
    if mlir.operation(loop.parent).name != "func.func":
        return "not at function level"
    tc = known_trip_count(loop) if constant_bounds(loop) is not None else None
    if tc is None:
        return "bounds are not constant"
    if len(loop.results) or has_iter_args(loop):
        return "the loop carries values"
    if not 1 <= keep < tc:
        return f"cannot keep {keep} of {tc} iterations"
    return None


def split_loop(loop: ir.Operation, keep: int) -> tuple[ir.Operation, ir.Operation]:
    """Split a loop `split_violation` admits: returns (head, tail), the head (a copy, placed just
    before) runs the first `keep` iterations and `loop` itself, now the tail, the rest."""
    lb, ub = constant_bounds(loop)
    cut = lb + keep * mlir.int_attr(loop, "step")
    head = mlir.operation(loop.clone(ip=ir.InsertionPoint(loop)))
    with loop.context:
        head.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(cut))
        loop.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(cut))
    return head, loop


def _known_accesses(op: ir.Operation, scope: Scope):
    """The op's accesses, or (None, why) when its effects are not all modelled."""
    eff = op_effects(op)
    if eff.unknown:
        return None, f"{op.name} at {mlir.location_of(op)} has unknown effects"
    return collect_accesses(op, scope), ""


def _touch_common_element(a, b, scope: Scope) -> str | None:
    """None iff accesses a and b provably touch no common element; else why they may."""
    if a.key is UNTRACED or b.key is UNTRACED:
        return f"the access at {mlir.location_of((a if a.key is UNTRACED else b).op)} may touch any buffer"
    if a.key != b.key:
        return None
    if a.index is None or b.index is None or a.root != b.root or len(a.index) != len(b.index):
        return f"the accesses at {mlir.location_of(a.op)} and {mlir.location_of(b.op)} may overlap"
    if dependence.sets_intersect(dependence.element_set(a, scope), dependence.element_set(b, scope)):
        return f"the accesses at {mlir.location_of(a.op)} and {mlir.location_of(b.op)} touch one element"
    return None


def reorder_violation(x: ir.Operation, y: ir.Operation, scope: Scope) -> str | None:
    """None iff sibling ops x and y may run in either order.

    Rule: both have only modelled effects, and no access of one touches an element that an
    access of the other touches when either of the two writes (exact with isl, over all their
    iterations; an untraced memref, an unknown index or two names of one buffer refuse)."""
    ax, why = _known_accesses(x, scope)
    if ax is None:
        return why
    ay, why = _known_accesses(y, scope)
    if ay is None:
        return why
    for a in ax:
        for b in ay:
            if a.is_write or b.is_write:
                why = _touch_common_element(a, b, scope)
                if why is not None:
                    return why
    return None


def shares_elements(x: ir.Operation, y: ir.Operation, scope: Scope) -> bool:
    """True iff some buffer element is touched by both ops (read or written; isl). A head that
    shares no element with its partner gains nothing from fusing: the split is not worth it."""
    ax, _ = _known_accesses(x, scope)
    ay, _ = _known_accesses(y, scope)
    if ax is None or ay is None:
        return True
    return any(_touch_common_element(a, b, scope) is not None for a in ax for b in ay)


AFTER_PARTNER, BEFORE_HEAD, IN_PLACE = "after the partner", "before the head", "in place"


def tail_placement(head: ir.Operation, tail: ir.Operation, partner: ir.Operation, scope: Scope) -> str:
    """Where the tail of a split head (the first loop of the pair) should stand so that it is not
    between the head and its partner: after the partner when it may run after every op from
    itself to the partner (`reorder_violation`), else before the head when it may run before it,
    else in place (the fusion battery then decides whether it can be hoisted). A head after
    its partner keeps its tail in place."""
    if not head.is_before_in_block(partner):
        return IN_PLACE
    from .fusion_legality import ops_between

    if all(reorder_violation(tail, x, scope) is None for x in [*ops_between(tail, partner), partner]):
        return AFTER_PARTNER
    if reorder_violation(tail, head, scope) is None:
        return BEFORE_HEAD
    return IN_PLACE


def next_op(op: ir.Operation) -> ir.Operation:
    """The op right after `op` in its block (a function-level op is followed by the terminator
    at least)."""
    ops = mlir.block_ops(op.block)
    return ops[ops.index(op) + 1]
