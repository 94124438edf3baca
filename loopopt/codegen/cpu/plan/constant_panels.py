"""Column panels of constants (cpu): a vector load of a 2-D constant that walks its rows inside the
loop that picks its columns.

The register tiling (codegen/cpu/register_tile.py) reads a product's B operand as
`B[k, j + c]`, c = 0, W, 2W, ... within a panel of P columns (j steps by P), for every k inside
each j iteration: one B row per k step. When B is a constant whose rows are long (torch's FFN
weight, 1024 columns: 4 KiB per row), every step lands on another page and the rows of one panel
share a few cache sets. BLIS packs such a panel contiguously; for a constant the packing is done
at compile time: `Bp[p, k, q] = B[k, p * P + q]` (zero past the last column), and the load
becomes `Bp[j floordiv P, k, c]`.

`plan_constant_panels` takes a load only where that is exact:

* an affine.vector_load of a 1-D vector of W elements from a `memref.get_global` of a `constant`
  global of rank 2 whose value is readable (codegen/cpu/plan/constant_copies.py: a `dense_resource` blob
  or a splat; static shape, identity layout, whole-byte elements);
* its column index is `J + c` (through affine.apply ops of the form `d0 + c`), J the IV of an
  affine.for with a constant lower bound that is a multiple of its step P, and 0 <= c, c + W <= P:
  J is a multiple of P in every iteration, so column J + c is element c of panel J / P and the
  vector's lanes stay in that panel;
* its row index uses the IV of a loop inside J's loop (the walk the panel serves), and the global
  has more than P columns (with P or fewer the layout is the same).

A constant global is never written (a store to it is undefined behaviour), so the load reads the
same values from the copy: results are bit-exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import mlir
from ....mlir import ir
from .constant_copies import constant_global, enclosing_module, static_type

MAX_PANEL = 1024  # columns per panel: a register tile's width is 16 to 64 f32


@dataclass(frozen=True)
class PanelLoad:
    """`load` reads column `J + offset` of `global_op` with J the IV of `j_loop` (step `panel`)."""

    load: ir.Operation
    global_op: ir.Operation
    j_loop: ir.Operation
    panel: int
    offset: int


def _iv_owner(v: ir.Value) -> ir.Operation | None:
    """The affine.for whose induction variable `v` is, else None."""
    if not mlir.is_block_argument(v):
        return None
    owner = mlir.operation(ir.BlockArgument(v).owner.owner)
    if owner.name == "affine.for" and ir.BlockArgument(v).arg_number == 0:
        return owner
    return None


def iv_plus_constant(expr, operands: list[ir.Value], depth: int = 0) -> tuple[ir.Value, int] | None:
    """(IV, c) when the affine expression `expr` over `operands` (dims only) is IV + c, looking
    through affine.apply ops of one dim whose result is `d0 + c`; else None."""
    if depth > 8:
        return None
    if isinstance(expr, ir.AffineDimExpr):
        v = operands[ir.AffineDimExpr(expr).position]
        if _iv_owner(v) is not None:
            return v, 0
        owner, _ = mlir.value_owner(v)
        if owner is None or owner.name != "affine.apply":
            return None
        amap = mlir.affine_map_attr(owner, "map")
        if len(amap.results) != 1 or amap.n_symbols:
            return None
        return iv_plus_constant(amap.results[0], list(owner.operands), depth + 1)
    if isinstance(expr, ir.AffineAddExpr):
        add = ir.AffineAddExpr(expr)
        for x, y in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
            if isinstance(y, ir.AffineConstantExpr):
                inner = iv_plus_constant(x, operands, depth + 1)
                if inner is not None:
                    return inner[0], inner[1] + ir.AffineConstantExpr(y).value
    return None


def _uses_iv_inside(expr, operands: list[ir.Value], outer: ir.Operation) -> bool:
    """True iff `expr` reads (through affine.apply) the IV of a loop nested inside `outer`."""
    key = mlir.op_key(outer)
    work = [operands[d] for d in expr_dims(expr)]
    seen = 0
    while work and seen < 32:
        seen += 1
        v = work.pop()
        loop = _iv_owner(v)
        if loop is not None:
            p = loop.parent
            while p is not None:
                if mlir.op_key(p) == key:
                    return True
                p = p.parent
            continue
        owner, _ = mlir.value_owner(v)
        if owner is not None and owner.name == "affine.apply":
            work.extend(owner.operands)
    return False


_BINARY = (ir.AffineAddExpr, ir.AffineMulExpr, ir.AffineModExpr, ir.AffineFloorDivExpr, ir.AffineCeilDivExpr)


def expr_dims(expr) -> set[int]:
    """The dim positions an affine expression reads."""
    if isinstance(expr, ir.AffineDimExpr):
        return {ir.AffineDimExpr(expr).position}
    for cls in _BINARY:
        if isinstance(expr, cls):
            e = cls(expr)
            return expr_dims(e.lhs) | expr_dims(e.rhs)
    return set()


@dataclass(frozen=True)
class ColumnWalk:
    """A 1-D affine.vector_load of a 2-D buffer whose column is a loop's counter plus a constant,
    as a register tile reads B: `width` lanes from column `j + offset` of the row `row`."""

    width: int
    row: ir.AffineExpr
    operands: list
    j_loop: ir.Operation
    offset: int

    @property
    def step(self) -> int:
        return mlir.int_attr(self.j_loop, "step")

    def row_moves_inside(self) -> bool:
        """The row index uses a loop nested in the column loop (the reduction walks B's rows)."""
        return _uses_iv_inside(self.row, self.operands, self.j_loop)


def column_walk(load: ir.Operation) -> ColumnWalk | None:
    """The ColumnWalk of `load`, or None (another op, shape or index)."""
    if load.name != "affine.vector_load":
        return None
    t, vt = load.operands[0].type, load.results[0].type
    if not isinstance(t, ir.MemRefType) or len(t.shape) != 2 or not isinstance(vt, ir.VectorType) \
            or len(vt.shape) != 1:
        return None
    amap = mlir.affine_map_attr(load, "map")
    operands = list(load.operands)[1:]
    if amap.n_symbols or len(amap.results) != 2:
        return None
    col = iv_plus_constant(amap.results[1], operands)
    if col is None:
        return None
    return ColumnWalk(vt.shape[0], amap.results[0], operands, _iv_owner(col[0]), col[1])


def starts_on_panels(loop: ir.Operation, panel: int, depth: int = 0) -> bool:
    """True iff every value of `loop`'s induction variable is a multiple of `panel`: its step is a
    multiple of `panel` and its lower bound is either a constant multiple of `panel` or `I + c`, c a
    multiple of `panel` and I the induction variable of an enclosing loop whose every value is a
    multiple of `panel` (a cache tile's column block: `J` from `J0` to `J0 + NC` by P inside `J0`
    from 0 by NC, NC a multiple of P). The upper bound may be anything."""
    step = mlir.int_attr(loop, "step")
    lb = mlir.affine_map_attr(loop, "lowerBoundMap")
    if depth > 8 or step % panel or len(lb.results) != 1 or lb.n_symbols:
        return False
    expr = lb.results[0]
    if isinstance(expr, ir.AffineConstantExpr):
        return ir.AffineConstantExpr(expr).value % panel == 0
    start = iv_plus_constant(expr, list(loop.operands)[:lb.n_dims])
    if start is None or start[1] % panel:
        return False
    return starts_on_panels(_iv_owner(start[0]), panel, depth + 1)


def panel_load(load: ir.Operation, module_op: ir.Operation) -> PanelLoad | None:
    """The PanelLoad for one affine.vector_load (module doc), or None."""
    src_def, _ = mlir.value_owner(load.operands[0])
    if src_def is None or src_def.name != "memref.get_global":
        return None
    t = load.operands[0].type
    walk = column_walk(load)
    if not static_type(t) or walk is None:
        return None
    width, j_loop, offset, step = walk.width, walk.j_loop, walk.offset, walk.step
    if not starts_on_panels(j_loop, step) or not (0 <= offset and offset + width <= step <= MAX_PANEL):
        return None
    if t.shape[1] <= step or not walk.row_moves_inside():
        return None
    gop = constant_global(src_def, module_op)
    if gop is None:
        return None
    return PanelLoad(load, gop, j_loop, step, offset)


def plan_constant_panels(fn: ir.Operation) -> list[PanelLoad]:
    """Every PanelLoad of `fn` (module doc)."""
    module_op = enclosing_module(fn)
    if mlir.func_body(fn) is None or module_op is None:
        return []
    out = []
    for op in mlir.walk(fn):
        if op.name == "affine.vector_load":
            found = panel_load(op, module_op)
            if found is not None:
                out.append(found)
    return out
