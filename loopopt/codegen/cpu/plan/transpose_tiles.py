"""Transposing copies in vector registers (cpu): the plan.

A product's B operand is often a transposed copy (torch's Linear: `T[k, j] = W[j, k]`), which
block-transposes (codegen/cpu/block_transposes.py) walks in tiles of one cache line a side. Element
by element such a tile is one scalar load and one scalar store per element; BERT's feed-forward
layer spends about a third of its time there (docs/cpu_codegen.md section 22). As BLIS packs B, a
W x W tile (W the lanes of the element) becomes W vector loads along the source's rows, a
transposing network of two-input interleaves (`transpose_network`: log2 W stages of W shuffles)
and W vector stores along the destination's rows.

`plan_transpose_tile(outer)` takes a perfect band of two loops (outer, inner) only where that is
exact:

* the inner body is one `affine.load` whose value reaches one `affine.store` directly (a copy
  of one element) or through a chain of elementwise ops (MAP_OPS, `mapped_copy_band`: a weight
  scaled on its way, `w * c`), each of the element's type with its other operands defined
  outside the band; the tile applies each op to its row vectors before the network (a map of
  each element commutes with the transpose; every lane computes what the scalar op computed); neither loop carries values; both step 1 with constant trip counts of at least W
  (`options.plan_vector_bits` over the element's bits, 2 <= W <= MAX_LANES); a trip count that
  is not a multiple of W needs constant bounds: its whole tiles run as the band, the rest as
  edge bands (`edge_bands`) tiled by the largest power of two that fits them (at least
  MIN_EDGE_LANES), element by element below that;
* there is a loop `a` along which the load walks its last dimension by 1 and no other, and the
  other loop `b` along which the store does; along `a` the store leaves its last dimension and
  moves another (`b` likewise for the load): so no two iterations store to one element (the
  last dimension fixes b, the other fixes a), and the tile may write its elements in any order;
* the two buffers cannot alias (`memory.keys_may_alias`): the tile reads all its elements before
  it writes any, which keeps every value only when nothing it reads is written in the band.

Each element is moved unchanged: bit-exact. A band that copies along a row on one side and along
a column on the other but fails a later rule is a `TransposeTileCode` refusal with its reason.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import access_pattern
from ....analysis.affine import Scope
from ....analysis.loops import body_ops, constant_bounds, constant_trip_count, loop_dims
from ....analysis.refusal import Refusal
from ....mlir import ir
from .locality import index_strides

MAX_LANES = 16  # a tile of W x W unrolled: W loads, W log2 W shuffles, W stores (96 ops at 16)
MIN_EDGE_LANES = 4  # an edge narrower than this moves element by element (a 2 x 2 tile saves nothing)


class TransposeTileCode(enum.Enum):
    """Why a transposing copy stays element by element (the remark)."""

    ALIAS = "[STOP TRANSPOSE TILE] the copy's source and destination may be one buffer"
    TRIPS = "[STOP TRANSPOSE TILE] a loop of the copy runs fewer iterations than one vector tile"
    BOUNDS = "[STOP TRANSPOSE TILE] a loop of the copy with a partial tile has bounds that are not constant"
    LANES = "[STOP TRANSPOSE TILE] the element gives no vector tile"
    DEEP_TRIPS = ("[STOP TRANSPOSE TILE] a copy with a loop between its two walks is not a whole number of vector "
                  "tiles")
    COLLIDE = "[STOP TRANSPOSE TILE] two iterations of the copy may store to one element"

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class TransposeTile:
    """The band (outer, inner) whose body copies `load` to `store` transposed: the load walks its
    last dimension along `a`, the store along `b`; tiles of `lanes` x `lanes`; `trips` (a's, b's).
    With `refusal`, the band is a transposing copy left element by element."""

    outer: ir.Operation
    inner: ir.Operation
    a: ir.Operation | None
    b: ir.Operation | None
    load: ir.Operation
    store: ir.Operation
    lanes: int
    trips: tuple[int, int]
    refusal: Refusal | None = None
    maps: tuple = ()  # elementwise ops between the load and the store (mapped_copy_band)
    mid: ir.Operation | None = None  # the loop between a and b (deep_copy_band), stepping by 1 around the tiles
    operands: tuple = ()  # loads a map op reads beside the chain, one per tile (deep_copy_band): (load, along_a)


def element_bits(t: ir.Type) -> int | None:
    """Bits of a float or integer element, else None."""
    if isinstance(t, ir.FloatType):
        return ir.FloatType(t).width
    if isinstance(t, ir.IntegerType):
        return ir.IntegerType(t).width
    return None


def walks_last(strides) -> bool:
    """The access moves its last dimension by exactly 1 along the loop and no other dimension."""
    return strides is not None and None not in strides and strides[-1] == 1 and all(s == 0 for s in strides[:-1])


def walks_across(strides) -> bool:
    """The access leaves its last dimension along the loop and moves another (a constant stride)."""
    return strides is not None and None not in strides and strides[-1] == 0 and any(s != 0 for s in strides[:-1])


# Elementwise ops a copy may apply to each element on its way (`mapped_copy_band`): each has a
# vector form computing every lane as the scalar op computes one element.
MAP_OPS = frozenset({"arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf", "arith.maximumf",
                     "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.addi", "arith.subi", "arith.muli",
                     "arith.andi", "arith.ori", "arith.xori"})


def mapped_copy_band(outer: ir.Operation):
    """(inner, load, map ops, store) when `outer` is `for { for { x = load; y = f(x); store y } }`,
    both loops step 1 and carrying nothing, f a chain of MAP_OPS (none, a plain copy) each of
    the load's type whose operands are the chain's values or values defined outside the band, and
    each value used once, by the next op of the chain."""
    if outer.name != "affine.for" or mlir.int_attr(outer, "step") != 1 or list(outer.results):
        return None
    ops = [o for o in body_ops(outer) if o.name != "affine.yield"]
    if len(ops) != 1 or ops[0].name != "affine.for":
        return None
    inner = ops[0]
    if mlir.int_attr(inner, "step") != 1 or list(inner.results):
        return None
    body = [o for o in body_ops(inner) if o.name != "affine.yield"]
    if len(body) < 2 or body[0].name != "affine.load" or body[-1].name != "affine.store":
        return None
    load, maps, store = body[0], body[1:-1], body[-1]
    chain = [load, *maps]
    elem = load.results[0].type
    if any(op.name not in MAP_OPS or len(op.results) != 1 or op.results[0].type != elem for op in maps):
        return None
    for prev, op in zip(chain, [*maps, store]):
        if len(list(prev.results[0].uses)) != 1 or mlir.operation(next(iter(prev.results[0].uses)).owner) != op:
            return None
    for k, op in enumerate(maps):
        for v in op.operands:
            if v == chain[k].results[0]:
                continue
            if v.type != elem or _defined_inside(v, outer):
                return None
    if store.operands[0] != chain[-1].results[0]:
        return None
    return inner, load, tuple(maps), store


def _defined_inside(v: ir.Value, loop: ir.Operation) -> bool:
    from ....analysis.loops import nested_in

    owner = v.owner
    if isinstance(owner, ir.Block):
        return nested_in(mlir.operation(owner.owner), loop) or mlir.operation(owner.owner) == loop
    op = mlir.operation(owner)
    return nested_in(op, loop)


def copy_band(outer: ir.Operation) -> tuple[ir.Operation, ir.Operation, ir.Operation] | None:
    """(inner, load, store) when `outer` is `for { for { x = load; store x } }` (a plain copy:
    `mapped_copy_band` with no map)."""
    found = mapped_copy_band(outer)
    if found is None or found[2]:
        return None
    return found[0], found[1], found[3]



@dataclass(frozen=True)
class DeepBand:
    """`outer { mid { inner { body } } }`, the body a copy that may read operands (`deep_copy_band`)."""

    outer: ir.Operation
    mid: ir.Operation
    inner: ir.Operation
    loads: tuple  # every affine.load of the body, in order
    maps: tuple  # the elementwise ops, in order
    store: ir.Operation


def _plain_loop(op: ir.Operation) -> bool:
    return op.name == "affine.for" and mlir.int_attr(op, "step") == 1 and not list(op.results)


def _only_child(loop: ir.Operation) -> ir.Operation | None:
    ops = [o for o in body_ops(loop) if o.name != "affine.yield"]
    return ops[0] if len(ops) == 1 and _plain_loop(ops[0]) else None


def transposes(la, sa, na: str, nb: str) -> bool:
    """The load walks its last dimension along the loop named `na` and leaves it along `nb`; the
    store the reverse."""
    load_a, load_b = index_strides(la, na), index_strides(la, nb)
    store_a, store_b = index_strides(sa, na), index_strides(sa, nb)
    return walks_last(load_a) and walks_across(load_b) and walks_last(store_b) and walks_across(store_a)


def lane_form(ops, elem: ir.Type) -> bool:
    """Every op is one of MAP_OPS with one result of the element type (its vector form computes
    each lane as the scalar op computes one element)."""
    return all(op.name in MAP_OPS and len(op.results) == 1 and op.results[0].type == elem for op in ops)


def deep_copy_band(outer: ir.Operation) -> DeepBand | None:
    """A perfect band of three loops, each stepping by 1 and carrying nothing, whose innermost
    body holds only `affine.apply` ops whose results are only indices of the body's loads and
    store, `affine.load`s, MAP_OPS of one element type and one final `affine.store`. Which
    load is the source and that the ops form its chain is `copy_chain`'s. None otherwise."""
    if not _plain_loop(outer):
        return None
    mid = _only_child(outer)
    inner = _only_child(mid) if mid is not None else None
    if inner is None:
        return None
    body = [o for o in body_ops(inner) if o.name != "affine.yield"]
    if not body or body[-1].name != "affine.store":
        return None
    store = body[-1]
    loads = tuple(o for o in body if o.name == "affine.load")
    maps = tuple(o for o in body[:-1] if o.name not in ("affine.load", "affine.apply"))
    if not loads:
        return None
    if not lane_form(maps, loads[0].results[0].type):
        return None
    accesses = [*loads, store]
    for ap in (o for o in body if o.name == "affine.apply"):
        for u in ap.results[0].uses:
            user = mlir.operation(u.owner)
            if user not in accesses or (user == store and u.operand_number < 2):
                return None
    return DeepBand(outer, mid, inner, loads, maps, store)


def copy_chain(band: DeepBand, source: ir.Operation) -> tuple | None:
    """The operand loads when `band`'s body computes its stored value from `source` by a chain:
    each map op takes the previous value of the chain (the source's, then each op's, each used
    once) and otherwise values defined outside the band or loads of the element type (other
    than the source, each used once, by that op); the store stores the chain's last value. None
    when it does not."""
    elem = source.results[0].type
    prev = source.results[0]
    operands = []
    for op in band.maps:
        if len(list(prev.uses)) != 1 or mlir.operation(next(iter(prev.uses)).owner) != op:
            return None
        for v in op.operands:
            if v == prev:
                continue
            owner = None if isinstance(v.owner, ir.Block) else mlir.operation(v.owner)
            if owner is not None and owner in band.loads and owner != source and len(list(v.uses)) == 1:
                operands.append(owner)
            elif v.type != elem or _defined_inside(v, band.outer):
                return None
        prev = op.results[0]
    if band.store.operands[0] != prev or len(list(prev.uses)) != 1:
        return None
    others = [ld for ld in band.loads if ld != source]
    if len(operands) != len(others) or any(ld not in operands for ld in others):
        return None
    return tuple(operands)


def _defined_by(v: ir.Value, block_owner: ir.Operation) -> bool:
    """`v` is the result of an op directly in `block_owner`'s body."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        return False
    op = mlir.operation(owner)
    parent = op.parent
    return parent is not None and mlir.operation(parent) == block_owner


def _store_injective(band: DeepBand, scope: Scope) -> bool:
    """isl: the store writes a different element in every iteration of the band (the loops
    around it fixed)."""
    import islpy as isl

    sa = access_pattern(band.store, scope)
    if sa.index is None:
        return False
    names = [lp.name for lp in sa.loops]
    fixed = [lp.name for lp in sa.loops if lp.op not in (band.outer, band.mid, band.inner)]
    cons = [c for lp in sa.loops for c in lp.constraints()]
    params = sorted(scope.params)
    try:
        m = isl.Map(f"[{', '.join(params)}] -> {{ [{', '.join(names)}] -> [{', '.join(fixed + list(sa.index))}] : "
                    f"{' and '.join(cons or ['1 = 1'])} }}")
        return m.is_injective()
    except isl.Error:
        return False


def plan_deep_tile(outer: ir.Operation, options, scope: Scope) -> TransposeTile | None:
    """The TransposeTile of a band `outer { mid { inner } }` whose source walks its last dimension
    along one of outer and inner (a) and whose store walks its last dimension along the other
    (b), the loop between them moving either freely (torch-mlir's head split of K, `KT[h, d, i] =
    K[i, h * 64 + d] + b[h * 64 + d]`: a = d, b = i, mid = h): the tiles are taken at each
    iteration of mid. Exact where the 2-loop rule is (plan_transpose_tile), and besides: the
    store is one to one over the whole band (isl), so no two iterations write one element and
    any order of them stores the same values; each operand load is invariant along b and walks
    its last dimension along a or stays (one vector, or one broadcast element, per tile serves
    the tile's W rows) and reads a buffer the store cannot alias; a and b run whole tiles."""
    from ....analysis.memory import keys_may_alias

    band = deep_copy_band(outer)
    if band is None:
        return None
    if plan_transpose_tile(band.mid, options, scope) is not None:
        return None  # the inner pair is a transposing copy of its own
    store = band.store
    sa = access_pattern(store, scope)
    if sa.index is None or sa.rank < 2:
        return None
    names = {id(lp): loop_dims(lp, scope)[0].name for lp in (band.outer, band.inner)}
    found = None
    for load in band.loads:
        chain = copy_chain(band, load)
        la = access_pattern(load, scope)
        if chain is None or la.index is None or la.rank < 2:
            continue
        for a, b in ((band.outer, band.inner), (band.inner, band.outer)):
            na, nb = names[id(a)], names[id(b)]
            if transposes(la, sa, na, nb):
                found = (load, la, chain, a, b, na, nb)
                break
        if found:
            break
    if found is None:
        return None
    load, la, chain, a, b, na, nb = found
    along_a = []
    for op in chain:
        oa = access_pattern(op, scope)
        sb_, sa_ = index_strides(oa, nb), index_strides(oa, na)
        if sb_ is None or sa_ is None or any(x != 0 for x in sb_) or not (walks_last(sa_) or all(x == 0 for x in sa_)):
            return None  # not one vector (or element) per tile: no lane form
        along_a.append(walks_last(sa_))
    trips = (constant_trip_count(a), constant_trip_count(b))
    bits = element_bits(load.results[0].type)
    lanes = options.plan_vector_bits // bits if bits and bits % 8 == 0 else 0
    operands = tuple(zip(chain, along_a))

    def refuse(code: TransposeTileCode, detail: str) -> TransposeTile:
        return TransposeTile(band.outer, band.inner, None, None, load, store, lanes, trips,
                             Refusal(code, detail, (outer,)), band.maps, band.mid, operands)

    if lanes < 2 or lanes > MAX_LANES or lanes & (lanes - 1):
        return refuse(TransposeTileCode.LANES, f"{load.results[0].type} in {options.plan_vector_bits}-bit vectors "
                      f"gives {lanes} lanes (a tile needs 2 to {MAX_LANES}, a power of two)")
    if None in trips or any(t % lanes for t in trips) or None in (constant_bounds(a), constant_bounds(b)):
        return refuse(TransposeTileCode.DEEP_TRIPS, f"trip counts {trips[0]} and {trips[1]}, tiles of {lanes}")
    if any(keys_may_alias(k, sa.key) for k in [la.key] + [access_pattern(op, scope).key for op in chain]):
        return refuse(TransposeTileCode.ALIAS, "the tile reads all its elements before it writes any")
    if not _store_injective(band, scope):
        return refuse(TransposeTileCode.COLLIDE, "the tiles store their elements in another order")
    return TransposeTile(band.outer, band.inner, a, b, load, store, lanes, trips, None, band.maps, band.mid, operands)


def plan_transpose_tile(outer: ir.Operation, options, scope: Scope) -> TransposeTile | None:
    """The TransposeTile of the band at `outer` (module doc): None when it is not a transposing
    copy, a plan with `refusal` when it is one that stays element by element."""
    from ....analysis.memory import keys_may_alias

    found = mapped_copy_band(outer)
    if found is None:
        return None
    inner, load, maps, store = found
    la, sa = access_pattern(load, scope), access_pattern(store, scope)
    if la.index is None or sa.index is None or la.rank < 2 or sa.rank < 2:
        return None
    names = {id(lp): loop_dims(lp, scope)[0].name for lp in (outer, inner)}
    for a, b in ((outer, inner), (inner, outer)):
        na, nb = names[id(a)], names[id(b)]
        if (walks_last(index_strides(la, na)) and walks_across(index_strides(la, nb))
                and walks_last(index_strides(sa, nb)) and walks_across(index_strides(sa, na))):
            break
    else:
        return None
    trips = (constant_trip_count(a), constant_trip_count(b))
    bits = element_bits(load.results[0].type)
    lanes = options.plan_vector_bits // bits if bits and bits % 8 == 0 else 0

    def refuse(code: TransposeTileCode, detail: str) -> TransposeTile:
        return TransposeTile(outer, inner, None, None, load, store, lanes, trips, Refusal(code, detail, (outer,)),
                             maps)

    if lanes < 2 or lanes > MAX_LANES or lanes & (lanes - 1):
        return refuse(TransposeTileCode.LANES, f"{load.results[0].type} in {options.plan_vector_bits}-bit vectors "
                      f"gives {lanes} lanes (a tile needs 2 to {MAX_LANES}, a power of two)")
    if None in trips or any(t < lanes for t in trips):
        fits = edge_lanes(*trips, 2 * lanes) if None not in trips else 0
        if not fits:
            return refuse(TransposeTileCode.TRIPS, f"trip counts {trips[0]} and {trips[1]}, tiles of {lanes} "
                          f"(at least {MIN_EDGE_LANES})")
        lanes = fits
    if any(t % lanes for t in trips) and None in (constant_bounds(a), constant_bounds(b)):
        return refuse(TransposeTileCode.BOUNDS, f"trip counts {trips[0]} and {trips[1]}, tiles of {lanes}")
    if keys_may_alias(la.key, sa.key):
        return refuse(TransposeTileCode.ALIAS, "the tile reads all its elements before it writes any")
    return TransposeTile(outer, inner, a, b, load, store, lanes, trips, maps=maps)


@dataclass(frozen=True)
class EdgeBand:
    """Part of a band's iteration space: a from `a_range`, b from `b_range` (half-open, in the
    loops' own counters), tiled by `lanes` x `lanes` (0: element by element)."""

    a_range: tuple[int, int]
    b_range: tuple[int, int]
    lanes: int


def edge_lanes(trips_a: int, trips_b: int, lanes: int) -> int:
    """The tile of an edge band of trips_a x trips_b: the largest power of two below `lanes` that
    both fit, at least MIN_EDGE_LANES; else 0 (element by element)."""
    w = lanes // 2
    while w >= MIN_EDGE_LANES:
        if trips_a >= w and trips_b >= w:
            return w
        w //= 2
    return 0


def edge_bands(a_bounds: tuple[int, int], b_bounds: tuple[int, int], lanes: int) -> list[EdgeBand]:
    """The band [a_bounds) x [b_bounds) cut into its whole `lanes` tiles (the first EdgeBand) and
    the rest: the a-edge (a's last partial tile, every b) and the b-edge (b's last partial tile,
    a's whole tiles), each cut again by `edge_lanes`. Every point lies in exactly one band."""
    (a0, a1), (b0, b1) = a_bounds, b_bounds
    if lanes == 0 or a1 - a0 < lanes or b1 - b0 < lanes:
        return [EdgeBand((a0, a1), (b0, b1), 0)] if a1 > a0 and b1 > b0 else []
    am = a0 + (a1 - a0) // lanes * lanes
    bm = b0 + (b1 - b0) // lanes * lanes
    out = [EdgeBand((a0, am), (b0, bm), lanes)]
    if a1 > am:
        out += edge_bands((am, a1), (b0, b1), edge_lanes(a1 - am, b1 - b0, lanes))
    if b1 > bm:
        out += edge_bands((a0, am), (bm, b1), edge_lanes(am - a0, b1 - bm, lanes))
    return out


def transpose_network(lanes: int) -> list[list[tuple[int, int, bool]]]:
    """The stages of a `lanes` x `lanes` transpose by two-input interleaves. Per stage and output
    vector, in order, (x, y, high): interleave the low (high: the upper) halves of input vectors
    x and y element by element. Stage inputs i and i + lanes / 2 give outputs 2i and 2i + 1;
    after log2(lanes) stages output k holds column k of the rows given to the first stage
    (`transpose_by_network` is the same on lists, the tests' oracle)."""
    half = lanes // 2
    stage = [pair for i in range(half) for pair in ((i, i + half, False), (i, i + half, True))]
    return [stage] * (lanes.bit_length() - 1)


def zip_mask(lanes: int, high: bool) -> list[int]:
    """vector.shuffle's mask interleaving the low (high) halves of two `lanes`-vectors."""
    base = lanes // 2 if high else 0
    return [m for k in range(lanes // 2) for m in (base + k, lanes + base + k)]


def transpose_by_network(rows: list) -> list:
    """`transpose_network` applied to plain lists: rows -> columns."""
    lanes = len(rows)
    cur = [list(r) for r in rows]
    for stage in transpose_network(lanes):
        cur = [[(cur[x] + cur[y])[m] for m in zip_mask(lanes, high)] for x, y, high in stage]
    return cur


def plan_transpose_tiles(fn: ir.Operation, options) -> list[TransposeTile]:
    """A TransposeTile (or refusal) per transposing copy band of the function."""
    scope = Scope()
    out = []
    for op in mlir.walk(fn):
        if op.name == "affine.for":
            plan = plan_transpose_tile(op, options, scope)
            if plan is None:
                plan = plan_deep_tile(op, options, scope)
            if plan is not None:
                out.append(plan)
    return out
