"""Memoized analysis facts for one function while a transform runs on it.

Facts are pure functions of the IR. A `Facts` listens to the transform's rewriter
(transforms/rewriter.py): every move, erase, fuse or replacement drops exactly the facts it
makes stale, and a fuse updates the kept loop's facts in place (`fused`), so a chain of N
fusions costs O(N) analysis, not O(N^2).

Facts about one buffer (`buffer_fact`: which ops use it, whether it escapes) are dropped when an
edit's ops use the buffer (through views included): an edit changes the users, or their order,
only of the buffers its ops use, so a question about a buffer many nests share does not rescan
its users after every edit elsewhere.
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir, op_key
from .accesses import AccessPattern, collect_accesses
from .affine import Scope
from .effects import Effects, op_effects
from .loops import ancestors, constant_trip, substitute
from .memory import DEFAULT_DYNAMIC_EXTENT, MemoryLocation, alias_root, memory_location


def access_signature(a: AccessPattern, inside: int | None = None) -> tuple:
    """What every question about one access depends on besides the op that makes it: the buffer,
    read or write, the index and extent, and its loops (each by op, IV, bounds and step). Two
    accesses with one signature touch the same elements in the same iterations, so a check of a
    pair of accesses gets the same answer for either (a fused chain of N loops updating A[i] in
    place has 2N accesses and two signatures).

    With `inside` (the op_key of a loop around the access) the loops nested in that loop count
    by depth below it, not by op: their IVs are renamed by depth in the index and their bounds.
    Accesses of two nests of one shape that a fuse put side by side in the loop then share a
    signature: a question about the loop's iterations (a dependence between it and a sibling,
    the elements one iteration touches) cannot tell them apart."""
    keys = [op_key(lp.op) for lp in a.loops]
    cut = len(keys) - keys[::-1].index(inside) if inside is not None and inside in keys else len(keys)
    loops = tuple((k, lp.name, lp.lower, lp.upper, lp.step) for k, lp in zip(keys[:cut], a.loops[:cut]))
    if cut == len(keys):
        return (a.key, a.root, a.is_write, a.index, a.extent, loops)
    ren = {lp.name: f"#{d}" for d, lp in enumerate(a.loops[cut:])}

    def named(texts):
        return tuple(substitute(t, ren) for t in texts)

    loops += tuple((None, ren[lp.name], named(lp.lower), named(lp.upper), lp.step) for lp in a.loops[cut:])
    return (a.key, a.root, a.is_write, None if a.index is None else named(a.index), a.extent, loops)


class Distinct:
    """An op's accesses with one of each signature (`access_signature`, with `inside` when given:
    the first access of each, in program order), grouped by buffer key as
    `Facts.accesses_by_root`; `first` maps each signature to its access."""

    def __init__(self, inside: int | None = None) -> None:
        self.inside = inside
        self.by_root: dict = {}
        self.first: dict = {}
        self.flat: list = []
        self.verdicts: dict = {}  # buffer key -> (what it was asked of, answer): vectorization's memo

    def add(self, accesses) -> None:
        for a in accesses:
            sig = access_signature(a, self.inside)
            if sig not in self.first:
                self.first[sig] = a
                self.flat.append(a)
                self.by_root.setdefault(a.key, []).append(a)


def values_used_inside(op: ir.Operation) -> frozenset:
    """The operands of `op` and of every op nested in it."""
    used = set()
    for o in (op, *mlir.walk_list(op)):
        used.update(o.operands)
    return frozenset(used)


class Facts:
    """Facts keyed by op address (`op_key`): an op's hash changes with its attributes."""

    def __init__(self, scope: Scope | None = None) -> None:
        self.scope = scope or Scope()
        self._effects: dict = {}
        self._accesses: dict = {}
        self._locations: dict = {}
        self._by_root: dict = {}
        self._distinct: dict = {}
        self._classes: dict = {}
        self._row_bytes: dict = {}
        self._working_set: dict = {}
        self._buffers: dict = {}  # root -> {name: fact} (buffer_fact)
        self._trips: dict = {}
        self._used: dict = {}  # op key -> values_used_inside (dropped with the op's other facts)

    def effects(self, op: ir.Operation) -> Effects:
        k = op_key(op)
        e = self._effects.get(k)
        if e is None:
            e = self._effects[k] = op_effects(op)
        return e

    def used_values(self, op: ir.Operation) -> frozenset:
        """`values_used_inside(op)`: the operands of the op and of every op nested in it. A fact
        of the op's contents, dropped with its effects (`forget`: an erase, a fuse, a move into
        another block, for the op and every op around it), for the ops a fuse moves (their IV
        changes), and for every op by a replacement of a value's uses or a composite rewrite
        (`before_replace_uses`, `before_replace`: any op's operands may change)."""
        k = op_key(op)
        u = self._used.get(k)
        if u is None:
            u = self._used[k] = values_used_inside(op)
        return u

    def constant_trip(self, op: ir.Operation):
        """loops.constant_trip of a loop: (trip count, step), None if not constant."""
        k = op_key(op)
        if k not in self._trips:
            self._trips[k] = constant_trip(op)
        return self._trips[k]

    def accesses(self, op: ir.Operation) -> list[AccessPattern]:
        a = self._accesses.get(op_key(op))
        if a is None:
            a = self._accesses[op_key(op)] = collect_accesses(op, self.scope)
        return a

    def location(self, root: ir.Value) -> MemoryLocation:
        m = self._locations.get(root)
        if m is None:
            m = self._locations[root] = memory_location(root)
        return m

    def known_accesses(self, op: ir.Operation) -> list[AccessPattern] | None:
        """The op's accesses if already computed (no new names are given), else None."""
        return self._accesses.get(op_key(op))

    def accesses_by_root(self, op: ir.Operation) -> dict:
        """The op's accesses grouped by buffer key (`AccessPattern.key`)."""
        d = self._by_root.get(op_key(op))
        if d is None:
            d = {}
            for a in self.accesses(op):
                d.setdefault(a.key, []).append(a)
            self._by_root[op_key(op)] = d
        return d

    def distinct(self, op: ir.Operation) -> Distinct:
        """The op's accesses, one per signature (`access_signature`). A question whose answer
        depends only on the signatures of the accesses it looks at (a dependence, an element
        footprint) asks these: its cost follows the distinct accesses of a fused loop, not how
        many loops were fused into it. Kept current by `fused`, like the access list."""
        d = self._distinct.get(op_key(op))
        if d is None:
            d = Distinct()
            d.add(self.accesses(op))
            self._distinct[op_key(op)] = d
        return d

    def distinct_by_root(self, op: ir.Operation) -> dict:
        """`distinct(op).by_root`: one access per signature, grouped by buffer key."""
        return self.distinct(op).by_root

    def classes(self, op: ir.Operation) -> Distinct:
        """The accesses of the loop `op`, one per signature relative to it (`access_signature`
        with `inside`: the loops nested in it count by depth). For the questions fusion asks of
        a pair of sibling loops, each about the loops' own iterations: a loop that absorbed N
        nests of one shape is asked about one. Kept current by `fused`."""
        d = self._classes.get(op_key(op))
        if d is None:
            d = Distinct(op_key(op))
            d.add(self.accesses(op))
            self._classes[op_key(op)] = d
        return d

    def buffer_fact(self, root: ir.Value, name: str, compute):
        """The fact `name` about buffer `root`, `compute()` on a miss; kept until an edit's ops
        use the buffer."""
        facts = self._buffers.setdefault(root, {})
        if name not in facts:
            facts[name] = compute()
        return facts[name]

    def drop_buffers_used_by(self, *ops: ir.Operation) -> None:
        """Drop the buffer facts of every buffer an op of `ops` (or nested in one) uses."""
        if not self._buffers:
            return
        for op in ops:
            for o in (op, *mlir.walk_list(op)):
                for v in o.operands:
                    if isinstance(v.type, ir.MemRefType):
                        self._buffers.pop(alias_root(v), None)

    def row_bytes(self, root: ir.Value) -> int:
        """Bytes of one partition row of a buffer (all dims but the first)."""
        if not isinstance(root.type, ir.MemRefType):
            return 0
        b = self._row_bytes.get(root)
        if b is None:
            loc = self.location(root)
            rows = (loc.shape[0] or DEFAULT_DYNAMIC_EXTENT) if loc.shape else 1
            b = self._row_bytes[root] = (loc.live_n // max(1, rows)) * loc.elem_size
        return b

    def working_set(self, op: ir.Operation) -> int:
        """Bytes per partition one iteration of the loop touches: one row of every buffer."""
        w = self._working_set.get(op_key(op))
        if w is None:
            e = self.effects(op)
            w = self._working_set[op_key(op)] = sum(self.row_bytes(e.values[k]) for k in e.touches())
        return w

    def fused_working_set(self, l1: ir.Operation, l2: ir.Operation) -> int:
        t1 = self.effects(l1).touches()
        e2 = self.effects(l2)
        return self.working_set(l1) + sum(self.row_bytes(e2.values[k]) for k in e2.touches() if k not in t1)

    def forget(self, *ops: ir.Operation) -> None:
        """Drop facts of ops about to change or disappear (before they are erased: a new op may
        later reuse an erased op's address)."""
        for op in ops:
            k = op_key(op)
            self._effects.pop(k, None)
            self._accesses.pop(k, None)
            self._by_root.pop(k, None)
            self._distinct.pop(k, None)
            self._classes.pop(k, None)
            self._working_set.pop(k, None)
            self._trips.pop(k, None)
            self._used.pop(k, None)

    def forget_tree(self, op: ir.Operation) -> None:
        """Forget an op about to be erased or rebuilt, every op nested in it, and every op
        enclosing it (their cached facts describe its contents)."""
        self.forget(op, *mlir.walk_list(op))
        self.forget_ancestors(op)
        self.scope.forget_dying(op)

    def forget_ancestors(self, op: ir.Operation) -> None:
        self.forget(*ancestors(op))

    def before_fuse(self, l1: ir.Operation, l2: ir.Operation):
        """Take what `fused` needs of l2 before the fuse erases it. l2's buffers get new users
        (l1 instead of l2); l1's own accesses do not change."""
        self.drop_buffers_used_by(l2)
        state = (self.effects(l2), self.fused_working_set(l1, l2))
        self.forget(l2)
        self.scope.forget_dying(l2)
        return state

    def fused(self, l1: ir.Operation, state, moved: list[ir.Operation]) -> None:
        """l2's body (`moved`, now under l1's IV) was appended to l1: effects are the union and
        accesses are l1's followed by the moved ops' (recomputed: their IV changed). Updated in
        place, so a chain of fusions costs time proportional to what each fuse moves."""
        e2, working_set = state
        self.forget_ancestors(l1)  # their facts still describe l2's accesses on l2's IV
        if self._used:  # the moved ops now use l1's IV where they used l2's
            for op in moved:
                for o in (op, *mlir.walk_list(op)):
                    self._used.pop(op_key(o), None)
        k1 = op_key(l1)
        e1 = self._effects.get(k1)
        acc1 = self._accesses.get(k1)
        by_root = self._by_root.get(k1)
        distinct, classes = self._distinct.get(k1), self._classes.get(k1)
        self.forget(l1)
        if e1 is not None:
            e1.merge(e2)
            self._effects[k1] = e1
            self._working_set[k1] = working_set
        if acc1 is not None:
            extra = [a for op in moved for a in collect_accesses(op, self.scope)]
            acc1.extend(extra)
            self._accesses[k1] = acc1
            if by_root is not None:
                for a in extra:
                    by_root.setdefault(a.key, []).append(a)
                self._by_root[k1] = by_root
            for memo, d in ((self._distinct, distinct), (self._classes, classes)):
                if d is not None:
                    d.add(extra)
                    memo[k1] = d

    # -- rewriter events (transforms/rewriter.py) ------------------------------------------------
    def before_move(self, op: ir.Operation, anchor: ir.Operation) -> None:
        """A move within one block keeps every fact of ops (same enclosing loops), not the
        order of its buffers' users; into another block, the op's facts and both chains of
        enclosing loops go stale."""
        self.drop_buffers_used_by(op)
        if op.block != anchor.block:
            self.forget_tree(op)
            self.forget_ancestors(anchor)

    def before_erase(self, op: ir.Operation) -> None:
        self.drop_buffers_used_by(op)
        self.forget_tree(op)

    def after_fuse(self, l1: ir.Operation, state, moved: list[ir.Operation]) -> None:
        self.fused(l1, state, moved)

    def before_replace(self, op: ir.Operation) -> None:
        """A composite rewrite may also redirect the uses of what it replaces (a rebuilt loop's
        results, a shrunk buffer, a tiled loop's results) anywhere in the function: every
        op's `used_values` is dropped."""
        self.drop_buffers_used_by(op)
        self.forget_tree(op)
        self._used.clear()

    def after_replace(self, op: ir.Operation, new_ops: list) -> None:
        self.drop_buffers_used_by(*new_ops)

    def before_replace_uses(self, old: ir.Value, new: ir.Value) -> None:
        """The uses of `old` become uses of `new`: a memref's users move to another buffer;
        any other value may change the indices of accesses to any buffer. Either way the users'
        operands change: every op's `used_values` is dropped."""
        self._used.clear()
        if isinstance(old.type, ir.MemRefType):
            self._buffers.pop(alias_root(old), None)
            self._buffers.pop(alias_root(new), None)
        else:
            self._buffers.clear()
