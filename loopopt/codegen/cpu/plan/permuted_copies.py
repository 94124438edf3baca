"""Permuted copies folded into the accesses around them (cpu, step `fold-permuted-copies`;
docs/cpu_codegen.md section 46).

torch-mlir lowers `x.permute(...)` to a copy of the whole tensor with its dimensions permuted: a
statement `D[g(i)] = S[f(i)]` whose indices are the loop counters of its nest in two orders
(ConvNeXt's LayerNorm over channels copies NCHW to NHWC, normalises, and copies back). Each copy
is one more pass over memory, and one of the two walks is strided. The copy is folded away when
one of its two buffers is the function's own and may be read through the other one:

* **into its readers** (the destination D is a `memref.alloc` that only the copy writes, and all
  its reads are in one loop nest of the function, the copy's one consumer): every read `D[h(j)]`
  becomes `S[pi^-1(h(j))]`, the element the copy would have put there;
* **into its writers** (the source S is a `memref.alloc`, and the copy is the only access of D in
  the function): every access `S[e]` becomes `D[pi(e)]`: the function builds its result directly
  where the copy would have put it.

A copy is taken only when its facts are exact: the load and the store in one block, the loaded
value used by the store alone; every loop enclosing them `0 to N step 1` with constant N; each
index of either access one counter of those loops (or 0 on a dimension of one), each loop used
once by each access with its trip count the extent there: the copy touches every element of both
buffers once, a bijection `pi` between their elements (a permutation of dimensions, not the
identity). Both buffers have static shapes, identity layouts and one element type.

Legality, with isl over the instances (`after_set`: pairs touching one element, the second run
after the first in the program's order):

* into readers: every instance of a read of D runs after the copy's instance that writes its
  element (`READ_BEFORE_COPY` otherwise), and no write to S runs after a copy instance that reads
  the same element (`SOURCE_WRITTEN`: the readers would see the new value);
* into writers: no write to S runs after the copy instance reading its element (`SOURCE_WRITTEN`:
  D would get the later value); D is touched by nothing but the copy (`DESTINATION_USED`).

Then every value read is the value the copy would have moved, and D (into writers) ends holding
what the copy wrote: bit-exact. Refusals (`CopyCode`) name the access that blocks them.

Profit: a copy whose destination a matrix product reads (`product_operand`) is left to the
product's packing steps (`PRODUCT`), unless the product reads each of its elements once
(`read_once`: every loop around the read indexes it, as a product of one row reads its right
operand, a decoder step's scores against a key cache): a packed copy then buys no reuse and its
pass over memory is as large as the product's own (docs/cpu_codegen.md section 59).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import islpy as isl

from .... import mlir
from ....analysis.accesses import AccessPattern, collect_accesses
from ....analysis.affine import Scope
from ....analysis.dependence import instance_pair, may_alias, pair_set, shared_loop_count
from ....analysis.legality import induction_var, lex_equal, lex_less
from ....analysis.liveness import ancestor_in
from ....analysis.loops import constant_bounds, enclosing_loops
from ....mlir import ir
from .constant_copies import static_type

ACCESS_OPS = ("affine.load", "affine.store")


class CopyCode(enum.Enum):
    """Why a permuted copy is not folded."""

    NO_BUFFER = "[STOP FOLD COPY] neither buffer is one the function allocates and may give up"
    CONSUMERS = "[STOP FOLD COPY] the copy's destination is read by more than one loop nest"
    USES = "[STOP FOLD COPY] a buffer of the copy is used by an op other than an affine load or store"
    READ_BEFORE_COPY = "[STOP FOLD COPY] a read of the destination may run before the copy writes its element"
    SOURCE_WRITTEN = "[STOP FOLD COPY] the source is written after the copy reads the element"
    DESTINATION_USED = "[STOP FOLD COPY] the destination is accessed by more than the copy"
    PRODUCT = ("[STOP FOLD COPY] the destination is an operand of a product: its transposing copy is left to "
               "pack-column-blocks and transpose-tiles")
    SCOPE = "[STOP FOLD COPY] the buffer that stays is not defined at the function's top level before its new accesses"

    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class PermutedCopy:
    """`store` writes D[g(i)] the value `load` reads from S[f(i)], over every element of both."""

    load: ir.Operation
    store: ir.Operation
    source: ir.Value
    dest: ir.Value
    loops: tuple[ir.Operation, ...]          # the affine.for ops around the copy, outermost first
    source_loops: tuple[int | None, ...]     # per dimension of S: the loop whose counter indexes it (None: 0)
    dest_loops: tuple[int | None, ...]       # per dimension of D: the same

    def dest_dim_of_source(self, j: int) -> int | None:
        """The dimension of D the copy writes with S's dimension j's counter."""
        lp = self.source_loops[j]
        return None if lp is None else self.dest_loops.index(lp)

    def source_dim_of_dest(self, p: int) -> int | None:
        lp = self.dest_loops[p]
        return None if lp is None else self.source_loops.index(lp)


@dataclass(frozen=True)
class CopyFold:
    """How one copy is folded: `into` is "readers" (D's reads read S) or "writers" (S's accesses
    go to D); `rewritten` the accesses of the buffer that disappears; or `code` and `detail`."""

    copy: PermutedCopy
    into: str | None = None
    rewritten: tuple[ir.Operation, ...] = ()
    code: CopyCode | None = None
    detail: str = ""


def _index_loops(access: ir.Operation, ivs: list[ir.Value], shape) -> tuple[int | None, ...] | None:
    """Per result of an affine.load/store's map: the loop whose counter it is, None for a constant
    0 on a dimension of one; None when any result is something else."""
    amap = mlir.affine_map_attr(access, "map")
    first = 2 if access.name == "affine.store" else 1
    indices = list(access.operands)[first:]
    out = []
    for d, r in enumerate(amap.results):
        if isinstance(r, ir.AffineConstantExpr) and ir.AffineConstantExpr(r).value == 0 and shape[d] == 1:
            out.append(None)
            continue
        if not isinstance(r, ir.AffineDimExpr):
            return None
        v = indices[ir.AffineDimExpr(r).position]
        hit = [k for k, iv in enumerate(ivs) if iv == v]
        if not hit:
            return None
        out.append(hit[0])
    return tuple(out)


def _covers(index_loops: tuple, trips: list[int], shape) -> bool:
    """Each loop used once, with its trip count the extent of the dimension it indexes."""
    used = [k for k in index_loops if k is not None]
    if sorted(used) != list(range(len(trips))):
        return False
    return all(k is None or trips[k] == shape[d] for d, k in enumerate(index_loops))


def match_permuted_copy(store: ir.Operation, identity: bool = False) -> PermutedCopy | None:
    """The PermutedCopy whose store is `store` (module doc), or None; a copy in the same order
    (the identity) only with `identity`."""
    if store.name != "affine.store":
        return None
    owner, _ = mlir.value_owner(store.operands[0])
    if owner is None or owner.name != "affine.load" or mlir.operation(owner).block != store.operation.block:
        return None
    load = mlir.operation(owner)
    if len(list(load.results[0].uses)) != 1:
        return None
    src, dst = load.operands[0], store.operands[1]
    st, dt = src.type, dst.type
    if not static_type(st) or not static_type(dt) or st.element_type != dt.element_type or src == dst:
        return None
    loops = enclosing_loops(store)
    if not loops or any(lp.name != "affine.for" for lp in loops):
        return None
    trips = []
    for lp in loops:
        b = constant_bounds(lp)
        if b is None or b[0] != 0 or mlir.int_attr(lp, "step") != 1:
            return None
        trips.append(b[1])
    ivs = [induction_var(lp) for lp in loops]
    sl, dl = _index_loops(load, ivs, st.shape), _index_loops(store, ivs, dt.shape)
    if sl is None or dl is None or not _covers(sl, trips, st.shape) or not _covers(dl, trips, dt.shape):
        return None
    if not identity and [k for k in sl if k is not None] == [k for k in dl if k is not None]:
        return None  # the identity: not a permuted copy
    return PermutedCopy(load, store, src, dst, tuple(loops), sl, dl)


def permuted_copies(fn: ir.Operation) -> list[PermutedCopy]:
    """Every permuted copy of the function, in program order."""
    return [c for c in (match_permuted_copy(op) for op in mlir.walk(fn) if op.name == "affine.store") if c]


# ----------------------------------------------------------------------------- order, with isl

def _textually_before(a: ir.Operation, b: ir.Operation, block: ir.Block) -> bool:
    """a's ancestor in `block` comes before b's (both inside `block`)."""
    x, y = ancestor_in(a, block), ancestor_in(b, block)
    return x is not None and y is not None and mlir.op_key(x) != mlir.op_key(y) and x.is_before_in_block(y)


def after_set(a: AccessPattern, b: AccessPattern, scope: Scope) -> isl.Set | None:
    """Pairs (instance of a, instance of b) touching one element with b's run after a's in program
    order (lexicographically later in the loops they share, or the same iterations of those and
    b's statement after a's in the innermost shared body); None when they touch other buffers."""
    p = instance_pair(a, b, scope, fixed=0)
    if p is None:
        return None
    shared = shared_loop_count(a, b)
    xs = [p.src_rename[lp.name] for lp in a.loops[:shared]]
    ys = [p.dst_rename[lp.name] for lp in b.loops[:shared]]
    if shared:
        block = a.loops[shared - 1].op.regions[0].blocks[0]
    else:
        block = _function_block(a.op)
    later = _textually_before(a.op, b.op, block)
    cond = lex_less(xs, ys)
    if later:
        cond = f"({cond} or {lex_equal(xs, ys)})"
    return pair_set(p, [cond])


def all_pairs(a: AccessPattern, b: AccessPattern, scope: Scope) -> isl.Set | None:
    p = instance_pair(a, b, scope, fixed=0)
    return None if p is None else pair_set(p)


def _function_block(op: ir.Operation) -> ir.Block:
    while True:
        parent = mlir.operation(op.parent)
        if parent.name == "func.func":
            return op.block
        op = parent


def _find(accs: list[AccessPattern], op: ir.Operation) -> AccessPattern:
    return next(a for a in accs if mlir.op_key(a.op) == mlir.op_key(op))


# ----------------------------------------------------------------------------- the plan

def _local_alloc(v: ir.Value) -> ir.Operation | None:
    owner, _ = mlir.value_owner(v)
    return owner if owner is not None and owner.name == "memref.alloc" and not owner.operands else None


def _plain_uses(v: ir.Value) -> tuple[list[ir.Operation], bool]:
    """(the affine loads and stores of buffer v, whether every other use is a dealloc)."""
    accesses, plain = [], True
    for u in v.uses:
        op = mlir.operation(u.owner)
        if op.name in ACCESS_OPS and u.operand_number == (1 if op.name == "affine.store" else 0):
            accesses.append(op)
        elif op.name != "memref.dealloc":
            plain = False
    return accesses, plain


def _top(op: ir.Operation) -> ir.Operation:
    block = _function_block(op)
    return ancestor_in(op, block)


def _defined_before(v: ir.Value, ops: list[ir.Operation]) -> bool:
    """v is a function argument, or the result of an op of the function's top level that comes
    before every op of `ops`."""
    owner, block = mlir.value_owner(v)
    if owner is None:  # a block argument: the function's, not a loop's
        return mlir.operation(block.owner).name == "func.func" if block.owner is not None else False
    if owner.operation.parent is None or mlir.operation(owner.operation.parent).name != "func.func":
        return False
    return all(owner.is_before_in_block(_top(op)) for op in ops)


def _source_written_after(c: PermutedCopy, accs: list[AccessPattern], scope: Scope) -> str | None:
    """A write to S that may run after the copy instance reading the same element, or None."""
    k = _find(accs, c.load)
    for w in accs:
        if not w.is_write or not may_alias(k, w) or w.op.name == "memref.dealloc":
            continue
        s = after_set(k, w, scope)
        if s is None or (k.index is not None and w.index is not None and s.is_empty()):
            continue
        return f"{w.op.name} at {mlir.location_of(w.op)}"
    return None


def product_operand(read: ir.Operation) -> bool:
    """The loaded value is multiplied by a value loaded from another buffer in the same loop body
    (a matrix product's A[i, k] * B[k, j]): the product's own steps pack that operand."""
    for u in read.results[0].uses:
        op = mlir.operation(u.owner)
        if op.name not in ("arith.mulf", "arith.muli"):
            continue
        for v in op.operands:
            owner, _ = mlir.value_owner(v)
            if (owner is not None and owner.name == "affine.load" and mlir.op_key(owner) != mlir.op_key(read)
                    and owner.operands[0] != read.operands[0]
                    and mlir.operation(owner).block == read.block):
                return True
    return False


def read_once(read: ir.Operation) -> bool:
    """Every loop around the read indexes it, each a dimension of its own (a plain counter per
    index, or 0 on a dimension of one): each instance reads another element, so the nest reads
    each element of the buffer at most once (a product of one row reading its right operand)."""
    loops = enclosing_loops(read)
    if not loops or any(lp.name != "affine.for" for lp in loops):
        return False
    ivs = [induction_var(lp) for lp in loops]
    used = _index_loops(read, ivs, read.operands[0].type.shape)
    return used is not None and sorted(k for k in used if k is not None) == list(range(len(loops)))


def plan_fold(c: PermutedCopy, fn: ir.Operation, scope: Scope) -> CopyFold:
    """Into readers when D is the function's own, else into writers when S is (module doc)."""
    d_alloc, s_alloc = _local_alloc(c.dest), _local_alloc(c.source)
    accs = collect_accesses(fn, scope)
    if d_alloc is not None:
        d_accesses, plain = _plain_uses(c.dest)
        if not plain:
            return CopyFold(c, code=CopyCode.USES, detail=f"the destination at {mlir.location_of(d_alloc)}")
        reads = [op for op in d_accesses if mlir.op_key(op) != mlir.op_key(c.store)]
        writes = [op for op in reads if op.name == "affine.store"]
        if not writes:
            if not _defined_before(c.source, reads):
                return CopyFold(c, code=CopyCode.SCOPE, detail="the source")
            freed = [mlir.operation(u.owner) for u in c.source.uses if u.owner.name == "memref.dealloc"]
            if any(not _top(op).is_before_in_block(_top(f)) for f in freed for op in reads):
                return CopyFold(c, code=CopyCode.SCOPE, detail="the source is freed before a read")
            s = _find(accs, c.store)
            for op in reads:
                r = _find(accs, op)
                total, after = all_pairs(s, r, scope), after_set(s, r, scope)
                if total is None or not total.subtract(after).is_empty():
                    return CopyFold(c, code=CopyCode.READ_BEFORE_COPY, detail=f"{op.name} at {mlir.location_of(op)}")
            why = _source_written_after(c, accs, scope)
            if why is not None:
                return CopyFold(c, code=CopyCode.SOURCE_WRITTEN, detail=why)
            factor = next((op for op in reads if product_operand(op) and not read_once(op)), None)
            if factor is not None:
                return CopyFold(c, code=CopyCode.PRODUCT, detail=f"{factor.name} at {mlir.location_of(factor)}")
            tops = {mlir.op_key(_top(op)) for op in reads}
            if len(tops) > 1:
                return CopyFold(c, code=CopyCode.CONSUMERS, detail=f"{len(tops)} nests")
            return CopyFold(c, "readers", tuple(reads))
        if s_alloc is None:
            return CopyFold(c, code=CopyCode.NO_BUFFER, detail=f"the destination is also written by "
                            f"{writes[0].name} at {mlir.location_of(writes[0])}")
    if s_alloc is None:
        return CopyFold(c, code=CopyCode.NO_BUFFER)
    s_accesses, plain = _plain_uses(c.source)
    if not plain:
        return CopyFold(c, code=CopyCode.USES, detail=f"the source at {mlir.location_of(s_alloc)}")
    store = _find(accs, c.store)
    for a in accs:
        if mlir.op_key(a.op) != mlir.op_key(c.store) and may_alias(a, store):
            return CopyFold(c, code=CopyCode.DESTINATION_USED, detail=f"{a.op.name} at {mlir.location_of(a.op)}")
    others = [op for op in s_accesses if mlir.op_key(op) != mlir.op_key(c.load)]
    if not _defined_before(c.dest, others):
        return CopyFold(c, code=CopyCode.SCOPE, detail="the destination")
    why = _source_written_after(c, accs, scope)
    if why is not None:
        return CopyFold(c, code=CopyCode.SOURCE_WRITTEN, detail=why)
    return CopyFold(c, "writers", tuple(others))


def permuted_map(amap: ir.AffineMap, take: list[int | None]) -> ir.AffineMap:
    """The map whose result k is amap's result take[k] (0 where take[k] is None)."""
    results = [ir.AffineConstantExpr.get(0) if t is None else amap.results[t] for t in take]
    return ir.AffineMap.get(amap.n_dims, amap.n_symbols, results)
