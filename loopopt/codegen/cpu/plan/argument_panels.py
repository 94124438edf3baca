"""A product's B read in place from an argument, packed per column block (cpu): the plan.

The register tile reads B as `B[k, J + c]` (c = 0, W, 2W, ...) for every k of its reduction,
one row segment of NB = vectors x width elements per k step, the next one a whole row of B
further. Where B's panel exceeds half of L2 the tile sweeps B's columns in column blocks
(`L: for jb step NB { for i (row tiles) { for j = jb to jb + NB step NB { for k { .. B[k, j + c]
.. } } } }`, section 11): every row tile of the block reads the same K x NB micro-panel. A
constant B is laid out in panels at compile time (section 11d), a buffer the function fills is
filled in panels (panel-layout), a transposed copy is made per block (section 26). A B the
function receives as an argument is in the caller's layout: rows of N elements, so the
micro-panel's K rows lie N elements apart, in a few cache sets of L1 and L2 (N = 2048 f32:
every row 8 KiB apart, all in one L1 set and 8 of L2's), and each row tile reads them again
from L3. As BLIS packs B, the micro-panel is copied once per column block, at the head of L,
into one contiguous H x NB buffer P that every row tile of the block reads:

    L: for jb { P[r, c] = B[r0 + r, jb + c]  (r < H, c < NB; vectors of w lanes)
                ... P[k - r0, j + c - jb] ... }

with r0 = 0 and H = B's rows, or, when a loop around L blocks the reduction
(`for kb step KC { L }`, cache tiling or isolation's strips), r0 = kb and H = KC.

`plan_argument_panels` takes a pair (L, B) only where that is exact:

* B is an argument of the function (the entry block's), a rank-2 memref of static shape and
  the identity layout, with more than NB columns (else the layout is the same);
* L is the loop whose counter is the lower bound of a register tile's column walk of B (an
  affine.vector_load `B[row, J + c]`, J's lower bound L's counter, the row moving inside J:
  `constant_panels.column_walk`), stepping by NB > 1;
* the reads of B inside L that move to P are its affine.load and affine.vector_load ops; any
  other read of B (a masked vector load) keeps reading B, which holds the same values;
* nothing in L writes a buffer that may be B, and nothing in L has effects that are not
  modelled (`WRITTEN`): every element the copy reads at the head of L holds, at each later
  read in the same iteration, what it held then;
* isl: in every iteration of L and the loops around it, the elements of B that L's reads touch
  are exactly the window rows r0 .. r0 + H, columns jb .. jb + NB (`NOT_A_WINDOW`), r0 = kb
  for the innermost loop around L whose iterations read only rows kb .. kb + step
  (`column_block_packing._blocks_rows`), else 0 with H = B's rows. So the copy reads only
  elements the product reads (in bounds), and every read finds its element in P;
* the micro-panel is read by at least MIN_ROW_TILES row tiles per copy: the product of the trip
  counts of the loops inside L around a read that do not move its index (constant, or isl's
  maximum over the loops around) (`FEW_ROW_TILES`: the copy would cost what it saves);
* the copy moves vectors of w = gcd(NB, the target's lanes, the lanes of B's vector loads)
  elements (scalars when w = 1).

Each read then finds in P the element it read in B, unchanged since the copy, and the product's
sums run in the same order: bit-exact.

Row blocks around the column blocks (cache tiling's `for ib step MC { L }`) read the same windows
in each of their iterations; the copy per block would then read B once per row block. Instead
(`whole_layout`) P holds the whole panel layout, `P[jb floordiv NB, k, c]` = B[k, jb + c], and the
copy at the head of L runs only in the first iteration of every such repeat loop (an affine.if on
their counters), each later iteration reading the panels it left. Taken only where that is exact:

* the repeat loops are the affine.for ops around L (not the reduction block) of a constant lower
  bound whose first iteration alone visits every window (below); only affine.for ops lie between
  the outermost of them and L (`NOT_ONCE`);
* isl: every iteration of L and the loops around it, its repeat counters set to their lower
  bounds, is an iteration too (the first row block copies every window any later one reads,
  and before it: the first differing counter is a repeat one, smaller), and every jb is a
  multiple of NB with 0 <= jb and jb + NB <= B's columns (`NOT_ONCE`);
* nothing in the outermost repeat loop writes a buffer that may be B (`WHOLE_WRITTEN`): the
  panels copied in the first row block hold B's values at every later read;
* the row tiles per copy are at most ROW_TILES_PER_SAVED_COPY x (row blocks - 1), the row
  blocks the repeat loops' constant trip counts (`FEW_ROW_BLOCKS`): the whole layout's writes
  leave the caches the per-block panel stays in, paid only where the copies saved are a share
  of the work;
* the whole layout fits the L3 share (`WHOLE_OVER_BUDGET`): beyond it, the panels' writes go to
  memory, a cost of the size of B against the reads of B it saves.

Each refusal keeps the copy per block (a remark says why).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import access_pattern
from ....analysis.affine import Scope
from ....analysis.effects import op_effects
from ....analysis.loops import domain_loops, enclosing_loops, loop_dims, trip_count
from ....analysis.memory import buffer_key, keys_may_alias, root_origin
from ....analysis.refusal import Refusal
from ....mlir import ir
from .column_block_packing import _blocks_rows, _elements, _isl_set, _nested_in
from .constant_panels import _iv_owner, column_walk

READ_OPS = ("affine.load", "affine.vector_load")
# Row tiles that read one copied micro-panel, at least. With one, the copy (a read of B, a write
# and a read of P) only adds to reading B once in place: x @ W, 4 x 4096 x 1024, packed ran 1.25x
# flushed; with two (8 rows) 0.55x warm, 0.80x flushed (docs/cpu_codegen.md section 55).
MIN_ROW_TILES = 2
# The whole layout (row blocks around the column blocks) is taken where each row tile of a copy
# saves at least 1/ROW_TILES_PER_SAVED_COPY of a copy: row_tiles <= this x (row blocks - 1).
# Measured (docs/cpu_codegen.md section 62, paired against the copy per row block): 16 row tiles
# a copy, 2 row blocks 1.06x warm / 1.05x flushed (slower), 3 blocks 1.00 / 0.92, 4 blocks 0.97 /
# 0.97; 8 row tiles, 4 blocks 0.71 / 0.89; 5 row tiles, 6 blocks 0.89 / 0.35.
ROW_TILES_PER_SAVED_COPY = 8


class ArgumentPanelCode(enum.Enum):
    """Why a product's B argument is read in place (the remark)."""

    WRITTEN = "[STOP PACK PANEL] the column block may write the argument"
    NOT_A_WINDOW = "[STOP PACK PANEL] the column block does not read a window of whole rows and its columns"
    FEW_ROW_TILES = "[STOP PACK PANEL] too few row tiles read the column block's panel to pay for its copy"
    NOT_ONCE = "[STOP WHOLE PANEL] the row blocks around the column blocks are not shown to read the same panels"
    WHOLE_WRITTEN = "[STOP WHOLE PANEL] the row blocks around the column blocks may write the argument"
    WHOLE_OVER_BUDGET = "[STOP WHOLE PANEL] the whole panel layout exceeds the L3 share"
    FEW_ROW_BLOCKS = "[STOP WHOLE PANEL] too few row blocks read each panel to pay for the whole layout"

    @property
    def message(self) -> str:
        return self.value


@dataclass
class ArgumentPanel:
    """Copy rows `row_base` .. + `height` (row_base: the counter of `row_block`, or 0 without
    one) and columns jb .. jb + `width` of the argument `source` (rows x cols) at the head of
    each iteration of `block` (counter jb) into one height x width buffer, in vectors of
    `lanes`; `reads` are every read of `source` inside `block`, `row_tiles` how many row tiles
    read each copy. With `refusal`, B stays read in place."""

    source: ir.Value
    block: ir.Operation
    rows: int = 0
    cols: int = 0
    width: int = 0
    height: int = 0
    row_block: ir.Operation | None = None
    lanes: int = 0
    reads: tuple = ()
    row_tiles: int = 0
    refusal: Refusal | None = None
    # The whole layout (`whole_layout`): the loops around `block` whose iterations read the same
    # windows (the copy runs in their first iteration only), their lower bounds, and how many
    # panels of `width` columns the buffer holds (0: one panel, copied per block).
    repeats: tuple = ()
    starts: tuple = ()
    panels: int = 0
    whole_refusal: Refusal | None = None


def _refuse(source: ir.Value, block: ir.Operation, code: ArgumentPanelCode, detail: str, *ops) -> ArgumentPanel:
    return ArgumentPanel(source, block, refusal=Refusal(code, detail, (block, *ops)))


def is_entry_argument(v: ir.Value) -> bool:
    """`v` is an argument of its function's entry block (not a view of one)."""
    return mlir.is_block_argument(v) and root_origin(v) == "argument"


def plain_matrix(t) -> bool:
    """A rank-2 memref of static shape and the identity layout."""
    return isinstance(t, ir.MemRefType) and len(t.shape) == 2 and t.has_static_shape and mlir.identity_layout(t)


def column_block_of(load: ir.Operation) -> ir.Operation | None:
    """The column-block loop L of a register tile's read of B: the loop whose counter is the
    lower bound of the read's column walk (`column_walk`: `B[row, J + c]`, the row moving inside
    J's loop), J's only bound operand; else None (no column blocks)."""
    walk = column_walk(load)
    if walk is None or not walk.row_moves_inside():
        return None
    operands = list(walk.j_loop.operands)
    lb = mlir.affine_map_attr(walk.j_loop, "lowerBoundMap")
    if lb.n_dims != 1 or lb.n_symbols or len(lb.results) != 1 or not operands:
        return None
    owner = _iv_owner(operands[0])
    if owner is None or not all(v == operands[0] for v in operands):
        return None
    return owner if _nested_in(walk.j_loop, owner) else None


def candidates(fn: ir.Operation) -> list[tuple[ir.Value, ir.Operation]]:
    """(B, L): each argument a register tile reads in column blocks, with its block loop, once,
    in program order."""
    out, seen = [], set()
    for op in mlir.walk(fn):
        if op.name != "affine.vector_load" or not is_entry_argument(op.operands[0]):
            continue
        block = column_block_of(op)
        if block is None:
            continue
        key = (mlir.op_key(block), ir.BlockArgument(op.operands[0]).arg_number)
        if key not in seen:
            seen.add(key)
            out.append((op.operands[0], block))
    return out


def affine_reads(source: ir.Value, block: ir.Operation) -> list[ir.Operation]:
    """The affine.load and affine.vector_load ops of `source` inside `block`."""
    return [mlir.operation(u.owner) for u in source.uses
            if mlir.operation(u.owner).name in READ_OPS and u.operand_number == 0
            and _nested_in(mlir.operation(u.owner), block)]


def _writer(source: ir.Value, block: ir.Operation) -> tuple[ir.Operation | None, str]:
    """(an op inside `block` that may write `source` or has unmodelled effects, why) or (None, "")."""
    key = buffer_key(source)
    for op in mlir.walk(block):
        eff = op_effects(op)
        if eff.unknown:
            return op, "has effects that are not modelled"
        if any(keys_may_alias(k, key) for k in eff.writes):
            return op, "writes a buffer that may be the argument"
    return None, ""


def row_tiles(read: ir.Operation, block: ir.Operation, scope: Scope) -> int | None:
    """How many times one iteration of `block` runs `read` with the same index: the product of
    the trip counts of the loops inside `block` around it whose counters its index does not use
    (each constant, or its maximum over the loops around); None when one is not bounded."""
    a = access_pattern(read, scope)
    n = 1
    for lp in enclosing_loops(read):
        if not _nested_in(lp, block) or mlir.op_key(lp) == mlir.op_key(block) or lp.name != "affine.for":
            continue
        (dim,) = loop_dims(lp, scope)
        if a.uses_iv(dim.name):
            continue
        tc = trip_count(lp, scope)
        if tc is None:
            return None
        c = tc.constant
        if c is None:
            top = tc.pw.max_val() if hasattr(tc.pw, "max_val") else None
            if top is None or not top.is_int():
                return None
            c = top.to_python()
        n *= max(0, int(c))
    return n


def _row_block(reads: list[ir.Operation], block: ir.Operation, rows: int, scope: Scope):
    """(the innermost loop around `block` whose iterations read only rows kb .. kb + step of B,
    or None; its step, or B's rows); (False, why) when the rows are not modelled."""
    for lp in reversed(enclosing_loops(block)):
        if lp.name != "affine.for" or not 1 < mlir.int_attr(lp, "step") < rows:
            continue
        within = _blocks_rows(reads, block, lp, scope)
        if within is None:
            return False, f"the rows the loop at {mlir.location_of(lp)} reads are not modelled"
        if within:
            return lp, mlir.int_attr(lp, "step")
    return None, rows


def window_refusal(reads: list[ir.Operation], block: ir.Operation, row_block: ir.Operation | None,
                   height: int, width: int, scope: Scope) -> str | None:
    """isl: in every iteration of `block` and the loops around it, the elements `reads` touch
    are exactly rows kb .. kb + height (kb the counter of `row_block`, else 0) and columns
    jb .. jb + width (jb `block`'s counter); None when so, else why not."""
    import islpy as isl

    outer_loops = domain_loops(block, scope) + loop_dims(block, scope)
    outer = [lp.name for lp in outer_loops]
    jb = outer[-1]
    r0 = loop_dims(row_block, scope)[0].name if row_block is not None else "0"
    try:
        read = None
        for r in reads:
            s = _elements(r, outer, scope)
            if s is None:
                return f"{r.name} at {mlir.location_of(r)}: its index is not affine"
            read = s if read is None else read.union(s)
        window = _isl_set(outer + ["r_", "e_"], [c for lp in outer_loops for c in lp.constraints()] + [
            f"r_ >= {r0}", f"r_ < {r0} + {height}", f"e_ >= {jb}", f"e_ < {jb} + {width}"], scope)
        if not read.is_subset(window):
            return "a read lies outside the block's window"
        if not window.is_subset(read):
            return "the block leaves part of its window unread: the copy would read what the product does not"
    except isl.Error as e:
        return f"not modelled ({str(e).splitlines()[0] if str(e) else 'isl'})"
    return None


def plan_argument_panel(source: ir.Value, block: ir.Operation, lanes: int, scope: Scope,
                        budget: int | None = None) -> ArgumentPanel | None:
    """The plan (or refusal) for argument `source` read in column blocks by `block` (module doc);
    None where there is nothing to pack (B no wider than the block, not a plain matrix).
    `lanes`: the vector lanes of the target for B's element type; `budget`: the bytes a whole
    panel layout may take (the L3 share; None: the copy stays per block)."""
    t = source.type
    nb = mlir.int_attr(block, "step")
    if not plain_matrix(t) or nb <= 1 or t.shape[1] <= nb:
        return None
    rows, cols = t.shape
    reads = affine_reads(source, block)
    op, why = _writer(source, block)
    if op is not None:
        return _refuse(source, block, ArgumentPanelCode.WRITTEN, f"{op.name} at {mlir.location_of(op)} {why}", op)
    row_block, height = _row_block(reads, block, rows, scope)
    if row_block is False:
        return _refuse(source, block, ArgumentPanelCode.NOT_A_WINDOW, height)
    why = window_refusal(reads, block, row_block, height, nb, scope)
    if why is not None:
        return _refuse(source, block, ArgumentPanelCode.NOT_A_WINDOW, why)
    tiles = [row_tiles(r, block, scope) for r in reads if r.name == "affine.vector_load"]
    if not tiles or None in tiles:
        return _refuse(source, block, ArgumentPanelCode.FEW_ROW_TILES, "the row tiles per block are not bounded")
    if max(tiles) < MIN_ROW_TILES:
        return _refuse(source, block, ArgumentPanelCode.FEW_ROW_TILES,
                       f"{max(tiles)} row tile(s) per block, fewer than {MIN_ROW_TILES}")
    w = math.gcd(nb, lanes, *(r.results[0].type.shape[0] for r in reads if r.name == "affine.vector_load"))
    plan = ArgumentPanel(source, block, rows, cols, nb, height, row_block, w, tuple(reads), max(tiles))
    whole = whole_layout(plan, budget, scope) if budget is not None else None
    if isinstance(whole, Refusal):
        plan.whole_refusal = whole
    elif whole is not None:
        plan.repeats, plan.starts, plan.panels = whole.repeats, whole.starts, whole.panels
    return plan


@dataclass(frozen=True)
class WholeLayout:
    """The loops whose first iteration alone copies, their lower bounds, the panels held."""

    repeats: tuple
    starts: tuple
    panels: int


def _constant_lower_bound(lp: ir.Operation) -> int | None:
    m = mlir.affine_map_attr(lp, "lowerBoundMap")
    if len(m.results) != 1 or not isinstance(m.results[0], ir.AffineConstantExpr):
        return None
    return ir.AffineConstantExpr(m.results[0]).value


def _domain(block: ir.Operation, scope: Scope, extra: list[str] = ()):
    """{ [the loops around `block`..., its counter] } (isl), and the dimension names."""
    outer_loops = domain_loops(block, scope) + loop_dims(block, scope)
    outer = [lp.name for lp in outer_loops]
    return _isl_set(outer, [c for lp in outer_loops for c in lp.constraints()] + list(extra), scope), outer


def first_iteration_refusal(block: ir.Operation, repeats: list[ir.Operation], starts: list[int],
                            scope: Scope) -> str | None:
    """isl: every iteration of `block` (with the loops around it), its counters of `repeats` set
    to `starts`, is an iteration too: the repeat counters projected out, the iterations at the
    starts are all of them. None when so, else why not."""
    import islpy as isl

    names = [loop_dims(lp, scope)[0].name for lp in repeats]
    try:
        domain, outer = _domain(block, scope)
        first, _ = _domain(block, scope, [f"{n} = {s}" for n, s in zip(names, starts)])
        for pos in sorted((outer.index(n) for n in names), reverse=True):
            domain = domain.project_out(isl.dim_type.set, pos, 1)
            first = first.project_out(isl.dim_type.set, pos, 1)
        if not domain.is_subset(first):
            return "a row block after the first reads a window the first does not"
    except isl.Error as e:
        return f"not modelled ({str(e).splitlines()[0] if str(e) else 'isl'})"
    return None


def aligned_refusal(block: ir.Operation, width: int, cols: int, scope: Scope) -> str | None:
    """isl: every counter jb of `block` is a multiple of `width`, 0 <= jb, jb + width <= cols (so
    `jb floordiv width` names one panel per window). None when so, else why not."""
    import islpy as isl

    try:
        domain, outer = _domain(block, scope)
        jb = outer[-1]
        aligned = _isl_set(outer, [f"{jb} mod {width} = 0", f"{jb} >= 0", f"{jb} + {width} <= {cols}"], scope)
        if not domain.is_subset(aligned):
            return f"a column block does not start on a multiple of {width} inside the argument"
    except isl.Error as e:
        return f"not modelled ({str(e).splitlines()[0] if str(e) else 'isl'})"
    return None


def whole_layout(plan: ArgumentPanel, budget: int, scope: Scope) -> WholeLayout | Refusal | None:
    """The whole panel layout for `plan` (module doc), a refusal (the copy stays per block), or
    None where no loop around the block repeats its windows. The repeat loops are the loops
    around the block (not the reduction block, not of one iteration) whose first iteration alone
    visits every window
    (`first_iteration_refusal` on each); a loop that moves the windows (cache tiling's column
    blocks around the row blocks) keeps copying in each of its iterations."""
    block = plan.block

    def refuse(code: ArgumentPanelCode, detail: str, *ops) -> Refusal:
        return Refusal(code, detail, (block, *ops))

    repeats, starts = [], []
    for lp in enclosing_loops(block):
        if plan.row_block is not None and mlir.op_key(lp) == mlir.op_key(plan.row_block):
            continue
        s = _constant_lower_bound(lp) if lp.name == "affine.for" else None
        tc = trip_count(lp, scope) if s is not None else None
        if tc is not None and tc.constant is not None and tc.constant <= 1:
            continue  # one iteration repeats nothing
        if s is not None and first_iteration_refusal(block, [lp], [s], scope) is None:
            repeats.append(lp)
            starts.append(s)
    if not repeats:
        return None
    cur = mlir.operation(block.parent)
    while mlir.op_key(cur) != mlir.op_key(repeats[0]):
        if cur.name != "affine.for":
            return refuse(ArgumentPanelCode.NOT_ONCE, f"the {cur.name} at {mlir.location_of(cur)} lies around "
                          "the column blocks", cur)
        cur = mlir.operation(cur.parent)
    why = first_iteration_refusal(block, repeats, starts, scope) or aligned_refusal(block, plan.width, plan.cols, scope)
    if why is not None:
        return refuse(ArgumentPanelCode.NOT_ONCE, why)
    op, why = _writer(plan.source, repeats[0])
    if op is not None:
        return refuse(ArgumentPanelCode.WHOLE_WRITTEN, f"{op.name} at {mlir.location_of(op)} {why}", op)
    blocks = 1
    for lp in repeats:
        tc = trip_count(lp, scope)
        if tc is None or tc.constant is None:
            return refuse(ArgumentPanelCode.FEW_ROW_BLOCKS, f"the loop at {mlir.location_of(lp)} runs a count "
                          "known at run time only", lp)
        blocks *= int(tc.constant)
    if plan.row_tiles > ROW_TILES_PER_SAVED_COPY * (blocks - 1):
        return refuse(ArgumentPanelCode.FEW_ROW_BLOCKS, f"{blocks} row block(s) of {plan.row_tiles} row tiles: "
                      f"more than {ROW_TILES_PER_SAVED_COPY} row tiles per copy saved")
    panels = -(-plan.cols // plan.width)
    size = panels * plan.rows * plan.width * mlir.element_size_bytes(mlir.memref_type(plan.source).element_type)
    if size > budget:
        return refuse(ArgumentPanelCode.WHOLE_OVER_BUDGET, f"{size // 1024} KiB over {budget // 1024} KiB")
    return WholeLayout(tuple(repeats), tuple(starts), panels)
