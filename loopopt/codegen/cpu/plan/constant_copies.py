"""Copies of constants (cpu): a loop nest that fills a placed buffer from a constant global by a
permutation of its indices, and does nothing else.

torch-mlir exports a layer's weight as a constant and transposes it on every call (aten.linear
reads W^T); after fusion the transpose is a nest `for a, b: T[b, a] = W[a, b]` before the
product. Its result is known at compile time. `find_constant_copies` finds such nests; the
transform (codegen/cpu/fold_constant_copies.py) evaluates them. A nest is taken only when every fact
the evaluation needs is exact:

* the nest is perfect, at the function's top level, each loop `0 to N step 1` with constant N,
  no iter_args; its body is one affine.load and one affine.store of the loaded value;
* the load reads a `memref.get_global` of a `constant` global whose initial value is a
  `dense_resource` blob or a splat, identity layout, static shape, whole-byte elements (not i1);
  each of its indices is one loop IV (a permutation, or a repeated IV), within the global's shape,
  or one loop IV plus the IV of a loop `0 to 1` (always 0: torch-mlir's trailing unit dimension);
* the store writes a `memref.alloc` of the same block (static shape, identity layout, default
  memory space): its indices are distinct IVs, of every loop but those of one iteration, each IV's
  trip count the buffer's extent there, so every element is written exactly once;
* every other use of the buffer is an affine.load / affine.vector_load or its dealloc, after the
  nest in the block: nothing else writes it, nothing reads it before it is filled, and no call,
  view or cast sees it.
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import mlir
from ....analysis.legality import induction_var
from ....analysis.liveness import ancestor_in
from ....analysis.loops import body_ops, constant_bounds, perfect_nest
from ....mlir import ir

READ_USERS = ("affine.load", "affine.vector_load")
MAX_FOLDED_BYTES = 64 << 20  # the largest buffer made a constant of the program


@dataclass(frozen=True)
class ConstantCopy:
    """A nest that fills `buffer` (a memref.alloc) from the constant global `source`."""

    nest: tuple[ir.Operation, ...]
    alloc: ir.Operation
    global_op: ir.Operation          # the memref.global read
    get_global: ir.Operation         # the memref.get_global the load reads through
    trips: tuple[int, ...]           # trip count per loop of the nest, outermost first
    load_ivs: tuple[int, ...]        # per index of the load: the nest loop whose IV it is
    store_ivs: tuple[int, ...]       # per index of the store: the nest loop whose IV it is
    deallocs: tuple[ir.Operation, ...]
    reads: tuple[ir.Operation, ...] | None = None  # with a later refill: the reads before it; None: every use


def _iv_position(r, indices: list[ir.Value], ivs: list[ir.Value], unit: frozenset) -> int | None:
    """The nest loop whose IV the map result `r` is: a dim naming an IV, or such a dim plus the IV
    of a loop of one iteration `0 to 1` (`unit`: its IV is always 0; torch-mlir's trailing unit
    dimension leaves `x + u`). None otherwise."""
    if isinstance(r, ir.AffineDimExpr):
        v = indices[r.position]
        hit = [k for k, iv in enumerate(ivs) if iv == v]
        return hit[0] if hit else None
    if isinstance(r, ir.AffineAddExpr):
        for x, y in ((r.lhs, r.rhs), (r.rhs, r.lhs)):
            if _iv_position(y, indices, ivs, frozenset()) in unit:
                return _iv_position(x, indices, ivs, unit)
    return None


def _dim_positions(access: ir.Operation, ivs: list[ir.Value], unit: frozenset = frozenset()) -> tuple[int, ...] | None:
    """Per result of an affine.load/store's map: the nest loop whose IV it is (None otherwise)."""
    amap = mlir.affine_map_attr(access, "map")
    first = 2 if access.name == "affine.store" else 1
    indices = list(access.operands)[first:]
    out = []
    for r in amap.results:
        k = _iv_position(r, indices, ivs, unit)
        if k is None:
            return None
        out.append(k)
    return tuple(out)


def static_type(t) -> bool:
    """A memref type with a static shape, identity layout, default memory space and whole-byte
    elements other than i1."""
    if not isinstance(t, ir.MemRefType) or not t.has_static_shape or t.memory_space is not None:
        return False
    if not mlir.identity_layout(t):
        return False
    et = t.element_type
    return isinstance(et, (ir.FloatType, ir.IntegerType)) and et.width % 8 == 0 and et.width // 8 in (1, 2, 4, 8)


def find_global(module_op: ir.Operation, name: str) -> ir.Operation | None:
    """The memref.global named `name` among the module's top-level ops."""
    for op in mlir.block_ops(module_op.regions[0].blocks[0]):
        if op.name == "memref.global" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    return None


def constant_global(get_global: ir.Operation, module_op: ir.Operation) -> ir.Operation | None:
    """The `constant` memref.global a memref.get_global reads, if its value can be read."""
    op = find_global(module_op, ir.FlatSymbolRefAttr(get_global.attributes["name"]).value)
    if op is None or "constant" not in op.attributes or "initial_value" not in op.attributes:
        return None
    value = op.attributes["initial_value"]
    if mlir.resource_name(value) is None and not (
            isinstance(value, ir.DenseElementsAttr) and ir.DenseElementsAttr(value).is_splat):
        return None
    return op


def _after(op: ir.Operation, anchor: ir.Operation) -> bool:
    """True iff op, or its ancestor in anchor's block, comes after anchor."""
    at = ancestor_in(op, anchor.operation.block)
    return at is not None and mlir.op_key(at) != mlir.op_key(anchor) and anchor.is_before_in_block(at)


def copy_nest(loop: ir.Operation) -> tuple[list, list[int], ir.Operation, ir.Operation] | None:
    """(nest, trip counts, load, store) when `loop` is a perfect affine.for nest, each loop `0 to
    N step 1` with constant N and no iter_args, whose body is one affine.load and one affine.store
    of the loaded value; else None."""
    nest = perfect_nest(loop)
    trips = []
    for lp in nest:
        b = constant_bounds(lp)
        if b is None or b[0] != 0 or mlir.int_attr(lp, "step") != 1 or lp.results:
            return None
        trips.append(b[1])
    body = body_ops(nest[-1])
    if len(body) != 2 or body[0].name != "affine.load" or body[1].name != "affine.store":
        return None
    load, store = body
    if store.operands[0] != load.results[0]:
        return None
    return nest, trips, load, store


def match_constant_copy(loop: ir.Operation, module_op: ir.Operation) -> ConstantCopy | None:
    """The ConstantCopy rooted at the top-level affine.for `loop` (module doc), or None."""
    shape = copy_nest(loop)
    if shape is None:
        return None
    nest, trips, load, store = shape
    src_def, _ = mlir.value_owner(load.operands[0])
    dst_def, _ = mlir.value_owner(store.operands[1])
    if src_def is None or src_def.name != "memref.get_global" or dst_def is None or dst_def.name != "memref.alloc":
        return None
    if dst_def.operands or dst_def.operation.block != loop.operation.block:
        return None
    src_t, dst_t = load.operands[0].type, store.operands[1].type
    if not static_type(src_t) or not static_type(dst_t) or src_t.element_type != dst_t.element_type:
        return None
    if dst_t.shape and mlir.element_size_bytes(dst_t.element_type) * element_count(dst_t.shape) > MAX_FOLDED_BYTES:
        return None
    gop = constant_global(src_def, module_op)
    if gop is None:
        return None
    ivs = [induction_var(lp) for lp in nest]
    unit = frozenset(k for k, n in enumerate(trips) if n == 1)
    load_ivs, store_ivs = _dim_positions(load, ivs, unit), _dim_positions(store, ivs, unit)
    if load_ivs is None or store_ivs is None or len(set(store_ivs)) != len(store_ivs):
        return None
    counted = [k for k in range(len(nest)) if k not in unit or k in store_ivs]  # a unit loop runs once
    if len(store_ivs) != len(counted) or [trips[k] for k in store_ivs] != list(dst_t.shape):
        return None
    if any(trips[k] > n for k, n in zip(load_ivs, src_t.shape)):
        return None
    uses = later_uses(store, loop)
    if uses is None:
        return None
    deallocs, reads = uses
    return ConstantCopy(tuple(nest), dst_def, gop, src_def, tuple(trips), load_ivs, store_ivs, tuple(deallocs), reads)


def later_uses(store: ir.Operation, loop: ir.Operation) -> tuple[list[ir.Operation], tuple | None] | None:
    """(deallocs, reads) of the buffer `store` (in the top-level nest `loop`) fills, when its other
    uses are reads and deallocs after the nest, and stores of later refills (`refill`); reads is
    None without a refill (every use then sees the fill), else the reads before the first refill
    (the deallocs are then the buffer's, kept). None for any other use."""
    buf = store.operands[1]
    refills = []
    for use in buf.uses:
        user = mlir.operation(use.owner)
        if mlir.op_key(user) == mlir.op_key(store) or user.name != "affine.store" or use.operand_number != 1:
            continue
        top = ancestor_in(user, loop.operation.block)
        if top is None or not _after(user, loop) or refill(top, user) is None:
            return None
        refills.append(top)
    if not refills:
        deallocs = later_reads_only(store, loop)
        return None if deallocs is None else (deallocs, None)
    first = refills[0]
    for top in refills[1:]:
        if top.is_before_in_block(first):
            first = top
    reads = []
    for use in buf.uses:
        user = mlir.operation(use.owner)
        if user.name == "affine.store" and use.operand_number == 1:
            continue
        if user.name == "memref.dealloc":
            if not _after(user, first):
                return None
            continue
        if not (user.name in READ_USERS and use.operand_number == 0) or not _after(user, loop):
            return None
        top = ancestor_in(user, loop.operation.block)
        if mlir.op_key(top) == mlir.op_key(first) or first.is_before_in_block(top):
            continue
        reads.append(user)
    return [], tuple(reads)


def refill(top: ir.Operation, store: ir.Operation) -> ir.Operation | None:
    """`top` (a top-level op holding `store`) when it is a perfect affine.for nest of bounds 0 to N
    step 1 whose body is one load and `store` of the loaded value, the store's indices distinct IVs
    whose trip counts are the buffer's extents (every element written once), the load not reading
    the buffer: after it, the buffer holds only what it wrote. Else None."""
    shape = copy_nest(top) if top.name == "affine.for" else None
    if shape is None or mlir.op_key(shape[3]) != mlir.op_key(store):
        return None
    nest, trips, load, _ = shape
    if load.operands[0] == store.operands[1]:
        return None
    ivs = [induction_var(lp) for lp in nest]
    store_ivs = _dim_positions(store, ivs)
    dst_t = store.operands[1].type
    if store_ivs is None or len(set(store_ivs)) != len(store_ivs) or len(store_ivs) != len(nest):
        return None
    if not isinstance(dst_t, ir.MemRefType) or not dst_t.has_static_shape or [trips[k] for k in store_ivs] != list(dst_t.shape):
        return None
    return top


def later_reads_only(store: ir.Operation, loop: ir.Operation) -> list[ir.Operation] | None:
    """The deallocs of the buffer `store` (in the nest `loop`) writes, when every other use of it
    is a read (affine.load / affine.vector_load of it) or a dealloc after the nest; else None."""
    deallocs = []
    for use in store.operands[1].uses:
        user = mlir.operation(use.owner)
        if mlir.op_key(user) == mlir.op_key(store):
            continue
        if user.name == "memref.dealloc":
            deallocs.append(user)
        elif not (user.name in READ_USERS and use.operand_number == 0):
            return None
        if not _after(user, loop):
            return None
    return deallocs


def element_count(shape) -> int:
    """The number of elements of a static shape."""
    n = 1
    for d in shape:
        n *= d
    return n


def enclosing_module(fn: ir.Operation) -> ir.Operation | None:
    """The builtin.module `fn` is a top-level op of (where its globals are), else None."""
    parent = fn.parent
    return mlir.operation(parent) if parent is not None and parent.name == "builtin.module" else None


def find_constant_copies(fn: ir.Operation) -> list[ConstantCopy]:
    """Every ConstantCopy among the top-level loops of `fn`'s body (module doc)."""
    body = mlir.func_body(fn)
    module_op = enclosing_module(fn)
    if body is None or module_op is None:
        return []
    out = []
    for op in mlir.block_ops(body):
        if op.name == "affine.for":
            found = match_constant_copy(op, module_op)
            if found is not None:
                out.append(found)
    return out
