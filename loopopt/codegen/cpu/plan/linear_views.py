"""Delinearized accesses read through a view at base + i (cpu, step `linear-views`; docs/cpu_codegen.md
section 36).

torch-mlir's GroupNorm reshapes N x C x H x W to N x G x (C/G) x (H*W); after lowering, a statistic
loop over the collapsed e < H*W reads x[n, g*8 + c, e floordiv W, e mod W]. Per dimension the index
moves by an unknown step (`locality.index_strides` gives None for a floordiv or mod of the loop's
counter), so the vector planner refused the loop; but the address in memory, H*W*.. + W * (e
floordiv W) + e mod W, is e plus a constant: one element further every iteration.

Rule (`plan_linear_view`), exact. An affine.load / affine.store directly in an innermost affine.for
L whose index moves by an unknown step along L in some dimension (a floordiv or mod of L's counter)
is rewritten when:
- L steps by 1 from a constant lower bound lb, its counter a dim (not a symbol) of the access's map,
  and no other index operand is computed inside L (an affine.apply of the counter) (LOOP);
- the access reads its memref operand itself (no view), of the identity layout (row-major from its
  first element), defined before the nest (a function argument or an op before it) (BUFFER);
- the dimensions from the first one whose index uses L's counter to the last have static sizes
  (SYMBOLIC_EXTENT): their address is sum(index[d] * inner[d]), inner[d] the product of the sizes
  after d;
- isl proves that address one element further at iteration i + 1 than at i for every i, i + 1 of
  L's range and every iteration of the loops around it (`locality.linear_step_witness`: a mod by a
  non-extent, extents that do not match the buffer's, jump somewhere: NOT_CONTIGUOUS).
Then, by induction from i = lb, the address at i is A(lb) + (i - lb): the access reads, through a
`memref.collapse_shape` view joining those dimensions, element A(lb) + i - lb of the joined one
(A(lb): the map's results at i = lb, folded by MLIR; the other indices kept). Same elements, same
order, same ops: bit-exact whatever the numeric flags; the vectorizer then sees a stride of 1 and
LLVM a linear address.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import access_pattern
from ....analysis.affine import Scope, simplified
from ....analysis.loops import body_block, loop_dims
from ....mlir import ir
from .locality import index_strides, linear_step_witness

ACCESSES = {"affine.load": 1, "affine.store": 2}  # first index operand


class LinearCode(enum.Enum):
    LOOP = "loop"
    BUFFER = "buffer"
    SYMBOLIC_EXTENT = "symbolic-extent"
    NOT_CONTIGUOUS = "not-contiguous"


@dataclass(frozen=True)
class LinearView:
    """One delinearized access and how it is read instead: through a view joining dimensions
    `first`.. of its buffer at `index` (None: the access keeps its map; a refusal says why)."""

    op: ir.Operation
    loop: ir.Operation
    first: int = 0
    index: ir.AffineExpr | None = None
    code: LinearCode | None = None
    refusal: str | None = None  # the access and why
    reason: str | None = None  # why alone


def delinearized(op: ir.Operation, loop: ir.Operation, scope: Scope) -> bool:
    """The access `op` (in `loop`'s body) moves along the loop by an unknown step in some
    dimension: a candidate."""
    if op.name not in ACCESSES:
        return False
    text = str(mlir.affine_map_attr(op, "map"))
    if "floordiv" not in text and " mod " not in text:
        return False  # an affine map of the operands: a constant step per dimension
    a = access_pattern(op, scope)
    (axis,) = loop_dims(loop, scope)
    if a.index is None or not a.uses_iv(axis.name):
        return False
    strides = index_strides(a, axis.name)
    return strides is not None and any(s is None for s in strides)


def _refuse(op, loop, code: LinearCode, why: str) -> LinearView:
    return LinearView(op, loop, code=code, refusal=f"{op.name} at {mlir.location_of(op)}: {why}", reason=why)


def _computed_in(v: ir.Value, loop: ir.Operation) -> bool:
    """`v` is defined inside `loop` (an affine.apply of its counter, say): A(lb) would not fold it."""
    owner, block = mlir.value_owner(v)
    op = owner if owner is not None else mlir.operation(block.owner)
    while op is not None and op.name != "func.func":
        if op == loop:
            return True
        op = mlir.operation(op.parent)
    return False


def _nested_counter(v: ir.Value, loop: ir.Operation) -> bool:
    """`v` is the counter of an affine.for nested inside `loop` (a reduction's k under the
    columns loop of a product): an independent dimension of the access, kept as a dim of A(lb);
    the witness refuses where that loop's bounds use `loop`'s counter."""
    owner, block = mlir.value_owner(v)
    if owner is not None:
        return False
    inner = mlir.operation(block.owner)
    return (inner.name == "affine.for" and inner != loop and v == body_block(inner).arguments[0]
            and _computed_in(v, loop))


def _defined_before(memref: ir.Value, top: ir.Operation) -> bool:
    owner, block = mlir.value_owner(memref)
    if owner is None:
        return mlir.operation(block.owner).name == "func.func"
    return owner.block == top.block and owner.is_before_in_block(top)


def plan_linear_view(op: ir.Operation, loop: ir.Operation, top: ir.Operation, scope: Scope) -> LinearView:
    """The view and index of the delinearized access `op` in the innermost `loop` (inside the
    function-level op `top`), or why not (the module's rule)."""
    lb = mlir.affine_map_attr(loop, "lowerBoundMap")
    if (mlir.int_attr(loop, "step") != 1 or len(lb.results) != 1
            or not isinstance(lb.results[0].maybe_downcast(), ir.AffineConstantExpr)):
        return _refuse(op, loop, LinearCode.LOOP, "its loop does not step by 1 from a constant")
    first_operand = ACCESSES[op.name]
    amap = mlir.affine_map_attr(op, "map")
    idx = list(op.operands)[first_operand:]
    iv = body_block(loop).arguments[0]
    at = {k for k, v in enumerate(idx) if v == iv}
    if not at or any(k >= amap.n_dims for k in at):
        return _refuse(op, loop, LinearCode.LOOP, "the loop's counter is not a dim of its map")
    if any(v != iv and _computed_in(v, loop) and not _nested_counter(v, loop) for v in idx):
        return _refuse(op, loop, LinearCode.LOOP, "an index operand is computed inside the loop")
    memref = op.operands[first_operand - 1]
    mt = mlir.memref_type(memref)
    owner, _ = mlir.value_owner(memref)
    if owner is not None and owner.name not in ("memref.alloc", "memref.alloca", "memref.get_global"):
        return _refuse(op, loop, LinearCode.BUFFER, f"its buffer is a view ({owner.name})")
    if mt is None or not mlir.identity_layout(mt):
        return _refuse(op, loop, LinearCode.BUFFER, "its buffer is not row-major from its first element")
    if not _defined_before(memref, top):
        return _refuse(op, loop, LinearCode.BUFFER, "its buffer is defined inside the nest")
    a = access_pattern(op, scope)
    (axis,) = loop_dims(loop, scope)
    if a.index is None or len(a.index) != mt.rank:
        return _refuse(op, loop, LinearCode.BUFFER, "its index is not in the buffer's coordinates")
    first = min(d for d in range(mt.rank) if a.uses_iv(axis.name, d))
    dims = tuple(range(first, mt.rank))
    if any(mt.is_dynamic_dim(d) for d in dims):
        return _refuse(op, loop, LinearCode.SYMBOLIC_EXTENT,
                       f"a symbolic extent among the dimensions {first}..{mt.rank - 1} it moves in")
    shape = list(mt.shape)
    inner = tuple(math.prod(shape[d + 1:]) for d in dims)
    why = linear_step_witness(a, axis, dims, inner)
    if why is not None:
        return _refuse(op, loop, LinearCode.NOT_CONTIGUOUS, why)
    with op.context:
        c = ir.AffineConstantExpr.get
        address = None
        for d, k in zip(dims, inner):
            term = amap.results[d] * c(k)
            address = term if address is None else address + term
        start = ir.AffineConstantExpr(lb.results[0]).value
        at_start = ir.AffineMap.get(amap.n_dims, amap.n_symbols,
                                    [c(start) if k in at else ir.AffineDimExpr.get(k) for k in range(amap.n_dims)])
        counter = ir.AffineDimExpr.get(min(at))
        index = simplified(address.compose(at_start) + counter - c(start), amap.n_dims, amap.n_symbols)
    return LinearView(op, loop, first, index)


def top_loop(op: ir.Operation) -> ir.Operation:
    """The op of the function's body that holds `op`."""
    top = op
    while mlir.operation(top.parent).name != "func.func":
        top = mlir.operation(top.parent)
    return top


def plan_linear_views(fn: ir.Operation, scope: Scope) -> list[LinearView]:
    """A LinearView (planned or refused) for every delinearized access of `fn`'s innermost loops."""
    out = []
    loops = [op for op in mlir.walk(fn) if op.name == "affine.for"]
    for loop in loops:
        if any(o.name == "affine.for" for o in mlir.walk(loop) if o != loop):
            continue  # not innermost
        top = top_loop(loop)
        for op in mlir.block_ops(body_block(loop)):
            if delinearized(op, loop, scope):
                out.append(plan_linear_view(op, loop, top, scope))
    return out


def _same_address(load: ir.Operation, store: ir.Operation) -> bool:
    return (load.operands[0] == store.operands[1] and mlir.affine_map_attr(load, "map") == mlir.affine_map_attr(store, "map")
            and list(load.operands)[1:] == list(store.operands)[2:])


def reduction_below(loop: ir.Operation) -> bool:
    """`loop` holds an innermost affine.for that reduces: it carries values (iter_args) or reads
    and updates one address (a product's columns loop, with k inside)."""
    for inner in mlir.walk(loop):
        if inner.name != "affine.for" or any(o.name == "affine.for" for o in mlir.walk(inner)):
            continue
        if len(inner.results):
            return True
        ops = mlir.block_ops(body_block(inner))
        stores = [o for o in ops if o.name == "affine.store"]
        if any(o.name == "affine.load" and any(_same_address(o, st) for st in stores) for o in ops):
            return True
    return False


def plan_lanes_views(fn: ir.Operation, scope: Scope) -> list[LinearView]:
    """Section 75: a LinearView (planned or refused) for every access delinearized along a loop
    that is not innermost and holds a reduction (the columns loop of a matrix product whose B
    column index is (e, h) joined: torch-mlir's `td,edh->teh`), one per access (its innermost such
    loop), so that the loop the register tile gives its lanes reads B at stride 1."""
    out, seen = [], set()
    loops = [op for op in mlir.walk(fn) if op.name == "affine.for"]
    for loop in reversed(loops):  # inner loops first: an access is planned along its innermost one
        if not any(o.name == "affine.for" for o in mlir.walk(loop)) or not reduction_below(loop):
            continue
        top = top_loop(loop)
        for op in mlir.walk(loop):
            if mlir.op_key(op) in seen or not delinearized(op, loop, scope):
                continue
            seen.add(mlir.op_key(op))
            out.append(plan_linear_view(op, loop, top, scope))
    return out
