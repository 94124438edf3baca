"""Dead stores (cpu): a store into a private buffer whose value nothing reads any more.

After fusion and scalar replacement, a fused loop may still store an intermediate that every
reader now takes from a register (store-to-load forwarding). Such a store is removed when no
access that may run after it may read an element it writes; a buffer left with no access but
its dealloc is removed too, and one whose remaining accesses touch a smaller box of elements is
shrunk to that box (`footprint`, `shift_to_footprint`).

Rule (`dead_store_violation`): the store is an `affine.store` with an affine index into a buffer
the function allocates (`memref.alloc`/`alloca`) that does not escape (every use is a modelled
load, store or its dealloc: no view, call, return, yield or store of the buffer itself). The
store and every enclosing op up to the function are affine.for, affine.if or scf.if, and the
function has one block. A read may run after the store when it is in a later iteration of a loop
enclosing both, or in the same iteration of all of them and after the store in program order
(a read earlier in a loop body runs again in the next iteration). For each read of the buffer,
the pairs (store instance, read instance) on one element with the read after the store are
computed exactly with isl; any such pair keeps the store. Anything not modelled keeps it, and
so does every store of a buffer with more than MAX_PAIR_CHECKS (store, read) pairs (the check is
one isl set per pair; removing a store is an optimization, keeping it is always sound).

A store into an argument is removed only by `overwriting_nest`'s rule (every element it writes is
written again by a later nest before anything reads it; the argument shares memory with no other
argument), and only when no run-time check that may abort, and no op whose effects are not
modelled (a call: its callee may check, abort or exit), runs between the two writes
(`check_between`): the arguments are what an abort shows (docs/soundness.md), so a first write a
failing check would have left in the output must stay. Such a store is kept with
`[DEAD STORE] store into an argument kept: the run-time check at ... may abort ...` or
`... kept: func.call at ..., whose effects are not modelled, may end the run ...` (Missed).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.accesses import access_pattern
from ...analysis.affine import NonAffine, Scope
from ...analysis.dependence import element_set, instance_pair, iteration_footprint, pair_set, shared_loop_count
from ...analysis.effects import READ_OPS, REGION_OPS, WRITE_OPS
from ...analysis.loops import ancestors
from ...analysis.memory import escaping_use, is_placed
from ...mlir import ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...transforms.rewriter import Rewriter
from ...step import StepContext

PASS = "dead-stores"
REMOVED = "[DEAD STORE] store removed: nothing that runs after it reads what it writes"
BUFFER_REMOVED = "[DEAD STORE] buffer removed: nothing reads it"
OVERWRITTEN = "[DEAD STORE] store into an argument removed: every element it writes is written again before it is read"
KEPT_FOR_CHECK = ("[DEAD STORE] store into an argument kept: the run-time check at {at} may abort between it and the "
                  "store that writes its elements again, and the argument is seen at the abort")
KEPT_FOR_CALL = ("[DEAD STORE] store into an argument kept: {op} at {at}, whose effects are not modelled, may end "
                 "the run between it and the store that writes its elements again, and the argument is seen then")
# Ops that may enclose the store: their iterations are loops the analysis sees, or a body that
# runs at most once per execution of its parent.
STORE_NESTING = ("affine.for", "affine.if", "scf.if")


def _chain(op: ir.Operation) -> list[ir.Operation]:
    """`op` and its ancestors below the function, outermost first."""
    out = [op]
    for p in ancestors(op):
        if p.name in ("func.func", "builtin.module"):
            break
        out.append(p)
    return out[::-1]


def _after_in_program_order(store: ir.Operation, read: ir.Operation) -> bool:
    """True iff, in one iteration of every loop enclosing both, `read` runs after `store`: below
    their deepest common ancestor, read's branch comes later in the same block. Branches in
    different regions of one conditional never both run in one execution of it."""
    cs, cr = _chain(store), _chain(read)
    k = 0
    while k < min(len(cs), len(cr)) and cs[k] == cr[k]:
        k += 1
    if k == len(cs) or k == len(cr):
        return False  # one encloses the other: a load never encloses a store
    xs, xr = cs[k], cr[k]
    return xs.block == xr.block and xs.is_before_in_block(xr)


def _read_after(store_acc, read_acc, after: bool, scope: Scope) -> bool:
    """True iff some instance of the read runs after some instance of the store on an element
    the store writes (isl). The loops enclosing both are compared lexicographically (steps are
    positive, so IV order is execution order); with all of them equal the read comes after
    only when it is after the store in program order (`after`)."""
    p = instance_pair(store_acc, read_acc, scope, fixed=0)
    if p is None:
        return False
    shared = shared_loop_count(store_acc, read_acc)
    names = [lp.name for lp in store_acc.loops[:shared]]
    s = [p.src_rename[n] for n in names]
    t = [p.dst_rename[n] for n in names]
    cases = []
    for j in range(shared):
        eq = [f"{t[m]} = {s[m]}" for m in range(j)]
        cases.append("(" + " and ".join(eq + [f"{t[j]} > {s[j]}"]) + ")")
    if after:
        cases.append("(" + " and ".join([f"{t[m]} = {s[m]}" for m in range(shared)] or ["1 = 1"]) + ")")
    if not cases:
        return False
    return not pair_set(p, ["(" + " or ".join(cases) + ")"]).is_empty()


MAX_PAIR_CHECKS = 4096  # (store, read) pairs of one buffer checked before its stores are kept


def buffer_violation(buf: ir.Value) -> str | None:
    """None iff the rule's conditions on the buffer itself hold: allocated by the function and
    not escaping (checked once per buffer, not once per store)."""
    if not is_placed(buf):
        return "the buffer is not allocated by the function"
    user = escaping_use(buf, {**READ_OPS, **WRITE_OPS})
    if user is not None:
        return f"the buffer escapes through {user.name} at {mlir.location_of(user)}"
    return None


class BlockOrder:
    """The ops of a block after a given op, each block listed once (a store's question lists
    the ops after it; listing the block again for every store was quadratic in a long chain of
    loops). Cleared whenever an op is erased."""

    def __init__(self):
        self._blocks: dict = {}

    def clear(self) -> None:
        self._blocks.clear()

    def after(self, op: ir.Operation) -> list[ir.Operation]:
        block = op.block
        first = next(iter(block.operations))
        key = (mlir.op_key(mlir.operation(block.owner)), mlir.op_key(mlir.operation(first)))
        hit = self._blocks.get(key)
        if hit is None:
            ops = mlir.block_ops(block)
            hit = self._blocks[key] = (ops, {mlir.op_key(o): k for k, o in enumerate(ops)})
        ops, index = hit
        return ops[index[mlir.op_key(op)] + 1:]


# A store's question scans at most this many later ops of a block (keeping a store is sound).
MAX_SCAN = 64


def _same_address(a: ir.Operation, b: ir.Operation) -> bool:
    """Two affine.store ops write one element: the same memref, map and index operands (SSA
    values, which do not change between them)."""
    return (a.operands[1] == b.operands[1] and str(a.attributes["map"]) == str(b.attributes["map"])
            and list(a.operands)[2:] == list(b.operands)[2:])


def overwritten_before_read(store: ir.Operation, buf: ir.Value, order: BlockOrder | None = None) -> bool:
    """A later affine.store of the same block writes the same element (`_same_address`) and no op
    between them uses the buffer but to store into it: every read of the element after `store`
    sees the later value, so `store`'s is never read (the buffer does not escape: the caller's
    `buffer_violation`). The rule of the module's docstring, for a value overwritten in
    straight-line code (an argmax written to a buffer that bufferization reuses for the targets)."""
    if store.name != "affine.store":
        return False
    users = {mlir.op_key(mlir.operation(u.owner)) for u in buf.uses}
    for o in (order or BlockOrder()).after(store)[:MAX_SCAN]:
        if o.name == "affine.store" and _same_address(store, o):
            return True
        inner = [o, *mlir.walk(o)] if len(o.regions) else [o]
        for x in inner:
            if mlir.op_key(x) in users and x.name not in ("affine.store", "memref.store", "affine.vector_store"):
                return False
    return False


def _non_store_uses(op: ir.Operation, users: set) -> bool:
    """`op` or an op nested in it uses the buffer (whose users' keys are `users`) but to store
    into it."""
    for x in [op, *mlir.walk(op)] if len(op.regions) else [op]:
        if mlir.op_key(x) in users and x.name != "affine.store":
            return True
    return False


def _unconditional_stores(nest: ir.Operation, buf: ir.Value) -> list[ir.Operation]:
    """The affine.store ops into `buf` in `nest` (or `nest` itself) that run in every iteration
    of the loops between: every op from `nest` down to the store is an affine.for."""
    out = []
    for x in [nest, *mlir.walk(nest)] if len(nest.regions) else [nest]:
        if x.name != "affine.store" or x.operands[1] != buf:
            continue
        if all(p.name == "affine.for" for p in _chain(x)[_chain(x).index(nest) if nest in _chain(x) else 0:-1]):
            out.append(x)
    return out


def _covers(store: ir.Operation, later: ir.Operation, loop: ir.Operation | None, scope: Scope) -> bool:
    """In every iteration of `loop` (the loop whose body holds both nests; None: the function's
    body), the elements `later` writes include every element `store` writes (isl, exactly; a
    store that never runs is not said to be covered)."""
    from .plan.sibling_reuse import _nested_text

    try:
        a, b = access_pattern(store, scope), access_pattern(later, scope)
    except NonAffine:
        return False
    if a.index is None or b.index is None or len(a.index) != len(b.index):
        return False
    if loop is None:
        ea, eb = element_set(a, scope), element_set(b, scope)
        return not ea.is_empty() and ea.is_subset(eb)
    from ...analysis.loops import loop_dims

    (axis,) = loop_dims(loop, scope)
    fa, fb = iteration_footprint(a, axis, scope), iteration_footprint(b, axis, scope)
    return fa is not None and fb is not None and _nested_text(fa, fb)


def overwritten_by_later_nest(store: ir.Operation, buf: ir.Value, scope: Scope, order: BlockOrder | None = None) -> bool:
    """The elements `store` writes are all written again, before anything reads them: at some
    level the op holding the store (A) is followed in its block by an op (B) holding an
    unconditional store (`_unconditional_stores`) that writes, in every iteration of the loop
    around them, every element A's store wrote in that iteration (`_covers`); neither A, B nor
    any op between them uses the buffer but to store into it. The buffer must not escape and, an
    argument, must share memory with no other argument or global (the caller checks). The exp
    of a log-softmax written to the output, then overwritten by the normalised row."""
    return overwriting_nest(store, buf, scope, order) is not None


def _may_end_the_run(op: ir.Operation) -> ir.Operation | None:
    """The first op in `op` (itself included) whose effects the analysis does not model (a call:
    the callee may hold a check, abort or exit, and the caller's arguments are seen then), or None."""
    from ...analysis.effects import REGION_OPS, op_effects

    for x in [op, *mlir.walk(op)] if len(op.regions) else [op]:
        if len(x.regions) and x.name in REGION_OPS:
            continue  # its body's ops are looked at one by one
        if op_effects(x).unknown:
            return x
    return None


def check_between(a: ir.Operation, b: ir.Operation, order: BlockOrder | None = None) -> ir.Operation | None:
    """The first run-time check that may abort (`checks.checks_in`), or op whose effects are not
    modelled (`_may_end_the_run`: a call), in `a`, in an op between `a` and `b` of their block, or
    in `b`: one that may run after a store of `a` and before the store
    of `b` that writes its element again. An argument is seen at an abort (docs/soundness.md), so
    its store is dead only when no such check exists; a check before `a` runs before every store
    of `a`, one after `b` after its element is written again."""
    from ...analysis.checks import checks_in

    first, last = mlir.op_key(mlir.operation(a)), mlir.op_key(mlir.operation(b))
    for op in [mlir.operation(a), *(order or BlockOrder()).after(mlir.operation(a))]:
        at_b = mlir.op_key(op) == last
        found = checks_in(op)
        if found:
            return found[0]
        found = _may_end_the_run(op)
        if found is not None:
            return found
        if at_b:
            return None
    raise ValueError("check_between: b does not follow a in their block")


def overwriting_nest(store: ir.Operation, buf: ir.Value, scope: Scope,
                     order: BlockOrder | None = None) -> tuple[ir.Operation, ir.Operation] | None:
    """(A, B) of `overwritten_by_later_nest`'s rule when it holds for `store`, else None."""
    if store.name != "affine.store":
        return None
    users = {mlir.op_key(mlir.operation(u.owner)) for u in buf.uses}
    chain = _chain(store)
    for a in reversed(chain):  # the store itself, then each enclosing op outward
        if _non_store_uses(a, users):
            return None  # a read inside A (or, further out, anywhere around it)
        parent = mlir.operation(a.parent)
        if parent.name not in ("affine.for", "func.func"):
            continue
        for b in (order or BlockOrder()).after(a)[:MAX_SCAN]:
            if _non_store_uses(b, users):
                return None
            for later in _unconditional_stores(b, buf):
                if _covers(store, later, parent if parent.name == "affine.for" else None, scope):
                    return a, b
    return None


def _argument_alone(buf: ir.Value, fn: ir.Operation) -> bool:
    """`buf` is an argument of `fn` no other memref argument may share memory with (their
    alias classes, `buffer_key`), and no view, call or return lets it escape."""
    from ...analysis.memory import buffer_key, escaping_use

    key = buffer_key(buf)
    if key is not buf:
        return False
    others = [a for a in mlir.func_body(fn).arguments if a != buf and isinstance(a.type, ir.MemRefType)]
    if any(buffer_key(a) == key for a in others):
        return False
    return escaping_use(buf, {**READ_OPS, **WRITE_OPS}) is None


def dead_store_violation(store: ir.Operation, scope: Scope, buffer_checked: bool = False,
                         order: BlockOrder | None = None) -> str | None:
    """None iff `store` can be removed without changing the program (see the module rule);
    otherwise why it is kept. `buffer_checked`: the caller has found `buffer_violation` None."""
    if store.name != "affine.store":
        return "not an affine.store"
    buf = store.operands[1]
    if not buffer_checked:
        why = buffer_violation(buf)
        if why is not None:
            return why
    if overwritten_before_read(store, buf, order) or overwritten_by_later_nest(store, buf, scope, order):
        return None
    chain = _chain(store)
    top = mlir.operation(chain[0].parent)
    if top.name != "func.func" or len(list(top.regions[0].blocks)) != 1:
        return "the function has several blocks"
    for p in chain[:-1]:
        if p.name not in STORE_NESTING:
            return f"{p.name} at {mlir.location_of(p)} encloses the store"
    try:
        s = access_pattern(store, scope)
    except NonAffine:
        return "the store's index is not affine"
    if s.index is None:
        return "the store's index is not affine"
    for use in buf.uses:
        op = mlir.operation(use.owner)
        if op == store or op.name == "memref.dealloc" or op.name in WRITE_OPS:
            continue  # a store or a dealloc reads nothing
        for p in _chain(op)[:-1]:
            if p.name not in REGION_OPS:
                return f"{p.name} at {mlir.location_of(p)} encloses a read"
        try:
            r = access_pattern(op, scope)
        except NonAffine:
            return f"the read at {mlir.location_of(op)} is not affine"
        if r.index is None:
            return f"the read at {mlir.location_of(op)} may read any element"
        if _read_after(s, r, _after_in_program_order(store, op), scope):
            return f"the read at {mlir.location_of(op)} may read what it writes"
    return None


def dead_stores_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Remove every dead store of one function (and buffers left with only a dealloc); returns
    how many stores were removed. Only stores into buffers the function allocates are looked at."""
    fname = mlir.func_name(fn)
    scope = Scope()
    order = BlockOrder()
    rewriter = Rewriter()
    count = 0
    allocs = [o for o in mlir.walk(fn) if o.name in ("memref.alloc", "memref.alloca")]
    for alloc in allocs:
        buf = alloc.results[0]
        users = [mlir.operation(x.owner) for x in buf.uses]
        stores = [u for u in users if u.name == "affine.store"]
        if not stores or buffer_violation(buf) is not None:
            continue
        # Each store is checked against every read: a profit question, so a buffer with too
        # many pairs keeps its stores (sound) and the pass stays linear in the accesses.
        if len(stores) * (len(users) - len(stores)) > MAX_PAIR_CHECKS:
            continue
        removed = 0
        for st in stores:
            if dead_store_violation(st, scope, buffer_checked=True, order=order) is None:
                where = mlir.location_of(st, filename)
                rewriter.erase(st)
                order.clear()
                removed += 1
                log.add(PASS, PASSED, REMOVED, function=fname, location=where)
        count += removed
        users = [mlir.operation(x.owner) for x in buf.uses]
        if removed and all(u.name == "memref.dealloc" for u in users):
            where = mlir.location_of(alloc, filename)
            for u in users:
                rewriter.erase(u)
            rewriter.erase(alloc)
            order.clear()
            log.add(PASS, PASSED, BUFFER_REMOVED, function=fname, location=where)
        elif removed:
            box = footprint(alloc, scope)
            if box is not None:
                where = mlir.location_of(alloc, filename)
                old = mlir.memref_type(buf).shape
                rewriter.replace([alloc], lambda: [[shift_to_footprint(alloc, box)]])
                order.clear()
                log.add(PASS, PASSED, BUFFER_SHRUNK.format(old="x".join(map(str, old)),
                                                           new="x".join(str(hi - lo + 1) for lo, hi in box)),
                        function=fname, location=where, args={"offsets": [lo for lo, _ in box]})
    for buf in mlir.func_body(fn).arguments if mlir.func_body(fn) is not None else []:
        if not isinstance(buf.type, ir.MemRefType) or not _argument_alone(buf, fn):
            continue
        stores = [mlir.operation(x.owner) for x in buf.uses]
        dead = []
        for st in stores:
            if st.name != "affine.store" or st.operands[1] != buf:
                continue
            pair = overwriting_nest(st, buf, scope, order)
            if pair is None:
                continue
            check = check_between(*pair, order)
            if check is not None:
                text = KEPT_FOR_CHECK if check.name == "cf.assert" else KEPT_FOR_CALL
                log.add(PASS, MISSED, text.format(at=mlir.location_of(check, filename), op=check.name),
                        function=fname, location=mlir.location_of(st, filename))
                continue
            dead.append(st)
        for st in dead:  # decided first: a removed store is no use the others' questions look at
            where = mlir.location_of(st, filename)
            rewriter.erase(st)
            count += 1
            log.add(PASS, PASSED, OVERWRITTEN, function=fname, location=where)
        if dead:
            order.clear()
    return count


# ---------------------------------------------------------------------------------------
# Shrinking a buffer to the box of elements still accessed.

BUFFER_SHRUNK = "[DEAD STORE] buffer shrunk from {old} to {new}: the elements still accessed"


def footprint(alloc: ir.Operation, scope: Scope) -> list[tuple[int, int]] | None:
    """Per dimension, the (lowest, highest) index any access of the buffer touches, when that box
    is constant and smaller than the buffer; else None.

    Rule: the buffer has a static shape, the default layout and memory space, and does not escape, and every use is an affine load or
    store (scalar or vector) with an affine index, or its dealloc; the box covers every element any
    instance touches (isl, over all iterations, vector boxes included). Shifting every index by
    the box's corner then maps the touched elements one to one into a buffer of the box's size."""
    from ...loop_optimization.contraction import LOADS, STORES

    buf = alloc.results[0]
    t = mlir.memref_type(buf)
    if t is None or any(d == mlir.DYNAMIC for d in t.shape) or not t.shape:
        return None
    if t.memory_space is not None or not mlir.identity_layout(t):
        return None  # keep a memory space or layout as written
    if escaping_use(buf, {**LOADS, **STORES}) is not None:
        return None
    accesses = []
    for use in buf.uses:
        op = mlir.operation(use.owner)
        if op.name == "memref.dealloc":
            continue
        try:
            a = access_pattern(op, scope)
        except NonAffine:
            return None
        if a.index is None or len(a.index) != len(t.shape):
            return None
        accesses.append(a)
    if not accesses:
        return None
    box = []
    for d in range(len(t.shape)):
        lo = hi = None
        for a in accesses:
            r = _range(element_set(a, scope), d)
            if r is None:
                return None
            lo = r[0] if lo is None else min(lo, r[0])
            hi = r[1] if hi is None else max(hi, r[1])
        box.append((lo, hi))
    if all(lo == 0 and hi == n - 1 for (lo, hi), n in zip(box, t.shape)):
        return None
    if any(lo < 0 or hi >= n or hi < lo for (lo, hi), n in zip(box, t.shape)):
        return None  # an access may fall outside the buffer: leave the program as written
    return box


def _range(elements, d: int) -> tuple[int, int] | None:
    """Constant (min, max) of coordinate d of an isl set of elements, or None."""
    import islpy as isl

    s = elements.project_out(isl.dim_type.set, d + 1, elements.dim(isl.dim_type.set) - d - 1) \
        .project_out(isl.dim_type.set, 0, d)
    if s.is_empty() or not s.is_bounded():
        return None
    try:
        lo, hi = s.dim_min(0), s.dim_max(0)
    except isl.Error:
        return None
    if not (lo.is_cst() and hi.is_cst()):
        return None
    vals: list = []
    lo.foreach_piece(lambda _s, aff: vals.append(("lo", aff.get_constant_val().to_python())))
    hi.foreach_piece(lambda _s, aff: vals.append(("hi", aff.get_constant_val().to_python())))
    los = [v for k, v in vals if k == "lo"]
    his = [v for k, v in vals if k == "hi"]
    if not los or not his:
        return None
    return int(min(los)), int(max(his))


def shift_to_footprint(alloc: ir.Operation, box: list[tuple[int, int]]) -> ir.Operation:
    """Replace the buffer by one of the box's shape; every access's index moves by the box's
    lowest corner (see `footprint`). Returns the new allocation."""
    buf = alloc.results[0]
    t = mlir.memref_type(buf)
    with alloc.context, alloc.location:
        new_t = ir.MemRefType.get([hi - lo + 1 for lo, hi in box], t.element_type, memory_space=t.memory_space)
        kind = mlir.memref_d.AllocaOp if alloc.name == "memref.alloca" else mlir.memref_d.AllocOp
        new = kind(new_t, [], [], ip=ir.InsertionPoint(alloc))
        for use in list(buf.uses):
            op = mlir.operation(use.owner)
            if op.name == "memref.dealloc":
                continue
            m = mlir.affine_map_attr(op, "map")
            results = [r + ir.AffineConstantExpr.get(-lo) if lo else r for r, (lo, _) in zip(m.results, box)]
            op.attributes["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(m.n_dims, m.n_symbols, results))
    buf.replace_all_uses_with(new.result)
    alloc.erase()
    return mlir.operation(new)


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `dead-stores` (loopopt/pipeline.py)."""
    return dead_stores_function(fn, ctx.options, ctx.log, ctx.filename)
