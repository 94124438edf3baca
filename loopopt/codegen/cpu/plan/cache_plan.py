"""The cache tiling plan (cpu): a matrix product's blocks for L2 and L3 around its register tile.

A product nest `Q: for i { P: for j { R: for k { C[i, j] += A[i, k] * B[k, j] } } }` is register
tiled (cpu_plan.TilePlan: MR rows x NR = vectors x width columns of C in registers across R). Its
operands then stream through the caches; when B's K x N panel is larger than half of L2 each row
tile reads it from L3 or memory. As BLIS does (Low, Igual, Smith, Quintana-Orti: "Analytical
modeling is enough for high-performance BLIS", TOMS 2016; oneDNN's brgemm blocking has the same
shape), the nest is cut into blocks from the cache sizes (options.plan_cache_sizes: the host's,
codegen/cpu/host.py), S the element size:

* **kc**, the reduction in blocks: B's micro-panel of one tile's columns, kc x NR, is read by
  every row tile of a block and stays in L2 beside A's block: kc x NR x S <= L2 / 8. K is cut
  into equal blocks of at most that (1024 for a 64-column f32 tile and a 2 MiB L2). Only a sum
  kept in memory (`C[i, j] += ...` in R, no value carried; or scalar replacement's form of it,
  `register_sum`, put back in memory first) may be blocked: C is stored after one block and
  loaded by the next, so each element's sum keeps its order (bit-exact).
* **mc**, the rows in blocks: A's mc x kc block stays in L2 while the register tile sweeps B's
  columns one tile at a time: mc x kc x S <= L2 / 2, a multiple of MR. Beside it the kc bound
  keeps B's micro-panel within L2 / 8. Where the reduction stays whole (a sum carried in
  registers, below) and its K x NR micro-panel exceeds that bound, the rows are not blocked
  (`panel_crowds_rows`): the micro-panel every row tile reads is the operand to keep in L2, and
  A's block beside it would not fit; each row tile then reads its MR rows of A as a stream.
* **nc**, the columns in blocks: B's kc x nc panel, used by every row block, stays in the core's
  share of L3: kc x nc x S <= L3 / 2, a multiple of NR.

The blocks run `for jc (nc) { for kb (kc) { for ib (mc) { Q; P; R over the block } } }`,
whole blocks first and the iterations left over in nests of their own (the register tiler takes
single bounds, not `min`). Inside a block the register tiler sweeps the columns one tile wide
when the block's panel still exceeds half of L2 (cpu_plan.column_block): each micro-panel of B
then serves every row tile of the block from L2 or L1.

A nest is planned when its register tile has rows (Q jammed) and B's K x N panel exceeds half
of L2 (a trip count unknown at compile time counts as large, the blocks then have symbolic
bounds). Blocking P or R runs Q's body once per block: only pure ops may stand beside P
(cpu_plan.block_copy_refusal, as for the register tile's column blocks); for kc, P's body must be
R alone with R carrying no value; P carrying values of its own (a row maximum) is not cut. Legality: the blocked order must keep every
dependence (`legality.permutation_violation` on the strip-mined band, exact with isl).

Measured (docs/cpu_codegen.md section 18): on a 128 x 768 x 3072 product, kc from 128 to 1024
or no kc blocks at all give the same time within this machine's noise; the bounds are the
model's, not tuned values.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.loops import body_ops, constant_trip_count
from ....analysis.refusal import Refusal
from ....mlir import ir
from .cpu_plan import (TilePlan, block_copy_refusal, has_iter_args_op, lane_bits, lanes_of, plan_register_tile,
                       reduction_loop_of)


class CacheCode(enum.Enum):
    """Why a product whose B panel exceeds half of L2 is not (fully) cache tiled (the remark)."""

    NO_TILE = "[STOP CACHE TILING] the product has no register tile with rows to block around"
    BESIDE = "[STOP CACHE TILING] an op beside the product in the loop around it would run once per block"
    ILLEGAL = "[STOP CACHE TILING] the blocked order would reverse a dependence"
    REDUCTION = "[STOP CACHE TILING] the reduction is not blocked"
    COLUMNS = "[STOP CACHE TILING] the columns are not blocked"
    ROWS = "[STOP CACHE TILING] the rows are not blocked"

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class Sizes:
    """The product's extents (None: unknown at compile time) and its register tile."""

    m: int | None  # Q's trip count: rows of C
    n: int | None  # P's: columns
    k: int | None  # R's: the reduction
    mr: int
    nr: int
    elem: int  # bytes of a lane's element


@dataclass(frozen=True)
class CachePlan:
    """The blocks of one product nest: `kc`, `mc`, `nc` (0: that loop is not blocked), the loops
    they cut (`rows` Q, `cols` P, `red` R), and why each block the sizes asked for is not built
    (`partial`: the reduction of a sum carried in registers, the columns of a P that carries its
    own reduction). With `refusal`, nothing is built."""

    rows: ir.Operation
    cols: ir.Operation
    red: ir.Operation
    sizes: Sizes
    caches: tuple[int, int, int]
    kc: int = 0
    mc: int = 0
    nc: int = 0
    refusal: Refusal | None = None
    partial: tuple[Refusal, ...] = ()

    @property
    def blocked(self) -> bool:
        return self.refusal is None and bool(self.kc or self.mc or self.nc)


def _refuse(tile: TilePlan, sizes: Sizes, caches, code: CacheCode, detail: str) -> CachePlan:
    return CachePlan(tile.rows_loop or tile.loop, tile.loop, tile.reduction_loop, sizes, caches,
                     refusal=Refusal(code, detail, (tile.loop,)))


def even_block(extent: int | None, most: int, multiple: int = 1) -> int:
    """The block for `extent` iterations of at most `most` (a multiple of `multiple`, at least
    one `multiple`): the extent cut into equal blocks, each rounded up to the multiple (so the
    last block is the shortest); `most` itself when the extent is unknown, 0 when it fits."""
    most = max(multiple, most // multiple * multiple)
    if extent is not None and extent <= most:
        return 0
    if extent is None:
        return most
    blocks = -(-extent // most)
    size = -(-extent // blocks)
    return min(most, -(-size // multiple) * multiple)


def block_sizes(sizes: Sizes, caches: tuple[int, int, int], reduction: bool = True,
                panel_bound: bool = True) -> tuple[int, int, int]:
    """(kc, mc, nc) of the size model (module doc) for these extents and caches; 0 where the
    whole extent fits. Without `reduction` the reduction is not cut (kc 0) and the other
    blocks hold all of it (an unknown K counts as the largest kc); its micro-panel then bounds
    the rows (`panel_crowds_rows`: mc 0), unless `panel_bound` is False (the rows the model
    would give A's block alone, for the remark)."""
    _, l2, l3 = caches
    s, nr, mr = sizes.elem, sizes.nr, sizes.mr
    kc_most = max(1, l2 // 8 // (nr * s))
    kc = even_block(sizes.k, kc_most) if reduction else 0
    k_block = kc or sizes.k or kc_most
    mc = even_block(sizes.m, max(mr, l2 // 2 // (k_block * s)), mr)
    if panel_bound and panel_crowds_rows(sizes, l2, kc):
        mc = 0
    nc = even_block(sizes.n, max(nr, l3 // 2 // (k_block * s)), nr)
    return kc, mc, nc


def panel_crowds_rows(sizes: Sizes, l2: int, kc: int) -> bool:
    """Whether the rows go unblocked because B's micro-panel has no bound: the reduction is
    whole (kc 0) and its K x NR micro-panel, which every row tile of a block reads, exceeds the
    L2 / 8 the kc bound leaves it beside A's block (an unknown K counts as within the bound,
    as for kc). A's mc x K block, up to half of L2, would then share L2 with it (308 x 512 x
    2048: a 2048 x 24 micro-panel of 192 KiB beside A's 32 x 2048 block of 256 KiB, 448 of 512
    KiB); unblocked, the micro-panel stays in L2 for every row tile and A's MR rows stream in,
    MR x S bytes per step of MR x NR / lanes multiply-adds."""
    return not kc and sizes.k is not None and sizes.k * sizes.nr * sizes.elem > l2 // 8


def _bytes_text(n: int) -> str:
    """`n` bytes as a remark writes them: `192 KiB`, `1.5 KiB`, `512 B`."""
    return f"{n / 1024:.3g} KiB" if n >= 1024 else f"{n} B"


def panel_exceeds_l2(k: int | None, n: int | None, elem: int, l2: int) -> bool:
    """Whether B's k x n panel (unknown extents count as large) exceeds half of L2."""
    return k is None or n is None or k * n * elem > l2 // 2


def product_sizes(tile: TilePlan, facts) -> Sizes:
    """The extents of the tile's nest and its tile (the lanes' element: `lane_bits`)."""
    lanes = lanes_of(tile.loop, tile.reduction_loop, tile.rows_loop, tile.in_memory)
    elem = max(1, lane_bits(tile.loop, tile.reduction_loop, lanes) // 8)
    return Sizes(extent(tile.rows_loop, facts), extent(tile.loop, facts), extent(tile.reduction_loop, facts),
                 tile.rows, tile.vectors * tile.width, elem)


def extent(loop: ir.Operation | None, facts) -> int | None:
    """A loop's trip count when it is constant, else None (a symbolic count counts as large);
    1 for no loop (a tile without rows)."""
    return 1 if loop is None else constant_trip_count(loop)


def plan_cache_tile(p: ir.Operation, facts, options) -> CachePlan | None:
    """The cache tiling of the product nest whose loop to block is `p` (module doc); None when
    `p` is not the loop around a reduction loop or its B panel fits half of L2."""
    if reduction_loop_of(p) is None:
        return None
    tile = plan_register_tile(p, facts, options)
    if tile is None:
        return None
    caches = options.plan_cache_sizes
    _, l2, _ = caches
    if tile.refusal is not None:
        k, n = constant_trip_count(tile.reduction_loop or reduction_loop_of(p)), constant_trip_count(p)
        if not panel_exceeds_l2(k, n, 4, l2):
            return None
        sizes = Sizes(None, n, k, 1, 1, 4)
        return CachePlan(p, p, reduction_loop_of(p), sizes, caches, refusal=Refusal(
            CacheCode.NO_TILE, tile.refusal.text(), (p,)))
    sizes = product_sizes(tile, facts)
    if not panel_exceeds_l2(sizes.k, sizes.n, sizes.elem, l2):
        return None
    if tile.rows_loop is None or tile.width == 1:
        why = "its lanes are scalar copies" if tile.width == 1 else f"one row: {tile.rows_why}"
        return _refuse(tile, sizes, caches, CacheCode.NO_TILE, why)
    q = tile.rows_loop
    kc, mc, nc = block_sizes(sizes, caches)
    partial = []
    if kc and not sum_in_memory_only(tile):
        why = ("it is carried in registers (iter_args) from an init other than the element it ends in, or "
               "with ops after it: its first block would need the init and its last the ops"
               if tile.reductions or has_iter_args_op(tile.reduction_loop)
               else "ops beside the reduction loop in the loop to block")
        partial.append(Refusal(CacheCode.REDUCTION, why, (p,)))
        kc, mc, nc = block_sizes(sizes, caches, reduction=False)
        if panel_crowds_rows(sizes, l2, kc) and block_sizes(sizes, caches, reduction=False, panel_bound=False)[1]:
            panel = sizes.k * sizes.nr * sizes.elem
            partial.append(Refusal(CacheCode.ROWS, (
                f"B's micro-panel of the whole reduction ({sizes.k} x {sizes.nr}, {_bytes_text(panel)}), read by every "
                f"row tile, exceeds the L2 / 8 ({_bytes_text(l2 // 8)}) left beside A's block: it stays in L2 "
                "and each row tile reads its rows of A as a stream"), (p,)))
    if nc and has_iter_args_op(p):
        nc = 0  # P's own reductions (a row maximum) would have to cross the column blocks
        partial.append(Refusal(CacheCode.COLUMNS, "the column loop carries a value of its own (a row maximum), "
                               "which would have to cross the blocks", (p,)))
    if (kc or nc) and tile.between:  # the blocks cut a band of P directly inside Q (cache_tile.band_of)
        lp = tile.between[0]
        return _refuse(tile, sizes, caches, CacheCode.BESIDE, f"{lp.name} at {mlir.location_of(lp)} lies between "
                       "the rows' loop and the product (its blocks are built around a product directly inside it)")
    if kc or nc:
        copied = block_copy_refusal(q, p)  # each block runs Q's body: only pure ops may be copied
        if copied is not None:
            return _refuse(tile, sizes, caches, CacheCode.BESIDE, copied[0])
    return CachePlan(q, p, tile.reduction_loop, sizes, caches, kc, mc, nc, partial=tuple(partial))


def sum_in_memory_only(tile: TilePlan) -> bool:
    """Whether the reduction may be cut into blocks: R keeps its sums in memory only (no value
    in iter_args, none in P's) and is the only op of P's body, so the band Q, P, R is perfect;
    or R carries one sum that P loads before it from the element it stores it to after it, and
    nothing else (scalar replacement's form of the same: `register_sum`)."""
    r, p = tile.reduction_loop, tile.loop
    if has_iter_args_op(p):
        return False
    if register_sum(p) is not None:
        return True
    if tile.reductions or has_iter_args_op(r) or not tile.in_memory:
        return False
    return [op for op in body_ops(p) if op.name != "affine.yield"] == [r]


def register_sum(p: ir.Operation) -> tuple[ir.Operation, ir.Operation, ir.Operation] | None:
    """(load, R, store) when P's body is `x = X[idx]; s = R iter_args(acc = x) {...}; X[idx] = s`
    and nothing else: one value carried by R, a reduction (`reductions_of`) whose init is the
    load (used only there) and whose result only the store writes back to the same element,
    and no access in R to a buffer that may be X's. Then the sum may as well live in X across
    R (`cache_tile.sum_to_memory`): every iteration reads the partial sum the previous one
    wrote, as the register carried it; the element's final value is the same, and with zero
    iterations both leave X as it was."""
    from ....analysis.memory import buffer_key_of as key, keys_may_alias
    from .cpu_plan import _same_address, reductions_of

    ops = [op for op in body_ops(p) if op.name != "affine.yield"]
    if len(ops) != 3:
        return None
    ld, r, st = ops
    if ld.name != "affine.load" or r.name != "affine.for" or st.name != "affine.store":
        return None
    carried = list(r.results)
    inits = list(r.operands)[len(r.operands) - len(carried):] if carried else []
    if len(carried) != 1 or inits[0] != ld.results[0] or len(list(ld.results[0].uses)) != 1:
        return None
    if st.operands[0] != carried[0] or len(list(carried[0].uses)) != 1 or not _same_address(ld, st):
        return None
    reds, why = reductions_of(r)
    if why is not None or len(reds) != 1:
        return None
    target = key(ld.operands[0])
    for op in mlir.walk(r):
        for v in op.operands:
            if isinstance(v.type, (ir.MemRefType, ir.UnrankedMemRefType)) and keys_may_alias(key(v), target):
                return None
    return ld, r, st


def plan_cache_tiles(fn: ir.Operation, facts, options) -> list[CachePlan]:
    """A CachePlan per product nest of the function whose B panel exceeds half of L2."""
    out = []
    for op in mlir.walk(fn):
        if op.name == "affine.for":
            plan = plan_cache_tile(op, facts, options)
            if plan is not None:
                out.append(plan)
    return out
