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
  a `tensor.extract_slice` of the first k along d, as torch-mlir writes topk; keys of at most 32
  bits): a heap of k i64 entries, each the key's rank key (an unsigned i32 ordered as the sort
  orders keys: -0.0 as 0.0, one NaN for all) above its position, so that the entries' unsigned
  order is the stable order; each entry after its children, the root the last kept. The row's
  first k put in, in order, and heapified; each later element x replaces the root where it is
  strictly before the root's key (`not bar <= x`, bar the row's element at the root's position:
  a later tie of the last never enters, x's position being past every kept one), sifted down by
  floor(log2 k) steps of no branch. The heap holds the first k of the stable order of the
  elements seen at every step: O(N log k) on every row, a row in the opposite order included.
  Then sorted in place (the root swapped with the heap's end, the end's entry sifted down in the
  heap one shorter, k - 1 times): the first k in order; the results are k long along d, and the
  slices read them.
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

The buffers (ranks, select's heap of k, merge's two rows of keys and positions) are one
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
MAX_SELECT = 256  # select: the largest k of a top-k kept in a heap of k (sections 79, 85)
MAX_HEAP_POSITION = (1 << 32) - 1  # select: a heap entry keeps its position in its low 32 bits
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
    def narrow_keys(self) -> bool:
        """Keys of at most 32 bits: select's heap entries are the key's rank and its position in one
        i64 (`heap_key`)."""
        e = self.types[0].element_type
        return str(e) in ("f32", "f16", "bf16") or (isinstance(e, ir.IntegerType) and ir.IntegerType(e).width <= 32)

    @property
    def plan(self) -> str:
        """ranks (a row of at most MAX_ROW), select (the first k <= MAX_SELECT of a longer row read,
        keys of at most 32 bits, positions that fit 32 bits), merge (any other longer row)."""
        if self.row <= MAX_ROW:
            return "ranks"
        if self.first is not None and self.first <= MAX_SELECT and self.narrow_keys and self.row <= MAX_HEAP_POSITION:
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


def heap_key(s: SortShape, x: str, position: str, name: str) -> list[str]:
    """Ops computing `%{name}`: the i64 `(rank key << 32) | position` of the key x (of at most 32
    bits) at `position` (an index), whose unsigned order is the stable sort's: the rank key an
    unsigned i32 ordered as the sort orders the keys. Floats (f16 and bf16 widened exactly to
    f32): -0.0 as 0.0 (equal), every NaN as one positive NaN (equal), the bits ordered as unsigned
    (a negative's all flipped, a positive's sign); integers: signed ones' sign flipped; descending:
    all bits flipped (NaN, the last ascending, first). Equal keys tie, the position then orders
    them."""
    e = str(s.types[0].element_type)
    if s.float_keys:
        f = x
        ops = []
        if e != "f32":
            f = f"%{name}_f"
            ops.append(f"{f} = arith.extf {x} : {e} to f32")
        ops += [f"%{name}_b = arith.bitcast {f} : f32 to i32",
                f"%{name}_nan = arith.cmpf uno, {f}, {f} : f32",
                f"%{name}_z = arith.cmpi eq, %{name}_b, %hk_sign : i32",  # -0.0
                f"%{name}_b1 = arith.select %{name}_z, %zero, %{name}_b : i32",
                f"%{name}_b2 = arith.select %{name}_nan, %hk_nan, %{name}_b1 : i32",
                f"%{name}_s = arith.shrsi %{name}_b2, %hk_31 : i32",  # all ones where negative
                f"%{name}_m = arith.ori %{name}_s, %hk_sign : i32",
                f"%{name}_u = arith.xori %{name}_b2, %{name}_m : i32"]
    else:
        width = ir.IntegerType(s.types[0].element_type).width
        signed = s.predicate in ("sle", "sge")
        b = x
        ops = []
        if width < 32:
            b = f"%{name}_w"
            ops.append(f"{b} = arith.{'extsi' if signed else 'extui'} {x} : {e} to i32")
        ops.append(f"%{name}_u = arith.xori {b}, %hk_sign : i32" if signed
                   else f"%{name}_u = arith.addi {b}, %zero : i32")
    key = f"%{name}_u"
    if s.order == "descending":
        ops.append(f"%{name}_d = arith.xori %{name}_u, %hk_ones : i32")
        key = f"%{name}_d"
    return ops + [f"%{name}_k = arith.extui {key} : i32 to i64",
                  f"%{name}_hi = arith.shli %{name}_k, %hk_32 : i64",
                  f"%{name}_p = arith.index_cast {position} : index to i64",
                  f"%{name} = arith.ori %{name}_hi, %{name}_p : i64"]


def heap_constants() -> list[str]:
    """The constants `heap_key` and `select_row` name."""
    return ["%hk_sign = arith.constant -2147483648 : i32", "%hk_nan = arith.constant 2143289344 : i32",
            "%hk_31 = arith.constant 31 : i32", "%hk_ones = arith.constant -1 : i32",
            "%hk_32 = arith.constant 32 : i64", "%hk_low = arith.constant 4294967295 : i64"]


def sift_down(s: SortShape, entry: str, start: str, size: str, result: str) -> list[str]:
    """Ops placing the i64 `entry` (`heap_key`) in select's heap `%heap` of `size` entries (a
    value), from the hole `start` down: a heap of the stable order's last first, every entry
    after its children (unsigned greater), its root the last kept. A loop of floor(log2 k) steps,
    each taking the later child (the right one where the left is before it) and moving it up into
    the hole where the entry is before it; where not, the hole stays (and so do the steps after:
    the same comparison again). `result` is the final hole, where the entry is stored."""
    k = s.first
    hb = f"memref<{k}xi64>"
    return [f"{result} = affine.for %s_lv = 0 to {(k).bit_length() - 1} iter_args(%s_h = {start}) -> (index) {{",
            "%s_h2 = arith.addi %s_h, %s_h : index",
            "%s_l = arith.addi %s_h2, %c1 : index",  # the children 2h + 1, 2h + 2
            "%s_r = arith.addi %s_l, %c1 : index",
            f"%s_has_l = arith.cmpi ult, %s_l, {size} : index",
            f"%s_has_r = arith.cmpi ult, %s_r, {size} : index",
            "%s_lc = arith.minui %s_l, %clastk : index",  # loads clamped into the heap
            "%s_rc = arith.minui %s_r, %clastk : index",
            f"%s_vl = memref.load %heap[%s_lc] : {hb}",
            f"%s_vr = memref.load %heap[%s_rc] : {hb}",
            "%s_lr = arith.cmpi ult, %s_vl, %s_vr : i64",
            "%s_pick_r = arith.andi %s_has_r, %s_lr : i1",
            "%s_r1 = arith.index_castui %s_pick_r : i1 to index",
            "%s_c = arith.addi %s_lc, %s_r1 : index",
            "%s_vc = arith.select %s_pick_r, %s_vr, %s_vl : i64",
            f"%s_ec = arith.cmpi ult, {entry}, %s_vc : i64",
            "%s_move = arith.andi %s_has_l, %s_ec : i1",
            f"memref.store %s_vc, %heap[%s_h] : {hb}",  # the hole's content is the entry's in the end
            "%s_h1 = arith.select %s_move, %s_c, %s_h : index",
            "affine.yield %s_h1 : index", "}",
            f"memref.store {entry}, %heap[{result}] : {hb}"]


def select_row(s: SortShape, ms: list[str], os: list[str]) -> tuple[list[str], list[str]]:
    """(buffers, one row's ops) of the select plan: the first k of the stable order kept in a heap
    of k i64 entries (`heap_key`: the key's rank and its position), the last first: the row's
    first k put in and heapified; each later element x replacing the root (the last kept) where x
    is strictly before the root's key (the bar, the row's element at the root's position: `not
    bar <= x`), sifted down; then the heap sorted (its root swapped with its end, the end's entry
    sifted down in the heap one shorter) and every operand gathered at the k positions.
    O(N log k) on every row."""
    at, m0, k, e = _indexer(s), ms[0], s.first, str(s.types[0].element_type)
    hb = f"memref<{k}xi64>"
    buffers = [f"%heap = memref.alloc() : {hb}", f"%cfirst = arith.constant {k} : index",
               f"%clastk = arith.constant {k - 1} : index"] + heap_constants()

    def bar(name: str) -> list[str]:  # the row's element at the root's position
        return [f"%{name}_v = affine.load %heap[0] : {hb}", f"%{name}_p = arith.andi %{name}_v, %hk_low : i64",
                f"%{name}_i = arith.index_cast %{name}_p : i64 to index",
                f"%{name} = memref.load %m0[{at(f'%{name}_i')}] : {m0}"]
    row = [f"affine.for %j = 0 to {k} {{",  # the row's first k, in order
           f"%xj = affine.load %m0[{at('%j')}] : {m0}"]
    row += heap_key(s, "%xj", "%j", "vj") + [f"affine.store %vj, %heap[%j] : {hb}", "}"]
    row += [f"affine.for %t = 0 to {k // 2} {{",  # heapified: each parent, the last first, sifted down
            f"%start = affine.apply affine_map<(d0) -> ({k // 2 - 1} - d0)>(%t)",
            f"%vs = memref.load %heap[%start] : {hb}"]
    row += sift_down(s, "%vs", "%start", "%cfirst", "%hs") + ["}"] + bar("bar0")
    row += [f"%barn = affine.for %i = {k} to {s.row} iter_args(%bar = %bar0) -> ({e}) {{",
            f"%x = affine.load %m0[{at('%i')}] : {m0}"]
    row += before_or_tie(s, "%bar", "%x", "rx")
    row += ["%beats = arith.xori %rx, %true : i1",  # x strictly before the last kept: a later tie never displaces it
            f"%nbar = scf.if %beats -> ({e}) {{"]
    row += heap_key(s, "%x", "%i", "vx") + sift_down(s, "%vx", "%c0", "%cfirst", "%hx") + bar("bar1")
    row += [f"scf.yield %bar1 : {e}", "} else {", f"scf.yield %bar : {e}", "}",
            f"affine.yield %nbar : {e}", "}"]
    row += [f"affine.for %t = 0 to {k - 1} {{",  # sorted: the last kept to the end, the heap one shorter
            f"%end = affine.apply affine_map<(d0) -> ({k - 1} - d0)>(%t)",
            f"%ve = memref.load %heap[%end] : {hb}", f"%vroot = affine.load %heap[0] : {hb}",
            f"memref.store %vroot, %heap[%end] : {hb}"]
    row += sift_down(s, "%ve", "%c0", "%end", "%he") + ["}"]
    row += [f"affine.for %t = 0 to {k} {{", f"%v = affine.load %heap[%t] : {hb}",
            "%q = arith.andi %v, %hk_low : i64", "%qi = arith.index_cast %q : i64 to index"]
    for n, (m, o) in [(n, mo) for n, mo in enumerate(zip(ms, os)) if n not in s.unused]:
        row += [_gathered(s, n, m, at('%qi')), f"affine.store %v{n}, %o{n}[{at('%t')}] : {o}"]
    return buffers, row + ["}"]


@dataclass(frozen=True)
class MergeEnd:
    """One end of a merge step: the front takes the first of what is left of a run pair, the
    back its last; each with a cursor into each run (carried, reset at the pair's first step),
    the run it takes a tie from, and where it writes."""

    tag: str  # its values' names: %<tag>_...
    starts: tuple[str, str]  # the cursors (run a's, run b's) at the pair's first step
    carried: tuple[str, str]  # the cursors carried from the step before
    clamp: str  # the loads' clamp into the row, `arith.<clamp> cursor, bound`: minsi (front), maxsi (back)
    bound: str  # %clast (front), %c0 (back)
    left: str  # a cursor has elements left where `cmpi <left>, cursor, limit`: slt (front), sge (back)
    limits: tuple[str, str]  # run a's and run b's limits: their ends (front), their starts (back)
    own: int  # the run whose element it takes on a tie: 0 (a: the front), 1 (b: the back)
    step: str  # a taken cursor's move: addi (front), subi (back)
    out: str  # the output it writes: `arith.<op> x, %t`
    moved: tuple[str, str]  # the cursors after the step, yielded


FRONT = MergeEnd("f", ("%base", "%mid"), ("%ia", "%ib"), "minsi", "%clast", "slt", ("%mid", "%end"), 0, "addi",
                 "arith.addi %base, %t", ("%ia1", "%ib1"))
BACK = MergeEnd("b", ("%mid1", "%end1"), ("%ja", "%jb"), "maxsi", "%c0", "sge", ("%base", "%mid"), 1, "subi",
                "arith.subi %end1, %t", ("%ja1", "%jb1"))  # on a pair of odd length the last step's back is its front


def merge_end(s: SortShape, kb: str, pb: str, end: MergeEnd) -> list[str]:
    """Ops of one end of a merge step (`merge_row`): run a's and run b's elements at the cursors
    (clamped loads), `a <= b` (the comparator, NaN in eager's place); the end takes its own run's
    element where that run has one left and either the other has none or a <= b, the other's
    otherwise: the front a's (the first, a tie from the first run), the back b's (the last, a
    tie's second run last): both stable. The choice an index select, the key and position loaded
    again at it (a select of floats is a branch on x86) and stored at the end's output; the taken
    cursor moved."""
    g, (a, b) = end.tag, (f"%{end.tag}_a", f"%{end.tag}_b")
    own, other = (a, b) if end.own == 0 else (b, a)
    ops = [f"{a} = arith.select %start, {end.starts[0]}, {end.carried[0]} : index",
           f"{b} = arith.select %start, {end.starts[1]}, {end.carried[1]} : index",
           f"{a}c = arith.{end.clamp} {a}, {end.bound} : index",
           f"{b}c = arith.{end.clamp} {b}, {end.bound} : index",
           f"%{g}_ka = memref.load %keys[%src, {a}c] : {kb}",
           f"%{g}_kb = memref.load %keys[%src, {b}c] : {kb}"]
    ops += before_or_tie(s, f"%{g}_ka", f"%{g}_kb", f"{g}_ab")
    ops += [f"{a}_has = arith.cmpi {end.left}, {a}, {end.limits[0]} : index",
            f"{b}_has = arith.cmpi {end.left}, {b}, {end.limits[1]} : index",
            f"%{g}_none = arith.xori {other}_has, %true : i1",
            f"%{g}_wins = arith.ori %{g}_none, %{g}_ab : i1",
            f"%{g}_take = arith.andi {own}_has, %{g}_wins : i1",
            f"%{g}_from = arith.select %{g}_take, {own}c, {other}c : index",
            f"%{g}_key = memref.load %keys[%src, %{g}_from] : {kb}",
            f"%{g}_p = memref.load %pos[%src, %{g}_from] : {pb}",
            f"%{g}_out = {end.out} : index",
            f"memref.store %{g}_key, %keys[%dst, %{g}_out] : {kb}",
            f"memref.store %{g}_p, %pos[%dst, %{g}_out] : {pb}",
            f"{a}_next = arith.{end.step} {a}, %c1 : index",
            f"{b}_next = arith.{end.step} {b}, %c1 : index"]
    for cursor, name in zip((a, b), end.moved):  # its own run's cursor moves where taken, the other's where not
        yes, no = (f"{cursor}_next", cursor) if cursor == own else (cursor, f"{cursor}_next")
        ops.append(f"{name} = arith.select %{g}_take, {yes}, {no} : index")
    return ops


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
           "%end = arith.minsi %end0, %cn : index"]
    row += merge_end(s, kb, pb, FRONT)
    row += ["%mid1 = arith.subi %mid, %c1 : index", "%end1 = arith.subi %end, %c1 : index"]
    row += merge_end(s, kb, pb, BACK)
    row += ["affine.yield %ia1, %ib1, %ja1, %jb1 : index, index, index, index", "}", "}"]
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
