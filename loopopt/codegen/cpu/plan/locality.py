"""Locality: how accesses walk memory along a loop.

`strided_innermost_accesses`: a scalar access is strided when the innermost loop around it
indexes a non-last dimension of a multi-dimensional buffer and not the last one (a column walk
of a row-major buffer: one element per cache line). Used as a guard on the cpu target: a
restructuring may not increase the count (MLIR 22's fusion makes atax/bicg 4x slower by creating
such walks). A vector access reads a run of the last dimension whatever the loop does (the
register tiling's k loop reads a row of B per step), so it is not counted.

`index_strides` / `stride_class`: how far an access's index moves per iteration of one loop, per
dimension (isl, exact for affine indices), and whether that makes it invariant, contiguous (a
row-major vector: what the cpu plan vectorizes) or strided.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import collect_accesses
from ....analysis.affine import Scope
from ....analysis.loops import body_ops
from ....mlir import ir


def strided_innermost_accesses(root: ir.Operation, scope: Scope | None = None, skip: frozenset = frozenset()) -> int:
    """Accesses of innermost loops under `root` (itself included) whose index uses that loop's IV
    in a dimension before the last and not in the last one, leaving out accesses to the buffers
    whose keys are in `skip` (a fused pair's private intermediates, pair_locality)."""
    scope = scope or Scope()
    count = 0
    loops = [root] if root.name == "affine.for" else []
    loops += [o for o in mlir.walk(root) if o.name == "affine.for"]
    for lp in loops:
        if any(o.name == "affine.for" for o in body_ops(lp)):
            continue  # not innermost
        for a in collect_accesses(lp, scope):
            if a.index is None or len(a.index) < 2 or not a.loops or a.is_vector or (skip and a.key in skip):
                continue
            iv = a.loops[-1].name
            last = len(a.index) - 1
            if any(a.uses_iv(iv, d) for d in range(last)) and not a.uses_iv(iv, last):
                count += 1
    return count


# ----------------------------------------------------------------------------- strides

_ISL_WORDS = frozenset({"mod", "floor", "ceil", "min", "max", "and", "or", "exists"})


def index_strides(a, iv: str) -> tuple[int | None, ...] | None:
    """Per dimension of the access `a` (an analysis.accesses.AccessPattern), how far its index
    moves when the IV named `iv` grows by one, the other IVs and the parameters fixed: an int
    where that is the same for every value of them, None where it is not (a `mod` or `floor`
    of the IV). None for an access at unknown elements."""
    import islpy as isl

    if a.index is None:
        return None
    out = []
    view = getattr(a, "view_index", None)  # a contiguous collapsed view: its own coordinates
    for text in (view if view is not None else a.index):
        names = sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text)) - _ISL_WORDS)
        if iv not in names:
            out.append(0)
            continue
        params = [n for n in names if n != iv]
        moved = re.sub(rf"\b{re.escape(iv)}\b", f"({iv} + 1)", text)
        head = f"[{', '.join(params)}] -> " if params else ""
        try:
            delta = isl.PwAff(f"{head}{{ [{iv}] -> [({moved}) - ({text})] }}").coalesce()
        except isl.Error:
            out.append(None)
            continue
        out.append(_constant(delta))
    return tuple(out)


def _constant(pw) -> int | None:
    if not pw.is_cst():
        return None
    vals = []
    pw.foreach_piece(lambda s, aff: vals.append(aff.get_constant_val().to_python()))
    return int(vals[0]) if len(set(vals)) == 1 and vals and float(vals[0]).is_integer() else None


def linear_step_witness(a, axis, dims: tuple[int, ...], inner: tuple[int, ...]) -> str | None:
    """Where the access `a` (analysis.accesses.AccessPattern) is not one element further in
    memory at the next iteration of the loop `axis` (an analysis.loops.Loop of step 1, one of
    a.loops: the innermost, or one whose inner loops' bounds do not use its counter, so that
    every value of theirs meets every value of the counter), or None when it always is. Its address over the dimensions `dims` of a row-major
    buffer is sum(index[d] * inner[k]) (inner[k]: the product of the sizes after dims[k]); the
    caller takes dims from the first dimension whose index uses the counter. isl decides exactly, over the iteration domain (every loop's
    bounds, the next iteration inside the loop's own bounds), whether the address of iteration
    i + 1 minus that of i can be other than 1: a delinearized index (x[.., e floordiv 32, e mod
    32] of an N x 32 buffer) moves by 1 everywhere; one by other extents (e mod 16 of 32
    columns) jumps at a boundary, and the text names the first such point."""
    import islpy as isl

    if a.index is None or axis.name not in [lp.name for lp in a.loops]:
        return "the access touches unknown elements"
    iv = axis.name
    nested = a.loops[[lp.name for lp in a.loops].index(iv) + 1:]
    if any(re.search(rf"\b{re.escape(iv)}\b", t) for lp in nested for t in (*lp.lower, *lp.upper)):
        return "a loop inside its loop has bounds that use the loop's counter"
    loops = [lp for lp in a.loops if lp.name != iv] + [lp for lp in a.loops if lp.name == iv]
    nxt = f"{iv}_next"
    lin = " + ".join(f"{c} * ({a.index[d]})" for d, c in zip(dims, inner))
    moved = re.sub(rf"\b{re.escape(iv)}\b", f"({iv} + 1)", lin)
    cons = [c for lp in loops for c in lp.constraints()] + axis.constraints({iv: nxt}) + [f"{nxt} = {iv} + 1"]
    names = [lp.name for lp in loops] + [nxt]
    texts = [lin, *(t for lp in loops for t in (*lp.lower, *lp.upper))]
    params = sorted({n for t in texts for n in re.findall(r"\b[A-Za-z_]\w*\b", t)} - _ISL_WORDS - set(names))
    head = f"[{', '.join(params)}] -> " if params else ""
    body = " and ".join(cons)
    try:
        back, ahead = (isl.Set(f"{head}{{ [{', '.join(names)}] : {body} and {jump} }}")
                       for jump in (f"({moved}) - ({lin}) <= 0", f"({moved}) - ({lin}) >= 2"))
        bad = back.union(ahead)
        if not bad.is_empty():
            return f"its address in memory moves by other than one element {_point(bad, names)}"
    except isl.Error:
        return "isl cannot read its address"
    return None


def _point(s, names: list[str]) -> str:
    """Where in the isl set `s` over `names` (the loops', the last two the counter and its next
    value) the first jump is (lexicographically least: the outer loops' first iterations), as
    after which iteration of the loop, when isl gives a point."""
    import islpy as isl

    try:
        v = s.lexmin().sample_point().get_coordinate_val(isl.dim_type.set, len(names) - 2).to_python()
    except isl.Error:  # no point without the parameters' values: the set
        return f"where {s}"
    return f"after iteration {v} of its loop"


def stride_class(strides: tuple[int | None, ...] | None) -> str:
    """"invariant" (the same element every iteration), "contiguous" (the next element of the last
    dimension: a row-major vector), or "strided" (anything else, unknown included)."""
    if strides is None or any(s is None for s in strides):
        return "strided"
    if all(s == 0 for s in strides):
        return "invariant"
    if all(s == 0 for s in strides[:-1]) and strides[-1] == 1:
        return "contiguous"
    return "strided"


# ----------------------------------------------------------------------------- loop order (cpu)
#
# The order of a perfect band decides how its innermost loop walks memory. A cost per order,
# from the strides of every access along the loops in that order, as Polly and PLUTO choose a
# schedule: best is an order the register tiling (cpu_plan.TilePlan) takes, a reduction loop
# innermost (every write invariant in it: scalar replacement keeps the sum in a register) inside
# a loop that every access walks contiguously or not at all (its iterations become vector lanes);
# next, an innermost loop every access walks contiguously or not at all (LLVM vectorizes it, or
# the register tiling jams the loop around it); then orders by the number of strided accesses of
# the innermost loop. Ties keep the input's order (the order of the outer loops is not priced).

@dataclass(frozen=True)
class OrderCost:
    """The cost of one loop order of a band (lower is better, compared as a tuple)."""

    kind: int  # 0: register tiling takes it; 1: a contiguous innermost loop; 2: strided accesses
    strided: tuple[int, ...]  # strided accesses along each loop, innermost first

    def key(self) -> tuple:
        return (self.kind, *self.strided)

    def describe(self) -> str:
        what = {0: "a reduction innermost inside a loop every access walks contiguously (register tiling)",
                1: "an innermost loop every access walks contiguously or not at all",
                2: f"{self.strided[0]} strided access(es) in the innermost loop"}[self.kind]
        return what


@dataclass(frozen=True)
class OrderPlan:
    """The loop order chosen for one perfect band: `order[k]` = the original level placed at
    position k (as interchange's permutations). With a refusal, the best order is not legal."""

    band: tuple
    order: tuple[int, ...]
    cost: OrderCost
    kept_cost: OrderCost
    refusal: object = None  # analysis.refusal.Refusal when a better order is illegal

    @property
    def changes(self) -> bool:
        return self.order != tuple(range(len(self.band))) and self.refusal is None


def without_unit_tail(strides: tuple[int | None, ...] | None, mt, at_most: int | None = None
                      ) -> tuple[int | None, ...] | None:
    """`strides` without the buffer's trailing dimensions of static size 1 that the access does
    not move (a product's isolated operand expanded to J x K x 1: its K is the innermost walk);
    at most `at_most` of them when given."""
    if strides is None or mt is None or len(mt.shape) != len(strides):
        return strides
    n = len(strides)
    low = 1 if at_most is None else max(1, n - at_most)
    while n > low and mt.shape[n - 1] == 1 and strides[n - 1] == 0:
        n -= 1
    return strides[:n]


def access_class(a, iv: str) -> str:
    """invariant / contiguous / strided for one access along the IV named `iv`, with the
    buffer's layout: contiguous needs the last dimension that is not a unit one to move by 1
    with stride 1 in memory (a trailing dimension of size 1 is always index 0)."""
    mt = mlir.memref_type(a.root) or mlir.memref_type(a.op.operands[1 if a.is_write else 0])
    strides = without_unit_tail(index_strides(a, iv), mt)
    cls = stride_class(strides)
    if cls != "contiguous":
        return cls
    if mt is None:
        return "strided"
    layout, _ = mt.get_strides_and_offset()
    return "contiguous" if not layout or layout[len(strides) - 1] == 1 else "strided"


def order_cost(names: list[str], accesses: list, lanes_parallel=lambda: True) -> OrderCost:
    """The cost of running the band's loops in the order `names` (IV names, outermost first)
    for its `accesses` (all of them in the innermost body). `lanes_parallel()` says whether the
    second innermost loop carries no dependence in that order (asked only when it matters: the
    register tiling runs its iterations in lanes). The innermost loop of a register-tiled
    order may walk its operands by rows: each step loads a row of the tile."""
    classes = {n: [access_class(a, n) if a.index is not None else "strided" for a in accesses] for n in names}
    strided = tuple(classes[n].count("strided") for n in reversed(names))
    inner = names[-1]
    writes = [a for a in accesses if a.is_write]
    if (len(names) >= 2 and writes and all(access_class(w, inner) == "invariant" and _read_back(w, accesses)
                                           for w in writes)
            and strided[1] == 0 and lanes_parallel()):
        kind = 0
    elif strided[0] == 0:
        kind = 1
    else:
        kind = 2
    return OrderCost(kind, strided)


def _read_back(w, accesses: list) -> bool:
    """Whether the write `w` updates an element the body also reads (a reduction in memory)."""
    return any(not a.is_write and a.root == w.root and a.index == w.index for a in accesses)


def carries_at(conflict, names: list[str], level: int) -> bool:
    """Whether the loop at position `level` of the order `names` carries a dependence: two
    conflicting iterations (`conflict`: legality.conflict_relation over the band's dims, in
    the band's own order `I[...]`) equal in the loops outside it and different in it. Unknown
    (None) counts as carried."""
    import islpy as isl

    if conflict is None:
        return True
    dims = conflict_dims(conflict)
    if dims is None:
        return True
    xs, ys = [f"{d}_s" for d in dims], [f"{d}_t" for d in dims]
    pos = {d: k for k, d in enumerate(dims)}
    eq = [f"{xs[pos[n]]} = {ys[pos[n]]}" for n in names[:level]]
    ne = f"({xs[pos[names[level]]]} < {ys[pos[names[level]]]} or {xs[pos[names[level]]]} > {ys[pos[names[level]]]})"
    rel = isl.UnionMap(f"{{ I[{', '.join(xs)}] -> I[{', '.join(ys)}] : {' and '.join(eq + [ne])} }}")
    return not conflict.intersect(rel).is_empty()


def conflict_dims(conflict) -> list[str] | None:
    """The band dims' names in the order of the relation's tuples (set by plan_loop_order)."""
    return getattr(conflict, "_band_names", None)


MAX_ORDER_DEPTH = 4  # bands deeper than this keep their order (4! = 24 orders are priced)


def plan_loop_order(band: list, facts, options=None) -> OrderPlan | None:
    """The best legal order of a perfect band of affine.for loops (None when there is nothing
    to price: one loop, too deep, or an access the model cannot name). Legality:
    transforms.interchange.check_loop_interchange (isl, every dependence keeps its direction)."""
    from itertools import permutations

    from ....transforms.interchange import check_loop_interchange
    from ....analysis.loops import loop_dims

    if len(band) < 2 or len(band) > MAX_ORDER_DEPTH:
        return None
    accesses = facts.accesses(band[0])
    if not accesses or any(a.index is None for a in accesses):
        return None
    names = [loop_dims(lp, facts.scope)[0].name for lp in band]
    conflict = band_conflicts(band, facts, accesses, names)

    def cost(order: list[str]) -> OrderCost:
        return order_cost(order, accesses, lambda: not carries_at(conflict, order, len(order) - 2))

    ident = tuple(range(len(band)))
    kept = cost(names)
    priced = sorted((cost([names[k] for k in perm]).key(), perm)
                    for perm in permutations(range(len(band))) if perm != ident)
    first_refusal = None
    for key, perm in priced:
        if key[:2] >= kept.key()[:2]:
            break  # only a better kind or fewer strided accesses innermost pays a permutation
        why = check_loop_interchange(list(band), list(perm), facts.scope, options)
        if why is None:
            return OrderPlan(tuple(band), perm, cost([names[k] for k in perm]), kept)
        first_refusal = first_refusal or (perm, why)
    if first_refusal is not None:
        perm, why = first_refusal
        return OrderPlan(tuple(band), ident, kept, kept, why)
    return OrderPlan(tuple(band), ident, kept, kept)


class _Named:
    """An isl union map with the names of the band dims its tuples list (conflict_dims)."""

    def __init__(self, umap, names: list[str]) -> None:
        self.umap, self._band_names = umap, names

    def intersect(self, other):
        return self.umap.intersect(other)


def band_conflicts(band: list, facts, accesses: list, names: list[str]):
    """legality.conflict_relation of the band, None when it cannot be modelled."""
    from ....analysis.legality import conflict_relation

    rel = conflict_relation(list(band), facts.scope, accesses)
    return None if rel is None else _Named(rel, names)


# ----------------------------------------------------------------------------- transposes (cpu)
#
# A band that reads one buffer along a column while it walks the others along rows (a transpose:
# the lowering of linalg.transpose, torch's weight layouts, a consumer of a transposed
# intermediate) has no order in which every access is contiguous. Its innermost loop then walks
# the column access across one cache line per iteration, and with a power-of-two row length
# those lines fall into a few cache sets: they are evicted before the next iteration of the loop
# outside reads their next element. Tiling the innermost loop and the loop the column access
# walks contiguously by one cache line each keeps the lines of one tile in L1 while the loops
# inside walk along them (a strip of the innermost loop alone when the other loop is short).
# Of the two tile loops, the one with fewer iterations runs inside: one sweep of the inner tile
# loop walks one access across rows, a row (and on long rows a page) per iteration, so the
# shorter sweep touches fewer lines and pages before it comes back (a 3072 x 128 strip of a
# transposed weight: 128 rows of the copy per sweep instead of 3072 rows of the weight, each in a
# page of its own).

CACHE_LINE_BYTES = 64


@dataclass(frozen=True)
class TransposeBlock:
    """How to block one transposing band: tile `band[-1]`, and `band[level]` when `tile_level`,
    by `lines` iterations (one cache line of the column access's elements); the tile loops run
    outside the point loops, the innermost point loop stays innermost."""

    band: tuple
    level: int  # the loop the column access walks contiguously
    lines: int  # iterations per tile side (CACHE_LINE_BYTES / element bytes)
    tile_level: bool  # band[level] is tiled too (its trip count is a multiple of `lines` above it)
    strided: object  # the access (accesses.AccessPattern) the tile keeps in cache
    inner_tiles_outside: bool = False  # the innermost loop's tile loop runs outside band[level]'s


def _tileable(loop, lines: int) -> bool:
    from ....analysis.loops import constant_trip_count

    trips = constant_trip_count(loop)
    return trips is not None and trips % lines == 0 and trips > lines


def plan_transpose_block(band: list, facts) -> TransposeBlock | None:
    """The blocking of a perfect band whose innermost loop walks exactly one access, a load, across
    rows while an outer loop of the band walks it contiguously, and every other access
    contiguously or not at all, with no element written that the band also reads (a reduction
    or an update in place: the register tiling's, or nothing to gain); None for anything else,
    or when the innermost loop's trip count is unknown, not a multiple of a line or a single
    line. Legality is the caller's (the block-transposes step, codegen/cpu/block_transposes.py, checks the reordering)."""
    from ....analysis.loops import loop_dims

    if len(band) < 2:
        return None
    accesses = facts.accesses(band[0])
    if not accesses or any(a.index is None or a.is_vector for a in accesses):
        return None
    writes = [a for a in accesses if a.is_write]
    if not writes or any(r.root == w.root for r in accesses if not r.is_write for w in writes):
        return None
    names = [loop_dims(lp, facts.scope)[0].name for lp in band]
    inner = names[-1]
    classes = [access_class(a, inner) for a in accesses]
    strided = [a for a, c in zip(accesses, classes) if c == "strided"]
    if len(strided) != 1 or strided[0].is_write or "contiguous" not in classes:
        return None
    along = [k for k, n in enumerate(names[:-1]) if access_class(strided[0], n) == "contiguous"]
    mt = mlir.memref_type(strided[0].root)
    if not along or mt is None:
        return None
    lines = CACHE_LINE_BYTES // mlir.element_size_bytes(mt.element_type)
    if lines < 2 or not _tileable(band[-1], lines):
        return None
    level = along[-1]
    tile_level = _tileable(band[level], lines)
    return TransposeBlock(tuple(band), level, lines, tile_level, strided[0],
                          tile_level and shorter_sweep_outside(band[level], band[-1]))


def shorter_sweep_outside(level_loop, inner_loop) -> bool:
    """Whether the innermost loop's tiles should run outside the level loop's: the level loop
    has fewer iterations (constant trip counts; the block comment above says why)."""
    from ....analysis.loops import constant_trip_count

    a, b = constant_trip_count(level_loop), constant_trip_count(inner_loop)
    return a is not None and b is not None and a < b
