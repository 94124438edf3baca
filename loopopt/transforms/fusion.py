"""Greedy profit-based loop fusion (the seed's checkLoopFusionGreedy) and the fuse itself.

Per block and nesting level: build the Fusion Profit Graph, pop the most profitable pair,
re-validate it (stale pairs are skipped, never dereferenced), run the legality battery,
fuse if legal, update the FPG, repeat; then recurse one level down into each loop body.
Every popped pair ends in exactly one remark naming both loops and the level, the seed's
verbatim text first. With an explaining log (`RemarkLog(explain=True)`) the driver also writes
the seed's log lines (`log.trace`) and what became of each FPG edge (`log.fpg`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd

from .. import mlir
from ..analysis.effects import Effects
from ..analysis.facts import Facts
from ..analysis.fusion_legality import fusion_legality, same_lower_bound
from ..analysis.liveness import Liveness
from ..analysis.loops import body_block, body_ops, loop_dims, loops_in_block
from ..analysis.profit import (FPGEntry, FusionProfitGraph, candidate_pairs, fusion_profit, shared_tensors)
from ..analysis.refusal import Code, Refusal
from ..analysis.sibling_reuse import reuse_reasons, reuses_produced_elements, reuses_read_elements
from ..mlir import ir
from ..options import Options
from ..remarks import MISSED, PASSED, FPGGraph, RemarkLog
from . import iter_args_fusion as ia
from .rewriter import BlockOrder, Rewriter


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
        self.keys.update(mlir.op_key(o) for o in [op, *mlir.walk(op)])

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


class GreedyFusion:
    """checkLoopFusionGreedy over one function (and classic program-order fusion as fallback)."""

    def __init__(self, func: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                 incremental: bool = True):
        self.func = func
        self.options = options
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
        self._recomputed = False  # set by _rescue_recompute: the pair's first loop is gone
        self._tail_read_later: set = set()  # (block, loop id, version, kept count) refused by dead_tail_violation
        self._needs_rebuild = False  # a distribution replaced loops: rebuild the FPG
        self._cannot_split: dict = {}  # (block, loop id, version) -> distribution_cannot_split
        self._extents: dict = {}  # (block, loop id, version) -> tiling.partition_extent
        self._distributions: dict = {}  # (block, loop id, version) -> pair_restructuring.distribution_plan
        self._outer_trips: dict = {}  # (block, loop id, version) -> pair_restructuring.interchange_outer_trips
        self._events: list = []  # splits and recomputes since the last FPG update (`_event_spans`)

    # -- facts ------------------------------------------------------------------------
    def effects(self, op: ir.Operation) -> Effects:
        return self.facts.effects(op)

    def _where(self, op: ir.Operation) -> str:
        return mlir.location_of(op, self.filename)

    def pair_profit(self, l1: ir.Operation, l2: ir.Operation) -> float | None:
        """Profit of a candidate pair, or None when the loops share no tensor (no FPG entry).
        liveN of each shared placed tensor is what is live between the two loops (liveness.py).
        On cpu an external buffer the second loop touches again in a fused iteration earns its
        bytes (analysis/sibling_reuse.py)."""
        shared = shared_tensors(self.effects(l1), self.effects(l2), self.facts.location)
        if not shared:
            return None
        return fusion_profit(shared, reward_shared_reads=not self.options.target.partitioned,
                             reads_same_elements=lambda root: reuses_read_elements(l1, l2, root, self.facts),
                             reads_produced_elements=lambda root: reuses_produced_elements(l1, l2, root, self.facts),
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
    def legality(self, st: _BlockState, l1: ir.Operation, l2: ir.Operation, profit: float):
        """(ops to hoist, None) if the pair may fuse, else ([], Refusal). A pair that carries
        iter_args is planned by transforms/iter_args_fusion.py (the battery, then what the
        carried values need)."""
        between = st.block_order.between(l1, l2) if st is not None else None
        if ia.carries_values(l1, l2):
            return ia.plan_carried_fusion(l1, l2, lambda x, y: fusion_legality(
                x, y, self.facts, self.options, profit, between, carried_values=True))
        return fusion_legality(l1, l2, self.facts, self.options, profit, between)

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
        if reason is not None and stamp not in self._restructured:
            self._restructured.add(stamp)
            if self._restructure(st, a, b, reason, profit):
                l1, l2 = st.loops[a], st.loops[b]
                hoist, reason = self.legality(st, l1, l2, profit)
                use_def = self._use_def_line(l1, l2, reason)
            elif self._recomputed:  # the producer is gone into the consumer: its remark is the outcome
                self._recomputed = False
                self._outcome(st, a, b, "recomputed")
                return None
        if reason is not None:
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
        if not self.options.target.partitioned:
            why += reuse_reasons(l1, l2, self.facts)
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
        """Try the rescues the refusal's code allows (RESCUES), in order, until one applies.
        True iff loops a and b were rewritten in place (retry the pair); a distribution instead
        replaces a loop and asks for an FPG rebuild (`_needs_rebuild`)."""
        for name in RESCUES.get(reason.code, ()):
            outcome = getattr(self, f"_rescue_{name}")(st, a, b, profit)
            if outcome is not None:
                return outcome
        return False

    def _trial(self, st: _BlockState, ops: list[ir.Operation], plan) -> bool:
        """Plan a restructuring: run `plan(*copies of ops)` on scratch copies of the pair and the
        ops between them (pair_restructuring.on_scratch_copy)."""
        from . import pair_restructuring as pr

        first, last = (ops[0], ops[1]) if st.block_order.is_before(ops[0], ops[1]) else (ops[1], ops[0])
        return pr.on_scratch_copy([first, *st.block_order.between(first, last), last], ops, plan)

    def _legal_on_copy(self, l1: ir.Operation, l2: ir.Operation, profit: float) -> bool:
        """The fusion battery on a scratch copy (fresh facts: the copy is new IR)."""
        return fusion_legality(l1, l2, Facts(), self.options, profit)[1] is None

    def _rescue_dead_read_only_iterations(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """cpu: `_rescue_dead_iterations` for a longer loop that writes nothing, tried after the
        other rescues: every iteration of such a loop is dead, and shrinking it first would only hide
        the mismatch from an interchange that aligns the pair (loop-fusion.mlir
        `@should_fuse_deep_loop_nests`: the consumer's outer loop of 3 shrunk to the producer's 2
        where the producer has a loop of 3 to bring outermost)."""
        return self._rescue_dead_iterations(st, a, b, profit, read_only=True)

    def _rescue_dead_iterations(self, st: _BlockState, a: int, b: int, profit: float,
                                read_only: bool = False) -> bool | None:
        """Unmatched constant trip counts: drop the longer loop's iterations nobody reads; on
        cpu, when they are read later, split them off into a tail loop instead (`_split_tail`).
        A longer loop that writes nothing waits for `_rescue_dead_read_only_iterations`."""
        from . import pair_restructuring as pr

        t1, t2 = self._trip_count(st.loops[a]), self._trip_count(st.loops[b])
        if t1 is None or t2 is None or t1 == t2:
            return None
        long_id, keep = (a, t2) if t1 > t2 else (b, t1)
        loop = st.loops[long_id]
        writes_nothing = not self.effects(loop).writes and not self.effects(loop).unknown
        if read_only != (writes_nothing and not self.options.target.partitioned):
            return None  # cpu: a loop that writes nothing waits; the Neuron targets keep the seed's order
        # The kept iterations are the head, or the run the shorter partner covers (its lower bound
        # inside the longer loop's range): then the fused loops also start alike.
        start = pr.aligned_start(loop, st.loops[b if long_id == a else a])
        # A loop whose tail is read later is refused against every shorter partner: the check
        # scans the ops after the loop, so it runs once per version of the loop and kept run.
        # (Remembering a violation only ever refuses: it can miss a rescue, never miscompile.)
        seen = (st.serial, long_id, st.version[long_id], keep, start)
        if seen in self._tail_read_later:
            return self._split_tail(st, long_id, b if long_id == a else a, keep, profit)
        if pr.dead_tail_violation(loop, keep, self.scope, self._escapes, self.facts.accesses,
                                  start=start) is not None:
            self._tail_read_later.add(seen)
            return self._split_tail(st, long_id, b if long_id == a else a, keep, profit)
        self.rewriter.replace([loop], lambda: pr.shrink_loop(loop, keep, start))
        self.log.add("fusion", PASSED, pr.DEAD_ITERATIONS, function=self.fname, location=self._where(loop),
                     args={"kept_iterations": keep, "removed": max(t1, t2) - keep, "first_kept": start})
        self._replace(st, long_id, loop)
        return True

    def _trip_count(self, loop: ir.Operation) -> int | None:
        """loops.constant_trip_count, memoized for constant bounds (pair_restructuring.known_trip_count)."""
        from . import pair_restructuring as pr

        t = self.facts.constant_trip(loop)
        return t[0] if t is not None else pr.known_trip_count(loop)

    def _partition_extent(self, st: _BlockState, k: int) -> int | None:
        """tiling.partition_extent of loop k, once per version of the loop."""
        from .tiling import partition_extent

        seen = (st.serial, k, st.version[k])
        if seen not in self._extents:
            self._extents[seen] = partition_extent(st.loops[k], facts=self.plan_facts)
        return self._extents[seen]

    def _facts_of(self, *loops: ir.Operation) -> Facts:
        """Facts to decide a precondition on: the driver's when they already hold the loops'
        accesses (asking then names nothing new), else the planning facts (their own names)."""
        if all(self.facts.known_accesses(lp) is not None for lp in loops):
            return self.facts
        return self.plan_facts

    def _escapes(self, buf: ir.Value) -> bool:
        """pair_restructuring.escapes, a buffer fact (its users change only with edits that use it)."""
        from . import pair_restructuring as pr

        return self.facts.buffer_fact(buf, "escapes", lambda: pr.escapes(buf))

    def _split_tail(self, st: _BlockState, long_id: int, other: int, keep: int, profit: float) -> bool | None:
        """cpu: split loop `long_id` after its first `keep` iterations (pair_restructuring.
        split_loop) when a trial on copies shows that the head then fuses with its partner. The
        head keeps the loop's id; the tail is a new loop of the block, placed out of the pair's
        way when it may run there (`tail_placement`), and the FPG is rebuilt after the retry.
        A loop is split once and never after it absorbed a partner; a head that shares no
        element with its partner is not worth a split."""
        from . import pair_restructuring as pr

        if self.options.target.partitioned:
            return None  # the Neuron targets keep the seed's rescues
        if long_id in st.fused or long_id in st.split_of:
            return None
        loop, partner = st.loops[long_id], st.loops[other]
        if pr.split_violation(loop, keep) is not None:
            return None
        if pr.head_refusal(loop, keep, partner, self._facts_of(loop, partner),
                           st.block_order.is_before(loop, partner)) is not None:
            return None  # the head would be refused on the copy too

        def split(lp, part, scope):
            head, tail = pr.split_loop(lp, keep)
            where = pr.tail_placement(head, tail, part, scope)
            return head, tail, where

        def plan(cl, cp) -> bool:
            scope = Facts().scope  # the copies are new IR
            head, tail, _where = split(cl, cp, scope)
            if not pr.shares_elements(head, cp, scope):
                return False
            _place(tail, head, cp, _where, None)
            pair = (head, cp) if head.is_before_in_block(cp) else (cp, head)
            return self._legal_on_copy(*pair, profit)

        if not self._trial(st, [loop, partner], plan):
            return None
        total = pr.known_trip_count(loop)
        done = {}

        def build():
            done["head"], done["tail"], done["where"] = split(loop, partner, self.scope)
            return [[done["head"], done["tail"]]]

        self.rewriter.replace([loop], build)
        head, tail = done["head"], done["tail"]
        _place(tail, head, partner, done["where"], self.rewriter)
        if self.explain:
            self.log.log(f"{pr.SPLIT_LOOP.format(kept=keep)}: {self._where(head)}, tail {done['where']}")
        self.log.add("fusion", PASSED, pr.SPLIT_LOOP.format(kept=keep), function=self.fname,
                     location=self._where(head),
                     args={"kept_iterations": keep, "tail_iterations": total - keep, "tail": done["where"],
                           "loops_added": 1 + sum(o.name == "affine.for" for o in mlir.walk(tail))})
        self._replace(st, long_id, head)
        nid = max(list(st.pos) + [st.next_id]) + 1
        st.next_id = nid
        st.loops[nid] = tail
        st.pos[nid] = st.pos[long_id] + 0.5
        st.version[nid] = 0
        # the tail stands right after the partner, right before the head, or right after it
        anchor, after = (other, True) if done["where"] == pr.AFTER_PARTNER else (long_id, done["where"] != pr.BEFORE_HEAD)
        st.order.insert(st.order.index(anchor) + after, nid)
        st.grew = True
        st.split_of[long_id] = st.split_of[nid] = long_id
        if st.graph is not None:
            st.graph.node(nid, self._where(tail))
        self._events.append(("split", long_id, nid))
        return True

    def _rescue_tile_and_interchange(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """Neuron targets: GCD-tile both partition loops and move the point loops outermost."""
        from . import pair_restructuring as pr

        if not self.options.target.partitioned:
            return None
        l1, l2 = st.loops[a], st.loops[b]
        e1, e2 = self._partition_extent(st, a), self._partition_extent(st, b)
        if not e1 or not e2 or gcd(e1, e2) <= 1:
            return None  # nothing to tile by (tiling.gcd_tile_factor is 1): no trial needed

        def plan(c1, c2) -> bool:
            roots = pr.tile_and_interchange(c1, c2, self.options, None, self.fname)
            return roots is not None and self._legal_on_copy(roots[0], roots[1], profit)

        if not self._trial(st, [l1, l2], plan):
            return None
        new = self.rewriter.replace([l1, l2], lambda: _as_replacement(
            pr.tile_and_interchange(l1, l2, self.options, self.log, self.fname)))
        if new is None:
            return None
        self._replace(st, a, new[0][0])
        self._replace(st, b, new[1][0])
        return True

    def _rescue_distribute(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """Split one loop (the second first) so that a piece fuses with the partner."""
        from . import pair_restructuring as pr

        if not self.options.enable_loop_distribution:
            return None
        for victim, partner, victim_first in ((b, a, False), (a, b, True)):
            if victim in st.origin or victim in st.fused:
                continue  # already split maximally, or splitting it would undo a fusion
            seen = (st.serial, victim, st.version[victim])
            if seen not in self._cannot_split:
                self._cannot_split[seen] = pr.distribution_cannot_split(st.loops[victim])
            if self._cannot_split[seen]:
                continue  # one statement group: nothing to split off

            if seen not in self._distributions:
                self._distributions[seen] = pr.distribution_plan(st.loops[victim])
            groups = self._distributions[seen]
            if groups is None:
                continue  # fewer than two groups once the dependences are known

            def plan(cv, cp, victim_first=victim_first, groups=groups) -> bool:
                pieces = pr.distribute_for_partner(cv, None, self.fname, groups)
                facts = Facts()  # one for every piece: the pieces between a piece and the partner are analysed once
                # Any piece that fuses will do: the pieces next to the partner first (nothing between them).
                for g in reversed(pieces or ()) if victim_first else pieces or ():
                    pair = (g, cp) if victim_first else (cp, g)
                    shared = shared_tensors(facts.effects(pair[0]), facts.effects(pair[1]), facts.location)
                    if shared and fusion_legality(*pair, facts, self.options, 1.0)[1] is None:
                        return True
                return False

            if self._trial(st, [st.loops[victim], st.loops[partner]], plan):
                loop = st.loops[victim]
                new = self.rewriter.replace([loop], lambda: _as_replacement(
                    pr.distribute_for_partner(loop, self.log, self.fname, groups), single=True))
                if new:
                    self._split(st, victim, new[0])
                    self._needs_rebuild = True
                    return False
        return None

    def _rescue_interchange_to_align(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """Interchange one nest (the second first) so that the pair becomes fusable, e.g. a
        transposing consumer. On the cpu target the permuted nest may not have more strided
        innermost walks than the nest had, its walks of the pair's private intermediates (which
        the fusion turns into values of one fused iteration) left out (analysis/pair_locality.py)."""
        from ..analysis.pair_locality import pair_private_buffers, strided_walks
        from . import pair_restructuring as pr

        private = frozenset()
        if not self.options.target.partitioned:
            private = pair_private_buffers(st.loops[a], st.loops[b])  # a runs first
        for k, other, k_first in ((b, a, False), (a, b, True)):
            seen = (st.serial, k, st.version[k])
            if seen not in self._outer_trips:
                self._outer_trips[seen] = pr.interchange_outer_trips(st.loops[k])
            for perm, outer in self._outer_trips[seen]:
                if pr.interchange_cannot_align(outer, self.facts.constant_trip(st.loops[other])):
                    continue  # the trip counts would still differ

                def plan(cv, cp, perm=perm, k_first=k_first) -> bool:
                    before = strided_walks(cv)  # unfused, the intermediate's walks are traffic too
                    root = pr.interchange_band(cv, perm, self.options, None, self.fname)
                    if root is None:
                        return False
                    if not self.options.target.partitioned and strided_walks(root, private) > before:
                        return False
                    pair = (root, cp) if k_first else (cp, root)
                    return self._legal_on_copy(*pair, profit)

                if self._trial(st, [st.loops[k], st.loops[other]], plan):
                    loop = st.loops[k]
                    new = self.rewriter.replace([loop], lambda: _as_replacement(
                        pr.interchange_band(loop, perm, self.options, self.log, self.fname), single=True))
                    if new is None:
                        return False
                    self._replace(st, k, new[0][0])
                    return True
        return None

    def _rescue_recompute_at_depth(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """cpu, unmatched trip counts inside fused loops: the producer nest writes its intermediate
        at the enclosing (fused) IVs and its own; each consumer iteration recomputes the one
        producer iteration it reads (`plan_recompute(at_depth=True)`). Not when the consumer reads
        more than the producer wrote (`redundant_recompute`: a transposed weight read in every row
        of a matrix product would repeat the transposition per row where register tiling planned
        for the copy). Only inside fused loops (depth >= 1): at function level a recompute counts
        the producer's loops in numLoopsFused without a `[LOOP FUSION]` remark, which
        tests/test_optimize_corpus.py does not expect of the corpus (consumer_reads_next.mlir
        would recompute; see the issue 25 report)."""
        from . import pair_restructuring as pr

        if not pr.shared_outer_ivs(st.loops[a], st.loops[b]):
            return None
        return self._rescue_recompute(st, a, b, profit, at_depth=True)

    def _rescue_recompute(self, st: _BlockState, a: int, b: int, profit: float,
                          at_depth: bool = False) -> bool | None:
        """cpu: the consumer reads the producer's intermediate in another order (a negative
        distance): recompute each element it reads inside the consumer and drop the producer and
        the intermediate (pair_restructuring.plan_recompute states when that is legal)."""
        from ..analysis.loops import perfect_nest
        from . import pair_restructuring as pr

        if self.options.target.partitioned:
            return None  # the Neuron targets keep the seed's rescues
        l1, l2 = st.loops[a], st.loops[b]
        plan, why = pr.plan_recompute(l1, l2, self.scope, at_depth=at_depth)
        if plan is None and why.startswith(pr.UNMAPPED):
            detail = why[len(pr.UNMAPPED) + 2:]
            self.log.refused("fusion", Refusal(Code.RECOMPUTE_UNMAPPED, detail), function=self.fname,
                             location=self._where(l2), args={"consumer": self._where(l2), "producer": self._where(l1)},
                             message=f"{Code.RECOMPUTE_UNMAPPED.message}: {detail}")
        if plan is None or (at_depth and pr.redundant_recompute(plan) is not None):
            return None
        removed = len(perfect_nest(l1))
        where1, where2 = self._where(l1), self._where(l2)
        message, extra = pr.RECOMPUTED, {}
        if at_depth:
            depth = len(pr.shared_outer_ivs(l1, l2))
            extra = {"depth": depth, "slice": pr.slice_bounds(plan)}
            message = pr.RECOMPUTED_AT_DEPTH.format(**extra)
        buf = plan.buffer
        self.rewriter.replace([l1, l2], lambda: (pr.recompute_into_consumer(plan, erase_buffer=False), [[], [l2]])[1])
        for use in list(buf.uses):
            self.rewriter.erase(mlir.operation(use.owner))
        owner, _ = mlir.value_owner(buf)
        self.rewriter.erase(owner)
        if self.explain:
            self.log.log(f"{message}: {where1} into {where2}")
        self.log.add("fusion", PASSED, message, function=self.fname, location=where2,
                     args={"consumer": where2, "producer": where1, "loops_removed": removed, **extra})
        if st.graph is not None:
            st.graph.nodes[a].fate = f"recomputed in L{b}"
        del st.loops[a]
        removed_at = st.order.index(a)
        st.order.remove(a)
        st.version[b] += 1
        st.fused.add(b)
        self.num_loops_fused += removed
        self._recomputed = True
        self._events.append(("recompute", b, removed_at))
        return False

    def _replace(self, st: _BlockState, k: int, op: ir.Operation) -> None:
        st.loops[k] = op
        st.version[k] += 1

    def _split(self, st: _BlockState, k: int, pieces: list[ir.Operation]) -> None:
        """Replace loop k by the loops of its distribution (they keep k's position for ties)."""
        if st.graph is not None:
            st.graph.nodes[k].fate = "distributed"
        base = st.pos[k]
        del st.loops[k]
        st.order.remove(k)
        for n, op in enumerate(pieces):
            nid = max(list(st.pos) + [st.next_id]) + 1
            st.next_id = nid
            st.loops[nid] = op
            st.pos[nid] = base + (n + 1) / (len(pieces) + 1)
            st.version[nid] = 0
            st.origin[nid] = k
            st.order.append(nid)
            if st.graph is not None:
                st.graph.node(nid, self._where(op))


# Which restructurings may rescue a refused pair, by refusal code, in the seed's order
# (seed 001: distribution, then tiling, then interchange; dead iterations first of all).
# Each rescue first asks the real loops' facts whether the pair can meet its precondition
# (pair_restructuring: distribution_cannot_split, interchange_cannot_align, head_refusal, the
# GCD of the trip counts for tiling) and makes no scratch copy when it cannot.
RESCUES = {
    Code.UNMATCHED_TRIP_COUNT: ("dead_iterations", "tile_and_interchange", "interchange_to_align", "recompute_at_depth",
                                "dead_read_only_iterations"),
    Code.NEGATIVE_DISTANCE: ("distribute", "interchange_to_align", "recompute"),
    Code.BLOCKED_BY_OPS: ("distribute",),
}


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


def _place(tail: ir.Operation, head: ir.Operation, partner: ir.Operation, where: str, rewriter) -> None:
    """Move a split loop's tail where `pair_restructuring.tail_placement` said (through the
    rewriter when one is given: the driver's block order follows)."""
    from . import pair_restructuring as pr

    anchor = pr.next_op(partner) if where == pr.AFTER_PARTNER else head if where == pr.BEFORE_HEAD else None
    if anchor is None:
        return
    if rewriter is None:
        tail.move_before(anchor)
    else:
        rewriter.move_before(tail, anchor)


def _as_replacement(result, single: bool = False):
    """A restructuring's result as `Rewriter.replace` expects it: per replaced op, its new ops."""
    if result is None or result == []:
        return None
    if single:
        return [list(result) if isinstance(result, (list, tuple)) else [result]]
    return [[r] for r in result]


def check_loop_fusion(module: ir.Module, options: Options, log: RemarkLog, filename: str = "<input>",
                      incremental: bool = True) -> int:
    """Fusion over every function of the module; returns numLoopsFused."""
    total = 0
    for fn in mlir.functions(module):
        total += GreedyFusion(fn, options, log, filename, incremental).run()
    return total
