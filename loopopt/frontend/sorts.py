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
through `bufferization.to_buffer ... read_only`, its results written into fresh `memref.alloc`s
(returned through `bufferization.to_tensor ... restrict writable`) by affine loops over the other
dimensions (the rows) around one of three plans of a row, each ordering by `<=`, the comparator,
for floats extended to NaN as eager orders it (ascending `a <= b or b is NaN`, descending
`a >= b or a is NaN`): a total preorder, and each plan puts every element where the stable sort
by it puts it: TMTensor's result on every row without a NaN, eager's with one; values and every
other operand (the indices) alike.

* ranks (rows of at most MAX_ROW): each element i's rank

      rank[i] = #{ j < i : a[j] <= a[i] } + #{ j > i : not a[i] <= a[j] }

  counted in an i32 buffer by a loop over j, then every operand's element i stored at `rank[i]`.
  The ranks of a row are a permutation of 0 .. N-1 (equal elements numbered in their order).
* select (a longer row of which only the first k <= MAX_SELECT are read: every use of every result
  a `tensor.extract_slice` of the first k along d, as torch-mlir writes topk): a buffer of the k
  first keys and their positions, sorted; each element x of the row, in order, enters it when the
  buffer is not yet full or x is strictly before its last (`not last <= x`: a later equal element
  never displaces an earlier one), at the place `#{ b in buffer : b <= x }`, the elements after it
  moved one on (the last dropped). The buffer holds the first k of the stable order at every
  step; the results are k long along d, and the slices read them.
* merge (a longer row, at most MAX_MERGE): the row's runs of RUN (16) sorted into the first of a
  pair of row buffers of keys and i32 positions, each element stored at its rank within its run
  (counted as above, over the run); then stages log2 RUN .. ceil(log2 N) - 1, stage s merging the
  runs [b, b + w) and [b + w, b + 2w) (w = 2^s) of buffer s mod 2 into the other: one loop of
  ceil(N / 2) steps, step t of a run pair writing its output b + t from the pair's front and its
  output end - 1 - t from its back, each with two cursors carried (reset at the pair's first
  step). The front takes the first run's element where that run is not exhausted and either the
  second is or `a <= b` (ties from the first run); the back takes the second run's last where it
  is not exhausted and either the first is or `a <= b` (ties: the second run's goes last): both
  stable, and on a pair of odd length the last step's front and back are the same element at the
  same output. Cursors' loads clamped into the row, every choice an index select (the key loaded
  again at it): no branch, and two independent chains a step. The runs are sorted after every
  stage; the last stage's positions p give every operand's element p, in order.

The buffers (ranks, select's k keys and positions, merge's two rows of keys and positions) are one
row's, reused for every row; no loop is unrolled: the IR does not grow with N.

Any other sort (a dynamic size, a strict or other comparator, a region reading another operand's
pair, an i1 key: torch-mlir's signed compare of i1 puts true first; a row longer than MAX_MERGE) is
refused by name: the step stops the lowering (`cannot lower 'tm_tensor.sort': <why>`; the graph
runs eagerly, its fallback warning naming why).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import mlir
from ..mlir import ir
from .registry import register
from .rewrites import cannot_lower
from .splice import inline_helper

STEP = "loopopt-sorts-to-loops"
SORT = "tm_tensor.sort"
SLICE = "tensor.extract_slice"
DECISION_SEPARATOR = "; "
PASSED_REMARK = "[SORT AS LOOPS] tm_tensor.sort written as loops in the stable order"
MISSED_REMARK = "[STOP SORT AS LOOPS] tm_tensor.sort is not written as loops"  # (a refusal stops the lowering)
MAX_ROW = 128  # ranks: the longest row sorted by N^2 comparisons (1.03x of eager at 128, 1.96x at 256; section 72)
MAX_SELECT = 256  # select: the largest k of a top-k kept in a sorted buffer of k (section 79)
RUN = 16  # merge: the runs its first pass sorts by ranks (a power of two; MAX_ROW > RUN)
MAX_MERGE = 1 << 22  # merge: the longest row merged (its buffers: 2 x N keys and 2 x N i32 positions)

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
    first: int | None = None  # k when only the first k along the dimension are read (every use a slice of them)
    positions: frozenset = frozenset()  # operands (not the keys) that hold each element's own position along the dimension
    unused: frozenset = frozenset()  # results nothing reads (argsort's values): not written

    @property
    def row(self) -> int:
        """N: the number of elements sorted together."""
        return self.types[0].get_dim_size(self.dimension)

    @property
    def float_keys(self) -> bool:
        return self.predicate in ("ole", "oge")

    @property
    def plan(self) -> str:
        """ranks (a row of at most MAX_ROW), select (the first k <= MAX_SELECT of a longer row read),
        merge (any other longer row)."""
        if self.row <= MAX_ROW:
            return "ranks"
        if self.first is not None and self.first <= MAX_SELECT:
            return "select"
        return "merge"

    @property
    def stages(self) -> int:
        """The merge's stages: ceil(log2 N)."""
        return (self.row - 1).bit_length()

    @property
    def kept(self) -> int:
        """The results' length along the dimension: k for select, N otherwise."""
        return self.first if self.plan == "select" else self.row


def _memref(t: ir.RankedTensorType) -> str:
    return str(t).replace("tensor<", "memref<", 1)


def _shape_text(t: ir.RankedTensorType, dim: int, size: int, element: str | None = None) -> str:
    """`t`'s shape with `size` at `dim`, as `AxBx..xE` (E `element` or t's element type)."""
    dims = [size if k == dim else t.get_dim_size(k) for k in range(t.rank)]
    return "x".join(map(str, dims)) + "x" + (element or str(t.element_type))


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


def first_read(op: ir.Operation, dim: int) -> int | None:
    """k when every use of every result of the sort is a static `tensor.extract_slice` of its first
    k along `dim` (offsets 0, strides 1, every other dimension whole), the largest k of them; None
    when a use is anything else (or nothing is used)."""
    shape = list(ir.RankedTensorType(op.results[0].type).shape)
    ks = []
    for result in op.results:
        for use in result.uses:
            user = mlir.operation(use.owner)
            if user.name != SLICE or len(user.operands) != 1:
                return None
            offsets, sizes, strides = (list(ir.DenseI64ArrayAttr(user.attributes[f"static_{n}"]))
                                       for n in ("offsets", "sizes", "strides"))
            if any(offsets) or any(x != 1 for x in strides) or len(sizes) != len(shape) \
                    or any(sizes[k] != shape[k] for k in range(len(shape)) if k != dim) \
                    or not 0 < sizes[dim] <= shape[dim] \
                    or list(ir.RankedTensorType(user.results[0].type).shape) != sizes:
                return None
            ks.append(sizes[dim])
    return max(ks) if ks else None


def holds_positions(value: ir.Value, dim: int) -> bool:
    """True iff `value` is a `linalg.generic` of no inputs whose element at [.., j, ..] is j (its
    identity output map, its body `linalg.index dim`, `arith.index_cast`, `linalg.yield`): the
    positions torch-mlir sorts beside the keys. The merge and select plans then write a position
    where they would gather this operand's element at it, and the generic is left unused."""
    owner = value.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)):
        return False
    gen = mlir.operation(owner)
    if gen.name != "linalg.generic" or len(gen.operands) != 1 or len(gen.results) != 1:
        return False
    maps = list(ir.ArrayAttr(gen.attributes["indexing_maps"]))
    rank = ir.RankedTensorType(value.type).rank
    if len(maps) != 1 or ir.AffineMapAttr(maps[0]).value != ir.AffineMap.get_identity(rank, context=gen.context):
        return False
    ops = list(gen.regions[0].blocks[0].operations)
    if [o.name for o in ops] != ["linalg.index", "arith.index_cast", "linalg.yield"]:
        return False
    index, cast, done = ops
    return (ir.IntegerAttr(index.attributes["dim"]).value == dim and cast.operands[0] == index.results[0]
            and done.operands[0] == cast.results[0] and isinstance(cast.results[0].type, ir.IntegerType)
            and ir.IntegerType(cast.results[0].type).width >= 32)


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
    positions = frozenset(k for k in range(1, len(ts)) if holds_positions(op.operands[k], dim))
    unused = frozenset(k for k, r in enumerate(op.results) if next(iter(r.uses), None) is None)
    s = SortShape(ts, dim, *how, first_read(op, dim), positions, unused)
    if s.plan == "merge" and s.row > MAX_MERGE:
        return (f"a row of {s.row} elements (longer than {MAX_MERGE}: the merge's two row buffers of keys "
                f"and positions would exceed {MAX_MERGE * 2 * 8 >> 20} MiB)")
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


def counted(s: SortShape) -> list[str]:
    """Ops computing `%counts`: element j (key %y) comes before element i (key %x) in the stable
    order: a j before i where y <= x (a tie counts), a j after i only where not x <= y."""
    return (before_or_tie(s, "%y", "%x", "yx") + before_or_tie(s, "%x", "%y", "xy")
            + ["%first = arith.cmpi ult, %j, %i : index",
               "%strict = arith.xori %xy, %true : i1",
               "%counts = arith.select %first, %yx, %strict : i1"])


def _indexer(s: SortShape):
    """at(v): the subscripts of a row's element v (the row loops' ivs %d<k> elsewhere)."""
    rank, d = s.types[0].rank, s.dimension
    return lambda v: ", ".join(v if k == d else f"%d{k}" for k in range(rank))


def rank_row(s: SortShape, ms: list[str]) -> tuple[list[str], list[str]]:
    """(buffers, one row's ops) of the ranks plan: each element stored at its rank, counted."""
    at, m0 = _indexer(s), ms[0]
    mr = f"memref<{_shape_text(s.types[0], s.dimension, s.row, 'i32')}>"
    buffers = [f"%rank = memref.alloc() : {mr}"]
    count = ([f"%y = affine.load %m0[{at('%j')}] : {m0}"] + counted(s)
             + ["%c = arith.extui %counts : i1 to i32",
                f"%r = affine.load %rank[{at('%i')}] : {mr}",
                "%r1 = arith.addi %r, %c : i32",
                f"affine.store %r1, %rank[{at('%i')}] : {mr}"])
    place = [f"%rk = affine.load %rank[{at('%i')}] : {mr}", "%p = arith.index_cast %rk : i32 to index"]
    for k, m in [(k, m) for k, m in enumerate(ms) if k not in s.unused]:
        place += [f"%v{k} = affine.load %m{k}[{at('%i')}] : {m}", f"memref.store %v{k}, %o{k}[{at('%p')}] : {m}"]
    element = ([f"affine.store %zero, %rank[{at('%i')}] : {mr}", f"%x = affine.load %m0[{at('%i')}] : {m0}",
                f"affine.for %j = 0 to {s.row} {{"] + count + ["}"] + place)
    return buffers, [f"affine.for %i = 0 to {s.row} {{"] + element + ["}"]


def _gathered(s: SortShape, k: int, m: str, where: str) -> str:
    """`%v<k>`: operand k's element at `where` (its position %qi along the dimension), or that
    position itself where the operand holds positions (`holds_positions`)."""
    if k in s.positions:
        return f"%v{k} = arith.index_cast %qi : index to {s.types[k].element_type}"
    return f"%v{k} = memref.load %m{k}[{where}] : {m}"


def select_row(s: SortShape, ms: list[str], os: list[str]) -> tuple[list[str], list[str]]:
    """(buffers, one row's ops) of the select plan: the first k of the stable order kept sorted in a
    buffer of k keys and positions, each element entering it at its place when it is before the last."""
    at, m0, k, e = _indexer(s), ms[0], s.first, str(s.types[0].element_type)
    kb, pb = f"memref<{k}x{e}>", f"memref<{k}xi32>"
    buffers = [f"%best = memref.alloc() : {kb}", f"%bestpos = memref.alloc() : {pb}", f"%cfirst = arith.constant {k} : index"]
    row = [f"%x0 = affine.load %m0[{at('0')}] : {m0}",  # the buffer filled with a key of the row: never read before it is set
           f"affine.for %j = 0 to {k} {{",
           f"affine.store %x0, %best[%j] : {kb}", f"affine.store %zero, %bestpos[%j] : {pb}", "}",
           f"affine.for %i = 0 to {s.row} {{",
           f"%x = affine.load %m0[{at('%i')}] : {m0}",
           f"%last = affine.load %best[{k - 1}] : {kb}"]
    row += before_or_tie(s, "%last", "%x", "lx")
    row += ["%beats = arith.xori %lx, %true : i1",  # x strictly before the last kept: a later tie never displaces it
            "%filling = arith.cmpi ult, %i, %cfirst : index",
            "%enter = arith.ori %filling, %beats : i1",
            "scf.if %enter {",
            f"%n = affine.min affine_map<(d0) -> (d0, {k})>(%i)",
            f"%place = affine.for %j = 0 to {k} iter_args(%acc = %c0) -> (index) {{",
            f"%y = affine.load %best[%j] : {kb}"]
    row += before_or_tie(s, "%y", "%x", "yx")
    row += ["%held = arith.cmpi ult, %j, %n : index",
            "%counts = arith.andi %yx, %held : i1",
            "%one = arith.select %counts, %c1, %c0 : index",
            "%acc1 = arith.addi %acc, %one : index",
            "affine.yield %acc1 : index", "}",
            "%xi = arith.index_cast %i : index to i32",
            # from the last down to 1: the element before moved on where past the place, x at the place
            f"affine.for %t = 0 to {k - 1} {{",
            f"%j = affine.apply affine_map<(d0) -> ({k - 1} - d0)>(%t)",
            f"%prev = affine.load %best[-%t + {k - 2}] : {kb}",
            f"%prevpos = affine.load %bestpos[-%t + {k - 2}] : {pb}",
            f"%cur = affine.load %best[-%t + {k - 1}] : {kb}",
            f"%curpos = affine.load %bestpos[-%t + {k - 1}] : {pb}",
            "%after = arith.cmpi ugt, %j, %place : index",
            "%at = arith.cmpi eq, %j, %place : index",
            f"%kept = arith.select %at, %x, %cur : {e}",
            "%keptpos = arith.select %at, %xi, %curpos : i32",
            f"%new = arith.select %after, %prev, %kept : {e}",
            "%newpos = arith.select %after, %prevpos, %keptpos : i32",
            f"affine.store %new, %best[-%t + {k - 1}] : {kb}",
            f"affine.store %newpos, %bestpos[-%t + {k - 1}] : {pb}", "}",
            "%front = arith.cmpi eq, %place, %c0 : index",
            f"%b0 = affine.load %best[0] : {kb}",
            f"%p0 = affine.load %bestpos[0] : {pb}",
            f"%nb0 = arith.select %front, %x, %b0 : {e}",
            "%np0 = arith.select %front, %xi, %p0 : i32",
            f"affine.store %nb0, %best[0] : {kb}",
            f"affine.store %np0, %bestpos[0] : {pb}",
            "}", "}"]
    row += [f"affine.for %t = 0 to {k} {{", f"%q = affine.load %bestpos[%t] : {pb}",
            "%qi = arith.index_cast %q : i32 to index"]
    for n, (m, o) in [(n, mo) for n, mo in enumerate(zip(ms, os)) if n not in s.unused]:
        row += [_gathered(s, n, m, at('%qi')), f"affine.store %v{n}, %o{n}[{at('%t')}] : {o}"]
    return buffers, row + ["}"]


def merge_row(s: SortShape, ms: list[str]) -> tuple[list[str], list[str]]:
    """(buffers, one row's ops) of the merge plan: the row's keys and positions merged in
    ceil(log2 N) stages between two row buffers, then every operand gathered at the positions."""
    at, m0, n, e = _indexer(s), ms[0], s.row, str(s.types[0].element_type)
    kb, pb = f"memref<2x{n}x{e}>", f"memref<2x{n}xi32>"
    buffers = [f"%keys = memref.alloc() : {kb}", f"%pos = memref.alloc() : {pb}",
               f"%cn = arith.constant {n} : index", f"%clast = arith.constant {n - 1} : index"]
    block = f"(d0 floordiv {RUN}) * {RUN}"
    row = [f"affine.for %i = 0 to {n} {{",  # runs of RUN sorted by ranks counted within them
           f"%x = affine.load %m0[{at('%i')}] : {m0}",
           f"%rk = affine.for %j = affine_map<(d0) -> ({block})>(%i) to min affine_map<(d0) -> ({block} + {RUN}, {n})>(%i)"
           " iter_args(%acc = %c0) -> (index) {",
           f"%y = affine.load %m0[{at('%j')}] : {m0}"]
    row += counted(s)
    row += ["%one = arith.select %counts, %c1, %c0 : index",
            "%acc1 = arith.addi %acc, %one : index",
            "affine.yield %acc1 : index", "}",
            f"%run = affine.apply affine_map<(d0) -> ({block})>(%i)",
            "%to = arith.addi %run, %rk : index",
            f"memref.store %x, %keys[%c0, %to] : {kb}",
            "%xi = arith.index_cast %i : index to i32",
            f"memref.store %xi, %pos[%c0, %to] : {pb}", "}",
            f"affine.for %s = {RUN.bit_length() - 1} to {s.stages} {{",
           "%src = affine.apply affine_map<(d0) -> (d0 mod 2)>(%s)",
           "%dst = affine.apply affine_map<(d0) -> ((d0 + 1) mod 2)>(%s)",
           "%w = arith.shli %c1, %s : index",  # the runs' length: 2^s
           "%wmask = arith.subi %w, %c1 : index",
           # step h of the pair (h floordiv w): its front output base + t and its back output end - 1 - t
           f"%cur:4 = affine.for %h = 0 to {(n + 1) // 2} iter_args(%ia = %c0, %ib = %c0, %ja = %c0, %jb = %c0)"
           " -> (index, index, index, index) {",
           "%t = arith.andi %h, %wmask : index",
           "%ht = arith.subi %h, %t : index",
           "%base = arith.addi %ht, %ht : index",  # the run pair's start
           "%start = arith.cmpi eq, %t, %c0 : index",
           "%mid0 = arith.addi %base, %w : index",
           "%mid = arith.minsi %mid0, %cn : index",  # the first run's end, the second's start
           "%end0 = arith.addi %mid0, %w : index",
           "%end = arith.minsi %end0, %cn : index",
           # the front: the first of what is left, a tie taken from the first run (stable)
           "%at_a = arith.select %start, %base, %ia : index",
           "%at_b = arith.select %start, %mid, %ib : index",
           "%ac = arith.minsi %at_a, %clast : index",
           "%bc = arith.minsi %at_b, %clast : index",
           f"%xa = memref.load %keys[%src, %ac] : {kb}",
           f"%xb = memref.load %keys[%src, %bc] : {kb}"]
    row += before_or_tie(s, "%xa", "%xb", "ab")
    row += ["%has_a = arith.cmpi slt, %at_a, %mid : index",
            "%has_b = arith.cmpi slt, %at_b, %end : index",
            "%no_b = arith.xori %has_b, %true : i1",
            "%a_first = arith.ori %no_b, %ab : i1",
            "%take_a = arith.andi %has_a, %a_first : i1",
            "%from = arith.select %take_a, %ac, %bc : index",  # an index chosen, the key loaded again: a
            f"%key = memref.load %keys[%src, %from] : {kb}",     # select of floats is a branch on x86
            f"%p = memref.load %pos[%src, %from] : {pb}",
            "%front = arith.addi %base, %t : index",
            f"memref.store %key, %keys[%dst, %front] : {kb}",
            f"memref.store %p, %pos[%dst, %front] : {pb}",
            "%next_a = arith.addi %at_a, %c1 : index",
            "%next_b = arith.addi %at_b, %c1 : index",
            "%ia1 = arith.select %take_a, %next_a, %at_a : index",
            "%ib1 = arith.select %take_a, %at_b, %next_b : index",
            # the back: the last of what is left, a tie taken from the second run (stable)
            "%mid1 = arith.subi %mid, %c1 : index",
            "%end1 = arith.subi %end, %c1 : index",
            "%la = arith.select %start, %mid1, %ja : index",
            "%lb = arith.select %start, %end1, %jb : index",
            "%lac = arith.maxsi %la, %c0 : index",
            "%lbc = arith.maxsi %lb, %c0 : index",
            f"%ya = memref.load %keys[%src, %lac] : {kb}",
            f"%yb = memref.load %keys[%src, %lbc] : {kb}"]
    row += before_or_tie(s, "%ya", "%yb", "yab")
    row += ["%has_la = arith.cmpi sge, %la, %base : index",
            "%has_lb = arith.cmpi sge, %lb, %mid : index",
            "%no_la = arith.xori %has_la, %true : i1",
            "%b_last = arith.ori %no_la, %yab : i1",
            "%take_b = arith.andi %has_lb, %b_last : i1",
            "%from_back = arith.select %take_b, %lbc, %lac : index",
            f"%key_back = memref.load %keys[%src, %from_back] : {kb}",
            f"%p_back = memref.load %pos[%src, %from_back] : {pb}",
            "%back = arith.subi %end1, %t : index",  # on a pair of odd length the last step's back is its front: the same element
            f"memref.store %key_back, %keys[%dst, %back] : {kb}",
            f"memref.store %p_back, %pos[%dst, %back] : {pb}",
            "%prev_a = arith.subi %la, %c1 : index",
            "%prev_b = arith.subi %lb, %c1 : index",
            "%ja1 = arith.select %take_b, %la, %prev_a : index",
            "%jb1 = arith.select %take_b, %prev_b, %lb : index",
            "affine.yield %ia1, %ib1, %ja1, %jb1 : index, index, index, index", "}", "}"]
    final = s.stages % 2
    row += [f"affine.for %t = 0 to {n} {{", f"%q = affine.load %pos[{final}, %t] : {pb}",
            "%qi = arith.index_cast %q : i32 to index"]
    for k, m in [(k, m) for k, m in enumerate(ms) if k not in s.unused]:
        row += [_gathered(s, k, m, at('%qi')), f"affine.store %v{k}, %o{k}[{at('%t')}] : {m}"]
    return buffers, row + ["}"]


def helper_text(s: SortShape) -> str:
    """The helper function (module docstring) for a sort of shape `s`; its body ends in `return`."""
    ts, d = s.types, s.dimension
    rank = ts[0].rank
    ms = [_memref(t) for t in ts]
    outs = [f"tensor<{_shape_text(t, d, s.kept)}>" for t in ts]
    os = [o.replace("tensor<", "memref<", 1) for o in outs]
    written = s.positions if s.plan != "ranks" else frozenset()  # operands the plan writes, never reads
    s = SortShape(s.types, s.dimension, s.predicate, s.order, s.first, written, s.unused)
    body = [f"%m{k} = bufferization.to_buffer %a{k} read_only : {t} to {m}"
            for k, (t, m) in enumerate(zip(ts, ms)) if k not in written]
    body += [f"%o{k} = memref.alloc() : {o}" for k, o in enumerate(os) if k not in s.unused]
    if s.plan == "ranks":
        buffers, row = rank_row(s, ms)
    elif s.plan == "select":
        buffers, row = select_row(s, ms, os)
    else:
        buffers, row = merge_row(s, ms)
    body += buffers + ["%zero = arith.constant 0 : i32", "%true = arith.constant true"]
    if s.plan != "ranks":
        body += ["%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index"]
    outer = [k for k in range(rank) if k != d]
    body += [f"affine.for %d{k} = 0 to {ts[0].get_dim_size(k)} {{" for k in outer] + row + ["}"] * len(outer)
    body += [f"%res{k} = tensor.empty() : {t}" if k in s.unused  # a result nothing reads: not written
             else f"%res{k} = bufferization.to_tensor %o{k} restrict writable : {o} to {t}"
             for k, (t, o) in enumerate(zip(outs, os))]
    types = ", ".join(outs)
    body.append(f"func.return {', '.join(f'%res{k}' for k in range(len(ts)))} : {types}")
    params = ", ".join(f"%a{k}: {t}" for k, t in enumerate(ts))
    return f"func.func private @sort({params}) -> ({types}) {{\n  " + "\n  ".join(body) + "\n}"


def _splice(op: ir.Operation, helper: ir.Module, s: SortShape) -> None:
    """The helper's body in place of the sort, on its operands; the sort's results replaced by the
    helper's (select: its k-long results the slices' sources)."""
    for result, value in zip(op.results, inline_helper(op, helper, tuple(op.operands))):
        if s.plan == "select":
            for use in list(result.uses):
                mlir.operation(use.owner).operands[use.operand_number] = value
        else:
            result.replace_all_uses_with(value)
    op.erase()


def describe(s: SortShape) -> str:
    """The step's note of a sort it wrote as loops."""
    if s.plan == "ranks":
        return f"{s.order}, rows of {s.row}"
    if s.plan == "select":
        return f"{s.order}, the first {s.first} of rows of {s.row} selected"
    return f"{s.order}, rows of {s.row}: runs of {RUN} ranked, merged in {s.stages - (RUN.bit_length() - 1)} stages"


def sorts_to_loops(module: ir.Module, filename: str) -> list[str]:
    notes = []
    for op in [o for o in mlir.walk(module.operation) if o.name == SORT]:
        where = f"{SORT} at {mlir.location_of(op, filename)}"
        s = shape_of(op)
        if isinstance(s, str):
            notes.append(f"kept: {where}: {s}")
            continue
        _splice(op, ir.Module.parse(helper_text(s), op.context), s)
        notes.append(f"loops: {where} ({describe(s)})")
    return notes


@register(STEP, "torch-mlir's tm_tensor.sort (torch.sort, argsort, topk) as loops over buffers: each "
                "element placed where the stable sort by the sort's comparator puts it (ranks counted, "
                "the first k selected, or runs merged)")
def sorts_to_loops_step(module: ir.Module, filename: str) -> str:
    """The notes of the sorts written as loops; a sort refused stops the lowering naming why (the
    graph runs eagerly, its fallback saying so)."""
    notes = sorts_to_loops(module, filename)
    for op in [o for o in mlir.walk(module.operation) if o.name == SORT]:  # each one refused
        raise cannot_lower(op, filename, f"{shape_of(op)} (loopopt-sorts-to-loops; docs/cpu_codegen.md sections 72, 79)")
    return DECISION_SEPARATOR.join(notes)
