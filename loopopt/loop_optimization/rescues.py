"""The rescues of a refused pair (seed 001's restructurings inside the fusion driver, and the
cpu target's own), as methods of the fusion driver that each try one rewrite.

A rescue is called with the driver's block state, the pair's loop ids and its profit. It returns
True when it rewrote loops a and b in place (the driver retries the pair), False when it replaced
or removed a loop (the driver rebuilds or re-scores the FPG), and None when it does not apply.
Each first asks the real loops' facts whether the pair can meet its precondition
(pair_restructuring: distribution_cannot_split, interchange_cannot_align, head_refusal, the GCD
of the trip counts for tiling) and makes no scratch copy when it cannot; a rewrite is planned on
scratch copies of the pair and the ops between them (`_trial`) before it touches the real loops.
Which rescues a target tries, for which refusal, in which order, is its TargetHooks.rescues.
"""
from __future__ import annotations

from math import gcd
from typing import Any, Callable

from .. import mlir
from ..analysis.facts import Facts
from ..analysis.loops import perfect_nest
from ..analysis.refusal import Code, Refusal
from ..mlir import ir
from ..remarks import MISSED, PASSED
from ..transforms.tiling import partition_extent
from . import pair_restructuring as pr
from .fusion_legality import fusion_legality
from .profit import shared_tensors

_BlockState = Any  # fusion._BlockState: the driver's per-block state

# which longer loops a dead-iterations rescue shrinks
WRITTEN, READ_ONLY = 1, 2


class PairRescues:
    """The rescues and their helpers; fusion.GreedyFusion holds the state they use."""

    def _trial(self, st: _BlockState, ops: list[ir.Operation], plan) -> bool:
        """Plan a restructuring: run `plan(*copies of ops)` on scratch copies of the pair and the
        ops between them (pair_restructuring.on_scratch_copy)."""
        first, last = (ops[0], ops[1]) if st.block_order.is_before(ops[0], ops[1]) else (ops[1], ops[0])
        return pr.on_scratch_copy([first, *st.block_order.between(first, last), last], ops, plan)

    # A trial the target refused because the restructured pair would lose its register tile
    # (Code.LOSES_REGISTER_TILING): the pair's own refusal names it (fusion._try_fuse).
    trial_refusal: Refusal | None = None

    def _legal_on_copy(self, l1: ir.Operation, l2: ir.Operation, profit: float) -> bool:
        """The fusion battery on a scratch copy (fresh facts: the copy is new IR); a refusal for
        the register tile is kept in `trial_refusal`."""
        r = fusion_legality(l1, l2, Facts(), self.options, profit, hooks=self.hooks)[1]
        if r is not None and r.code is Code.LOSES_REGISTER_TILING:
            self.trial_refusal = r
        return r is None

    def dead_iterations(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """Unmatched constant trip counts: drop the longer loop's iterations nobody reads (seed
        001); where the target splits read tails, a tail read later becomes a loop of its own."""
        return self._dead_iterations(st, a, b, profit, WRITTEN | READ_ONLY)

    def dead_written_iterations(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """`dead_iterations` for a longer loop that writes: a loop that writes nothing waits for
        `dead_read_only_iterations`."""
        return self._dead_iterations(st, a, b, profit, WRITTEN)

    def dead_read_only_iterations(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """`dead_iterations` for a longer loop that writes nothing, tried after the other rescues:
        every iteration of such a loop is dead, and shrinking it first would only hide the
        mismatch from an interchange that aligns the pair (loop-fusion.mlir
        `@should_fuse_deep_loop_nests`: the consumer's outer loop of 3 shrunk to the producer's 2
        where the producer has a loop of 3 to bring outermost)."""
        return self._dead_iterations(st, a, b, profit, READ_ONLY)

    def _dead_iterations(self, st: _BlockState, a: int, b: int, profit: float, loops: int) -> bool | None:
        """The longer loop's dead iterations dropped (or, read later, split off: `_split_tail`),
        when the longer loop is of a kind in `loops` (WRITTEN, READ_ONLY)."""
        t1, t2 = self._trip_count(st.loops[a]), self._trip_count(st.loops[b])
        if t1 is None or t2 is None or t1 == t2:
            return None
        long_id, keep = (a, t2) if t1 > t2 else (b, t1)
        loop = st.loops[long_id]
        writes_nothing = not self.effects(loop).writes and not self.effects(loop).unknown
        if not loops & (READ_ONLY if writes_nothing else WRITTEN):
            return None
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
        t = self.facts.constant_trip(loop)
        return t[0] if t is not None else pr.known_trip_count(loop)

    def _partition_extent(self, st: _BlockState, k: int) -> int | None:
        """tiling.partition_extent of loop k, once per version of the loop."""
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
        return self.facts.buffer_fact(buf, "escapes", lambda: pr.escapes(buf))

    def _split_tail(self, st: _BlockState, long_id: int, other: int, keep: int, profit: float) -> bool | None:
        """Split loop `long_id` after its first `keep` iterations (pair_restructuring.
        split_loop) when a trial on copies shows that the head then fuses with its partner. The
        head keeps the loop's id; the tail is a new loop of the block, placed out of the pair's
        way when it may run there (`tail_placement`), and the FPG is rebuilt after the retry.
        A loop is split once and never after it absorbed a partner; a head that shares no
        element with its partner is not worth a split."""
        if not self.hooks.splits_read_tails:
            return None
        if long_id in st.fused or long_id in st.split_of:
            return None
        loop, partner = st.loops[long_id], st.loops[other]
        if pr.split_violation(loop, keep) is not None:
            return None
        if pr.head_refusal(loop, keep, partner, self._facts_of(loop, partner),
                           st.block_order.is_before(loop, partner)) is not None:
            return None  # the head would be refused on the copy too
        if (self._where(loop), keep) in self._split_refused:
            return None  # the target kept this loop whole at this point before (below)

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
        why = self.hooks.split_refusal(loop, keep, self.scope)
        if why is not None:  # the target keeps the loop whole (a product's rows), said once per place:
            # only where the split would be made (the trial passed)
            said = (self._where(loop), keep)
            if said not in self._split_refused:
                self._split_refused.add(said)
                self.log.add("fusion", MISSED, f"{pr.STOP_SPLIT} {why}", function=self.fname,
                             location=self._where(loop), args={"kept_iterations": keep, "reason": why})
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

    def tile_and_interchange(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """GCD-tile both partition loops and move the point loops outermost (seed 001)."""
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

    def distribute(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """Split one loop (the second first) so that a piece fuses with the partner."""
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
                    if shared and fusion_legality(*pair, facts, self.options, 1.0, hooks=self.hooks)[1] is None:
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

    def interchange_to_align(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """Interchange one nest (the second first) so that the pair becomes fusable, e.g. a
        transposing consumer; the target may refuse an interchange that worsens its memory walks
        (TargetHooks.interchange_locality)."""
        first, second = st.loops[a], st.loops[b]  # a runs first
        asked: list = []  # the target's check of the pair, asked when a first trial is made

        def check():
            if not asked:
                asked.append(self.hooks.interchange_locality(first, second))
            return asked[0]

        for k, other, k_first in ((b, a, False), (a, b, True)):
            seen = (st.serial, k, st.version[k])
            if seen not in self._outer_trips:
                self._outer_trips[seen] = pr.interchange_outer_trips(st.loops[k])
            for perm, outer in self._outer_trips[seen]:
                if pr.interchange_cannot_align(outer, self.facts.constant_trip(st.loops[other])):
                    continue  # the trip counts would still differ
                if self._interchange_refused(st, k, perm):
                    continue  # the copy's interchange would be refused: no trial
                locality = check()  # of the real pair, before a scratch copy adds users to its buffers

                def plan(cv, cp, perm=perm, k_first=k_first, locality=locality) -> bool:
                    keeps = locality(cv) if locality is not None else None  # measured before the interchange
                    root = pr.interchange_band(cv, perm, self.options, None, self.fname)
                    if root is None or (keeps is not None and not keeps(root)):
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

    def _interchange_refused(self, st: _BlockState, k: int, perm: list[int]) -> bool:
        """pair_restructuring.interchange_refused of loop k, once per version of the loop: the
        answer depends on the nest alone, and every partner of the loop would ask it again."""
        seen = (st.serial, k, st.version[k], tuple(perm))
        if seen not in self._interchanges:
            self._interchanges[seen] = pr.interchange_refused(st.loops[k], perm, self.options)
        return self._interchanges[seen]

    def recompute_at_depth(self, st: _BlockState, a: int, b: int, profit: float) -> bool | None:
        """Unmatched trip counts inside fused loops: the producer nest writes its intermediate
        at the enclosing (fused) IVs and its own; each consumer iteration recomputes the one
        producer iteration it reads (`plan_recompute(at_depth=True)`). Not when the consumer reads
        more than the producer wrote (`redundant_recompute`: a transposed weight read in every row
        of a matrix product would repeat the transposition per row where register tiling planned
        for the copy). Only inside fused loops (depth >= 1): at function level a recompute counts
        the producer's loops in numLoopsFused without a `[LOOP FUSION]` remark, which
        tests/test_optimize_corpus.py does not expect of the corpus (consumer_reads_next.mlir
        would recompute; see the issue 25 report)."""
        if not pr.shared_outer_ivs(st.loops[a], st.loops[b]):
            return None
        return self.recompute(st, a, b, profit, at_depth=True)

    def recompute(self, st: _BlockState, a: int, b: int, profit: float,
                          at_depth: bool = False) -> bool | None:
        """The consumer reads the producer's intermediate in another order (a negative
        distance): recompute each element it reads inside the consumer and drop the producer and
        the intermediate (pair_restructuring.plan_recompute states when that is legal)."""
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


# A rescue, as TargetHooks.rescues lists them: called with the driver, its block state, the
# pair's loop ids (a runs first) and the pair's profit.
Rescue = Callable[[PairRescues, _BlockState, int, int, float], "bool | None"]

dead_iterations = PairRescues.dead_iterations
dead_written_iterations = PairRescues.dead_written_iterations
dead_read_only_iterations = PairRescues.dead_read_only_iterations
tile_and_interchange = PairRescues.tile_and_interchange
distribute = PairRescues.distribute
interchange_to_align = PairRescues.interchange_to_align
recompute = PairRescues.recompute
recompute_at_depth = PairRescues.recompute_at_depth


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
