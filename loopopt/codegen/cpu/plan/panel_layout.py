"""Column panels of a local buffer (cpu): the layout of a product's B operand that the function
itself fills.

The register tile reads B as `B[k, J + c]` (c = 0, W, 2W, ...) for every k of its reduction loop:
one row segment of NR = vectors x width elements per k, the next row N elements further. With a
long row (a 768 x 3072 transposed weight: 12 KiB) every k step lands on another page, so a
micro-panel of B touches K pages and K lines that share a few cache sets; BLIS copies it into
contiguous panels first. When B is a buffer the function allocates (the transposed weight a
product's isolation expanded, an operand packing's copy), the copy that fills it can write the
panels directly: the buffer R x N becomes ceil(N / P) x R x P with

    Bp[e floordiv P, r, e mod P] = B[r, e]

for every access (the copy's stores and the tile's loads alike), P the tile's columns. Each
element keeps its own address for every access (the map is one to one), so every load reads what
the same store wrote before: bit-exact. A vector access of W lanes reads or writes W elements
that are consecutive in the new layout only when they stay in one panel, `(e mod P) + W <= P` on
every iteration: checked with isl over the access's loops (exact; the register tile's whole tiles
start at multiples of P, the single vectors left over at multiples of W). A masked access is
checked over all its W lanes, whatever its mask: its lanes that are set lie within the row (MLIR
leaves a set lane out of bounds undefined), so in one panel they keep their elements, and the
lanes that are not set touch no memory.

`plan_panel_layout` takes a buffer only where that is exact:

* a `memref.alloc` of rank 2 with a static shape and the identity layout, whose every use is an
  affine load or store (scalar or vector), a `vector.maskedload` or `vector.maskedstore` whose
  two indices are affine in the loops (the register tile's masked last vectors), or a
  `memref.dealloc` (no view, call or escape: the new layout must be the only one anyone sees);
* read by a register tile: a 1-D affine.vector_load whose column index is `J + c` with J the IV
  of a loop of step P >= W whose row index moves with a loop inside J's (the walk down a panel);
* more than P columns, and B's rows x columns larger than half of L2 (a B that stays in L2 gains
  a few percent at most from panels: docs/cpu_codegen.md section 18).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import access_pattern
from ....analysis.affine import NonAffine, Scope
from ....analysis.loops import domain_loops
from ....analysis.refusal import Refusal
from ....mlir import ir
from .constant_panels import column_walk

ACCESS_OPS = ("affine.load", "affine.store", "affine.vector_load", "affine.vector_store")
MASKED_OPS = ("vector.maskedload", "vector.maskedstore")  # base, row, column, mask, pass-through or value
MAX_PANEL = 1024


class PanelCode(enum.Enum):
    """Why a product's B buffer keeps its row-major layout (the remark)."""

    ESCAPES = "[STOP PANEL LAYOUT] the buffer is used by an op the layout cannot follow"
    CROSSES = "[STOP PANEL LAYOUT] a vector access may cross a panel"

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class PanelLayout:
    """The re-layout of `alloc`'s buffer into panels of `panel` columns: `accesses` are every
    load and store of it (rewritten), `deallocs` its frees; `reader` the tile load that asked."""

    alloc: ir.Operation
    panel: int
    reader: ir.Operation
    accesses: tuple[ir.Operation, ...] = ()
    deallocs: tuple[ir.Operation, ...] = ()
    refusal: Refusal | None = None

    @property
    def shape(self) -> list[int]:
        rows, cols = mlir.memref_type(self.alloc.results[0]).shape
        return [-(-cols // self.panel), rows, self.panel]


def _local_matrix(v: ir.Value) -> ir.Operation | None:
    """The memref.alloc defining `v` when it is rank 2, static and of the identity layout."""
    owner, _ = mlir.value_owner(v)
    if owner is None or owner.name != "memref.alloc" or list(owner.operands):
        return None
    mt = mlir.memref_type(owner.results[0])
    if mt is None or len(mt.shape) != 2 or any(d < 0 for d in mt.shape):
        return None
    if not mlir.identity_layout(mt):
        return None
    return owner


def tile_panel(load: ir.Operation) -> tuple[ir.Operation, int] | None:
    """(the buffer's alloc, P) when `load` reads a local matrix the way a register tile reads B
    (module doc), else None."""
    walk = column_walk(load)
    alloc = _local_matrix(load.operands[0]) if walk is not None else None
    if alloc is None:
        return None
    step = walk.step
    if not walk.width <= step <= MAX_PANEL or not walk.row_moves_inside():
        return None
    if mlir.memref_type(alloc.results[0]).shape[1] <= step:
        return None
    return alloc, step


def buffer_bytes(alloc: ir.Operation) -> int:
    mt = mlir.memref_type(alloc.results[0])
    rows, cols = mt.shape
    return rows * cols * mlir.element_size_bytes(mt.element_type)


def vector_type(op: ir.Operation) -> ir.Type:
    """The vector a vector access reads (its result) or writes (its stored value)."""
    if op.name in ("affine.vector_load", "vector.maskedload"):
        return op.results[0].type
    return (op.operands[-1] if op.name == "vector.maskedstore" else op.operands[0]).type


def column_index(op: ir.Operation, scope: Scope) -> tuple[list, str | None]:
    """(the loops around the vector access `op`, the isl text of its column index over them), the
    text None when the index is not affine in them."""
    if op.name in MASKED_OPS:
        try:
            return domain_loops(op, scope), scope.value_expr(op.operands[2])
        except NonAffine:
            return [], None
    a = access_pattern(op, scope)
    if a.index is None or len(a.index) != 2:
        return list(a.loops), None
    return list(a.loops), a.index[1]


def crossing(op: ir.Operation, panel: int, scope: Scope) -> str | None:
    """Why the vector access `op` may cross a panel of `panel` columns (isl: some iteration has
    (column mod panel) + lanes > panel, or the column index is not affine), else None."""
    import islpy as isl

    lanes = ir.VectorType(vector_type(op)).shape[-1]
    loops, column = column_index(op, scope)
    if column is None:
        return f"{op.name} at {mlir.location_of(op)}: its index is not affine"
    dims = [lp.name for lp in loops]
    cons = [c for lp in loops for c in lp.constraints()]
    params = sorted(scope.params)
    text = (f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : {' and '.join(cons + [f'({column}) mod {panel} > {panel - lanes}'])} }}")
    try:
        bad = isl.Set(text)
    except isl.Error:
        return f"{op.name} at {mlir.location_of(op)}: its iterations are not modelled"
    if not bad.is_empty():
        return f"{op.name} at {mlir.location_of(op)}: {lanes} lanes from a column that may not be a multiple of them"
    return None


def plan_panel_layout(alloc: ir.Operation, panel: int, reader: ir.Operation, scope: Scope) -> PanelLayout:
    """The layout of `alloc`'s buffer in panels of `panel` columns, or its refusal."""
    accesses, deallocs = [], []
    for use in alloc.results[0].uses:
        user = mlir.operation(use.owner)
        mpos = 1 if user.name in ("affine.store", "affine.vector_store") else 0
        if user.name == "memref.dealloc":
            deallocs.append(user)
            continue
        if user.name not in ACCESS_OPS + MASKED_OPS or use.operand_number != mpos:
            return PanelLayout(alloc, panel, reader, refusal=Refusal(
                PanelCode.ESCAPES, f"{user.name} at {mlir.location_of(user)}", (alloc, user)))
        accesses.append(user)
    for op in accesses:
        if op.name.startswith("affine.vector_") or op.name in MASKED_OPS:
            why = crossing(op, panel, scope)
            if why is not None:
                return PanelLayout(alloc, panel, reader, refusal=Refusal(PanelCode.CROSSES, why, (alloc, op)))
    return PanelLayout(alloc, panel, reader, tuple(accesses), tuple(deallocs))


def plan_panel_layouts(fn: ir.Operation, options) -> list[PanelLayout]:
    """A PanelLayout (or refusal) per local buffer of `fn` a register tile reads as B, whose
    rows x columns exceed half of L2; one per buffer, P from its first such load."""
    _, l2, _ = options.plan_cache_sizes
    scope = Scope()
    return [plan_panel_layout(alloc, panel, op, scope) for alloc, panel, op in tile_b_buffers(fn)
            if buffer_bytes(alloc) > l2 // 2]


def tile_b_buffers(fn: ir.Operation) -> list[tuple[ir.Operation, int, ir.Operation]]:
    """(alloc, P, the load) per local buffer of `fn` a register tile reads as B (`tile_panel`),
    from its first such load, once each, in program order."""
    seen: set = set()
    out = []
    for op in mlir.walk(fn):
        found = tile_panel(op) if op.name == "affine.vector_load" else None
        if found is not None and mlir.op_key(found[0]) not in seen:
            seen.add(mlir.op_key(found[0]))
            out.append((found[0], found[1], op))
    return out
