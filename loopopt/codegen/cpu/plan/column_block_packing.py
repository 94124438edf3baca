"""B packed per column block (cpu): the plan. A transposing copy that fills a whole local buffer
for a register tile is made once per column block of the product, into one small buffer.

torch's Linear with its weight as an input (`x @ W^T`) reaches the register tile as

    C: T[r, e] = W[e, r]            (a nest over all of T, R x N; block-transposes' tiles)
    L: for jb = .. step NB {        (the tile's column blocks: every row tile reads B's
         ... T[r, jb + c] ...        columns jb .. jb + NB only)
       }

so the whole transposed weight is written to memory and read back. As BLIS packs B, the copy
can run at the head of each block instead, restricted to the block's columns, into one buffer
of R x NB that every block reuses:

    L: for jb { C': T'[r, e - jb] = W[e, r] for the iterations of C with jb <= e < jb + NB
                ... T'[r, jb + c - jb] ... }

C' is a clone of C whose outermost loop that moves T's column (`col_loop`, constant bounds)
runs `0 to NB step s` with its old counter replaced by `new + jb`. Every access of T becomes
`T'[r, e - jb]`. When cache tiling blocks the reduction around the column blocks
(`H: for kb step KC { L: for jb { .. } }`), the copy's outermost loop that moves T's row is
restricted the same way (`new + kb`), T' is KC x NB and the accesses `T'[r - kb, e - jb]`.
A buffer several copies fill (bufferization shares one for several transposes) is taken per
copy C and the op H after it that is the first to touch T; each pair gets a T' of its own.
`plan_block_packing` takes a pair only where that is exact:

* T is a rank-2 static `memref.alloc` of the identity layout a register tile reads as B
  (`panel_layout.tile_panel`), and every use of it is a copy's store, an affine load or
  vector load, or a dealloc (`OTHER_USE`: no view, call or other escape);
* each store's nest C is nothing but the copy: loops without iter_args, `affine.apply`, one
  `affine.load` of a buffer W that is not T, the store of its value to T (`NOT_A_COPY`);
* the ops H after C in its block that touch T, up to the next copy, are loops holding loads of
  T and no store, every load of T lies in such an H, L is H or lies in it, L steps by
  1 < NB < N, and every load of the pair is in L (`NO_BLOCK_LOOP`). C' runs once per iteration
  of the loops between H and L: one of them whose iterations read only rows kb .. kb + KC of T
  (isl, over the reads' elements) is the reduction-block loop, at most one; any other is a row
  block. A pair whose tile has no column blocks (the loop of its column walk does not start at
  an IV inside H) is left without a remark;
* the copy is made once: no row-block loop between H and L and one H per C (`ROW_BLOCKS`: cache
  tiling's row blocks and their remainder nest), except nests of the **columns left over**: when
  N is no multiple of NB the register tile reads the last columns in a nest of its own after the
  blocks, without a column-block loop. Such an H (`ColumnTail`) is packed with the pair when the
  pair's reduction is whole (no reduction block), nothing from C to it writes W or has
  unmodelled effects, and the columns its reads touch, over all its iterations and those around
  it, form one constant window c0 .. c0 + R with R <= NB (isl): C is cloned just before it with
  its column loop `0 to R` (counter `new + c0`), into the pair's own buffer at `[r, e - c0]`,
  checked on the clone as below. The buffer is free there: every block's reads lie in its own
  iteration after its own clone, and the nest's after the nest's clone. Packing per row block and per nest is exact
  (`PACK_PER_ROW_BLOCK`, the copy then erased once every H of it is packed) but measured slower
  than the whole copy, which panel-layout lays out as BLIS's packed B and every row block reuses;
* nothing from C to the end of H writes a buffer that may be W, and nothing there has effects
  that are not modelled (`SOURCE_WRITTEN`): each W element C' reads holds what C read;
* isl, on the built clone: C's store is one to one over C's iterations (for each iteration of
  the loops around C), every (T element, W element) pair C' moves is a pair C moves (so C'
  writes each element of T from the W element C wrote it from, and reads W only where C does),
  every element of T that an iteration of L (and H) reads is written by C' in that iteration,
  and every element C' writes lies in the block's columns (and rows) (`PARTIAL`, exact): so
  each element a load reads was written by C' from the same W element as by C, before the load,
  in this block.

A copy whose tiles do not divide the block (block-transposes' tiles of 16 columns, the
tile's column blocks of 24 at 256 bits) has its clone's tiles cut (`pack_column_blocks.
tile_split`): the clone's column (row) loop steps by g = gcd(tile, block) and its point loop
along that dimension runs `0 to g`, so the clone's tiles cover the block exactly; the pair test
above is what makes that exact (the clone's iterations are then not C's, the pairs are).

Between C and H nothing touches T, so H's loads read what C wrote; C writes T and nothing else
and only H reads what it wrote: C is erased. Each element moves unchanged, and the product reads
the same values in the same order: bit-exact. The copy's tiles stay as they are
(`transpose-tiles` turns each into a W x W vector transpose afterwards).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import access_pattern
from ....analysis.affine import Scope
from ....analysis.effects import op_effects
from ....analysis.loops import constant_bounds, domain_loops, enclosing_loops, loop_dims
from ....analysis.memory import keys_may_alias
from ....analysis.refusal import Refusal
from ....mlir import ir

READ_OPS = ("affine.load", "affine.vector_load")
# Pack a row-blocked product per row block too (the copy made once per row block and per loop
# nest that reads it). Exact, but measured 2-5% slower than the whole copy on this host
# (docs/cpu_codegen.md section 26): off, the form is refused (ROW_BLOCKS); tests turn it on.
PACK_PER_ROW_BLOCK = False
COPY_OPS = ("affine.for", "affine.yield", "affine.apply", "affine.load", "affine.store")


class PackCode(enum.Enum):
    """Why a transposed B stays one whole buffer (the remark)."""

    OTHER_USE = "[STOP PACK B] the buffer has a use other than the copy, the product's loads and its dealloc"
    NOT_A_COPY = "[STOP PACK B] the nest that fills the buffer is not a plain copy"
    NO_BLOCK_LOOP = "[STOP PACK B] no column-block loop beside the copy holds every read of the buffer"
    SOURCE_WRITTEN = "[STOP PACK B] the copy's source may be written before the product's last read"
    PARTIAL = "[STOP PACK B] the copy per block would not write exactly what the block reads"
    UNPACKED_READER = ("[STOP PACK B] the buffer is also read by a product that is not packed, which may read what "
                       "a packed copy wrote")
    ROW_BLOCKS = ("[STOP PACK B] the product's rows are split around its column blocks (row blocks or a remainder "
                  "nest): the copy would be made once per row block")

    @property
    def message(self) -> str:
        return self.value


@dataclass
class BlockPacking:
    """Pack `alloc`'s buffer (rows x cols) per iteration of `block` (step `width`), and of
    `row_block` when the reduction is blocked around it: `copy` the nest that fills it (its
    `store` of `load`), `col_loop` (`row_loop`) the copy's loop that moves the column (row),
    `reads` the product's loads, `deallocs` its frees. With `refusal`, the pair stays."""

    alloc: ir.Operation
    rows: int = 0
    cols: int = 0
    width: int = 0
    copy: ir.Operation | None = None
    load: ir.Operation | None = None
    store: ir.Operation | None = None
    col_loop: ir.Operation | None = None
    block: ir.Operation | None = None
    row_block: ir.Operation | None = None  # the reduction-block loop around `block`, or None
    row_loop: ir.Operation | None = None  # the copy's loop that moves the row (with row_block)
    height: int = 0  # rows of the packed buffer: row_block's step, else rows
    reads: tuple = ()
    deallocs: tuple = ()
    refusal: Refusal | None = None
    repeats: tuple = ()  # the row-block loop around `block` the copy repeats in, or ()
    products: int = 1  # how many products (loops after it) read the copy: each is a pair
    tails: tuple = ()  # the nests of the columns left over after the blocks (ColumnTail), packed alike


@dataclass(frozen=True)
class ColumnTail:
    """A nest `nest` after the copy that reads the columns the column blocks leave over: every
    read of the buffer in it (`reads`) lies in the constant columns `start` .. `start + width`,
    at most one block wide. Its copy is cloned just before it, restricted to those columns, into
    the pair's own buffer at `[r, e - start]`."""

    nest: ir.Operation
    start: int
    width: int
    reads: tuple


def _refuse(alloc, code: PackCode, detail: str, *ops) -> BlockPacking:
    return BlockPacking(alloc, refusal=Refusal(code, detail, (alloc, *ops)))


def _nested_in(op: ir.Operation, outer: ir.Operation) -> bool:
    """`op` is `outer` or lies inside it."""
    key = mlir.op_key(outer)
    return mlir.op_key(op) == key or any(mlir.op_key(lp) == key for lp in enclosing_loops(op))


def _copy_nest(store: ir.Operation) -> tuple[ir.Operation | None, ir.Operation | str]:
    """(the outermost loop around `store` that is a plain copy, its load), or (the store's
    innermost loop, why it is not a copy); (None, why) outside loops."""
    loops = enclosing_loops(store)
    if not loops:
        return None, "the store is not in a loop"
    found = None
    for lp in reversed(loops):
        load = _is_plain_copy(lp, store)
        if isinstance(load, str):
            return (found if found is not None else (lp, load))
        found = (lp, load)
    return found


def _is_plain_copy(nest: ir.Operation, store: ir.Operation) -> ir.Operation | str:
    """The copy's load when `nest` is loops, applies, one load and `store` of its value (module
    doc), else why not."""
    loads, stores = [], []
    for op in mlir.walk(nest):
        if op.name not in COPY_OPS:
            return f"{op.name} at {mlir.location_of(op)}"
        if op.name == "affine.for" and list(op.results):
            return f"a loop carrying values at {mlir.location_of(op)}"
        (loads if op.name == "affine.load" else stores if op.name == "affine.store" else []).append(op)
    if len(loads) != 1 or stores != [store] or store.operands[0] != loads[0].results[0] \
            or len(list(loads[0].results[0].uses)) != 1:
        return f"{len(loads)} loads and {len(stores)} stores"
    return loads[0]


def _moving_loop(nest: ir.Operation, store: ir.Operation, dim: int, scope: Scope) -> ir.Operation | None:
    """The outermost loop of the copy nest whose counter moves dimension `dim` of the store."""
    a = access_pattern(store, scope)
    for lp in enclosing_loops(store):
        if _nested_in(lp, nest) and a.uses_iv(loop_dims(lp, scope)[0].name, dim=dim):
            return lp
    return None


def _holder(op: ir.Operation, block_ops: list[ir.Operation]) -> int:
    """The position in `block_ops` of the op that is or holds `op` (-1: none)."""
    keys = {mlir.op_key(o): k for k, o in enumerate(block_ops)}
    cur = op
    while cur is not None:
        k = keys.get(mlir.op_key(cur))
        if k is not None:
            return k
        p = cur.parent
        cur = mlir.operation(p) if p is not None and p.name != "func.func" else None
    return -1


def plan_block_packing(alloc: ir.Operation, scope: Scope) -> list[BlockPacking]:
    """The plans (or refusals) for the local B buffer `alloc` (module doc), one per copy and the
    product after it (a buffer bufferization shares between several transposes has several);
    a product without column blocks (its column loop does not start at L's counter) gets none
    and no remark. The isl checks that need the clone are `check_clone`'s."""
    rows, cols = mlir.memref_type(alloc.results[0]).shape
    stores, reads, deallocs = [], [], []
    for use in alloc.results[0].uses:
        user = mlir.operation(use.owner)
        if user.name == "memref.dealloc":
            deallocs.append(user)
        elif user.name == "affine.store" and use.operand_number == 1:
            stores.append(user)
        elif user.name in READ_OPS and use.operand_number == 0:
            reads.append(user)
        else:
            return [_refuse(alloc, PackCode.OTHER_USE, f"{user.name} at {mlir.location_of(user)}", user)]
    if not stores or not reads:
        return [_refuse(alloc, PackCode.OTHER_USE, f"{len(stores)} stores and {len(reads)} loads")]
    copies = []
    for store in stores:
        nest, load = _copy_nest(store)
        if nest is None or isinstance(load, str):
            return [_refuse(alloc, PackCode.NOT_A_COPY, load, *(x for x in [nest] if x is not None))]
        if load.operands[0] == alloc.results[0]:
            return [_refuse(alloc, PackCode.NOT_A_COPY, "the copy reads the buffer itself", nest)]
        copies.append((nest, load, store))
    # Each copy's L: the first op after it in its block that touches the buffer.
    pairs, covered = [], set()
    for nest, load, store in copies:
        ops = _block_of(nest)
        at_copy = _index(ops, nest)
        holders = sorted({_holder(u, ops) for u in (*stores, *reads)} - {-1, at_copy})
        after = [k for k in holders if k > at_copy]
        # The copy's products: the ops after it that touch the buffer, up to the next copy.
        mine_at = []
        for k in after:
            if mine_at and any(_nested_in(st, ops[k]) for st in stores):
                break
            mine_at.append(k)
        if not mine_at:
            return [_refuse(alloc, PackCode.NO_BLOCK_LOOP, f"no op after the copy at {mlir.location_of(nest)} "
                            "reads the buffer", nest)]
        for k in mine_at:
            block = ops[k]
            mine = [r for r in reads if _nested_in(r, block)]
            if block.name != "affine.for" or not mine or any(_nested_in(st, block) for st in stores):
                return [_refuse(alloc, PackCode.NO_BLOCK_LOOP, f"the op at {mlir.location_of(block)} after the copy "
                                f"at {mlir.location_of(nest)} that touches the buffer is not a loop of loads of it",
                                nest)]
            covered.update(mlir.op_key(r) for r in mine)
            pairs.append((nest, load, store, block, mine, ops[at_copy + 1:k + 1], len(mine_at)))
    if len(covered) != len(reads):
        loose = next(r for r in reads if mlir.op_key(r) not in covered)
        return [_refuse(alloc, PackCode.NO_BLOCK_LOOP, f"{loose.name} at {mlir.location_of(loose)} reads the "
                        "buffer outside the loop after its copy", loose)]
    out, split = [], set()  # split: the copies refused for several products (one remark each)
    blocked = {}  # copy -> how many of its products have column blocks
    for nest, _, _, holder, mine, _, _ in pairs:
        if _column_block_loop(mine, holder) is not None:
            blocked[mlir.op_key(nest)] = blocked.get(mlir.op_key(nest), 0) + 1
    for nest, load, store, holder, mine, between, products in pairs:
        block = _column_block_loop(mine, holder)
        if block is None or mlir.op_key(nest) in split:
            continue  # no column blocks: the tile sweeps B's columns inside its rows (B fits half of L2)
        plan = _plan_pair(alloc, rows, cols, nest, load, store, holder, block, mine, between, deallocs, scope)
        plan.products = products
        if plan.refusal is None and products > 1 and blocked.get(mlir.op_key(nest)) == 1 and not plan.repeats:
            tails = _column_tails(plan, [p for p in pairs if mlir.op_key(p[0]) == mlir.op_key(nest)
                                         and mlir.op_key(p[3]) != mlir.op_key(holder)], scope)
            if tails is not None:
                plan.tails, plan.products = tails, products - len(tails)
        if plan.refusal is None and plan.repeats and not PACK_PER_ROW_BLOCK:
            plan = _refuse(alloc, PackCode.ROW_BLOCKS, f"the row-block loop at {mlir.location_of(plan.repeats[0])} "
                           f"(step {mlir.int_attr(plan.repeats[0], 'step')}) lies around the column blocks; the whole "
                           "copy, laid out in panels, is packed once for every row block", plan.repeats[0])
        elif plan.refusal is None and plan.products > 1 and not PACK_PER_ROW_BLOCK:
            plan = _refuse(alloc, PackCode.ROW_BLOCKS, f"{products} loop nests after the copy at "
                           f"{mlir.location_of(nest)} read it; the whole copy serves them all", nest)
        if plan.refusal is not None and products > 1:
            split.add(mlir.op_key(nest))  # the copy stays whole for all its products: one remark
        out.append(plan)
    return out


def _column_tails(plan: BlockPacking, others: list, scope: Scope) -> tuple | None:
    """The ColumnTail of each other product of the copy (`others`: the pairs of the nests after
    it without column blocks), or None when one is not a nest of the columns left over (module
    doc): the pair's reduction is whole (no reduction block), nothing from the copy to the nest
    writes a buffer that may be the source or has unmodelled effects, and the columns its reads
    touch over all its iterations and those around it form one window of at most the block's
    width (isl). That every read lies in what the clone writes is `check_tail`'s, on the clone."""
    if plan.row_block is not None:
        return None
    tails = []
    wkey = access_pattern(plan.load, scope).key
    for _, _, _, nest, reads, between, _ in others:
        for op in between:
            eff = op_effects(op)
            if eff.unknown or any(keys_may_alias(k, wkey) for k in eff.writes):
                return None
        window = _columns_read(reads, nest, scope)
        if window is None or window[1] - window[0] > plan.width:
            return None
        tails.append(ColumnTail(nest, window[0], window[1] - window[0], tuple(reads)))
    return tuple(tails)


def _columns_read(reads: list[ir.Operation], nest: ir.Operation, scope: Scope) -> tuple[int, int] | None:
    """(first, last + 1): the columns of T that `reads` (in `nest`) touch over every iteration of
    `nest` and the loops around it, when both are constants (isl); None otherwise."""
    import islpy as isl

    outer = [lp.name for lp in domain_loops(nest, scope)]
    try:
        cols = None
        for r in reads:
            s = _elements(r, outer, scope)
            if s is None:
                return None
            s = s.project_out(isl.dim_type.set, 0, len(outer) + 1)  # keep e_
            cols = s if cols is None else cols.union(s)
        if cols is None or cols.is_empty():
            return None
        lo, hi = cols.dim_min_val(0), cols.dim_max_val(0)
        if not (lo.is_int() and hi.is_int()):
            return None
        return lo.to_python(), hi.to_python() + 1
    except isl.Error:
        return None


def _blocks_rows(reads: list[ir.Operation], block: ir.Operation, loop: ir.Operation, scope: Scope,
                 dim: int = 0) -> bool | None:
    """isl: in every iteration of the loops around and of `block`, the rows (`dim` 1: the
    columns) of T that `reads` touch lie in `loop`'s block (counter .. counter + step); None when
    not modelled."""
    import islpy as isl

    outer_loops = domain_loops(block, scope) + loop_dims(block, scope)
    outer = [lp.name for lp in outer_loops]
    name = loop_dims(loop, scope)[0].name
    try:
        read = None
        for r in reads:
            s = _elements(r, outer, scope)
            if s is None:
                return None
            read = s if read is None else read.union(s)
        at = "e_" if dim else "r_"
        window = _isl_set(outer + ["r_", "e_"], [c for lp in outer_loops for c in lp.constraints()] + [
            f"{at} >= {name}", f"{at} < {name} + {mlir.int_attr(loop, 'step')}"], scope)
        return read.is_subset(window)
    except isl.Error:
        return None


def _column_block_loop(reads: list[ir.Operation], holder: ir.Operation) -> ir.Operation | None:
    """The register tile's column-block loop: the loop inside `holder` (or `holder`) whose counter
    starts the column walk of a read (`holder` itself when the walk's loop is `holder`)."""
    from .constant_panels import column_walk

    for r in reads:
        walk = column_walk(r)
        if walk is None:
            continue
        if mlir.op_key(walk.j_loop) == mlir.op_key(holder):
            return holder
        for v in walk.j_loop.operands:
            owner = v.owner if isinstance(v, ir.BlockArgument) else None
            if owner is None:
                continue
            lp = mlir.operation(owner.owner) if hasattr(owner, "owner") else None
            if lp is not None and lp.name == "affine.for" and _nested_in(lp, holder):
                return lp
    return None


def _plan_pair(alloc, rows, cols, nest, load, store, holder, block, reads, between, deallocs, scope) -> BlockPacking:
    """The plan of one copy and the product after it (module doc), or its refusal."""
    if not 1 < mlir.int_attr(block, "step") < cols:
        return _refuse(alloc, PackCode.NO_BLOCK_LOOP, f"the loop at {mlir.location_of(block)} steps by "
                       f"{mlir.int_attr(block, 'step')}, not by a column block narrower than the buffer", block)
    if not all(_nested_in(r, block) for r in reads):
        return _refuse(alloc, PackCode.NO_BLOCK_LOOP, f"a read of the buffer lies outside the column-block loop at "
                       f"{mlir.location_of(block)}", block)
    chain = [lp for lp in enclosing_loops(block) if _nested_in(lp, holder)]
    row_block = row_loop = None
    reduction, repeats = [], []
    for lp in chain:
        if 1 < mlir.int_attr(lp, "step") < cols and _blocks_rows(reads, block, lp, scope, dim=1):
            continue  # a column block of column blocks (cache tiling's nc): each column still copied once
        within = _blocks_rows(reads, block, lp, scope) if 1 < mlir.int_attr(lp, "step") < rows else False
        if within is None:
            return _refuse(alloc, PackCode.NO_BLOCK_LOOP, f"the rows the loop at {mlir.location_of(lp)} reads "
                           "are not modelled", lp)
        (reduction if within else repeats).append(lp)
    if len(reduction) > 1 or (repeats and not _repeat_ok(repeats)):
        return _refuse(alloc, PackCode.NO_BLOCK_LOOP, f"the column-block loop at {mlir.location_of(block)} lies "
                       f"inside {len(reduction)} reduction-block loops and {len(repeats)} other loops (one "
                       "reduction-block loop and one row-block loop at most)", block)
    if reduction:
        row_block = reduction[0]
        row_loop = _moving_loop(nest, store, 0, scope)
        if row_loop is None or constant_bounds(row_loop) is None or list(row_loop.operands):
            return _refuse(alloc, PackCode.PARTIAL, "no loop of the copy with constant bounds moves the row", nest)
    wkey = access_pattern(load, scope).key
    for op in between:
        eff = op_effects(op)
        if eff.unknown:
            return _refuse(alloc, PackCode.SOURCE_WRITTEN, f"{op.name} at {mlir.location_of(op)} has effects that "
                           "are not modelled", op)
        if any(keys_may_alias(k, wkey) for k in eff.writes):
            return _refuse(alloc, PackCode.SOURCE_WRITTEN, f"{op.name} at {mlir.location_of(op)} writes a buffer "
                           "that may be the source", op)
    col = _moving_loop(nest, store, 1, scope)
    if col is None or constant_bounds(col) is None or list(col.operands) \
            or (row_loop is not None and mlir.op_key(col) == mlir.op_key(row_loop)):
        return _refuse(alloc, PackCode.PARTIAL, "no loop of the copy with constant bounds moves the column", nest)
    height = mlir.int_attr(row_block, "step") if row_block is not None else rows
    return BlockPacking(alloc, rows, cols, mlir.int_attr(block, "step"), nest, load, store, col, block, row_block,
                        row_loop, height, tuple(reads), tuple(deallocs), repeats=tuple(repeats))


def _repeat_ok(repeats: list[ir.Operation]) -> bool:
    """One row-block loop (cache tiling's mc blocks) between the copy and the column blocks,
    stepping by more than one row: the copy then runs once per row block."""
    return len(repeats) == 1 and mlir.int_attr(repeats[0], "step") > 1


def _block_of(op: ir.Operation) -> list[ir.Operation]:
    """The ops of the block holding `op`."""
    return [mlir.operation(o) for o in op.operation.block.operations]


def _index(ops: list[ir.Operation], op: ir.Operation) -> int:
    for k, o in enumerate(ops):
        if mlir.op_key(o) == mlir.op_key(op):
            return k
    return -1


def _isl_set(dims: list[str], cons: list[str], scope: Scope):
    import islpy as isl

    params = sorted(scope.params)
    return isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] : {' and '.join(cons or ['1 = 1'])} }}")


def _elements(op: ir.Operation, outer: list[str], scope: Scope):
    """{ [outer..., r, e] } the elements of T `op` touches (a vector access: its lanes along e),
    the loops inside `outer` projected out."""
    import islpy as isl

    a = access_pattern(op, scope)
    if a.index is None or len(a.index) != 2:
        return None
    inner = [lp for lp in a.loops if lp.name not in outer]
    lanes = a.extents()[1]
    cons = [c for lp in a.loops for c in lp.constraints()]
    cons += [f"r_ = {a.index[0]}", f"e_ >= {a.index[1]}", f"e_ < {a.index[1]} + {lanes}"]
    dims = outer + [lp.name for lp in inner] + ["r_", "e_"]
    try:
        s = _isl_set(dims, cons, scope)
    except isl.Error:
        return None
    return s.project_out(isl.dim_type.set, len(outer), len(inner))


def _load_of(store: ir.Operation) -> ir.Operation | None:
    """The affine.load whose value `store` stores, or None."""
    owner = store.operands[0].owner
    if isinstance(owner, ir.Block):
        return None
    op = mlir.operation(owner)
    return op if op.name == "affine.load" else None


def _moved(store: ir.Operation, load: ir.Operation, outer: list[str], scope: Scope):
    """{ [outer..., t..., w...] } the pairs (element of T written, element of W read) the copy
    nest of `store` and `load` moves, its loops not in `outer` projected out; None when an index
    is not affine."""
    import islpy as isl

    a, b = access_pattern(store, scope), access_pattern(load, scope)
    if a.index is None or b.index is None:
        return None
    inner = [lp for lp in a.loops if lp.name not in outer]
    ts = [f"t{k}_" for k in range(len(a.index))]
    ws = [f"w{k}_" for k in range(len(b.index))]
    cons = [c for lp in a.loops for c in lp.constraints()]
    cons += [f"{t} = {e}" for t, e in zip(ts, a.index)] + [f"{w} = {e}" for w, e in zip(ws, b.index)]
    try:
        s = _isl_set(outer + [lp.name for lp in inner] + ts + ws, cons, scope)
    except isl.Error:
        return None
    return s.project_out(isl.dim_type.set, len(outer), len(inner))


def check_clone(plan: BlockPacking, clone_store: ir.Operation, clone_col: ir.Operation,
                clone_row: ir.Operation | None, scope: Scope) -> Refusal | None:
    """The exactness checks of the module doc on the built clone (at the head of the block loop;
    `clone_store` its store; `clone_col`'s counter plus jb stands for the copy's column counter,
    `clone_row`'s plus kb for its row counter). None when exact."""
    block = plan.block
    outer_loops = domain_loops(block, scope) + loop_dims(block, scope)
    kb = loop_dims(plan.row_block, scope)[0].name if plan.row_block is not None else None
    return _check_copy(plan, clone_store, outer_loops, outer_loops[-1].name, kb, plan.width, plan.reads, scope)


def check_tail(plan: BlockPacking, tail: ColumnTail, clone_store: ir.Operation, scope: Scope) -> Refusal | None:
    """The same checks for the clone just before a nest of the columns left over (its columns
    `tail.start` .. `tail.start + tail.width`, per iteration of the loops around the nest).
    None when exact."""
    return _check_copy(plan, clone_store, domain_loops(tail.nest, scope), str(tail.start), None, tail.width,
                       tail.reads, scope)


def _check_copy(plan: BlockPacking, clone_store: ir.Operation, outer_loops: list, jb: str, kb: str | None,
                width: int, reads, scope: Scope) -> Refusal | None:
    """C's store one to one, the clone's pairs among C's, every element `reads` touch written by
    the clone and every element it writes within the window (columns jb .. jb + width, rows kb ..
    kb + height or all), each per iteration of `outer_loops` (module doc). None when exact."""
    import islpy as isl

    def refuse(detail: str) -> Refusal:
        return Refusal(PackCode.PARTIAL, detail, (plan.alloc, plan.copy))

    outer = [lp.name for lp in outer_loops]
    try:
        # C's store is one to one over C's iterations (each iteration of the loops around C).
        a0 = access_pattern(plan.store, scope)
        if a0.index is None:
            return refuse("the copy's store index is not affine")
        names0 = [lp.name for lp in a0.loops]
        cons0 = [c for lp in a0.loops for c in lp.constraints()]
        params = sorted(scope.params)
        fixed = [lp.name for lp in a0.loops if not _nested_in(lp.op, plan.copy)]  # the loops around C
        m = isl.Map(f"[{', '.join(params)}] -> {{ [{', '.join(names0)}] -> [{', '.join(fixed + list(a0.index))}] : "
                    f"{' and '.join(cons0 or ['1 = 1'])} }}")
        if not m.is_injective():
            return refuse("two iterations of the copy may write one element")
        # Each (T element, W element) pair C' moves is a pair C moves: with C's store one to one,
        # C' writes each element of T from the W element C wrote it from, and reads only
        # elements of W that C reads (a clone whose tiles were cut to the block's width runs
        # iterations C does not have, but moves the same pairs).
        clone_load = _load_of(clone_store)
        if clone_load is None:
            return refuse("the clone's stored value is not its load")
        moved, moved0 = _moved(clone_store, clone_load, outer, scope), _moved(plan.store, plan.load, outer, scope)
        if moved is None or moved0 is None:
            return refuse("the copy's indices are not modelled")
        if not moved.is_subset(moved0):
            return refuse("the copy per block would move an element the copy does not move")
        written = _elements(clone_store, outer, scope)
        if written is None:
            return refuse("the clone's store is not modelled")
        read = None
        for r in reads:
            s = _elements(r, outer, scope)
            if s is None:
                return refuse(f"{r.name} at {mlir.location_of(r)}: its index is not affine")
            read = s if read is None else read.union(s)
        outer_cons = [c for lp in outer_loops for c in lp.constraints()]
        rows_in = [f"r_ >= {kb}", f"r_ < {kb} + {plan.height}"] if kb else []
        window = _isl_set(outer + ["r_", "e_"], outer_cons + rows_in + [
            f"e_ >= {jb}", f"e_ < {jb} + {width}", "r_ >= 0", f"r_ < {plan.rows}"], scope)
        if not read.is_subset(written):
            return refuse("the block reads an element its copy does not write before")
        if not written.is_subset(window):
            return refuse("the copy per block writes outside the block's columns")
    except isl.Error as e:
        return refuse(f"not modelled ({str(e).splitlines()[0] if str(e) else 'isl'})")
    return None
