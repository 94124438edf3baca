"""Memoized analysis facts for one function while a transform runs on it.

Facts are pure functions of the IR. A `Facts` listens to the transform's rewriter
(transforms/rewriter.py): every move, erase, fuse or replacement drops exactly the facts it
makes stale, and a fuse updates the kept loop's facts in place (`fused`), so a chain of N
fusions costs O(N) analysis, not O(N^2).
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir, op_key
from .accesses import AccessPattern, collect_accesses
from .affine import Scope
from .effects import Effects, op_effects
from .loops import ancestors
from .memory import DEFAULT_DYNAMIC_EXTENT, MemoryLocation, memory_location


class Facts:
    """Facts keyed by op address (`op_key`): an op's hash changes with its attributes."""

    def __init__(self, scope: Scope | None = None) -> None:
        self.scope = scope or Scope()
        self._effects: dict = {}
        self._accesses: dict = {}
        self._locations: dict = {}
        self._by_root: dict = {}
        self._row_bytes: dict = {}
        self._working_set: dict = {}

    def effects(self, op: ir.Operation) -> Effects:
        e = self._effects.get(op_key(op))
        if e is None:
            e = self._effects[op_key(op)] = op_effects(op)
        return e

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

    def accesses_by_root(self, op: ir.Operation) -> dict:
        """The op's accesses grouped by buffer key (`AccessPattern.key`)."""
        d = self._by_root.get(op_key(op))
        if d is None:
            d = {}
            for a in self.accesses(op):
                d.setdefault(a.key, []).append(a)
            self._by_root[op_key(op)] = d
        return d

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
            self._working_set.pop(k, None)

    def forget_tree(self, op: ir.Operation) -> None:
        """Forget an op about to be erased or rebuilt, every op nested in it, and every op
        enclosing it (their cached facts describe its contents)."""
        self.forget(op, *mlir.walk(op))
        self.forget_ancestors(op)
        self.scope.forget_dying(op)

    def forget_ancestors(self, op: ir.Operation) -> None:
        self.forget(*ancestors(op))

    def before_fuse(self, l1: ir.Operation, l2: ir.Operation):
        """Take what `fused` needs of l2 before the fuse erases it."""
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
        k1 = op_key(l1)
        e1 = self._effects.get(k1)
        acc1 = self._accesses.get(k1)
        by_root = self._by_root.get(k1)
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

    # -- rewriter events (transforms/rewriter.py) ------------------------------------------------
    def before_move(self, op: ir.Operation, anchor: ir.Operation) -> None:
        """A move within one block keeps every fact (same enclosing loops); into another block,
        the op's facts and both chains of enclosing loops go stale."""
        if op.block != anchor.block:
            self.forget_tree(op)
            self.forget_ancestors(anchor)

    def before_erase(self, op: ir.Operation) -> None:
        self.forget_tree(op)

    def after_fuse(self, l1: ir.Operation, state, moved: list[ir.Operation]) -> None:
        self.fused(l1, state, moved)

    def before_replace(self, op: ir.Operation) -> None:
        self.forget_tree(op)
