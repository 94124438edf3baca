"""Greedy profit-based loop fusion (the seed's checkLoopFusionGreedy) and the fuse itself.

Per block and nesting level: build the Fusion Profit Graph, pop the most profitable pair,
re-validate it (stale pairs are skipped, never dereferenced), run the legality battery,
fuse if legal, update the FPG, repeat; then recurse one level down into each loop body.
Every popped pair ends in exactly one remark naming both loops and the level, the seed's
verbatim text first. With an explaining log (`RemarkLog(explain=True)`) the driver also writes
the seed's log lines (`log.trace`) and what became of each FPG edge (`log.fpg`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .. import mlir
from ..analysis.effects import Effects
from ..analysis.facts import Facts
from ..analysis.liveness import Liveness
from ..analysis.loops import body_block, body_ops, loop_dims, loops_in_block
from ..analysis.refusal import Code, Refusal
from ..mlir import ir
from ..options import Options
from ..remarks import MISSED, PASSED, FPGGraph, RemarkLog
from ..transforms.rewriter import BlockOrder, Rewriter
from . import iter_args_fusion as ia
from .fusion_legality import fusion_legality, same_lower_bound
from .hooks import TargetHooks
from .inner_level import (FUSED_INNER, FUSED_OWN, NOT_SHELLS, InnerLevel, fused_iteration_bytes, inner_level_plan,
                          over_budget, shells)
from .profit import FPGEntry, FusionProfitGraph, candidate_pairs, fusion_profit, shared_tensors
from .rescues import PairRescues
from ..step import StepContext


# ---------------------------------------------------------------------------------------
# The fuse.


def _shifted_iv(l1: ir.Operation, l2: ir.Operation) -> ir.Value:
    """The value l2's IV takes in l1's iteration: iv1 - lb1 + lb2 (iv1 itself if bounds match)."""
    iv1 = body_block(l1).arguments[0]
    if same_lower_bound(l1, l2):
        return iv1
    m1, m2 = mlir.affine_map_attr(l1, "lowerBoundMap"), mlir.affine_map_attr(l2, "lowerBoundMap")
    ops1 = list(l1.operands)[:m1.n_dims + m1.n_symbols]
    ops2 = list(l2.operands)[:m2.n_dims + m2.n_symbols]
    with l1.context, l1.location:
        nd = 1 + m1.n_dims + m2.n_dims
        e1 = m1.results[0].shift_dims(m1.n_dims, 1, 0)
        e2 = m2.results[0].shift_dims(m2.n_dims, 1 + m1.n_dims, 0).shift_symbols(m2.n_symbols, m1.n_symbols, 0)
        expr = ir.AffineExpr.get_dim(0) - e1 + e2
        amap = ir.AffineMap.get(nd, m1.n_symbols + m2.n_symbols, [expr])
        operands = [iv1, *ops1[:m1.n_dims], *ops2[:m2.n_dims], *ops1[m1.n_dims:], *ops2[m2.n_dims:]]
        first = mlir.block_ops(body_block(l1))[0]
        apply = mlir.affine_d.AffineApplyOp(amap, operands, ip=ir.InsertionPoint(first))
    return apply.result


def loop_fusion(l1: ir.Operation, l2: ir.Operation) -> None:
    """Move l2's body into l1 (onto l1's induction variable) after l1's body; erase l2."""
    iv2 = body_block(l2).arguments[0]
    iv = _shifted_iv(l1, l2)
    iv2.replace_all_uses_with(iv)
    term = mlir.operation(ir.InsertionPoint.at_block_terminator(body_block(l1)).ref_operation)
    for op in body_ops(l2):
        op.move_before(term)
    l2.erase()


# ---------------------------------------------------------------------------------------
# The greedy driver.


class _ErasedOps:
    """Rewriter listener: the op_key of every op an edit erased (or may have: a replaced op and
    what it held), so a list of ops taken before the edit is never read through a dead op."""

    def __init__(self) -> None:
        self.keys: set[int] = set()
        self._replacing: dict[int, int] = {}

    def _add(self, op: ir.Operation) -> None:
        self.keys.update(mlir.op_key(o) for o in [op, *mlir.walk_list(op)])

    def before_erase(self, op: ir.Operation) -> None:
        self._add(op)

    def before_fuse(self, l1: ir.Operation, l2: ir.Operation) -> None:
        self.keys.add(mlir.op_key(l2))

    def before_replace(self, op: ir.Operation) -> None:
        self._add(op)
        self._replacing[id(op)] = mlir.op_key(op)

    def after_replace(self, op: ir.Operation, new_ops: list) -> None:
        key = self._replacing.pop(id(op), None)  # `op` itself may be erased by now: not read
        if key is not None and any(mlir.op_key(n) == key for n in new_ops):
            self.keys.discard(key)  # kept as it was


@dataclass
class _BlockState:
    loops: dict = field(default_factory=dict)  # id -> op (alive loops only)
    order: list = field(default_factory=list)  # ids in program order
    pos: dict = field(default_factory=dict)  # id -> original position (stable tie-break)
    version: dict = field(default_factory=dict)  # id -> int
    rejected: set = field(default_factory=set)  # (id1, id2) popped and refused since the last fuse
    origin: dict = field(default_factory=dict)  # id -> id of the loop it was distributed from
    next_id: int = 0
    block_order: BlockOrder | None = None
    serial: int = 0  # distinguishes blocks: loop ids restart at 0 in every block
    fused: set = field(default_factory=set)  # ids of loops that absorbed a partner (never distributed)
    epoch: dict = field(default_factory=dict)  # id -> times its pairs were re-scored for liveness
    graph: FPGGraph | None = None  # what became of the FPG (explaining logs only)
    split_of: dict = field(default_factory=dict)  # id -> id of the loop it was split from (head and tail)
    grew: bool = False  # a loop was inserted: FPG entries may have left the distance window


@dataclass(frozen=True)
class _Span:
    """Where a rewrite changed the block, for the incremental FPG update (indices in the
    current loop order): the changed loops, the first and last index the rewrite moved ops
    across, and where a loop disappeared (None if none did)."""
    changed: tuple
    lo: int
    hi: int
    removed_at: int | None


class GreedyFusion(PairRescues):
    """checkLoopFusionGreedy over one function (and classic program-order fusion as fallback).
    Where the targets' rules differ it asks `hooks` (pipeline.hooks_for(options.target))."""

    def __init__(self, func: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                 incremental: bool = True, *, hooks: TargetHooks):
        self.func = func
        self.options = options
        self.hooks = hooks
        self.log = log
        self.filename = filename
        self.fname = mlir.func_name(func)
        self.facts = Facts()
        self.scope = self.facts.scope
        self.liveness = Liveness(self.facts)
        # Facts for deciding a rescue's precondition before any trial, in a scope of their own:
        # the names the driver's facts give (printed in remarks) stay in the order they had.
        self.plan_facts = Facts()
        self.rewriter = Rewriter(self.facts, self.liveness, self.plan_facts)
        self.incremental = incremental
        self.explain = getattr(log, "explain", False)
        self.num_loops_fused = 0
        self._blocks_seen = 0
        self._restructured: set = set()
        self._recomputed = False  # set by the recompute rescue: the pair's first loop is gone
        self._tail_read_later: set = set()  # (block, loop id, version, kept count) refused by dead_tail_violation
        self._split_refused: set = set()  # (place, kept count) whose split the target refused, said once
        self._needs_rebuild = False  # a distribution replaced loops: rebuild the FPG
        self._cannot_split: dict = {}  # (block, loop id, version) -> distribution_cannot_split
        self._extents: dict = {}  # (block, loop id, version) -> tiling.partition_extent
        self._distributions: dict = {}  # (block, loop id, version) -> pair_restructuring.distribution_plan
        self._outer_trips: dict = {}  # (block, loop id, version) -> pair_restructuring.interchange_outer_trips
        self._interchanges: dict = {}  # (block, loop id, version, perm) -> pair_restructuring.interchange_refused
        self._events: list = []  # splits and recomputes since the last FPG update (`_event_spans`)

    # -- facts ------------------------------------------------------------------------
    def effects(self, op: ir.Operation) -> Effects:
        return self.facts.effects(op)

    def _where(self, op: ir.Operation) -> str:
        return mlir.location_of(op, self.filename)

    def pair_profit(self, l1: ir.Operation, l2: ir.Operation) -> float | None:
        """Profit of a candidate pair, or None when the loops share no tensor (no FPG entry).
        liveN of each shared placed tensor is what is live between the two loops (liveness.py).
        Where the target rewards shared reads (the cpu), an external buffer the second loop
        touches again in a fused iteration earns its bytes (TargetHooks.reads_same_elements)."""
        shared = shared_tensors(self.effects(l1), self.effects(l2), self.facts.location)
        if not shared:
            return None
        hooks = self.hooks
        return fusion_profit(shared, reward_shared_reads=hooks.rewards_shared_reads,
                             reads_same_elements=lambda root: hooks.reads_same_elements(l1, l2, root, self.facts),
                             reads_produced_elements=lambda root: hooks.reads_produced_elements(l1, l2, root, self.facts),
                             live_n=lambda t: self.liveness.live_n(t.location.root, l1, l2))

    # -- FPG ---------------------------------------------------------------------------
    def _entry(self, st: _BlockState, a: int, b: int) -> FPGEntry | None:
        if a in st.origin and st.origin.get(a) == st.origin.get(b):
            return None  # pieces of one distributed loop: fusing them would undo the split
        if a in st.split_of and st.split_of.get(a) == st.split_of.get(b):
            return None  # head and tail of one split loop: fusing them would undo the split
        profit = self.pair_profit(st.loops[a], st.loops[b])
        if profit is None:
            return None
        return FPGEntry(-profit, st.pos[a], st.pos[b], a, b, self._stamp(st, a, b))

    @staticmethod
    def _stamp(st: _BlockState, a: int, b: int) -> tuple:
        """An entry is valid while both loops are unchanged and were not re-scored since."""
        return st.version[a], st.version[b], st.epoch.get(a, 0), st.epoch.get(b, 0)

    def _push(self, st: _BlockState, fpg: FusionProfitGraph, e: FPGEntry) -> None:
        fpg.push(e)
        self._pushed(st, e.l1, e.l2, e.profit)

    def _pushed(self, st: _BlockState, a: int, b: int, profit: float, fpg: bool = True) -> None:
        """Record a scored pair: an FPG edge, and the seed's updateFPG log line (`fpg`: the pair
        entered a Fusion Profit Graph; the classic path builds none, so it logs no updateFPG line)."""
        if not self.explain:
            return
        g = st.graph
        g.pushed(a, b, profit)
        if not fpg:
            return
        d = st.order.index(b) - st.order.index(a)
        self.log.log(f"(LoopOpt::updateFPG) e -> {g.nodes[a].location} : weight = {profit:g} and loop "
                     f"{g.nodes[b].location}, weight = {profit:g}, distance = {d}")

    def _outcome(self, st: _BlockState, a: int, b: int, outcome: str) -> None:
        if self.explain:
            st.graph.outcome(a, b, outcome)

    def construct_fusion_profit_graph(self, st: _BlockState) -> FusionProfitGraph:
        fpg = FusionProfitGraph()
        for i, j in candidate_pairs(len(st.order), self.options.distance_threshold):
            e = self._entry(st, st.order[i], st.order[j])
            if e is not None:
                self._push(st, fpg, e)
        return fpg

    def find_fusion_pair_greedy(self, st: _BlockState, fpg: FusionProfitGraph) -> FPGEntry | None:
        """Pop the best pair that is still valid: both loops alive and unchanged since scoring."""
        while True:
            e = fpg.pop()
            if e is None:
                return None
            a, b = e.l1, e.l2
            if a in st.loops and b in st.loops and e.stamp == self._stamp(st, a, b) and self._in_window(st, a, b):
                return e
            self._outcome(st, a, b, "stale")

    def _in_window(self, st: _BlockState, a: int, b: int) -> bool:
        """Still within the distance window (only an inserted loop can push a pair out)."""
        return not st.grew or st.order.index(b) - st.order.index(a) < self.options.distance_threshold

    def update_fpg(self, st: _BlockState, fpg: FusionProfitGraph, kept: int, removed_index: int,
                   events: list | None = None) -> FusionProfitGraph:
        """Re-score after a fuse (and the rescues that ran for it, `events`). Full rebuild (the
        seed) or incremental with identical decisions: the fuse's span runs from the kept loop
        to the removed loop's old place (`_rescore`)."""
        if not self.incremental:
            st.rejected.clear()
            return self.construct_fusion_profit_graph(st)
        k = st.order.index(kept)
        spans = [_Span((kept,), k, removed_index - 1, removed_index), *self._event_spans(st, events or ())]
        return self._rescore(st, fpg, spans)

    def _event_spans(self, st: _BlockState, events) -> list[_Span]:
        """The spans of the rescues' rewrites, in the current order: a split's head through its
        tail (both changed); a recompute's removed producer's place through its consumer."""
        if not events:
            return []
        index = {x: n for n, x in enumerate(st.order)}
        spans = []
        for ev in events:
            if ev[0] == "split":
                alive = [x for x in ev[1:] if x in index]
                if alive:
                    where = [index[x] for x in alive]
                    spans.append(_Span(tuple(alive), min(where), max(where), None))
            else:  # ("recompute", consumer id, the producer's index when it was removed)
                _, consumer, removed = ev
                if consumer in index:
                    spans.append(_Span((consumer,), removed, index[consumer], removed))
        return spans

    def _rescore(self, st: _BlockState, fpg: FusionProfitGraph, spans: list[_Span]) -> FusionProfitGraph:
        """Incremental FPG update with the decisions of a full rebuild. For each span (indices
        in the current order) re-push the pairs of its changed loops, the pairs that entered
        the window because a loop disappeared at `removed_at`, and the pairs of loops inside
        the span that share a buffer with a changed loop (the moved ops changed what is live
        around them, see liveness.py); every other pair keeps its profit. Pairs that left the
        window because a loop was inserted are dropped when popped (`_in_window`).

        A refused pair's verdict depends on its two loops, the ops between them and what is
        live around them (a rescue is tried once per version of the pair), so it can change
        only if the pair's interval meets a span. The other refused pairs stay in `rejected`
        for a later change that touches them: retrying every refused pair after every change
        made the driver quadratic."""
        t = self.options.distance_threshold
        order = st.order
        n = len(order)
        want = set()

        def window_of(m: int) -> None:
            for j in range(max(0, m - t + 1), min(n, m + t)):
                if j != m:
                    want.add((order[min(j, m)], order[max(j, m)]))

        for sp in spans:
            touched = set()
            for x in sp.changed:
                window_of(order.index(x))
                touched |= self.effects(st.loops[x]).touches()
            if sp.removed_at is not None:
                for i in range(max(0, sp.removed_at - t + 1), sp.removed_at):
                    j = i + t - 1
                    if j < n:
                        want.add((order[i], order[j]))
            for m in range(max(0, sp.lo), min(sp.hi + 1, n)):
                x = order[m]
                if x not in sp.changed and self.effects(st.loops[x]).touches() & touched:
                    st.epoch[x] = st.epoch.get(x, 0) + 1
                    window_of(m)
        index = {x: m for m, x in enumerate(order)} if st.rejected else {}
        still = set()
        for pair in st.rejected:
            a, b = pair
            if a not in st.loops or b not in st.loops:
                continue
            i, j = index[a], index[b]
            if any(i <= sp.hi and j >= sp.lo for sp in spans):
                if 0 < j - i < t:
                    want.add(pair)
            else:
                still.add(pair)
        st.rejected = still
        for a, b in sorted(want, key=lambda p: (st.pos[p[0]], st.pos[p[1]])):
            e = self._entry(st, a, b)
            if e is not None:
                self._push(st, fpg, e)
        return fpg

    # -- legality battery ------------------------------------------------------------------
    def legality(self, st: _BlockState, l1: ir.Operation, l2: ir.Operation, profit: float, budget: bool = True):
        """(ops to hoist, None) if the pair may fuse, else ([], Refusal). A pair that carries
        iter_args is planned by loop_optimization/iter_args_fusion.py (the battery, then what the
        carried values need). Without `budget` the SBSize bound is left out (`_inner_level`)."""
        between = st.block_order.between(l1, l2) if st is not None else None
        if ia.carries_values(l1, l2):
            return ia.plan_carried_fusion(l1, l2, lambda x, y: fusion_legality(
                x, y, self.facts, self.options, profit, between, carried_values=True, hooks=self.hooks,
                budget=budget))
        return fusion_legality(l1, l2, self.facts, self.options, profit, between, hooks=self.hooks, budget=budget)

    def _inner_level(self, st: _BlockState, l1: ir.Operation, l2: ir.Operation, profit: float,
                     reason: Refusal) -> tuple[InnerLevel | None, list, Refusal | None]:
        """A pair refused by the SBSize bound alone, on a target that fuses at inner levels
        (inner_level.py): (the plan, the ops to hoist, None), or (None, [], the refusal to say):
        the battery's own refusal without the bound, or the bound's with why no level fits. The
        own level is measured on the real loops; a deeper level is planned on scratch copies of
        the pair with the ops between (`_trial`), the shells fused there."""
        hoist, r = self.legality(st, l1, l2, profit, budget=False)
        if r is not None:
            return None, [], r
        budget = self.options.sb_budget
        need = fused_iteration_bytes(l1, l2, self.facts)
        if need is not None and need <= budget:
            return InnerLevel(0, need), hoist, None
        found: list = []
        why = [f"{over_budget(need)}, {NOT_SHELLS}"] if shells(l1, l2) is None else []
        if not why:
            def inner_legal(x, y, facts) -> bool:
                return fusion_legality(x, y, facts, self.options, profit, hooks=self.hooks, budget=False)[1] is None

            def plan(c1, c2, *moved) -> bool:
                for h in moved:
                    h.move_before(c1)
                got, said = inner_level_plan(c1, c2, Facts(), budget, inner_legal, loop_fusion, Facts)
                why.append(said)
                if got is not None:
                    found.append(got)
                return got is not None

            if self._trial(st, [l1, l2, *hoist], plan) and found:
                return found[0], hoist, None
        detail = f"{reason.detail}; {why[0] if why and why[0] else 'the fused shells do not verify'}"
        return None, [], Refusal(reason.code, detail, reason.ops)

    def _fuse_inside(self, l1: ir.Operation, level: int, depth: int, profit: float) -> None:
        """After a pair fused as shells (`_inner_level`): fuse the two loops its body now holds,
        `depth` levels down, each with its own `[LOOP FUSION]` remark at its level."""
        outer = l1
        for k in range(1, depth + 1):
            i1, i2 = [o for o in body_ops(outer) if o.name == "affine.for"]
            loc = f"{self._where(i1)} and {self._where(i2)}"
            self.log.add("fusion", PASSED, f"[LOOP FUSION] , level = {level + k} fused {loc} profit = {profit:g}",
                         function=self.fname, location=self._where(i1),
                         args={"loop1": self._where(i1), "loop2": self._where(i2), "level": level + k,
                               "profit": profit, "loops": loc, "code": "LOOP_FUSION", "hoisted": [],
                               "detail": f"inside the shells fused at level {level}"})
            self.rewriter.fuse(i1, i2, loop_fusion)
            self.num_loops_fused += 1
            outer = i1

    # -- driver ----------------------------------------------------------------------------
    def run(self) -> int:
        """Every block of the function body, in order (a function with branches has loops in
        blocks after the entry block too; each block is its own candidate set)."""
        for block in list(self.func.regions[0].blocks):
            self.check_loop_fusion_greedy(block, 0)
        return self.num_loops_fused

    def check_loop_fusion_greedy(self, block: ir.Block, level: int) -> None:
        loops = loops_in_block(block)
        self._blocks_seen += 1
        st = _BlockState(block_order=BlockOrder(block) if len(loops) >= 2 else None, serial=self._blocks_seen)
        for k, lp in enumerate(loops):
            st.loops[k] = lp
            st.order.append(k)
            st.pos[k] = k
            st.version[k] = 0
        if len(loops) >= 2:
            if self.explain:
                st.graph = FPGGraph(self.fname, st.serial, level)
                for k, lp in enumerate(loops):
                    st.graph.node(k, self._where(lp))
            self.rewriter.add_listener(st.block_order)
            self.liveness.orders.append(st.block_order)
            try:
                if self.options.enable_profitable_loop_fusion:
                    self._greedy(st, level)
                else:
                    self._classic(st, level)
            finally:
                self.rewriter.listeners.remove(st.block_order)
                self.liveness.orders.remove(st.block_order)
                if st.graph is not None and st.graph.edges:
                    self.log.fpg.append(st.graph)
        # Inner blocks next. A rewrite there may erase ops of this block (a recompute removes
        # the intermediate's alloc and dealloc): ops erased since the snapshot are skipped.
        erased = _ErasedOps()
        self.rewriter.add_listener(erased)
        try:
            for op in [o for o in mlir.block_ops(block) if len(o.regions)]:
                if mlir.op_key(op) in erased.keys:
                    continue
                for region in op.regions:
                    for inner in region.blocks:
                        self.check_loop_fusion_greedy(inner, level + (op.name == "affine.for"))
        finally:
            self.rewriter.listeners.remove(erased)

    def _greedy(self, st: _BlockState, level: int) -> None:
        fpg = self.construct_fusion_profit_graph(st)
        while True:
            e = self.find_fusion_pair_greedy(st, fpg)
            if e is None:
                return
            stamp = (st.version[e.l1], st.version[e.l2])
            hoisted = self._try_fuse(st, e.l1, e.l2, e.profit, level)
            events, self._events = self._events, []
            if hoisted is None:
                st.rejected.add((e.l1, e.l2))
                if self._needs_rebuild or (events and not self.incremental):
                    # a loop was distributed (new loops, new positions), or the seed's full rebuild
                    self._needs_rebuild = False
                    self._reorder(st)
                    st.rejected.clear()
                    fpg = self.construct_fusion_profit_graph(st)
                elif events:  # a split or a recompute: re-score around what it changed
                    fpg = self._rescore(st, fpg, self._event_spans(st, events))
                elif stamp != (st.version[e.l1], st.version[e.l2]):
                    # Restructured in place and still refused: their other pairs were scored on
                    # the old loops (now stale entries); score them again, in either mode.
                    self._push_pairs_of(st, fpg, (e.l1, e.l2), skip=(e.l1, e.l2))
                continue
            removed_index = st.order.index(e.l2)
            self._remove(st, e.l1, e.l2)
            if self._needs_rebuild or any(x.name == "affine.for" for x in hoisted):
                # Loops moved above l1: program order changed, so every positional gap may have.
                self._needs_rebuild = False
                self._reorder(st)
                st.rejected.clear()
                fpg = self.construct_fusion_profit_graph(st)
            else:
                fpg = self.update_fpg(st, fpg, e.l1, removed_index, events)

    def _push_pairs_of(self, st: _BlockState, fpg: FusionProfitGraph, ids, skip=None) -> None:
        """Push fresh entries for every candidate pair (within the distance window) of `ids`."""
        t = self.options.distance_threshold
        order = st.order
        want = set()
        for x in ids:
            k = order.index(x)
            for j in range(max(0, k - t + 1), min(len(order), k + t)):
                if j != k:
                    want.add((order[min(j, k)], order[max(j, k)]))
        want.discard(skip)
        for a, b in sorted(want, key=lambda p: (st.pos[p[0]], st.pos[p[1]])):
            e = self._entry(st, a, b)
            if e is not None:
                self._push(st, fpg, e)

    @staticmethod
    def _reorder(st: _BlockState) -> None:
        """Re-read the program order of the alive loops from the block."""
        ids = {mlir.op_key(op): k for k, op in st.loops.items()}
        st.order = [ids[mlir.op_key(o)] for o in st.block_order.ops() if mlir.op_key(o) in ids]

    def _classic(self, st: _BlockState, level: int) -> None:
        """check_loop_fusion: fuse adjacent legal pairs in program order."""
        k = 0
        while k + 1 < len(st.order):
            a, b = st.order[k], st.order[k + 1]
            profit = self.pair_profit(st.loops[a], st.loops[b])
            if profit is not None:
                self._pushed(st, a, b, profit, fpg=False)
            hoisted = self._try_fuse(st, a, b, profit, level) if profit is not None else None
            if self._events:  # classic order is re-read from the block after any rewrite
                self._events = []
                self._needs_rebuild = True
            if hoisted is not None:
                self._remove(st, a, b)
                if self._needs_rebuild or any(x.name == "affine.for" for x in hoisted):
                    self._needs_rebuild = False
                    self._reorder(st)
            elif self._needs_rebuild:
                self._needs_rebuild = False
                self._reorder(st)
            else:
                k += 1

    def _remove(self, st: _BlockState, kept: int, gone: int) -> None:
        if st.graph is not None:
            st.graph.nodes[gone].fate = f"fused into L{kept}"
        st.fused.add(kept)
        del st.loops[gone]
        st.order.remove(gone)
        st.version[kept] += 1

    def _try_fuse(self, st: _BlockState, a: int, b: int, profit: float, level: int):
        """Fuse the pair if legal; returns the ops hoisted above l1, or None if refused.

        Ends in exactly one remark naming both loops (file:line:col) and the level: `[LOOP
        FUSION] , level = N fused A and B ...` or the refusal's text followed by `: A and B,
        level = N, profit = P`; located at the first loop."""
        l1, l2 = st.loops[a], st.loops[b]
        where1, where2 = self._where(l1), self._where(l2)  # a distribution below may erase l1
        loc = f"{where1} and {where2}"
        pair = {"loop1": where1, "loop2": where2, "level": level, "profit": profit, "loops": loc}
        if self.explain:
            self.log.log(f"[LOOP FUSION] , level = {level} loops {loc} profit = {profit:g}")
        if not st.block_order.is_before(l1, l2):  # stale: the pair's order changed
            self._outcome(st, a, b, "stale")
            self.log.add("fusion", MISSED, f"[STOP FUSION] stale pair (their order changed): {loc}, "
                         f"level = {level}", function=self.fname, location=where1,
                         args={**pair, "code": "STALE_PAIR"})
            return None
        hoist, reason = self.legality(st, l1, l2, profit)
        use_def = self._use_def_line(l1, l2, reason)
        stamp = (st.serial, a, b, st.version[a], st.version[b])
        self.trial_refusal = None
        if reason is not None and stamp not in self._restructured:
            self._restructured.add(stamp)
            if self._restructure(st, a, b, reason, profit):
                self.trial_refusal = None  # a rescue applied: the pair's refusal, if any, is the new one
                l1, l2 = st.loops[a], st.loops[b]
                hoist, reason = self.legality(st, l1, l2, profit)
                use_def = self._use_def_line(l1, l2, reason)
            elif self._recomputed:  # the producer is gone into the consumer: its remark is the outcome
                self._recomputed = False
                self._outcome(st, a, b, "recomputed")
                return None
        inner = None
        if reason is not None and reason.code is Code.OVER_BUDGET and self.hooks.fuses_inner_level:
            inner, hoist, reason = self._inner_level(st, l1, l2, profit, reason)
        if reason is not None:
            reason = with_trial_refusal(reason, self.trial_refusal)
            if self.explain:
                if use_def:
                    self.log.log(use_def)
                self.log.log(reason.message)
            self._outcome(st, a, b, f"refused:{reason.code.name}")
            self.log.refused("fusion", reason, function=self.fname, location=where1, args=pair,
                             message=f"{reason.message}: {loc}, level = {level}, profit = {profit:g}")
            return None
        for x in hoist:
            self.rewriter.move_before(x, l1)
        self._outcome(st, a, b, "fused")
        carried = (len(l1.results), len(l2.results))
        extra = {"iter_args": list(carried)} if any(carried) else {}
        why = [f"{ia.FUSED_CARRYING} ({carried[0]} + {carried[1]}), results remapped"] if any(carried) else []
        why += self.hooks.fused_detail(l1, l2, self.facts)
        if inner is not None:
            budget = self.options.sb_budget
            why.append(FUSED_OWN.format(bytes=inner.bytes, budget=budget) if not inner.depth else
                       FUSED_INNER.format(level=level + inner.depth, bytes=inner.bytes, budget=budget))
        if why:
            extra["detail"] = "; ".join(why)
        self.log.add("fusion", PASSED, f"[LOOP FUSION] , level = {level} fused {loc} profit = {profit:g}",
                     function=self.fname, location=self._where(l1),
                     args={**pair, "code": "LOOP_FUSION", "hoisted": [x.name for x in hoist], **extra})
        if any(carried):
            self._fuse_carrying(st, a, b)
        else:
            self.rewriter.fuse(l1, l2, loop_fusion)
        self.num_loops_fused += 1
        if inner is not None and inner.depth:
            self._fuse_inside(l1, level, inner.depth, profit)
        return hoist

    def _fuse_carrying(self, st: _BlockState, a: int, b: int) -> None:
        """Fuse a pair that carries iter_args: both loops are replaced by one new loop
        (iter_args_fusion.fuse_carrying) that stands as loop a."""
        l1, l2 = st.loops[a], st.loops[b]
        self.facts.forget_ancestors(l1)
        done = {}

        def build():
            done["new"] = ia.fuse_carrying(l1, l2, _shifted_iv)
            return [[done["new"]], []]

        self.rewriter.replace([l1, l2], build)
        st.loops[a] = done["new"]

    def _use_def_line(self, l1: ir.Operation, l2: ir.Operation, reason: Refusal | None) -> str:
        """The seed's has_negative_distance log line for a negative-distance refusal (explaining
        logs only): the buffer, the distances and the two accesses (see use_def_witness)."""
        if not self.explain or reason is None or reason.code is not Code.NEGATIVE_DISTANCE:
            return ""
        return use_def_witness(l1, l2, self.facts)


    # -- restructuring inside the driver (seed 001) ----------------------------------------
    def _restructure(self, st: _BlockState, a: int, b: int, reason: Refusal, profit: float) -> bool:
        """Try the rescues the target allows for the refusal's code (TargetHooks.rescues), in order, until one applies.
        True iff loops a and b were rewritten in place (retry the pair); a distribution instead
        replaces a loop and asks for an FPG rebuild (`_needs_rebuild`)."""
        for rescue in self.hooks.rescues.get(reason.code, ()):
            outcome = rescue(self, st, a, b, profit)
            if outcome is not None:
                return outcome
        return False

def with_trial_refusal(reason: Refusal, trial: Refusal | None) -> Refusal:
    """The pair's refusal, its detail naming a rescue's trial the target refused for the register
    tile (an interchange that aligns the loops would make the product's output loop carry a sum):
    the remark then says why the rescue did not apply. Unchanged without such a trial, or when the
    refusal already has a detail."""
    if trial is None or reason.detail:
        return reason
    return dataclasses.replace(reason, detail=f"restructured to align them: {trial.text().removeprefix('[STOP FUSION] ')}")


def use_def_witness(l1: ir.Operation, l2: ir.Operation, facts: Facts) -> str:
    """` : use -> def : (iteration groups: ...)` for a pair refused for a negative distance:
    the first conflicting access pair (in has_negative_distance's order) whose distances may be
    negative, as `<buffer> : use -> def : (iteration groups: <distances>) <RAW|WAR|WAW>
    <access in l1> -> <access in l2>`. Recomputed here from the facts: the refusal carries text."""
    from ..analysis import dependence
    from ..analysis.memory import UNTRACED, value_name

    scope = facts.scope
    (ax1,), (ax2,) = loop_dims(l1, scope), loop_dims(l2, scope)
    by_root1 = facts.accesses_by_root(l1)
    for b in facts.accesses(l2):
        partners = [x for accs in by_root1.values() for x in accs] if b.key is UNTRACED else \
            [*by_root1.get(b.key, ()), *by_root1.get(UNTRACED, ())]
        for a in partners:
            if not (a.is_write or b.is_write):
                continue
            if a.key is UNTRACED or b.key is UNTRACED or a.index is None or b.index is None:
                groups = "unknown elements"
            else:
                dist = dependence.distance_set(a, b, ax1, ax2, scope)
                if dist is None or not dependence.may_be_negative(dist):
                    continue
                groups = str(dist)
            kind = "RAW" if a.is_write and not b.is_write else "WAR" if b.is_write and not a.is_write else "WAW"
            return (f"{value_name(a.root)} : use -> def : (iteration groups: {groups}) {kind} "
                    f"{mlir.location_of(a.op)} -> {mlir.location_of(b.op)}")
    return " : use -> def : (iteration groups: not found)"


def check_loop_fusion(module: ir.Module, options: Options, log: RemarkLog, filename: str = "<input>",
                      incremental: bool = True, *, hooks: TargetHooks) -> int:
    """Fusion over every function of the module; returns numLoopsFused."""
    total = 0
    for fn in mlir.functions(module):
        total += GreedyFusion(fn, options, log, filename, incremental, hooks=hooks).run()
    return total


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `fusion` (loopopt/pipeline.py)."""
    return GreedyFusion(fn, ctx.options, ctx.log, ctx.filename, hooks=ctx.hooks).run()
