"""Every IR change a driver makes goes through one `Rewriter`, which tells its listeners.

Listeners keep derived state current without rescans: `analysis.facts.Facts` drops the facts
an edit makes stale, `BlockOrder` keeps a block's program order. A caller never invalidates a
cache by hand; it asks the rewriter to move, erase, fuse or replace, and the listeners hear of
it before the ops they know about disappear.

A listener implements any of (each optional):
  before_move(op, anchor)            op is about to move just before `anchor`
  after_move(op, anchor)             it has moved
  before_erase(op)                   op and everything nested in it is about to be erased
  before_replace_uses(old, new)      every use of value `old` is about to use `new`
  before_fuse(l1, l2)                l2's body is about to be appended to l1 and l2 erased
  after_fuse(l1, state, moved)       done; `state` is what before_fuse returned, `moved` l2's body
  before_replace(op)                 op is about to be rewritten by a composite transform (tiling,
                                     interchange, distribution, a new bound)
  after_replace(op, new_ops)         it now stands as `new_ops` (in program order; [op] if kept)
"""
from __future__ import annotations

from typing import Callable

from .. import mlir
from ..mlir import ir


class Rewriter:
    """Applies IR edits and notifies every listener, in registration order."""

    def __init__(self, *listeners) -> None:
        self.listeners = list(listeners)

    def add_listener(self, listener) -> None:
        self.listeners.append(listener)

    def _notify(self, event: str, *args):
        out = None
        for listener in self.listeners:
            hook = getattr(listener, event, None)
            if hook is not None:
                result = hook(*args)
                out = result if result is not None else out
        return out

    def move_before(self, op: ir.Operation, anchor: ir.Operation) -> None:
        self._notify("before_move", op, anchor)
        op.move_before(anchor)
        self._notify("after_move", op, anchor)

    def replace_all_uses(self, old: ir.Value, new: ir.Value) -> None:
        self._notify("before_replace_uses", old, new)
        old.replace_all_uses_with(new)

    def erase(self, op: ir.Operation) -> None:
        self._notify("before_erase", op)
        op.erase()

    def fuse(self, l1: ir.Operation, l2: ir.Operation, fuse: Callable[[ir.Operation, ir.Operation], None]) -> None:
        """Run `fuse(l1, l2)` (l2's body appended to l1, l2 erased) with the fuse events around it."""
        moved = [mlir.operation(o) for o in list(l2.regions[0].blocks[0].operations)[:-1]]
        state = {id(listener): getattr(listener, "before_fuse")(l1, l2)
                 for listener in self.listeners if hasattr(listener, "before_fuse")}
        fuse(l1, l2)
        for listener in self.listeners:
            if hasattr(listener, "after_fuse"):
                listener.after_fuse(l1, state.get(id(listener)), moved)

    def replace(self, ops: list[ir.Operation], build: Callable[[], list | None]) -> list[list[ir.Operation]] | None:
        """Rewrite `ops` by `build()`, which may change them in place or erase them, and returns,
        per op, the ops that now stand in its place (in program order); None means nothing
        changed. Returns what build returned."""
        for op in ops:
            self._notify("before_replace", op)
        new = build()
        for k, op in enumerate(ops):
            self._notify("after_replace", op, [op] if new is None else [mlir.operation(o) for o in new[k]])
        return new


# Rank gap between neighbours after a renumbering: an op inserted between two ops takes the middle
# rank, so 256 insertions at one place fit before the block is renumbered.
RANK_STRIDE = 1 << 256


class BlockOrder:
    """Program order of the ops of one block, as a doubly linked list kept current by rewriter
    events (no rescans): `between(a, b)` walks only the ops between a and b, and `is_before(a, b)`
    compares ranks. A rank is an integer that grows along the block; an inserted op takes the
    middle of its neighbours' ranks, and the block is renumbered only when there is no integer
    left between them. (MLIR's own `is_before_in_block` renumbers the whole block after most
    insertions: quadratic over a driver that hoists an op at the same place after every fuse.)"""

    def __init__(self, block: ir.Block) -> None:
        self.block = block
        self.next: dict = {}
        self.prev: dict = {}
        self.op_of: dict = {}
        self.rank: dict = {}
        self._pending: dict = {}  # key of an op being replaced -> the key before it
        ops = mlir.block_ops(block)
        keys = [mlir.op_key(o) for o in ops]
        self.head = None if not keys else keys[0]
        for k, (key, op) in enumerate(zip(keys, ops)):
            self.op_of[key] = op
            self.rank[key] = k * RANK_STRIDE
            self.prev[key] = keys[k - 1] if k > 0 else None
            self.next[key] = keys[k + 1] if k + 1 < len(keys) else None

    def contains(self, op: ir.Operation) -> bool:
        return mlir.op_key(op) in self.op_of

    def is_before(self, a: ir.Operation, b: ir.Operation) -> bool:
        """True iff op `a` comes before op `b` (both ops of this block)."""
        return self.rank[mlir.op_key(a)] < self.rank[mlir.op_key(b)]

    def _renumber(self) -> None:
        key, k = self.head, 0
        while key is not None:
            self.rank[key] = k * RANK_STRIDE
            key, k = self.next[key], k + 1

    def ops(self) -> list[ir.Operation]:
        out, key = [], self.head
        while key is not None:
            out.append(self.op_of[key])
            key = self.next[key]
        return out

    def between(self, a: ir.Operation, b: ir.Operation) -> list[ir.Operation]:
        end = mlir.op_key(b)
        out, key = [], self.next[mlir.op_key(a)]
        while key is not None and key != end:
            out.append(self.op_of[key])
            key = self.next[key]
        return out

    def _unlink(self, key) -> None:
        if key not in self.op_of:
            return
        p, n = self.prev.pop(key), self.next.pop(key)
        del self.op_of[key]
        del self.rank[key]
        if p is None:
            self.head = n
        else:
            self.next[p] = n
        if n is not None:
            self.prev[n] = p

    def _link_after(self, prev_key, op: ir.Operation | None, key=None):
        """Link `op` (or a placeholder `key` with no op) right after `prev_key` (None: first)."""
        key = mlir.op_key(op) if key is None else key
        n = self.head if prev_key is None else self.next[prev_key]
        self.op_of[key], self.prev[key], self.next[key] = op, prev_key, n
        if prev_key is None:
            self.head = key
        else:
            self.next[prev_key] = key
        if n is not None:
            self.prev[n] = key
        lo = self.rank[prev_key] if prev_key is not None else None
        hi = self.rank[n] if n is not None else None
        if lo is not None and hi is not None and hi - lo < 2:
            self.rank[key] = lo  # a placeholder until the renumbering
            self._renumber()
        elif lo is None and hi is None:
            self.rank[key] = 0
        else:
            self.rank[key] = (hi - RANK_STRIDE if lo is None else lo + RANK_STRIDE if hi is None
                              else (lo + hi) // 2)
        return key

    # -- rewriter events ------------------------------------------------------------------------
    def before_move(self, op: ir.Operation, anchor: ir.Operation) -> None:
        self._unlink(mlir.op_key(op))

    def after_move(self, op: ir.Operation, anchor: ir.Operation) -> None:
        key = mlir.op_key(anchor)
        if key in self.op_of:  # moved into this block
            self._link_after(self.prev[key], op)

    def before_erase(self, op: ir.Operation) -> None:
        self._unlink(mlir.op_key(op))

    def before_fuse(self, l1: ir.Operation, l2: ir.Operation) -> None:
        self._unlink(mlir.op_key(l2))

    def before_replace(self, op: ir.Operation) -> None:
        """Hold op's place with a token (a rewritten op's address may be reused by a new op)."""
        key = mlir.op_key(op)
        if key not in self.op_of:
            return  # not an op of this block
        token = ("replacing", id(op))
        self._link_after(self.prev[key], None, token)
        self._unlink(key)
        self._pending[id(op)] = token

    def after_replace(self, op: ir.Operation, new_ops: list[ir.Operation]) -> None:
        token = self._pending.pop(id(op), None)
        if token is None:
            return
        for new in new_ops:
            self._link_after(self.prev[token], new)
        self._unlink(token)
