"""`loopopt-sorts-to-loops`: torch-mlir's `tm_tensor.sort` (torch.sort, argsort, topk) as loops over
buffers.

torch-mlir lowers `torch.sort(x, d, descending)` (and `argsort`, and `topk` through a sort and a
slice) to `tm_tensor.sort dimension(d) outs(%values, %indices)`, an op of its own TMTensor dialect
that sorts its operands in place along dimension d, all of them permuted as the first one's
elements are ordered by the op's region, a comparator of (a, b) pairs of each operand. Neither
MLIR's bindings nor the lowering know it: such a graph ran eagerly (`cannot lower
'tm_tensor.sort'`).

Its meaning. TMTensor's scalar implementation is a bubble sort: N passes along each row of N
elements, each swapping the neighbours (a[j], a[j + 1]) of every operand where the comparator of
the first operand's pair is false. torch-mlir's comparator is `a <= b` (`arith.cmpf ole`, `cmpi
sle`; `>=`, `oge`/`sge`, descending): on numbers a total preorder, and neighbours that compare equal
are never swapped, so the passes end in the stable sort by it: each element's place is the number
of elements before it in that order, ties counting only when they came first. On a NaN the bubble
sort is not a sort (`NaN <= b` and `b <= NaN` are both false: every pass swaps a NaN with both its
neighbours, and where it ends depends on the pass count); eager's torch.sort orders NaN after every
number ascending and before every number descending, NaNs among themselves in their order
(a stable sort), which is what the graph means.

Rule. A sort of static shapes, every operand of the first one's shape, its region one comparison
`arith.cmpf ole|oge` or `arith.cmpi sle|sge|ule|uge` of the first operand's pair (block arguments
0 and 1) yielded, becomes, before bufferization, a helper spliced in its place: its operands read
through `bufferization.to_buffer ... read_only`, then for each row (affine loops over the other
dimensions) and each element i of it, its rank

    rank[i] = #{ j < i : a[j] <= a[i] } + #{ j > i : not a[i] <= a[j] }

(`<=` the comparator, for floats extended to NaN as eager orders it: ascending `a <= b or b is
NaN`, descending `a >= b or a is NaN`) counted in an i32 buffer by affine loops over j, then every
operand's element i stored at `rank[i]` of its fresh `memref.alloc` (returned through
`bufferization.to_tensor ... restrict writable`). The ranks of a row are a permutation of 0 .. N-1
(the order is total on the row's classes of equal elements, and equal elements are numbered in
their order), and each element lands where the stable sort puts it: TMTensor's result on every row
without a NaN, eager's with one; values and every other operand (the indices) alike.

The N^2 comparisons per row are meant for the short rows of a top-k (a router's 8 experts); a
row longer than MAX_ROW loses to eager's N log N sort (docs/cpu_codegen.md section 72: measured)
and is refused by name, as is any other sort (a dynamic size, a strict or other comparator, a
region reading another operand's pair, an i1 key: torch-mlir's signed compare of i1 puts true
first): `loopopt-check-input` refuses it (`cannot lower 'tm_tensor.sort'`; the graph runs
eagerly).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir
from .registry import register
from .splice import inline_helper

STEP = "loopopt-sorts-to-loops"
SORT = "tm_tensor.sort"
MAX_ROW = 128  # the longest row sorted by N^2 comparisons: 1.03x of eager at 128, 1.96x at 256 (section 72)

# arith's predicate numbers (CmpFPredicate, CmpIPredicate) of the comparators taken: each a
# non-strict order, ascending or descending.
FLOAT_PREDICATES = {5: ("ole", "ascending"), 3: ("oge", "descending")}
INT_PREDICATES = {3: ("sle", "ascending"), 5: ("sge", "descending"),
                  7: ("ule", "ascending"), 9: ("uge", "descending")}


@dataclass(frozen=True)
class SortShape:
    """The facts of one sort the helper is written from."""

    types: tuple  # the operands' ranked tensor types (all of one shape); the first holds the keys
    dimension: int  # the sorted dimension
    predicate: str  # the region's comparison: ole, oge, sle, sge, ule, uge
    order: str  # ascending or descending

    @property
    def row(self) -> int:
        """N: the number of elements sorted together."""
        return self.types[0].get_dim_size(self.dimension)

    @property
    def float_keys(self) -> bool:
        return self.predicate in ("ole", "oge")


def _memref(t: ir.RankedTensorType) -> str:
    return str(t).replace("tensor<", "memref<", 1)


def comparator(op: ir.Operation) -> tuple[str, str] | str:
    """(predicate, order) of the sort's region, or why it is not one taken."""
    block = op.regions[0].blocks[0]
    ops = list(block.operations)
    if len(ops) != 2 or ops[0].name not in ("arith.cmpf", "arith.cmpi"):
        return "its region is not one comparison"
    cmp, done = ops
    args = list(block.arguments)
    if len(cmp.operands) != 2 or cmp.operands[0] != args[0] or cmp.operands[1] != args[1]:
        return "its comparison is not of the first operand's pair (a, b)"
    if len(done.operands) != 1 or done.operands[0] != cmp.results[0]:
        return "its region does not yield its comparison"
    table = FLOAT_PREDICATES if cmp.name == "arith.cmpf" else INT_PREDICATES
    number = ir.IntegerAttr(cmp.attributes["predicate"]).value
    if number not in table:
        return "its comparison is not a non-strict order (<= or >=)"
    if cmp.name == "arith.cmpi" and ir.IntegerType(args[0].type).width == 1:
        return "its keys are i1 (torch-mlir's signed compare puts true before false)"
    return table[number]


def shape_of(op: ir.Operation) -> SortShape | str:
    """The sort's facts, or why it is not rewritten."""
    if len(op.operands) < 1 or len(op.operands) != len(op.results):
        return "not one result per operand"
    types = [o.type for o in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) for t in types):
        return "an operand is not a ranked tensor"
    ts = tuple(ir.RankedTensorType(t) for t in types)
    if not all(t.has_static_shape for t in ts):
        return "a dynamic size"
    if any(t.shape != ts[0].shape for t in ts) or [str(r.type) for r in op.results] != [str(t) for t in ts]:
        return "its operands and results are not of one shape"
    dim = ir.IntegerAttr(op.attributes["dimension"]).value
    if not 0 <= dim < ts[0].rank:
        return "no such dimension"
    if len(op.regions[0].blocks[0].arguments) != 2 * len(ts):
        return "its region does not take a pair of each operand"
    how = comparator(op)
    if isinstance(how, str):
        return how
    s = SortShape(ts, dim, *how)
    if s.row > MAX_ROW:
        return f"a row of {s.row} elements (longer than {MAX_ROW}: N^2 comparisons lose to eager's sort)"
    return s


def before_or_tie(s: SortShape, a: str, b: str, name: str) -> list[str]:
    """Ops computing `%{name}`: a comes before b or ties with it, in the sort's order (eager's
    place of NaN: after every number ascending, before every number descending)."""
    e = str(s.types[0].element_type)
    if not s.float_keys:
        return [f"%{name} = arith.cmpi {s.predicate}, {a}, {b} : {e}"]
    nan = b if s.order == "ascending" else a  # a NaN b follows anything ascending; a NaN a precedes anything descending
    return [f"%{name}_c = arith.cmpf {s.predicate}, {a}, {b} : {e}",
            f"%{name}_n = arith.cmpf uno, {nan}, {nan} : {e}",
            f"%{name} = arith.ori %{name}_c, %{name}_n : i1"]


def helper_text(s: SortShape) -> str:
    """The helper function (module docstring) for a sort of shape `s`; its body ends in `return`."""
    ts, d = s.types, s.dimension
    rank = ts[0].rank
    ms = [_memref(t) for t in ts]
    mr = "memref<" + "x".join(str(ts[0].get_dim_size(k)) for k in range(rank)) + "xi32>"
    iv = [f"%d{k}" for k in range(rank)]

    def at(v: str) -> str:
        return ", ".join(v if k == d else iv[k] for k in range(rank))

    body = [f"%m{k} = bufferization.to_buffer %a{k} read_only : {t} to {m}" for k, (t, m) in enumerate(zip(ts, ms))]
    body += [f"%o{k} = memref.alloc() : {m}" for k, m in enumerate(ms)]
    body += [f"%rank = memref.alloc() : {mr}", "%zero = arith.constant 0 : i32", "%true = arith.constant true"]
    m0 = ms[0]
    count = ([f"%y = affine.load %m0[{at('%j')}] : {m0}"]
             + before_or_tie(s, "%y", "%x", "yx") + before_or_tie(s, "%x", "%y", "xy")
             + ["%first = arith.cmpi ult, %j, %i : index",  # j before i: a tie counts; after: only a strictly earlier one
                "%strict = arith.xori %xy, %true : i1",
                "%counts = arith.select %first, %yx, %strict : i1",
                "%c = arith.extui %counts : i1 to i32",
                f"%r = affine.load %rank[{at('%i')}] : {mr}",
                "%r1 = arith.addi %r, %c : i32",
                f"affine.store %r1, %rank[{at('%i')}] : {mr}"])
    place = [f"%rk = affine.load %rank[{at('%i')}] : {mr}", "%p = arith.index_cast %rk : i32 to index"]
    for k, m in enumerate(ms):
        place += [f"%v{k} = affine.load %m{k}[{at('%i')}] : {m}", f"memref.store %v{k}, %o{k}[{at('%p')}] : {m}"]
    element = ([f"affine.store %zero, %rank[{at('%i')}] : {mr}", f"%x = affine.load %m0[{at('%i')}] : {m0}",
                f"affine.for %j = 0 to {s.row} {{"] + count + ["}"] + place)
    nest = [f"affine.for %i = 0 to {s.row} {{"] + element + ["}"]
    outer = [k for k in range(rank) if k != d]
    body += [f"affine.for {iv[k]} = 0 to {ts[0].get_dim_size(k)} {{" for k in outer] + nest + ["}"] * len(outer)
    body += [f"%res{k} = bufferization.to_tensor %o{k} restrict writable : {m} to {t}"
             for k, (t, m) in enumerate(zip(ts, ms))]
    types = ", ".join(str(t) for t in ts)
    body.append(f"func.return {', '.join(f'%res{k}' for k in range(len(ts)))} : {types}")
    params = ", ".join(f"%a{k}: {t}" for k, t in enumerate(ts))
    return f"func.func private @sort({params}) -> ({types}) {{\n  " + "\n  ".join(body) + "\n}"


def _splice(op: ir.Operation, helper: ir.Module) -> None:
    """The helper's body in place of the sort, on its operands; the sort's results replaced by the
    helper's."""
    for result, value in zip(op.results, inline_helper(op, helper, tuple(op.operands))):
        result.replace_all_uses_with(value)
    op.erase()


def sorts_to_loops(module: ir.Module, filename: str) -> list[str]:
    notes = []
    for op in [o for o in mlir.walk(module.operation) if o.name == SORT]:
        where = f"{SORT} at {mlir.location_of(op, filename)}"
        s = shape_of(op)
        if isinstance(s, str):
            notes.append(f"kept: {where}: {s}")
            continue
        _splice(op, ir.Module.parse(helper_text(s), op.context))
        notes.append(f"loops: {where} ({s.order}, rows of {s.row})")
    return notes


@register(STEP, "torch-mlir's tm_tensor.sort (torch.sort, argsort, topk) as loops over buffers: each "
                "element stored at its rank in the stable order of the sort's comparator")
def sorts_to_loops_step(module: ir.Module, filename: str) -> str:
    return "; ".join(sorts_to_loops(module, filename))
