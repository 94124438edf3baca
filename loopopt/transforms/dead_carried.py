"""Values an affine.for carries in iter_args that nothing uses (step `dead-carried`, every target).

The rule: the loop's result k has no use but stores into a buffer nobody reads (`unread_stores`:
a buffer the function allocates, lets no name escape, and never loads), and the ops that compute the value yielded at k form a
*slice* of pure ops directly in the loop's body (arith and math ops, `affine.apply`; no region,
no memory access) whose results are used only inside the slice or by the yield at position k;
the block argument k is used only by that slice (or yielded as it is). Then the value is dead:
the loop is rebuilt without it (its init, block argument, yield operand and result), and the
slice (and those stores) are erased. No other value of the program changes, and no value the
program keeps: the slice reads and writes no memory, and what the stores wrote is never read. It
is a cleanup, sound on every target; the cpu target runs it after `dead-stores`, which removes
the stores of such a value that no later access reads first.

Why it is here: torch's `aten.max.dim` computes a row maximum and its first index; a block that
uses only the maximum (attention, sdpa) still carries the index through the loop over keys
after lowering (`select(cmpf ogt, index_cast(j), idx)`), and an index moving with that loop used
as data keeps its iterations from becoming vector lanes (cpu_plan.lane_width_refusal).

Remark (pass `dead-carried`, and `register-tile` for what the tiler still finds):
`[DEAD VALUE] a value carried by the loop is never used: removed (N ops)`.

The same value kept in memory (`dead_buffer`): a max over a dimension that is not innermost keeps
its index in a buffer, updated by `idx[b, d] = select(cmp, r, idx[b, d])` inside the loop over the
reduced dimension. A buffer the function allocates (`memref.alloc`/`alloca`), with no escaping
use (only scalar loads and stores of it, and its dealloc: no view, call, return or yield), whose
every load's value is used only by a slice of pure ops (as above) that ends only in stores of
values into that same buffer, is dead: what it holds reaches nothing but itself (a buffer never
loaded is not: its stores are `dead-stores`' rule, an unused allocation stays). Its stores, its
loads, the slice and the buffer are erased. Remark (pass `dead-carried`):
`[DEAD VALUE] a buffer read only by its own update is never used: removed (memref.alloc@L:C, N ops)`.
"""
from __future__ import annotations

from .. import mlir
from ..analysis.effects import READ_OPS, WRITE_OPS
from ..analysis.loops import body_block, body_ops
from ..analysis.memory import alias_root, escaping_use, root_origin, value_name
from ..mlir import affine_d, ir
from ..remarks import PASSED, RemarkLog
from ..step import StepContext

PASS = "dead-carried"
DEAD = "[DEAD VALUE] a value carried by the loop is never used: removed"
DEAD_BUFFER = "[DEAD VALUE] a buffer read only by its own update is never used: removed"
STORE_OPS = ("affine.store", "memref.store")
LOAD_OPS = ("affine.load", "memref.load")
SCALAR_ACCESSES = {"affine.load": 0, "memref.load": 0, "affine.store": 1, "memref.store": 1}
PURE_PREFIXES = ("arith.", "math.")


def _pure(op: ir.Operation) -> bool:
    return not op.regions and (op.name == "affine.apply" or op.name.startswith(PURE_PREFIXES))


def _unused(v: ir.Value) -> bool:
    return next(iter(v.uses), None) is None


def unread_stores(v: ir.Value) -> list[ir.Operation] | None:
    """The uses of `v` when every one stores it (as the value) into a buffer nobody reads: a
    `memref.alloc`/`alloca` of the function whose every use is a load, store or dealloc of it
    (no view, call or yield: no other name reaches it) and none is a load. Else None."""
    stores = []
    for use in v.uses:
        user = mlir.operation(use.owner)
        if user.name not in STORE_OPS or use.operand_number != 0:
            return None
        root = alias_root(user.operands[1])
        if root != user.operands[1] or root_origin(root) != "alloc" or \
                escaping_use(root, {**READ_OPS, **WRITE_OPS}) is not None:
            return None
        if any(mlir.operation(u.owner).name in READ_OPS for u in root.uses):
            return None
        stores.append(user)
    return stores


def dead_slice(loop: ir.Operation, k: int) -> list[ir.Operation] | None:
    """The ops to erase with carried value k of `loop` when it is dead (see the module), in
    program order, or None when it is not. The stores of an unused result are not in it
    (`unread_stores`)."""
    if not _unused(loop.results[k]) and unread_stores(loop.results[k]) is None:
        return None
    block = body_block(loop)
    arg = list(block.arguments)[1 + k]
    y = mlir.block_ops(block)[-1]
    start = y.operands[k]
    body = {mlir.op_key(o): o for o in body_ops(loop)}
    slice_keys: set = set()
    owner, _ = mlir.value_owner(start)
    if owner is not None:
        if mlir.op_key(owner) not in body or not _pure(owner):
            return None
        slice_keys.add(mlir.op_key(owner))
    elif start != arg:
        return None  # a block argument of another loop, or the IV: not computed here
    changed = True
    while changed:  # grow: an operand's owner joins when all uses of its results are in the slice
        changed = False
        for key in list(slice_keys):
            for v in body[key].operands:
                o, _ = mlir.value_owner(v)
                if o is None or mlir.op_key(o) in slice_keys or mlir.op_key(o) not in body or not _pure(o):
                    continue
                if all(_use_in(u, slice_keys, y, k) for r in o.results for u in r.uses):
                    slice_keys.add(mlir.op_key(o))
                    changed = True
    for key in slice_keys:
        if not all(_use_in(u, slice_keys, y, k) for r in body[key].results for u in r.uses):
            return None
    if not all(_use_in(u, slice_keys, y, k) for u in arg.uses):
        return None
    return [o for o in body_ops(loop) if mlir.op_key(o) in slice_keys]


def _use_in(use, slice_keys: set, y: ir.Operation, k: int) -> bool:
    user = mlir.operation(use.owner)
    if user == y:
        return use.operand_number == k
    return mlir.op_key(user) in slice_keys


def drop_carried(loop: ir.Operation, dead: list[int]) -> ir.Operation:
    """Rebuild `loop` without the carried values at positions `dead` (each a `dead_slice`,
    disjoint); returns the new loop (the old one is erased)."""
    slices = [dead_slice(loop, k) for k in dead]
    for k in dead:  # the stores of a result nobody reads again
        for st in unread_stores(loop.results[k]) or ():
            st.erase()
    block = body_block(loop)
    keep = [k for k in range(len(list(block.arguments)) - 1) if k not in dead]
    lbm = mlir.affine_map_attr(loop, "lowerBoundMap")
    ubm = mlir.affine_map_attr(loop, "upperBoundMap")
    ops = list(loop.operands)
    nb = lbm.n_inputs + ubm.n_inputs
    with loop.location, loop.context:
        new = affine_d.AffineForOp(lbm, ubm, mlir.int_attr(loop, "step"), [ops[nb + k] for k in keep] or None,
                                   lower_bound_operands=ops[:lbm.n_inputs],
                                   upper_bound_operands=ops[lbm.n_inputs:nb],
                                   ip=ir.InsertionPoint(loop)).operation
    nblock = body_block(new)
    old_args, new_args = list(block.arguments), list(nblock.arguments)
    old_args[0].replace_all_uses_with(new_args[0])
    for j, k in enumerate(keep):
        old_args[1 + k].replace_all_uses_with(new_args[1 + j])
    old_yield = mlir.block_ops(block)[-1]
    ip = ir.InsertionPoint(nblock)
    for op in mlir.block_ops(block)[:-1]:  # the body, in order, into the new loop
        op.detach_from_parent()
        ip.insert(op)
    with old_yield.location:
        affine_d.AffineYieldOp([old_yield.operands[k] for k in keep], ip=ip)
    old_yield.erase()
    for s in slices:  # used only inside their slice now
        for op in reversed(s):
            op.erase()
    for j, k in enumerate(keep):
        loop.results[k].replace_all_uses_with(new.results[j])
    loop.erase()
    return new


def dead_positions(loop: ir.Operation) -> list[int]:
    """The positions of `loop`'s carried values that are dead (`dead_slice`), disjoint slices."""
    n = len(list(body_block(loop).arguments)) - 1
    out, used = [], set()
    for k in range(n):
        s = dead_slice(loop, k)
        if s is None:
            continue
        keys = {mlir.op_key(o) for o in s}
        if keys & used:
            continue
        used |= keys
        out.append(k)
    return out


def drop_dead_function(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Remove every dead carried value of `fn`'s loops, until none is left (dropping one may
    leave another used only by its own slice); returns how many were removed."""
    if mlir.func_body(fn) is None:
        return 0
    count = 0
    while True:
        found = next(((op, d) for op in mlir.walk(fn) if op.name == "affine.for"
                      and len(list(body_block(op).arguments)) > 1 for d in [dead_positions(op)] if d), None)
        if found is None:
            return count
        loop, dead = found
        where = mlir.location_of(loop, filename)
        removed = sum(len(dead_slice(loop, k)) for k in dead)
        drop_carried(loop, dead)
        log.add(PASS, PASSED, f"{DEAD} ({removed} ops)", function=mlir.func_name(fn), location=where,
                args={"values": len(dead), "ops": removed})
        count += len(dead)


def _self_store(use, buf: ir.Value) -> bool:
    """`use` stores its value (operand 0) into `buf`."""
    user = mlir.operation(use.owner)
    return user.name in STORE_OPS and use.operand_number == 0 and user.operands[1] == buf


def dead_buffer(alloc: ir.Operation) -> list[ir.Operation] | None:
    """The ops to erase with the buffer `alloc` allocates when it is dead (see the module): its
    stores, loads and the pure slice between them (not the alloc and dealloc), or None."""
    if alloc.name not in ("memref.alloc", "memref.alloca") or len(alloc.results) != 1:
        return None
    buf = alloc.results[0]
    if root_origin(buf) != "alloc" or escaping_use(buf, SCALAR_ACCESSES) is not None:
        return None
    accesses = [mlir.operation(u.owner) for u in buf.uses if mlir.operation(u.owner).name != "memref.dealloc"]
    loads = [op for op in accesses if op.name in LOAD_OPS]
    if not loads:
        return None  # never read: a store nothing reads is dead-stores' (an unused allocation stays)
    seen = {mlir.op_key(op): op for op in accesses}
    todo = [r for op in loads for r in op.results]
    while todo:  # forward from the loads: every use is a pure op (followed) or a store into buf
        v = todo.pop()
        for use in v.uses:
            user = mlir.operation(use.owner)
            if _self_store(use, buf):
                continue
            if not _pure(user):
                return None
            if mlir.op_key(user) not in seen:
                seen[mlir.op_key(user)] = user
                todo.extend(user.results)
    return list(seen.values())


def erase_dead_buffer(alloc: ir.Operation, ops: list[ir.Operation]) -> None:
    """Erase a `dead_buffer`'s ops (stores first, then each op once its results are unused), its
    dealloc, and the alloc."""
    stores = [o for o in ops if o.name in STORE_OPS]
    left = [o for o in ops if o.name not in STORE_OPS]
    keys = {mlir.op_key(o) for o in ops}
    feeding = {}  # the pure ops outside that feed the slice (the compare, the index): erased once unused
    for o in ops:
        for v in o.operands:
            owner, _ = mlir.value_owner(v)
            if owner is not None and _pure(owner) and mlir.op_key(owner) not in keys:
                feeding[mlir.op_key(owner)] = owner
    for op in stores:
        op.erase()
    while left:
        ready = [all(_unused(r) for r in o.results) for o in left]
        assert any(ready), "a dead buffer's slice is used outside it"
        for o, r in zip(left, ready):
            if r:
                o.erase()
        left = [o for o, r in zip(left, ready) if not r]
    for use in list(alloc.results[0].uses):
        mlir.operation(use.owner).erase()  # the dealloc
    alloc.erase()
    erase_unused_pure(list(feeding.values()))


def erase_unused_pure(ops: list[ir.Operation]) -> None:
    """Erase each of the pure `ops` whose results nothing uses, then the pure ops that fed only
    them, until none is left."""
    todo = {mlir.op_key(o): o for o in ops}
    while todo:
        key, op = todo.popitem()
        if not _pure(op) or not all(_unused(r) for r in op.results):
            continue
        owners = [mlir.value_owner(v)[0] for v in op.operands]
        op.erase()
        todo.update({mlir.op_key(o): o for o in owners if o is not None and _pure(o)})


def drop_dead_buffers(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Remove every dead buffer of `fn` (`dead_buffer`); returns how many were removed."""
    if mlir.func_body(fn) is None:
        return 0
    count = 0
    for alloc in [op for op in mlir.walk(fn) if op.name in ("memref.alloc", "memref.alloca")]:
        ops = dead_buffer(alloc)
        if ops is None:
            continue
        where, name = mlir.location_of(alloc, filename), value_name(alloc.results[0])
        erase_dead_buffer(alloc, ops)
        log.add(PASS, PASSED, f"{DEAD_BUFFER} ({name}, {len(ops)} ops)", function=mlir.func_name(fn),
                location=where, args={"buffers": 1, "ops": len(ops)})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `dead-carried` (loopopt/pipeline.py): dead buffers, then dead carried values,
    until neither finds more (dropping a carried value may leave a buffer read only by itself)."""
    total = 0
    while True:
        n = drop_dead_buffers(fn, ctx.log, ctx.filename) + drop_dead_function(fn, ctx.log, ctx.filename)
        if n == 0:
            return total
        total += n
