"""Access patterns (the seed's SymbolicAccessPattern): which buffer, which elements, read or write.

An access's index is a tuple of isl texts over the IVs of its enclosing loops and the
function's parameters, expressed in the coordinates of the root buffer (views are
composed away). An index that is not affine is `None`: the access may touch any element.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir
from .affine import NonAffine, Scope, map_exprs
from .effects import READ_OPS, WRITE_OPS, op_effects
from .loops import Loop, domain_loops
from .memory import alias_root


@dataclass(frozen=True, eq=False)
class AccessPattern:
    op: ir.Operation
    root: ir.Value  # the buffer, after looking through views
    is_write: bool
    loops: tuple[Loop, ...]  # enclosing loop dimensions, outermost first
    index: tuple[str, ...] | None  # per root dimension; None = any element

    @property
    def rank(self) -> int:
        return len(self.index) if self.index is not None else -1

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
    if name in ("affine.load", "affine.store", "affine.vector_load", "affine.vector_store"):
        mpos = READ_OPS.get(name, WRITE_OPS.get(name))
        memref = op.operands[mpos]
        idx_operands = list(op.operands)[mpos + 1:]
        m = mlir.affine_map_attr(op, "map")
        return memref, tuple(map_exprs(m, idx_operands, scope))
    mpos = READ_OPS.get(name, WRITE_OPS.get(name))
    memref = op.operands[mpos]
    return memref, tuple(scope.value_expr(v) for v in list(op.operands)[mpos + 1:])


def _to_root(memref: ir.Value, index: tuple[str, ...], scope: Scope) -> tuple[str, ...]:
    """Compose an index through view ops down to the root buffer's coordinates."""
    while True:
        owner, _ = mlir.value_owner(memref)
        if owner is None or owner.name not in ("memref.cast", "memref.subview", "memref.assume_alignment"):
            root = alias_root(memref)
            if root != memref:
                raise NonAffine(f"view through {owner.name}")
            return index
        if owner.name == "memref.subview":
            index = _through_subview(owner, index, scope)
        memref = owner.operands[0]


def _through_subview(op: ir.Operation, index: tuple[str, ...], scope: Scope) -> tuple[str, ...]:
    offs = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
    src_rank = len(mlir.memref_type(op.operands[0]).shape)
    if len(index) != src_rank or any(s == mlir.DYNAMIC for s in strides):
        raise NonAffine("rank-reducing or dynamically strided subview")
    dyn = iter(list(op.operands)[1:])
    out = []
    for k in range(src_rank):
        off = scope.value_expr(next(dyn)) if offs[k] == mlir.DYNAMIC else str(offs[k])
        out.append(f"({off} + {strides[k]} * ({index[k]}))")
    return tuple(out)


def access_pattern(op: ir.Operation, scope: Scope, stop: ir.Operation | None = None) -> AccessPattern:
    """The access pattern of one load or store (loops counted below `stop`)."""
    is_write = op.name in WRITE_OPS
    memref = op.operands[WRITE_OPS[op.name] if is_write else READ_OPS[op.name]]
    loops = tuple(domain_loops(op, scope, stop))
    try:
        _, idx = _raw_index(op, scope)
        index = _to_root(memref, idx, scope)
    except NonAffine:
        index = None
    return AccessPattern(op, alias_root(memref), is_write, loops, index)


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
            for r in eff.reads - eff.writes:
                out.append(AccessPattern(o, r, False, loops, None))
            for r in eff.writes:
                out.append(AccessPattern(o, r, True, loops, None))
            return
        for region in o.regions:
            for block in region.blocks:
                for child in block.operations:
                    visit(mlir.operation(child))

    visit(op)
    return out
