"""`loopopt-scatters-to-loops`: torch-mlir's `tm_tensor.scatter` (index_add, scatter_add, scatter,
index_put) as loops over buffers.

torch-mlir lowers `out.index_add_(0, index, src)`, `scatter_add`, `scatter` and `index_put` to
`tm_tensor.scatter {dimension_map = [..]} ins(%updates, %indices) outs(%original)`, an op of its
own TMTensor dialect, which neither MLIR's bindings nor the lowering know: such a graph ran eagerly
(`cannot lower 'tm_tensor.scatter'`). Its meaning (TMTensor's own scalar implementation), with
updates of shape (B, u1 .. uk), indices of shape (B, D), an original of rank R, f the op's region
with block arguments (update, original element):

    for (b, j1 .. jk) in updates' shape, in order:
        p[R - k + m] = j_m                       (the update's own dims, aligned right)
        p[dimension_map[d]] += indices[b, d]     (d = 0 .. D - 1)
        original[p] = f(updates[b, j1 .. jk], original[p])

TMTensor leaves a negative index undefined; torch-mlir passes index_put's indices unchanged, and
eager's index_put counts a negative index from the end of its dimension.

Rule. A scatter of static shapes, indices of rank 2 and an integer type, every dimension of the
original either an update's own or named by the dimension map, a region of ops without regions,
becomes, before bufferization, a helper spliced in its place: its operands read through
`bufferization.to_buffer ... read_only`, the original copied element by element into a fresh
`memref.alloc` (returned through `bufferization.to_tensor ... restrict writable`), then affine
loops over the updates' shape computing each position p as above, a negative index first taken
from the end of its dimension (index + size, eager's index_put), and, where every coordinate of p
lies in [0, size) of its dimension, the region's ops (moved there, in order) on the update and
`out[p]`, stored at `out[p]`. Each element of the original receives the same updates in the same
order as TMTensor's loops: exact (eager's index_add adds in the same order of the index). A
position outside the original is skipped (eager raises for it; a store there would write outside
the buffer); so is a negative index of scatter or index_add, for which eager raises, taken from
the end.

Another scatter (a dynamic size, an original dimension neither an update's nor mapped, a region
holding a region) is left for `loopopt-check-input`, which refuses it by name (the graph runs
eagerly).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir
from .registry import register
from .splice import splice_helper

STEP = "loopopt-scatters-to-loops"
SCATTER = "tm_tensor.scatter"
COMBINE = "loopopt.scatter_combine"  # the placeholder the region's ops replace


@dataclass(frozen=True)
class ScatterShape:
    """The facts of one scatter the helper is written from."""

    updates: ir.RankedTensorType
    indices: ir.RankedTensorType
    original: ir.RankedTensorType
    dimension_map: tuple

    @property
    def own_offset(self) -> int:
        """The first original dimension an update's own dimension (j1) lands on."""
        return self.original.rank - (self.updates.rank - 1)


def _memref(t: ir.RankedTensorType) -> str:
    return str(t).replace("tensor<", "memref<", 1)


def _dimension_map(op: ir.Operation) -> tuple:
    return tuple(int(v) for v in ir.DenseI64ArrayAttr(op.attributes["dimension_map"]))


def shape_of(op: ir.Operation) -> ScatterShape | str:
    """The scatter's facts, or why it is not rewritten."""
    if len(op.operands) != 3 or len(op.results) != 1:
        return "not two inputs, one output and one result"
    types = [o.type for o in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) for t in types):
        return "an operand is not a ranked tensor"
    u, i, o = (ir.RankedTensorType(t) for t in types)
    if not (u.has_static_shape and i.has_static_shape and o.has_static_shape):
        return "a dynamic size"
    if i.rank != 2 or not isinstance(i.element_type, ir.IntegerType):
        return "the indices are not a matrix of integers"
    if u.rank < 1 or u.get_dim_size(0) != i.get_dim_size(0) or u.rank - 1 > o.rank:
        return "the updates' shape does not match the indices' and the original's"
    if str(u.element_type) != str(o.element_type) or str(op.results[0].type) != str(o):
        return "the updates, the original and the result are not of one element type"
    if "dimension_map" not in op.attributes:
        return "no dimension map"
    dims = _dimension_map(op)
    s = ScatterShape(u, i, o, dims)
    if len(dims) != i.get_dim_size(1) or any(not 0 <= d < o.rank for d in dims):
        return "the dimension map does not name one original dimension per index"
    if any(d < s.own_offset and d not in dims for d in range(o.rank)):
        return "an original dimension is neither an update's nor mapped"
    block = op.regions[0].blocks[0]
    if len(block.arguments) != 2 or any(x.regions for x in block.operations):
        return "its region is not two arguments and ops without regions"
    return s


def helper_text(s: ScatterShape) -> str:
    """The helper function (module docstring) for a scatter of shape `s`; its body ends in `return`."""
    u, i, o = s.updates, s.indices, s.original
    e = str(o.element_type)
    mu, mi, mo = _memref(u), _memref(i), _memref(o)
    body = [f"%u_m = bufferization.to_buffer %upd read_only : {u} to {mu}",
            f"%i_m = bufferization.to_buffer %idx read_only : {i} to {mi}",
            f"%o_m = bufferization.to_buffer %orig read_only : {o} to {mo}",
            "%c0 = arith.constant 0 : index",
            f"%out = memref.alloc() : {mo}"]
    ov = [f"%o{k}" for k in range(o.rank)]
    copy = [f"%x = affine.load %o_m[{', '.join(ov)}] : {mo}", f"affine.store %x, %out[{', '.join(ov)}] : {mo}"]
    body += ([f"affine.for {ov[k]} = 0 to {o.get_dim_size(k)} {{" for k in range(o.rank)] + copy
             + ["}"] * o.rank)
    uv = [f"%u{k}" for k in range(u.rank)]
    inner = []
    start: dict[int, str] = {s.own_offset + m: uv[1 + m] for m in range(u.rank - 1)}
    checked = []
    for d, dim in enumerate(s.dimension_map):
        inner += [f"%k{d} = affine.load %i_m[{uv[0]}, {d}] : {mi}",
                  f"%x{d} = arith.index_cast %k{d} : {i.element_type} to index",
                  f"%neg{d} = arith.cmpi slt, %x{d}, %c0 : index",  # index_put's negative index counts from the end
                  f"%size{d} = arith.constant {o.get_dim_size(dim)} : index",
                  f"%end{d} = arith.addi %x{d}, %size{d} : index",
                  f"%y{d} = arith.select %neg{d}, %end{d}, %x{d} : index"]
        if dim in start:
            inner.append(f"%p{d} = arith.addi %y{d}, {start[dim]} : index")
            start[dim] = f"%p{d}"
        else:
            start[dim] = f"%y{d}"
        checked.append(dim)
    oks = []
    for n, dim in enumerate(sorted(set(checked))):
        inner += [f"%n{n} = arith.constant {o.get_dim_size(dim)} : index",
                  f"%ge{n} = arith.cmpi sge, {start[dim]}, %c0 : index",
                  f"%lt{n} = arith.cmpi slt, {start[dim]}, %n{n} : index",
                  f"%in{n} = arith.andi %ge{n}, %lt{n} : i1"]
        oks.append(f"%in{n}")
    for n in range(1, len(oks)):
        inner.append(f"%all{n} = arith.andi {oks[n - 1] if n == 1 else f'%all{n - 1}'}, {oks[n]} : i1")
    ok = oks[0] if len(oks) == 1 else f"%all{len(oks) - 1}"
    p = ", ".join(start[k] for k in range(o.rank))
    inner += [f"scf.if {ok} {{",
              f"  %v = affine.load %u_m[{', '.join(uv)}] : {mu}",
              f"  %w = memref.load %out[{p}] : {mo}",
              f'  %r = "{COMBINE}"(%v, %w) : ({e}, {e}) -> {e}',
              f"  memref.store %r, %out[{p}] : {mo}",
              "}"]
    body += ([f"affine.for {uv[k]} = 0 to {u.get_dim_size(k)} {{" for k in range(u.rank)] + inner
             + ["}"] * u.rank)
    body.append(f"%res = bufferization.to_tensor %out restrict writable : {mo} to {o}")
    body.append(f"func.return %res : {o}")
    return (f"func.func private @scatter(%upd: {u}, %idx: {i}, %orig: {o}) -> {o} {{\n  "
            + "\n  ".join(body) + "\n}")


def _splice(op: ir.Operation, helper: ir.Module) -> None:
    """The helper's body in place of the scatter, on its operands; the region's ops moved in place
    of the placeholder, on (update, original element)."""
    returned = splice_helper(op, helper, tuple(op.operands), COMBINE)
    op.results[0].replace_all_uses_with(returned[0])
    op.erase()


def scatters_to_loops(module: ir.Module, filename: str) -> list[str]:
    notes = []
    for op in [o for o in mlir.walk(module.operation) if o.name == SCATTER]:
        where = f"{SCATTER} at {mlir.location_of(op, filename)}"
        s = shape_of(op)
        if isinstance(s, str):
            notes.append(f"kept: {where}: {s}")
            continue
        _splice(op, ir.Module.parse(helper_text(s), op.context))
        notes.append(f"loops: {where}")
    return notes


@register(STEP, "torch-mlir's tm_tensor.scatter (index_add, scatter_add, index_put) as loops over "
                "buffers, each element updated in the order TMTensor's loops update it")
def scatters_to_loops_step(module: ir.Module, filename: str) -> str:
    return "; ".join(scatters_to_loops(module, filename))
