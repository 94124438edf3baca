"""liveN from liveness (the seed's update_liveN): how many elements of a placed buffer are live
between two sibling loops.

live(B, l1, l2) = the elements of B written by l1 or an op before it in their block, that are
read by l2 or an op after it. Fusing l1 and l2 keeps exactly those elements from a round trip
through memory, so the profit counts them instead of the whole buffer (`profit.fusion_profit`).

Exact with isl where the accesses are affine: each access is the set of elements it touches over
its loops' domain; the count is that of (writes ∩ reads) with the parameters projected out (the
elements live for *some* value of the symbols), inside the buffer's box, where a dynamic
dimension counts as `DEFAULT_DYNAMIC_EXTENT`. So the result never exceeds the static count
`MemoryLocation.live_n`. A write or read at unknown elements (non-affine index, a call that
receives the buffer) covers the box; a use that lets the buffer escape (returned, passed to an
op we do not model) counts as a whole-buffer read or write where it stands. Sound for memrefs
of untraced origin: once some use may hand the buffer's address on (`lets_alias`: a select, a
call, anything but a load, a store or a dealloc of it), every op of the block with effects we do
not model (an access through an untraced memref, a call) may read or write all of it where it
stands. The static count is kept when the buffer is used outside the loops' block, or isl
cannot read an index.

`Liveness` answers a pair's question without looking at the buffer's other users: per placed
buffer it keeps the ops of the loops' block that use it (`BufferUsers`), in block order, with the
union of the write bodies of every prefix and of the read bodies of every suffix, so a pair
costs two binary searches in block order and one (cached) isl count, however many nests share
the buffer. The index is a buffer fact (`Facts.buffer_fact`): an edit through the transform's
rewriter (transforms/rewriter.py) drops it for the buffers the edited ops use, and it is
rebuilt on the buffer's next question; every edit also drops the memo of answers. The isl work
is cached by the access texts (loop names made positional), so a chain of N similar loops
costs N look-ups, not N isl counts.
`live_between` is the same answer by a scan of every user: the reference the index is tested
against, and what `--print-analysis` reports.
"""
from __future__ import annotations

import functools
import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

import islpy as isl

from .. import mlir
from ..mlir import ir, op_key
from .accesses import AccessPattern
from .dependence import element_constraints, union_all
from .effects import READ_OPS, WRITE_OPS, op_effects
from .memory import DEFAULT_DYNAMIC_EXTENT, VIEW_OPS, buffer_key

BEFORE, BETWEEN, AFTER = "before", "between", "after"


@dataclass(frozen=True)
class LiveN:
    """Live elements of one placed buffer between two loops, and how they were found."""

    elements: int
    static: int  # the buffer's element count (MemoryLocation.live_n)
    exact: bool  # counted with isl; False: the static count was kept
    why: str = ""  # why the static count was kept

    def __str__(self) -> str:
        how = "isl" if self.exact else f"static: {self.why}"
        return f"{self.elements} of {self.static} ({how})"


def buffer_users(root: ir.Value, values: list | None = None) -> list[ir.Operation]:
    """Every op using the buffer `root`, through views (a view op's own uses are followed).
    `values`, when given, receives root and the views' results."""
    out, todo, seen = [], [root], 0
    while todo and seen < 100000:
        v = todo.pop()
        if values is not None:
            values.append(v)
        for use in v.uses:
            user = mlir.operation(use.owner)
            seen += 1
            if user.name in VIEW_OPS:
                todo.extend(user.results)
            else:
                out.append(user)
    return out


def lets_alias(user: ir.Operation, values) -> bool:
    """A use of the buffer (`values`: it and its views) that may hand its address on: anything
    but its deallocation or a load or store that names it as the accessed memref only."""
    if user.name == "memref.dealloc":
        return False
    pos = READ_OPS.get(user.name, WRITE_OPS.get(user.name))
    if pos is None:
        return True
    return any(k != pos and any(v == w for w in values) for k, v in enumerate(user.operands))


def unknown_tops(block: ir.Block, known: dict, effects) -> list:
    """(key, op) of the ops of `block` not in `known` whose effects we do not model: each may
    read or write a buffer whose address was handed on."""
    out = []
    for op in mlir.block_ops(block):
        k = op_key(op)
        if k not in known and effects(op).unknown:
            out.append((k, op))
    return out


def ancestor_in(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op of `block` that is `op` or encloses it; None if `op` is not inside `block`."""
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        if parent is None:
            return None
        op = mlir.operation(parent)
        if op.name in ("builtin.module", "func.func"):
            return None
    return None


def position(op: ir.Operation, l1: ir.Operation, l2: ir.Operation, keys: tuple | None = None,
             order=None) -> str:
    """Where an op of the loops' block stands: BEFORE (l1 itself or earlier), AFTER (l2 itself or
    later) or BETWEEN. `keys`: op_key of op, l1 and l2 when the caller has them. `order`: an
    object with `is_before(a, b)` for the ops of that block, kept current by its owner (else
    MLIR's `is_before_in_block`)."""
    k, k1, k2 = keys if keys is not None else (op_key(op), op_key(l1), op_key(l2))
    before = order.is_before if order is not None else (lambda a, b: a.is_before_in_block(b))
    if k == k1 or before(op, l1):
        return BEFORE
    if k == k2 or before(l2, op):
        return AFTER
    return BETWEEN


def _escapes(user: ir.Operation, key) -> bool:
    """A use that is neither a modelled access of the buffer nor its deallocation: the buffer
    escapes (returned, stored as a value, passed to an op whose effects do not name it)."""
    if user.name in READ_OPS or user.name in WRITE_OPS or user.name == "memref.dealloc":
        return False
    e = op_effects(user)
    return key not in e.touches()


def live_between(root: ir.Value, l1: ir.Operation, l2: ir.Operation, facts, bodies: dict | None = None,
                 order=None) -> LiveN:
    """live(root, l1, l2) for sibling loops l1 before l2 (see the module docstring). `bodies`
    caches each access's isl text (an access pattern is immutable: its text never goes stale);
    `order` answers `is_before` for the ops of the loops' block (see `position`)."""
    loc = facts.location(root)
    static = loc.live_n
    if not loc.placed:
        return LiveN(static, static, False, "not a placed buffer")
    block, key = l1.block, buffer_key(root)
    k1, k2 = op_key(l1), op_key(l2)
    tops: dict = {}
    escaping = []
    values: list = []
    aliased = False
    for user in buffer_users(root, values):
        top = ancestor_in(user, block)
        if top is None:
            if user.name == "memref.dealloc":
                continue
            return LiveN(static, static, False, f"used outside the loops' block ({mlir.location_of(user)})")
        kt = op_key(top)
        tops.setdefault(kt, top)
        if _escapes(user, key):
            escaping.append(kt)
        aliased = aliased or lets_alias(user, values)
    extra = set()
    if aliased:  # an op we do not model may touch it through another name
        for kt, top in unknown_tops(block, tops, facts.effects):
            tops[kt] = top
            escaping.append(kt)
            extra.add(kt)
    where_of = {kt: position(top, l1, l2, (kt, k1, k2), order) for kt, top in tops.items()}
    whole = {BEFORE: False, AFTER: False, BETWEEN: False}
    for kt in escaping:
        whole[where_of[kt]] = True
    writes: list[AccessPattern] = []
    reads: list[AccessPattern] = []
    for kt, top in tops.items():
        where = where_of[kt]
        if where == BETWEEN or kt in extra:
            continue
        for a in facts.accesses_by_root(top).get(key, ()):
            if where == BEFORE and a.is_write:
                writes.append(a)
            elif where == AFTER and not a.is_write:
                reads.append(a)
    if (not writes and not whole[BEFORE]) or (not reads and not whole[AFTER]):
        return LiveN(0, static, True)
    rank = len(loc.shape)
    bodies = {} if bodies is None else bodies
    w = None if whole[BEFORE] else _texts(writes, rank, bodies)
    r = None if whole[AFTER] else _texts(reads, rank, bodies)
    n = count_live(w, r, _box(loc.shape), tuple(sorted(facts.scope.params)))
    if n is None:
        return LiveN(static, static, False, "isl could not read or count the accesses")
    return LiveN(min(n, static), static, True)


def _texts(accs: list[AccessPattern], rank: int, bodies: dict) -> tuple[str, ...] | None:
    """The accesses' element-set bodies (None: some access may touch any element)."""
    out = set()
    for a in accs:
        t = bodies.get(a, False)
        if t is False:
            t = bodies[a] = _element_body(a, rank)
        if t is None:
            return None
        out.add(t)
    return tuple(sorted(out))


def _element_body(a: AccessPattern, rank: int) -> str | None:
    """isl constraints over e0..e<rank-1>: the elements `a` touches over its loops' domain,
    loops renamed by depth so equal shapes of access give equal text."""
    if a.index is None or len(a.index) != rank:
        return None
    ren = {lp.name: f"l{k}_" for k, lp in enumerate(a.loops)}
    cons = [c for lp in a.loops for c in lp.constraints(ren)]
    cons += element_constraints(a, [f"e{d}" for d in range(rank)], ren)
    body = " and ".join(cons) or "true"
    return f"exists ({', '.join(ren.values())}: {body})" if ren else body


def _box(shape: tuple) -> str:
    return " and ".join(f"0 <= e{d} < {DEFAULT_DYNAMIC_EXTENT if s is None else s}"
                        for d, s in enumerate(shape)) or "true"


@functools.lru_cache(maxsize=16384)
def _parsed(text: str) -> isl.Set:
    """isl.Set(text), memoized: a body recurs in the questions of many pairs (isl sets are immutable)."""
    return isl.Set(text)


_COUNTS: dict = {}
MAX_PIECES = 32  # above this many pieces after coalescing, keep the static count
# isl counts a set by enumerating every point of all its dimensions but the innermost: above this
# many (the box's extents, all but the last, multiplied), keep the static count. A buffer with
# dynamic sizes has a box of DEFAULT_DYNAMIC_EXTENT per dimension: 1024^3 points at rank 4.
MAX_SCANNED = 1 << 20


def count_live(writes: tuple | None, reads: tuple | None, box: str, params: tuple) -> int | None:
    """|(∪ writes) ∩ (∪ reads)| inside the box, parameters projected out; None writes or reads
    mean the whole box. None if isl cannot read the text. Cached: a pure function of its texts."""
    key = (writes, reads, box, params)
    if key in _COUNTS:
        return _COUNTS[key]
    if len(_COUNTS) > 50000:
        _COUNTS.clear()
    rank = box.count("<=")
    if math.prod(int(x) for x in re.findall(r"< (\d+)", box)[:-1]) > MAX_SCANNED:
        _COUNTS[key] = None
        return None
    elems = ", ".join(f"e{d}" for d in range(rank))
    head = f"[{', '.join(params)}] -> " if params else ""
    try:
        def union(bodies):
            if bodies is None:
                return isl.Set(f"{head}{{ [{elems}] : {box} }}")
            # One set per body, united as a balanced tree: isl parses one long disjunction in
            # quadratic time (1.7 s for 4,096 bodies, against 0.3 s this way).
            sets = [_parsed(f"{head}{{ [{elems}] : {b} }}") for b in bodies]
            return union_all(sets).coalesce() if sets else isl.Set(f"{head}{{ [{elems}] : 1 = 0 }}")

        live = union(writes).intersect(union(reads)).coalesce()
        live = live.project_out(isl.dim_type.param, 0, live.dim(isl.dim_type.param))
        live = live.intersect(isl.Set(f"{{ [{elems}] : {box} }}")).coalesce()
        # Counting a union of many overlapping pieces makes them disjoint first: exponential.
        n = int(live.count_val().to_python()) if live.n_basic_set() <= MAX_PIECES else None
    except (isl.Error, ValueError, TypeError):
        n = None
    _COUNTS[key] = n
    return n


@dataclass(frozen=True)
class Side:
    """What the users of a buffer on one side of a pair do with it: the element-set bodies of
    their writes (before the first loop) or reads (after the second), a None body meaning any
    element; whether there is any such access; whether a use there lets the buffer escape (a
    whole-buffer access where it stands)."""

    bodies: frozenset = frozenset()
    any: bool = False
    escapes: bool = False

    def join(self, other: "Side") -> "Side":
        bodies = self.bodies if other.bodies <= self.bodies else self.bodies | other.bodies
        any_, escapes = self.any or other.any, self.escapes or other.escapes
        if bodies is self.bodies and any_ == self.any and escapes == self.escapes:
            return self
        return Side(bodies, any_, escapes)


NOTHING = Side()


@dataclass
class BufferUsers:
    """The ops of one block that are, or enclose, a user of one placed buffer, in block order,
    with the running unions (`Side`) of their writes from the block's start (`writes[i]`: over
    tops[:i]) and of their reads from its end (`reads[k]`: over the last k tops).

    Summaries are computed lazily, for the tops a question needs, in the order the full scan
    (`live_between`) visits them: the analysis facts a question computes, and the names they
    give, are the scan's. `outside` is why the static count is kept (a user outside the block)."""

    root: ir.Value
    order: object  # the block's BlockOrder
    keys: list  # op keys of the tops, in block order
    tops: list
    outside: str | None = None
    visit: list = field(default_factory=list)  # indices into keys, in the scan's order, not yet summarized
    escaping: set = field(default_factory=set)  # indices of tops holding an escaping use
    extra: set = field(default_factory=set)  # indices of tops that are not users (unknown effects)
    written: dict = field(default_factory=dict)  # index -> Side of its writes
    read: dict = field(default_factory=dict)  # index -> Side of its reads
    writes: list = field(default_factory=lambda: [NOTHING])
    reads: list = field(default_factory=lambda: [NOTHING])

    def count_before(self, op: ir.Operation) -> int:
        """How many tops are `op` or come before it."""
        rank = self.order.rank
        return bisect_right(self.keys, rank[op_key(op)], key=rank.__getitem__)

    def count_from(self, op: ir.Operation) -> int:
        """Index of the first top that is `op` or comes after it."""
        rank = self.order.rank
        return bisect_left(self.keys, rank[op_key(op)], key=rank.__getitem__)


def buffer_index(root: ir.Value, block: ir.Block, order, effects) -> BufferUsers | None:
    """The tops of `root`'s users in `block` (see BufferUsers), ordered by `order`, and when
    the buffer's address may be handed on, the ops with unknown `effects` (live_between's
    rule); None if `order` does not know one of them."""
    tops: dict = {}
    escaping = set()
    outside = None
    key = buffer_key(root)
    values: list = []
    aliased = False
    for user in buffer_users(root, values):
        top = ancestor_in(user, block)
        if top is None:
            if user.name == "memref.dealloc":
                continue
            outside = f"used outside the loops' block ({mlir.location_of(user)})"
            break
        kt = op_key(top)
        tops.setdefault(kt, top)
        if _escapes(user, key):
            escaping.add(kt)
        aliased = aliased or lets_alias(user, values)
    if outside is not None:
        return BufferUsers(root, order, [], [], outside)
    extra = set()
    if aliased:
        for kt, top in unknown_tops(block, tops, effects):
            tops[kt] = top
            escaping.add(kt)
            extra.add(kt)
    rank = order.rank
    if any(k not in rank for k in tops):
        return None
    keys = sorted(tops, key=rank.__getitem__)
    at = {k: n for n, k in enumerate(keys)}
    return BufferUsers(root, order, keys, [tops[k] for k in keys], None, [at[k] for k in tops],
                       {at[k] for k in escaping}, {at[k] for k in extra})


class Liveness:
    """liveN of placed buffers between sibling loops: per buffer, an index of its users in block
    order (`BufferUsers`) kept current by rewriter events; answers memoized until the next edit."""

    def __init__(self, facts) -> None:
        self.facts = facts
        self._memo: dict = {}
        self._bodies: dict = {}  # access pattern -> its isl text (never stale)
        self.orders: list = []  # current program orders of blocks (`position`'s `order`)

    def _order_of(self, l1: ir.Operation):
        return next((o for o in self.orders if o.contains(l1)), None)

    def between(self, root: ir.Value, l1: ir.Operation, l2: ir.Operation) -> LiveN:
        k = (root, op_key(l1), op_key(l2))
        hit = self._memo.get(k)
        if hit is None:
            order = self._order_of(l1)
            hit = self._indexed(root, l1, l2, order) if order is not None else None
            if hit is None:  # a block nobody keeps the order of: scan
                hit = live_between(root, l1, l2, self.facts, self._bodies, order)
            self._memo[k] = hit
        return hit

    def live_n(self, root: ir.Value, l1: ir.Operation, l2: ir.Operation) -> int:
        return self.between(root, l1, l2).elements

    def _users(self, root: ir.Value, order) -> BufferUsers | None:
        """The buffer's index for this block order (a buffer fact, see Facts.buffer_fact)."""
        by_order = self.facts.buffer_fact(root, "liveness", dict)
        u = by_order.get(id(order))
        if u is None or u.order is not order:
            u = buffer_index(root, order.block, order, self.facts.effects)
            if u is None:
                return None
            by_order.clear()  # one block order at a time
            by_order[id(order)] = u
        return u

    def _indexed(self, root: ir.Value, l1: ir.Operation, l2: ir.Operation, order) -> LiveN | None:
        """live_between's answer from the buffer's index: the writes of tops[:i] and the reads of
        tops[j:], where tops[:i] are l1 and what precedes it, tops[j:] l2 and what follows.
        None when the index cannot be built (the caller scans)."""
        loc = self.facts.location(root)
        static = loc.live_n
        if not loc.placed:
            return LiveN(static, static, False, "not a placed buffer")
        u = self._users(root, order)
        if u is None:
            return None
        if u.outside is not None:
            return LiveN(static, static, False, u.outside)
        i, j = u.count_before(l1), u.count_from(l2)
        self._summarize(u, i, j, len(loc.shape))
        w, r = self._writes_before(u, i), self._reads_from(u, j)
        if (not w.any and not w.escapes) or (not r.any and not r.escapes):
            return LiveN(0, static, True)
        wt = None if w.escapes or None in w.bodies else tuple(sorted(w.bodies))
        rt = None if r.escapes or None in r.bodies else tuple(sorted(r.bodies))
        n = count_live(wt, rt, _box(loc.shape), tuple(sorted(self.facts.scope.params)))
        if n is None:
            return LiveN(static, static, False, "isl could not read or count the accesses (or counting "
                         "them would enumerate over MAX_SCANNED elements)")
        return LiveN(min(n, static), static, True)

    def _summarize(self, u: BufferUsers, i: int, j: int, rank: int) -> None:
        """Summarize the tops the question (i, j) needs and has not seen, in the scan's order."""
        if not u.visit:
            return
        key = buffer_key(u.root)
        left = []
        for n in u.visit:
            if n >= i and n < j:
                left.append(n)  # between the loops: not this question's
                continue
            writes, reads = [], []
            for a in () if n in u.extra else self.facts.accesses_by_root(u.tops[n]).get(key, ()):
                (writes if a.is_write else reads).append(a)
            esc = n in u.escaping
            u.written[n] = Side(frozenset(self._body(a, rank) for a in writes), bool(writes), esc)
            u.read[n] = Side(frozenset(self._body(a, rank) for a in reads), bool(reads), esc)
        u.visit = left

    def _body(self, a: AccessPattern, rank: int) -> str | None:
        t = self._bodies.get(a, False)
        if t is False:
            t = self._bodies[a] = _element_body(a, rank)
        return t

    @staticmethod
    def _writes_before(u: BufferUsers, i: int) -> Side:
        pre = u.writes
        while len(pre) <= i:
            pre.append(pre[-1].join(u.written[len(pre) - 1]))
        return pre[i]

    @staticmethod
    def _reads_from(u: BufferUsers, j: int) -> Side:
        suf, n = u.reads, len(u.keys)
        while len(suf) <= n - j:
            suf.append(suf[-1].join(u.read[n - len(suf)]))
        return suf[n - j]

    # -- rewriter events (transforms/rewriter.py): every edit may change what is live where; the
    # index of a buffer whose users it changes is dropped by the facts (Facts.buffer_fact).
    def forget(self, *_args) -> None:
        self._memo.clear()

    before_move = before_erase = before_replace = before_replace_uses = after_fuse = forget
