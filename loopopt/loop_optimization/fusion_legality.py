"""Legality of fusing two sibling loops (seed 000's stop reasons), as pure functions of the IR.

`fusion_legality` runs the battery in the seed's order and returns the ops between the loops
that must move above the first loop, and a `Refusal` (None when the pair may fuse). Nothing
here mutates IR: the fusion driver (loop_optimization/fusion.py) asks, then acts.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

from .. import mlir
from ..analysis import dependence
from ..analysis.accesses import collect_accesses
from ..analysis.checks import fusion_order_refusal
from ..analysis.affine import Scope
from ..analysis.effects import Effects
from ..analysis.facts import values_used_inside
from ..analysis.loops import constant_trip, has_iter_args, loop_dims, substitute
from ..analysis.loops import same_trip_count as loops_same_trip_count
from ..analysis.memory import UNTRACED
from ..analysis.refusal import Code, Refusal
from ..mlir import ir

# ---------------------------------------------------------------------------------------
# Each check returns None when legal, else a Refusal.


def same_trip_count(l1: ir.Operation, l2: ir.Operation, scope: Scope) -> bool:
    """loops.same_trip_count, without isl when both loops have single constant bounds."""
    c1, c2 = constant_trip(l1), constant_trip(l2)
    if c1 is not None and c2 is not None:
        return c1[0] == c2[0]
    return loops_same_trip_count(l1, l2, scope)


def check_trip_counts(l1: ir.Operation, l2: ir.Operation, scope: Scope) -> Refusal | None:
    """Both loops must run the same number of iterations (decided symbolically) with one step."""
    if mlir.int_attr(l1, "step") != mlir.int_attr(l2, "step"):
        return Refusal(Code.UNMATCHED_TRIP_COUNT, "different steps")
    if not same_trip_count(l1, l2, scope):
        return Refusal(Code.UNMATCHED_TRIP_COUNT)
    if not same_lower_bound(l1, l2) and (single_result(l1) is None or single_result(l2) is None):
        return Refusal(Code.UNMATCHED_TRIP_COUNT, "different lower bounds given as max(...) of several values")
    return None


def accesses_partition_dim(loop: ir.Operation, scope: Scope, accesses=None) -> bool:
    """True iff some access in the loop indexes dimension 0 (the partition dimension) with the
    loop's own IV or an IV of a loop enclosing it."""
    names = {d.name for d in loop_dims(loop, scope)}
    for a in (accesses if accesses is not None else collect_accesses(loop, scope)):
        names_here = {lp.name for lp in a.loops}
        if a.index and any(a.uses_iv(n, 0) for n in names_here | names):
            return True
    return False


def check_partition_dim(l1: ir.Operation, l2: ir.Operation, scope: Scope, facts=None) -> Refusal | None:
    """Both loops index the partition dimension (dimension 0) with their IV or an enclosing one."""
    for lp in (l1, l2):
        if not (_partition_dim(lp, facts) if facts is not None else accesses_partition_dim(lp, scope)):
            return Refusal(Code.NO_PARTITION_DIM, f"loop at {mlir.location_of(lp)}")
    return None


def _partition_dim(loop: ir.Operation, facts) -> bool:
    """accesses_partition_dim of the loop, memoized on its access list (a fuse appends to it, an
    edit replaces it): each loop meets up to 2 * distance_threshold partners."""
    memo = facts.__dict__.setdefault("_partition_dim", {})
    accs = facts.accesses(loop)
    hit = memo.get(mlir.op_key(loop))
    if hit is None or hit[0] is not accs or hit[1] != len(accs):
        hit = memo[mlir.op_key(loop)] = (accs, len(accs), accesses_partition_dim(loop, facts.scope, accs))
    return hit[2]


def has_negative_distance(l1: ir.Operation, l2: ir.Operation, scope: Scope, facts=None) -> Refusal | None:
    """Fusing reverses any dependence from an iteration of l1 to an earlier iteration of l2.

    Checked for RAW, WAR and WAW over every pair of conflicting accesses with isl. A distance
    of 0 is legal: in the fused body l1's statements still precede l2's (the seed rejects
    d <= 0, which forbids the ordinary producer-consumer case)."""
    (ax1,) = loop_dims(l1, scope)
    (ax2,) = loop_dims(l2, scope)
    if facts is not None:
        # One access per signature relative to its loop (Facts.classes): a pair's answer depends
        # only on the two signatures, and the first refusal found is on the first access of each,
        # as without them (a loop that absorbed N copies of one update is checked as one).
        by_root1, acc2 = facts.classes(l1).by_root, facts.classes(l2).flat
    else:
        by_root1, acc2 = by_key(collect_accesses(l1, scope)), collect_accesses(l2, scope)
    return negative_distance(by_root1, acc2, ax1, ax2, scope)


def by_key(accesses) -> dict:
    """Accesses grouped by buffer key (as `Facts.accesses_by_root`)."""
    out: dict = {}
    for a in accesses:
        out.setdefault(a.key, []).append(a)
    return out


def negative_distance(by_root1: dict, acc2, ax1, ax2, scope: Scope, explain: bool = True) -> Refusal | None:
    """has_negative_distance over given accesses: `by_root1` those of the first loop grouped by
    buffer key, `acc2` those of the second, `ax1`/`ax2` the two axes fused. A restructuring
    asks it of accesses it has not built yet (a split loop's head: pair_restructuring).

    With `explain` False only the answer counts (the refusal does not print the distances):
    each question is asked with the loops named by position, so nests of one shape share one
    isl answer (dependence.may_be_negative_between). With `explain` the distance sets are built
    with the loops' own names, as they are printed: isl prints a set according to the operations
    made on it before, so a printed set must come from the same questions as always. They are
    built only for a pair the positional questions refuse (the same pairs in the same order give
    the same answers, so the walk that prints finds the same first refusal)."""
    if explain and _negative_distance(by_root1, acc2, ax1, ax2, scope, False) is None:
        return None
    return _negative_distance(by_root1, acc2, ax1, ax2, scope, explain)


def _negative_distance(by_root1: dict, acc2, ax1, ax2, scope: Scope, explain: bool) -> Refusal | None:
    for b in acc2:
        partners = [a for k, accs in by_root1.items() for a in accs] if b.key is UNTRACED else \
            [*by_root1.get(b.key, ()), *by_root1.get(UNTRACED, ())]
        for a in partners:
            if not (a.is_write or b.is_write):
                continue
            if a.key is UNTRACED or b.key is UNTRACED:
                return Refusal(Code.NEGATIVE_DISTANCE, f"{_name(a.root)} may alias any buffer")
            if a.index is None or b.index is None:
                return Refusal(Code.NEGATIVE_DISTANCE, f"{_name(a.root)} is accessed at unknown elements")
            if _identical_access(a, b, ax1, ax2):
                continue  # same element at the same iteration: distance 0
            kind = "RAW" if a.is_write and not b.is_write else "WAR" if b.is_write and not a.is_write else "WAW"
            if not explain:
                if dependence.may_be_negative_between(a, b, ax1, ax2, scope):
                    return Refusal(Code.NEGATIVE_DISTANCE, f"{kind} on {_name(a.root)}")
                continue
            dist = dependence.distance_set(a, b, ax1, ax2, scope)
            if dist is not None and dependence.may_be_negative(dist):
                return Refusal(Code.NEGATIVE_DISTANCE, f"{kind} on {_name(a.root)}, distances {dist}")
    return None


def _name(v: ir.Value) -> str:
    owner, _ = mlir.value_owner(v)
    where = mlir.location_of(owner) if owner is not None else "an argument"
    return f"{owner.name if owner is not None else 'argument'} ({where})"


def _identical_access(a, b, ax1, ax2) -> bool:
    """Fast path for distance exactly 0: the same buffer and index with the two axes identified,
    no other loops involved, scalar accesses, and one index component equal to the axis IV itself
    (so the element determines the iteration; `t[i]` in a `j` loop is touched by every `j`)."""
    if ax1.lower != ax2.lower or a.root != b.root or a.is_vector or b.is_vector or ax1.step != 1:
        return False
    if len(a.loops) != len(b.loops) or a.loops[-1].name != ax1.name or b.loops[-1].name != ax2.name:
        return False
    if len(a.index) != len(b.index) or not any(t.strip("()") == ax1.name for t in a.index):
        return False
    return all(_renamed(t, ax2.name, ax1.name) == u for t, u in zip(b.index, a.index))


@functools.lru_cache(maxsize=65536)
def _renamed(text: str, old: str, new: str) -> str:
    """substitute(text, {old: new}), memoized: the same index texts meet in every pair."""
    return text if old == new else substitute(text, {old: new})


def check_modelled(l1: ir.Operation, l2: ir.Operation, effects) -> Refusal | None:
    """Sound by default: a loop holding an op whose effects we do not model exactly (a call, an
    unregistered op, an access through an untraced memref) is a barrier; the remark names it."""
    for lp in (l1, l2):
        e = effects(lp)
        if e.unknown:
            return Refusal(Code.UNMODELLED, f"{e.reason} (in the loop at {mlir.location_of(lp)})")
    return None


def private_buffer(e: Effects, key) -> bool:
    """The buffer `key` (touched by `e`) is one this function allocates and never lets escape:
    every use is an affine/memref load or store of it or its dealloc (memory.escaping_use), so
    no other name reaches it and an op with unknown effects (an external call) cannot touch it."""
    from ..analysis.effects import READ_OPS, WRITE_OPS
    from ..analysis.memory import escaping_use, root_origin

    root = e.values.get(key)
    if key is UNTRACED or root is None or root_origin(root) != "alloc":
        return False
    return escaping_use(root, {**READ_OPS, **WRITE_OPS}) is None


def _conflict(x: Effects, y: Effects) -> bool:
    """x and y may touch one buffer, one of them writing. An op with unknown effects conflicts
    with what it is known to touch and with everything else the other side touches except the
    function's private buffers (`private_buffer`):
    so an external call between two loops that work on private buffers stays where it is
    and the loops fuse around it (MLIR's loop-fusion-3.mlir, a call without memref operands)."""
    if x.unknown and y.unknown:
        return True
    if bool(x.writes & y.touches()) or bool(x.reads & y.writes):
        return True  # what each side is known to touch (an op with unknown effects may know some)
    if x.unknown or y.unknown:
        known = y if x.unknown else x
        return any(not private_buffer(known, k) for k in known.touches())
    return False


def _values_used_inside(op: ir.Operation) -> frozenset:
    return values_used_inside(op)


def _touches_shared(e: Effects) -> bool:
    """What `_conflict` asks of the known side when the other has unknown effects: `e` touches a
    buffer that is not private to the function (`private_buffer`)."""
    return any(not private_buffer(e, k) for k in e.touches())


@dataclass
class NeededSummary:
    """The union of the ops `traverse_path` has found the second loop needs, as `_conflict` and
    the SSA test read them: x conflicts with some needed op m iff it conflicts with this summary
    (`conflicts`), because each clause of `_conflict` is an intersection with one side's sets or
    a flag of one side alone, and both distribute over the union. So each op between the loops
    is judged once against the summary instead of once per needed op after it. The two costly
    parts are folded in only when asked, as the pairwise walk asked them: the values used inside
    (a walk of the op) by an op with results, whether a needed op touches a non-private buffer
    by an op with unknown effects."""
    touches: set = field(default_factory=set)  # buffers the needed ops read or write
    writes: set = field(default_factory=set)  # buffers they write
    unknown: bool = False  # one of them has unknown effects
    _values: set = field(default_factory=set)  # values used inside the needed ops folded so far
    _unwalked: list = field(default_factory=list)  # needed ops not yet folded into _values
    _shared: bool = False  # a folded needed op touches a non-private buffer (`_touches_shared`)
    _unshared: list = field(default_factory=list)  # needed ops' effects not yet folded into _shared
    used_inside: Callable = _values_used_inside  # op -> the values used inside it (Facts.used_values)

    def add(self, op: ir.Operation, e: Effects) -> None:
        self.touches |= e.touches()
        self.writes |= e.writes
        self.unknown = self.unknown or e.unknown
        self._unwalked.append(op)
        self._unshared.append(e)

    def uses_result_of(self, op: ir.Operation) -> bool:
        """A needed op uses a result of `op` (inside it: its nested ops' operands count)."""
        if not op.results:
            return False
        for m in self._unwalked:
            self._values |= self.used_inside(m)
        self._unwalked.clear()
        return any(r in self._values for r in op.results)

    def conflicts(self, x: Effects) -> bool:
        """`any(_conflict(x, e) for e in the needed ops' effects)`."""
        if bool(x.writes & self.touches) or bool(x.reads & self.writes):
            return True
        if x.unknown:
            if self.unknown:
                return True
            self._shared = self._shared or any(_touches_shared(e) for e in self._unshared)
            self._unshared.clear()
            return self._shared
        return self.unknown and _touches_shared(x)


def traverse_path(l1: ir.Operation, l2: ir.Operation, between: list[ir.Operation],
                  effects, used_inside: Callable = _values_used_inside) -> tuple[list[ir.Operation], Refusal | None]:
    """Classify the ops between two loops (the seed's traversePath).

    Ops the second loop does not depend on stay where they are. Ops it needs (SSA or memory,
    transitively) are moved above the first loop when they don't depend on it; anything else
    stops fusion. Returns (ops to hoist in order, reason). The ops are walked once, last to
    first, each judged against the second loop and the `NeededSummary` of the needed ops after
    it: linear in the ops between (the pairwise walk was quadratic, 13 s of a 48 s bilstm
    compile). `used_inside` gives the values used inside an op (`Facts.used_values`: each op's
    walked once per version of it, not once per pair that asks)."""
    if not between:
        return [], None
    e2 = effects(l2)
    used2: frozenset | None = None  # values used inside l2, walked when an op with results asks
    after = NeededSummary(used_inside=used_inside)
    needed: list[bool] = [False] * len(between)
    for k in range(len(between) - 1, -1, -1):
        x = between[k]
        ex = effects(x)
        if x.results and used2 is None:
            used2 = used_inside(l2)
        if (any(r in used2 for r in x.results) or _conflict(ex, e2)
                or after.uses_result_of(x) or after.conflicts(ex)):
            needed[k] = True
            after.add(x, ex)
    hoist = [x for x, n in zip(between, needed) if n]
    e1 = effects(l1)
    for x in hoist:
        if _conflict(effects(x), e1):
            return [], Refusal(Code.BLOCKED_BY_OPS, f"{x.name} at {mlir.location_of(x)} depends on the first "
                                  "loop and the second loop needs it")
    return hoist, None


def check_order(l1: ir.Operation, l2: ir.Operation, between: list[ir.Operation], hoist: list[ir.Operation],
                facts) -> Refusal | None:
    """A run-time check (cf.assert) in either loop or between them keeps its order with every op
    that is a hazard to it (analysis/checks.py: another check's message, a visible write, a trap),
    as fused: `checks.fusion_order_refusal`."""
    if not (facts.effects(l1).aborts or facts.effects(l2).aborts or any(facts.effects(x).aborts for x in between)):
        return None
    why = fusion_order_refusal(l1, l2, between, hoist, facts.scope)
    return Refusal(Code.CHECK_ORDER, why) if why is not None else None


def same_lower_bound(l1: ir.Operation, l2: ir.Operation) -> bool:
    m1, m2 = mlir.affine_map_attr(l1, "lowerBoundMap"), mlir.affine_map_attr(l2, "lowerBoundMap")
    n1, n2 = m1.n_dims + m1.n_symbols, m2.n_dims + m2.n_symbols
    return m1 == m2 and list(l1.operands)[:n1] == list(l2.operands)[:n2]


def single_result(loop: ir.Operation):
    m = mlir.affine_map_attr(loop, "lowerBoundMap")
    return m if len(m.results) == 1 else None




def ops_between(l1: ir.Operation, l2: ir.Operation) -> list[ir.Operation]:
    """The ops strictly between two ops of one block, in program order."""
    ops = mlir.block_ops(l1.block)
    return ops[ops.index(l1) + 1:ops.index(l2)]


def fusion_legality(l1: ir.Operation, l2: ir.Operation, facts, options, profit: float,
                    between: list[ir.Operation] | None = None, carried_values: bool = False, *,
                    hooks, budget: bool = True) -> tuple[list[ir.Operation], Refusal | None]:
    """(ops to hoist above l1, None) if the sibling loops l1 < l2 may fuse, else ([], Refusal).

    In the seed's order: no values carried, effects modelled, (the target's refusal of the pair
    as a whole, `hooks.pair_refusal`, none on the Neuron targets), equal trip counts, partition dim,
    profit, the ops between the loops (traversePath), the order of run-time checks (ours,
    `check_order`), no negative dependence distance; then our
    SBSize budget for the fused working set. `facts` is an analysis.facts.Facts; `between` the
    ops between the loops (computed from the block when not given). Where the targets differ
    it asks `hooks` (hooks.TargetHooks): the partition dimension, and last the target's
    vectorization guard (the cpu's cost model). With `carried_values` a loop that
    carries iter_args is not refused for it: the caller checks what the carried values need
    (loop_optimization/iter_args_fusion.py) and fuses both loops' iter_args into one loop. Without
    `budget` the SBSize bound is not checked (the cpu measures it its own way where the bound
    refuses: loop_optimization/inner_level.py)."""
    if not carried_values and (has_iter_args(l1) or has_iter_args(l2)):
        return [], Refusal(Code.CARRIES_VALUES, ops=(l1, l2))
    r = check_modelled(l1, l2, facts.effects)
    if r is None:
        r = hooks.pair_refusal(l1, l2, facts, options)
    if r is None:
        r = check_trip_counts(l1, l2, facts.scope)
    if r is None and hooks.requires_partition_dim:
        r = check_partition_dim(l1, l2, facts.scope, facts)
    if r is None and profit <= 0:
        r = Refusal(Code.NO_BENEFIT)
    if r is not None:
        return [], r
    between = ops_between(l1, l2) if between is None else between
    hoist, r = traverse_path(l1, l2, between, facts.effects, facts.used_values)
    if r is None:
        r = check_order(l1, l2, between, hoist, facts)
    if r is None:
        r = has_negative_distance(l1, l2, facts.scope, facts)
    if r is None and budget:
        need = facts.fused_working_set(l1, l2)
        if need > options.sb_budget:
            r = Refusal(Code.OVER_BUDGET, f"{need} bytes per partition > SBSize {options.sb_budget}")
    if r is None:
        r = hooks.vectorization_refusal(l1, l2, facts, options)
    return (hoist, None) if r is None else ([], r)
