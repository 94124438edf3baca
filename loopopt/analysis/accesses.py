"""Access patterns (the seed's SymbolicAccessPattern): which buffer, which elements, read or write.

An access's index is a tuple of isl texts over the IVs of its enclosing loops and the
function's parameters, expressed in the coordinates of the root buffer (views are
composed away). A vector access covers a box: `extent[d]` elements from `index[d]` on
(the vector's shape over the trailing dimensions). An index that is not affine, or an access
whose elements we do not model exactly (transfers with permutation maps or masks, gathers),
is `None`: the access may touch any element.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .. import mlir
from ..mlir import ir
from .affine import NonAffine, Scope, map_exprs
from .effects import READ_OPS, WRITE_OPS, op_effects
from .loops import Loop, domain_loops
from .memory import alias_root, buffer_key

# Accesses whose index operands follow the memref and name the first element touched.
AFFINE_MAP_ACCESSES = ("affine.load", "affine.store", "affine.vector_load", "affine.vector_store")
VECTOR_ACCESSES = ("affine.vector_load", "affine.vector_store", "vector.load", "vector.store")
INDEXED_ACCESSES = ("memref.load", "memref.store", "vector.load", "vector.store", *AFFINE_MAP_ACCESSES)


@dataclass(frozen=True, eq=False)
class AccessPattern:
    op: ir.Operation
    root: ir.Value  # the buffer, after looking through views
    is_write: bool
    loops: tuple[Loop, ...]  # enclosing loop dimensions, outermost first
    index: tuple[str, ...] | None  # per root dimension; None = any element
    extent: tuple[int, ...] | None = None  # elements per dimension from `index` on (None: 1 each)
    # A scalar access through a memref.collapse_shape view of a row-major contiguous type
    # (`row_major`): its index in the view's own coordinates (these give its strides in
    # memory); else None (a strided view's strides are read in the buffer's coordinates).
    view_index: tuple[str, ...] | None = None

    @cached_property
    def key(self):
        """The buffer's identity (`memory.buffer_key`): UNTRACED may be any buffer."""
        return buffer_key(self.root)

    @property
    def rank(self) -> int:
        return len(self.index) if self.index is not None else -1

    @property
    def is_vector(self) -> bool:
        return self.extent is not None and any(w != 1 for w in self.extent)

    def extents(self) -> tuple[int, ...]:
        return self.extent if self.extent is not None else (1,) * self.rank

    def uses_iv(self, name: str, dim: int | None = None) -> bool:
        """True iff the index (or only dimension `dim`) depends on the IV named `name`."""
        if self.index is None:
            return False
        import re

        texts = self.index if dim is None else self.index[dim:dim + 1]
        return any(re.search(rf"\b{name}\b", t) for t in texts)


def _raw_index(op: ir.Operation, scope: Scope) -> tuple[ir.Value, tuple[str, ...]]:
    """(memref operand, index texts in the memref operand's own coordinates)."""
    name = op.name
    if name not in INDEXED_ACCESSES:
        raise NonAffine(f"{name} touches elements we do not model exactly")
    mpos = READ_OPS.get(name, WRITE_OPS.get(name))
    memref = op.operands[mpos]
    if mlir.memref_type(memref) is None:
        raise NonAffine("unranked memref")
    idx_operands = list(op.operands)[mpos + 1:]
    if name in AFFINE_MAP_ACCESSES:
        m = mlir.affine_map_attr(op, "map")
        return memref, tuple(map_exprs(m, idx_operands, scope))
    return memref, tuple(scope.value_expr(v) for v in idx_operands)


def vector_extent(op: ir.Operation, rank: int) -> tuple[int, ...] | None:
    """Elements per memref dimension a vector load/store covers (its shape over the trailing
    dimensions), None for a scalar access. Raises NonAffine for forms we do not model."""
    if op.name not in VECTOR_ACCESSES:
        return None
    vtype = op.results[0].type if op.name.endswith("load") else op.operands[0].type
    shape = list(ir.VectorType(vtype).shape)
    memref = op.operands[READ_OPS.get(op.name, WRITE_OPS.get(op.name))]
    if len(shape) > rank or isinstance(mlir.memref_type(memref).element_type, ir.VectorType):
        raise NonAffine("vector access wider than the buffer's rank or over vector elements")
    if ir.VectorType(vtype).scalable_dims and any(ir.VectorType(vtype).scalable_dims):
        raise NonAffine("scalable vector")
    return (1,) * (rank - len(shape)) + tuple(shape)


def _to_root(memref: ir.Value, index: tuple[str, ...], scope: Scope,
             extent: tuple[int, ...] | None = None) -> tuple[str, ...]:
    """Compose an index through view ops down to the root buffer's coordinates."""
    while True:
        owner, _ = mlir.value_owner(memref)
        if owner is not None and owner.name == "memref.collapse_shape":
            index = _through_collapse(owner, index, extent)
            memref = owner.operands[0]
            continue
        if owner is None or owner.name not in ("memref.cast", "memref.subview", "memref.assume_alignment"):
            root = alias_root(memref)
            if root != memref:
                raise NonAffine(f"view through {owner.name}")
            return index
        if owner.name == "memref.subview":
            index = _through_subview(owner, index, scope, extent)
        memref = owner.operands[0]


def _through_collapse(op: ir.Operation, index: tuple[str, ...], extent: tuple[int, ...] | None) -> tuple[str, ...]:
    """The source coordinates of a scalar access through `memref.collapse_shape`: index d of a
    group [k1..kn] of source dimensions is element (d floordiv prod(size k(j+1)..kn)) mod size kj
    of dimension kj (the first without the mod), exact for static inner sizes. A vector access
    through it may span several source rows, a box the index cannot say: NonAffine."""
    if extent is not None and any(w != 1 for w in extent):
        raise NonAffine("vector access through a collapse_shape view")
    shape = list(mlir.memref_type(op.operands[0]).shape)
    groups = [[ir.IntegerAttr(i).value for i in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])]
    if len(groups) != len(index):
        raise NonAffine("collapse_shape view of another rank")
    out: list = [None] * len(shape)
    for g, group in enumerate(groups):
        if any(shape[k] < 0 for k in group[1:]):
            raise NonAffine("collapse_shape view with a dynamic inner size")
        for j, k in enumerate(group):
            inner = 1
            for m in group[j + 1:]:
                inner *= shape[m]
            e = f"floor(({index[g]})/{inner})" if inner != 1 else f"({index[g]})"
            out[k] = f"({e} mod {shape[k]})" if j > 0 else e
    return tuple(out)


def _through_subview(op: ir.Operation, index: tuple[str, ...], scope: Scope,
                     extent: tuple[int, ...] | None = None) -> tuple[str, ...]:
    offs = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
    src_rank = len(mlir.memref_type(op.operands[0]).shape)
    if len(index) != src_rank or any(s == mlir.DYNAMIC for s in strides):
        raise NonAffine("rank-reducing or dynamically strided subview")
    if extent is not None and any(w != 1 and s != 1 for w, s in zip(extent, strides)):
        raise NonAffine("vector access through a strided subview")
    dyn = iter(list(op.operands)[1:])
    out = []
    for k in range(src_rank):
        off = scope.value_expr(next(dyn)) if offs[k] == mlir.DYNAMIC else str(offs[k])
        out.append(f"({off} + {strides[k]} * ({index[k]}))")
    return tuple(out)


def row_major(mt: ir.MemRefType) -> bool:
    """The view's elements are contiguous in row-major order (static sizes, each stride the product
    of the sizes after it): only then are its own coordinates its strides in memory. A collapse
    of a strided buffer (a group of one strided dimension, or rows apart) is not."""
    if any(d < 0 for d in mt.shape):
        return False
    strides, _ = mt.get_strides_and_offset()
    want, acc = [], 1
    for d in reversed(list(mt.shape)):
        want.append(acc)
        acc *= d
    return list(strides) == want[::-1]


def access_pattern(op: ir.Operation, scope: Scope, stop: ir.Operation | None = None) -> AccessPattern:
    """The access pattern of one load or store (loops counted below `stop`)."""
    is_write = op.name in WRITE_OPS
    memref = op.operands[WRITE_OPS[op.name] if is_write else READ_OPS[op.name]]
    loops = tuple(domain_loops(op, scope, stop))
    extent = None
    view_index = None
    try:
        _, idx = _raw_index(op, scope)
        extent = vector_extent(op, len(idx))
        index = _to_root(memref, idx, scope, extent)
        owner, _ = mlir.value_owner(memref)
        if owner is not None and owner.name == "memref.collapse_shape" and row_major(mlir.memref_type(memref)):
            view_index = idx
    except NonAffine:
        index, extent = None, None
    return AccessPattern(op, alias_root(memref), is_write, loops, index, extent, view_index)


MASKED_ACCESSES = ("vector.maskedload", "vector.maskedstore")


def may_access(op: ir.Operation, scope: Scope, stop: ir.Operation | None = None) -> AccessPattern:
    """A masked vector access (`vector.maskedload` / `vector.maskedstore`: the memref, one index
    per dimension, the mask, the pass-through or the value) as the unmasked vector access at its
    indices: every element it may touch (the mask only leaves lanes out). An over-approximation
    (`access_pattern` gives these index None): sound where what is asked is whether two accesses
    may conflict (a dependence), never where an access must happen (a kill, a forwarded store).
    Another op, or an index that is not affine: `access_pattern`'s answer."""
    if op.name not in MASKED_ACCESSES:
        return access_pattern(op, scope, stop)
    memref = op.operands[0]
    mt = mlir.memref_type(memref)
    loops = tuple(domain_loops(op, scope, stop))
    is_write = op.name in WRITE_OPS
    try:
        if mt is None:
            raise NonAffine("unranked memref")
        idx = tuple(scope.value_expr(v) for v in list(op.operands)[1:1 + mt.rank])
        vtype = op.operands[-1].type if is_write else op.results[0].type
        shape = list(ir.VectorType(vtype).shape)
        if len(shape) > mt.rank or isinstance(mt.element_type, ir.VectorType):
            raise NonAffine("vector access wider than the buffer's rank or over vector elements")
        extent = (1,) * (mt.rank - len(shape)) + tuple(shape)
        index = _to_root(memref, idx, scope, extent)
    except NonAffine:
        index, extent = None, None
    return AccessPattern(op, alias_root(memref), is_write, loops, index, extent)


def collect_accesses(op: ir.Operation, scope: Scope, stop: ir.Operation | None = None) -> list[AccessPattern]:
    """Every memory access in `op` (itself included), in program order.

    Effects that are not plain loads/stores (calls, unknown ops, deallocs, copies) become
    whole-buffer accesses (`index=None`) on every buffer they touch.
    """
    out: list[AccessPattern] = []

    def visit(o: ir.Operation) -> None:
        if o.name in READ_OPS or o.name in WRITE_OPS:
            out.append(access_pattern(o, scope, stop))
            return
        if not o.regions:
            eff = op_effects(o)
            if not (eff.reads or eff.writes):
                return
            loops = tuple(domain_loops(o, scope, stop))
            for k in eff.reads - eff.writes:
                out.append(AccessPattern(o, eff.values[k], False, loops, None))
            for k in eff.writes:
                out.append(AccessPattern(o, eff.values[k], True, loops, None))
            return
        for region in o.regions:
            for block in region.blocks:
                for child in block.operations:
                    visit(mlir.operation(child))

    visit(op)
    return out
