"""De-interleaved copies (cpu; docs/cpu_codegen.md section 35): the operand of a reduction nest
that moves by a stride s >= options.deinterleave_min_stride (2) along the loop that would give the
register tile's lanes, and that every loop around the nest moves (a depthwise convolution or a
pooling window: each input window is read for one output channel only, so section 31's im2col
copy has no loop to reuse it over), is copied once into a buffer whose last two dimensions split
the strided one by its residue mod s:

    Xs[.., r, j] = X[.., e0 + s * j + r]    (r < s; e0 the least element the nest reads)

Each element the nest reads is copied once (growth 1 whatever the kernel). A load
X[.., s * ow + g] (g moves with the reduction loops only: a kernel column kw) becomes
Xs[.., (s * ow + g - e0) mod s, (s * ow + g - e0) floordiv s]: for a fixed tap its residue is
fixed and its column moves by one with ow: contiguous along ow.

`plan_deinterleaves(fn, facts, options)` decides per band of loops above a reduction nest (the
bands `loop-order`'s lanes order takes, codegen/cpu/plan/lanes_order.py). The lanes loop Q is P
(the loop around the reduction) when the register tile's own test refuses P's lanes only for
loads of a stride larger than LANE_STRIDE (`strided_packing.packable_loads`); else the loop the
lanes order would move around the reduction once those loads count as contiguous
(`plan_lanes_order(..., allowed=...)`, legal and carrying nothing there). A load is copied when:
- its stride along Q is at least `options.deinterleave_min_stride` (an int >= 2) and it moves
  with every loop of the band (else a loop reuses a copy: section 31's im2col copy, pack-strided);
- it reads its memref operand itself (no view), defined before the band, and its index uses
  only IVs of the band's nest and constants (INDEX);
- every loop of that nest has constant bounds, and each dimension's least and greatest index
  over them lie in the operand's static shape (isl; the copy reads every element between them:
  OUT_OF_BOUNDS);
- nothing in the band writes a buffer that may alias the operand, nor has unknown effects
  (`op_effects`): each value the nest reads is the value the copy read before the band (WRITTEN);
- the copy holds at most `options.strided_pack_growth` times the elements the nest reads (isl's
  count; a window of fewer columns than the stride skips some: TOO_LARGE);
- not when Q is P, the register tile leaves the nest to LLVM (sums that may be reassociated) and
  the load reads each element once (a pooling window no wider than its stride): LLVM's loop
  vectorizer reads such loads as interleaved groups (INTERLEAVED).
- at stride LANE_STRIDE (2), only where the copy moves fewer vector ops over the whole nest than
  the register tile's own two loads and a shuffle per W lanes and its columns left to scalars
  (`stride2_traffic`, TRAFFIC; docs/cpu_codegen.md section 48): with every column in vectors the
  copy pays where the nest reads each element more than 3/2 times (a 3 x 3 window: 9/4; a 2 x 2
  window: 1).
A row-major operand whose rows hold whole groups of s (torch's padded rows of an even width) is
copied a slice at a time as one stream, its rows and columns joined by a view (`plane_rows`): a
buffer (.., s, rows * W / s), read at (e mod s, (h - h0) * W / s + e floordiv s). Else row by row,
in vectors of the largest power of two at most the target's lanes and the groups of s elements
per row (`copy_width`: 14 groups copy in vectors of 8), scalar below two groups.
Where: the outer loops of the band whose IVs alone index a leading dimension of the input (a
batch, the channels: `slice_loops`) slice the copy: it goes at the start of the innermost one's
body, one slice per iteration, into a buffer without those dimensions (it stays in cache for the
nest). When such loops are not outermost (torch's depthwise order (n, oh, ow, c); (oh, c, ow) with
the lanes loop innermost already, as fusion leaves it in a block), the band is reordered first (`slicing_order`: they go first, Q last; legal by isl as the lanes order is), else
the copy goes before the band.
The copy reads the same values the nest read and no sum changes its order: bit-exact.
"""
from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, replace

from .... import mlir
from ....analysis.accesses import _raw_index, access_pattern
from ....analysis.affine import NonAffine
from ....analysis.effects import op_effects
from ....analysis.loops import ancestors, constant_trip_count, loop_dims, nested_in
from ....analysis.memory import UNTRACED, alias_root, buffer_key, value_name
from ....analysis.refusal import Refusal
from ....mlir import ir
from .cpu_plan import LANE_STRIDE, TileCode, lane_stride, plan_register_tile, reduction_band_of


class DeinterleaveCode(enum.Enum):
    """Why a strided operand is not de-interleaved (the remark text)."""

    ORDER = "[STOP DEINTERLEAVE] the lanes order the copy is for would be refused"
    WRITTEN = "[STOP DEINTERLEAVE] the strided operand may be written in the nest the copy would go before"
    INDEX = "[STOP DEINTERLEAVE] the index cannot be rebuilt before the nest"
    SHAPE = "[STOP DEINTERLEAVE] a loop of the nest does not run between constants"
    OUT_OF_BOUNDS = "[STOP DEINTERLEAVE] the copy would read elements outside the operand's static shape"
    TOO_LARGE = "[STOP DEINTERLEAVE] the copy would hold more than strided_pack_growth times the elements it reads"
    INTERLEAVED = ("[STOP DEINTERLEAVE] the nest is left to LLVM and reads each element once: its loop vectorizer reads "
                   "the strided loads as interleaved groups")
    TRAFFIC = ("[STOP DEINTERLEAVE] the register tile de-interleaves stride 2 itself with fewer vector ops than the "
               "copy would take over the whole nest")

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class Deinterleave:
    """Copy the box `lows`..`lows + shape[:-2]` x [e0, e0 + last) of `load`'s operand into a buffer
    of shape `shape` (.., stride, columns) before `top` (allocated before `root`, the function-level
    op holding it); the load then reads it at (index - low) per leading dimension and the last
    index's (e - e0) mod stride, (e - e0) floordiv stride."""

    load: ir.Operation
    lanes: ir.Operation  # the loop whose iterations become lanes (Q)
    top: ir.Operation
    root: ir.Operation
    stride: int
    lows: tuple[int, ...] = ()  # per leading dimension, then e0 for the last
    last: int = 0  # elements of the last dimension the copy reads (e0 .. e0 + last - 1)
    shape: tuple[int, ...] = ()
    reads: int = 0
    width: int = 1  # vector lanes of the copy (options.plan_vector_bits over the element's bits)
    # (dimension, loop) per leading dimension indexed by the IV of a loop of the band's outer chain
    # alone (`slice_loops`): the copy goes at the start of the last one's body, a slice per iteration
    slices: tuple = ()
    # the band (outermost first) and the order to give it before the copy (interchange's
    # permutation), when the loops slicing the copy are not outermost (torch's depthwise order
    # (oh, ow, c)): they go first, the lanes loop last (`slicing_order`); () keeps the band's order
    band: tuple = ()
    reorder: tuple = ()
    # the row width when the copy takes whole rows as one stream (`plane_rows`): the buffer's last
    # two dimensions are (stride, rows * plane / stride) and the rows' columns [0, plane); 0:
    # one copy per row, the buffer (.., rows, stride, columns)
    plane: int = 0
    rows: int = 0  # of a plane copy: the rows it streams (h0 = lows[-2])
    refusal: Refusal | None = None

    @property
    def elements(self) -> int:
        return math.prod(self.shape)


def _refuse(load, q, code: DeinterleaveCode, detail: str, stride: int = 0) -> Deinterleave:
    return Deinterleave(load, q, q, q, stride, refusal=Refusal(code, detail, (q, load)))


def _function_level(op: ir.Operation) -> ir.Operation:
    chain = [op, *ancestors(op)]
    return chain[-1] if mlir.operation(chain[-1].parent).name == "func.func" else op


_ISL_WORDS = {"mod", "floor", "ceil", "min", "max", "and", "or", "not", "exists"}


def moves_with_band(a, band: list, scope) -> bool:
    """Whether the index of the access `a` uses the IV of every loop of `band` (no loop of the
    band reads one element twice for it: no copy would be reused)."""
    return all(a.uses_iv(loop_dims(lp, scope)[0].name) for lp in band)


def strided_loads(q: ir.Operation, band: list, facts, min_stride: int) -> list:
    """The loads of the nest below the band's innermost loop that move by a constant stride of at
    least `min_stride` (and more than one) along the last dimension of their operand only, per
    iteration of `q`, and with every loop of the band."""
    (axis,) = loop_dims(q, facts.scope)
    out = []
    for a in facts.accesses(band[-1]):
        s = lane_stride(a, axis.name) if not a.is_write else None
        if s is not None and s >= max(min_stride, 2) and moves_with_band(a, band, facts.scope):
            out.append(a)
    return out


def reads_each_once(a, top: ir.Operation) -> bool:
    """Whether the access `a` touches a different element in every iteration of the loops of its
    nest inside `top` (`top` included; isl: the nest's points and the elements' count agree), as
    a pooling window no larger than its stride does; False when unknown."""
    import islpy as isl

    inside = [lp for lp in a.loops if lp.op == top or nested_in(lp.op, top)]
    dims = [lp.name for lp in inside]
    cons = [c for lp in inside for c in lp.constraints()] or ["true"]
    try:
        dom = isl.Set(f"{{ [{', '.join(dims)}] : {' and '.join(cons)} }}")
        image = dom.apply(isl.Map(f"{{ [{', '.join(dims)}] -> [{', '.join(a.index)}] }}"))
        return dom.count_val().to_python() == image.count_val().to_python()
    except (isl.Error, AttributeError, TypeError, ValueError):
        return False


def slice_loops(texts, band: list, q: ir.Operation, scope) -> list[tuple[int, ir.Operation]]:
    """(dimension, loop) for the outer loops of the band, from the outermost on while each is not
    the lanes loop `q` and its IV alone is one leading dimension of the index `texts`, used by no
    other dimension (a batch, then a depthwise convolution's channels): each iteration of the last
    of them reads its own slice, so the copy may go at the start of its body, one slice at a time
    (it then stays in cache for the nest that reads it)."""
    out = []
    for lp in band:
        if lp == q:
            break
        (axis,) = loop_dims(lp, scope)
        dims = [d for d, t in enumerate(texts) if re.search(rf"\b{axis.name}\b", t)]
        if len(dims) != 1 or dims[0] == len(texts) - 1 or texts[dims[0]].strip() != axis.name:
            break
        out.append((dims[0], lp))
    return out


def plan_load(load: ir.Operation, q: ir.Operation, band: list, stride: int, facts, options) -> Deinterleave:
    """The copy of one load (the module's rules), or a refusal."""
    import islpy as isl

    scope = facts.scope
    top = band[0]
    try:
        a = access_pattern(load, scope)
        memref, texts = _raw_index(load, scope)
    except NonAffine as e:
        return _refuse(load, q, DeinterleaveCode.INDEX, f"the index is not affine ({e})", stride)
    if alias_root(memref) != memref or tuple(texts) != tuple(a.index or ()):
        return _refuse(load, q, DeinterleaveCode.INDEX, "the load reads through a view", stride)
    owner, _ = mlir.value_owner(memref)
    if owner is not None and (owner == top or nested_in(owner, top)):
        return _refuse(load, q, DeinterleaveCode.INDEX, "the operand is defined in the nest", stride)
    inside = [lp for lp in a.loops if lp.op == top or nested_in(lp.op, top)]
    names = {lp.name for lp in inside}
    used = set().union(*(set(re.findall(r"\b[A-Za-z_]\w*\b", t)) for t in texts)) - _ISL_WORDS
    if used - names:
        return _refuse(load, q, DeinterleaveCode.INDEX, f"it uses {', '.join(sorted(used - names))} from outside "
                       f"the nest", stride)
    for lp in inside:
        if constant_trip_count(lp.op) is None:
            return _refuse(load, q, DeinterleaveCode.SHAPE, f"the loop at {mlir.location_of(lp.op)}", stride)
    key = buffer_key(memref)
    if key is UNTRACED:
        return _refuse(load, q, DeinterleaveCode.WRITTEN, "the operand's buffer is not traced", stride)
    eff = op_effects(top)
    if eff.unknown or eff.may_write(key):
        return _refuse(load, q, DeinterleaveCode.WRITTEN, f"{value_name(memref)} in the loop at "
                       f"{mlir.location_of(top)}", stride)
    mt = mlir.memref_type(memref)
    if mt is None or any(n < 0 for n in mt.shape):
        return _refuse(load, q, DeinterleaveCode.OUT_OF_BOUNDS, "the operand's shape is not static", stride)
    dims = [lp.name for lp in inside]
    cons = [c for lp in inside for c in lp.constraints()] or ["true"]
    try:
        dom = isl.Set(f"{{ [{', '.join(dims)}] : {' and '.join(cons)} }}")
        image = dom.apply(isl.Map(f"{{ [{', '.join(dims)}] -> [{', '.join(texts)}] }}"))
        if image.is_empty():
            return _refuse(load, q, DeinterleaveCode.SHAPE, "the nest runs no iteration", stride)
        lows, highs = [], []
        for d in range(len(texts)):
            lo, hi = image.dim_min_val(d), image.dim_max_val(d)
            if not (lo.is_int() and hi.is_int()):
                raise isl.Error("unbounded")
            lows.append(lo.to_python())
            highs.append(hi.to_python())
        reads = image.count_val().to_python()
    except (isl.Error, AttributeError, TypeError, ValueError) as e:
        return _refuse(load, q, DeinterleaveCode.SHAPE, f"the index's range is not constant ({e})", stride)
    for d, (lo, hi, n) in enumerate(zip(lows, highs, mt.shape)):
        if lo < 0 or hi >= n:
            return _refuse(load, q, DeinterleaveCode.OUT_OF_BOUNDS, f"dimension {d}: elements {lo} to {hi} of {n}",
                           stride)
    slices = tuple(slice_loops(texts, band, q, scope))
    sliced = {d for d, _ in slices}
    plane = plane_rows(memref, len(texts), stride, sliced)
    if plane:
        lows[-1], highs[-1] = 0, plane - 1  # whole rows: the columns the nest skips are copied too
    last = highs[-1] - lows[-1] + 1
    kept = [hi - lo + 1 for d, (lo, hi) in enumerate(zip(lows[:-1], highs[:-1])) if d not in sliced]
    shape = tuple(kept[:-1]) + (stride, kept[-1] * plane // stride) if plane else \
        tuple(kept) + (stride, -(-last // stride))
    lanes = load_lanes(load, options)  # i1 and index: the copy stays scalar
    plan = Deinterleave(load, q, top, _function_level(top), stride, tuple(lows), last, shape, reads,
                        copy_width(lanes, shape[-1] if plane else last // stride), slices, plane=plane,
                        rows=kept[-1] if plane else 0)
    growth = options.strided_pack_growth
    copied = plan.elements
    for _, lp in slices:
        copied *= constant_trip_count(lp)
    if copied > growth * reads:
        return _refuse(load, q, DeinterleaveCode.TOO_LARGE, f"{copied} elements for {reads} read, at most "
                       f"{growth} times", stride)
    return plan


def plane_rows(memref, rank: int, stride: int, sliced) -> int:
    """The row width W when the copy may take the nest's rows whole, as one stream per slice: the
    operand is row-major and contiguous (identity layout), its rows (the dimension before the
    strided one, not a slicing dimension) hold a whole number of groups of `stride` (W mod stride
    is 0: every row starts at residue 0 in the stream; torch pads MobileNet's rows to an even
    width) and the copy's box is widened to every column of them (in bounds by the shape).
    Element (.., h, e) of the box is then element (h - h0) * W + e of the stream, at residue
    e mod stride, column (h - h0) * W / stride + e floordiv stride of the buffer: one loop of
    whole vectors per slice instead of one per row, no columns left over per row, and the nest's
    index split per row as before (with an odd W the stream's residue would be
    ((h - h0) * W + e) mod stride: measured, that index in the nest cost what the stream saved
    on rows of 65 and 113). 0: copied row by row."""
    mt = mlir.memref_type(memref)
    if rank < 2 or rank - 2 in sliced or mt is None or not mlir.identity_layout(mt):
        return 0
    width = mt.shape[-1]
    return width if width > 0 and width % stride == 0 else 0


def copy_width(lanes: int, groups: int) -> int:
    """The lanes of the copy's vectors: the largest power of two at most the target's `lanes` and
    the `groups` of `stride` elements the copy takes per row (a row of 14 groups copies in vectors
    of 8, the last one overlapping, where 16 would leave it to scalars); 1: scalar."""
    width = 1
    while width * 2 <= min(lanes, groups):
        width *= 2
    return width


def uses_of(a, top: ir.Operation) -> int:
    """How many iterations of the loops of the access `a`'s nest inside `top` (`top` included) run
    it (isl's count of their domain); 0 when unknown."""
    import islpy as isl

    inside = [lp for lp in a.loops if lp.op == top or nested_in(lp.op, top)]
    dims = [lp.name for lp in inside]
    cons = [c for lp in inside for c in lp.constraints()] or ["true"]
    try:
        return isl.Set(f"{{ [{', '.join(dims)}] : {' and '.join(cons)} }}").count_val().to_python()
    except (isl.Error, AttributeError, TypeError, ValueError):
        return 0


@dataclass(frozen=True)
class Traffic:
    """The vector ops that move a stride-2 operand through a nest, with and without the copy
    (`stride2_traffic`): a vector load, a vector store and a two-source shuffle count one each; a
    column run on its own counts one load per use."""

    tile: float  # the register tile's own two loads and a shuffle per use of W lanes
    copy: float  # the copy's loads, shuffles and stores, then the nest's loads of contiguous lanes
    uses: int
    elements: int

    @property
    def pays(self) -> bool:
        return self.copy < self.tile


def vector_columns(cols: int, width: int) -> tuple[int, int]:
    """(vectors, columns in them) the register tile runs `cols` columns of a stride-2 load in at
    `width` lanes: whole vectors, then the largest power of two of the columns left (no masked
    stride-2 load: `masked_tail_refusal`; `cpu_plan.tail_width`, `narrower_width`), the rest one
    at a time."""
    from .cpu_plan import narrower_width, tail_width

    if cols < width:
        w = narrower_width(cols, width)
        return (1, w) if w <= cols else (0, 0)
    tail = tail_width(cols, width, False)
    return cols // width + (1 if tail else 0), cols // width * width + tail


def stride2_traffic(uses: int, elements: int, cols: int, width: int, stride: int = LANE_STRIDE,
                    copy_lanes: int = 0) -> Traffic:
    """The rule deciding a stride-2 copy by the whole nest's traffic. Per row of the lanes loop's
    `cols` columns and per use, the tile loads two vectors and shuffles them once for each of its
    vectors and loads each column left to scalars once (`vector_columns`); with the copy the nest
    loads one vector per `width` columns (its last one masked or narrower: ceil(cols / width)),
    and the copy moves each of its `elements` once: per `stride` x `width` elements `stride`
    loads, `stride` x (`stride` - 1) shuffles and `stride` stores, (stride + 1) / width per
    element (`copy_lanes`: the copy's own vectors when narrower, `copy_width`; a plane copy runs
    whole vectors whatever the rows' length). `uses`: the nest's uses of the operand (isl).
    Without columns left over the copy
    pays when uses / elements > 3 / 2 at stride 2 (a 3 x 3 window: 9 / 4; a 2 x 2 window reads
    each element once: 1)."""
    vectors, covered = vector_columns(cols, width)
    per_row_tile = 3 * vectors + (cols - covered)
    per_row_copy = -(-cols // width)
    return Traffic(uses * per_row_tile / cols, uses * per_row_copy / cols + elements * (stride + 1) / (copy_lanes or width),
                   uses, elements)


def traffic_refusal(plans: list, q: ir.Operation, band: list, facts, options) -> Deinterleave | None:
    """TRAFFIC: at stride LANE_STRIDE the register tile de-interleaves the lanes itself
    (`cpu_plan.strided_lane_load`); the copy is made only where it moves fewer vector ops over the
    whole nest (`stride2_traffic`: every copied load's uses, every element copied, per slice
    iteration). None: not refused (a larger stride, which the tile cannot load in vectors)."""
    if not plans or any(pl.stride != LANE_STRIDE for pl in plans):
        return None
    cols = constant_trip_count(q)
    if not cols:
        return None
    uses = elements = 0
    for pl in plans:
        n = uses_of(access_pattern(pl.load, facts.scope), band[0])
        if not n:
            return None
        uses += n
        copied = pl.elements
        for _, lp in pl.slices:
            copied *= constant_trip_count(lp)
        elements += copied
    lanes = load_lanes(plans[0].load, options)
    cost = stride2_traffic(uses, elements, cols, lanes, copy_lanes=min(pl.width for pl in plans))
    if cost.pays:
        return None
    return _refuse(plans[0].load, q, DeinterleaveCode.TRAFFIC, f"{len(plans)} load(s) of stride {LANE_STRIDE}: "
                   f"{uses} uses of {elements} elements copied, {cols} columns at {lanes} lanes; {cost.tile:.0f} "
                   f"vector ops without the copy, {cost.copy:.0f} with it", LANE_STRIDE)


def load_lanes(load: ir.Operation, options) -> int:
    """The lanes of the target's vectors for the load's element type (1 for i1 and index)."""
    t = load.results[0].type
    bits = ir.FloatType(t).width if isinstance(t, ir.FloatType) else \
        ir.IntegerType(t).width if isinstance(t, ir.IntegerType) else 0
    return options.plan_vector_bits // bits if bits >= 8 else 1


def _alone_in_leading(index, name: str) -> bool:
    """Whether the IV `name` is one leading dimension of `index` by itself and no other dimension
    uses it."""
    dims = [d for d, t in enumerate(index) if re.search(rf"\b{name}\b", t)]
    return len(dims) == 1 and dims[0] != len(index) - 1 and index[dims[0]].strip() == name


def slicing_order(band: list, q: ir.Operation, loads: list, lanes: tuple, facts, options) -> tuple:
    """The order of `band` putting first the loops whose IVs alone index a leading dimension of
    every load in `loads` (a depthwise convolution's channels: each iteration reads its own slice),
    the other loops after them in their order, `q` last; () when that is the order `lanes` (the
    lanes order loop-order would give) or not legal: the interchange must keep every dependence
    (isl, `check_loop_interchange`) and `q` carry none where it lands (as `plan_lanes_order`)."""
    from ....transforms.interchange import check_loop_interchange
    from .locality import band_conflicts, carries_at

    names = [loop_dims(lp, facts.scope)[0].name for lp in band]
    qk = band.index(q)
    first = [k for k in range(len(band)) if k != qk and all(_alone_in_leading(a.index, names[k]) for a in loads)]
    if not first:
        return ()
    order = tuple(first + [k for k in range(len(band)) if k not in first and k != qk] + [qk])
    if order == tuple(lanes) or check_loop_interchange(list(band), list(order), facts.scope, options) is not None:
        return ()
    conflict = band_conflicts(band, facts, facts.accesses(band[0]), names)
    if conflict is None or carries_at(conflict, [names[k] for k in order], len(order) - 1):
        return ()
    return order


def plan_band(band: list, facts, options) -> list[Deinterleave]:
    """The copies (or refusals) for one band above a reduction nest: [] when no strided load
    keeps the tile's lanes from a loop of the band (the module's rules)."""
    from .lanes_order import lanes_refusal, plan_lanes_order
    from .strided_packing import packable_loads

    min_stride = options.deinterleave_min_stride
    p = band[-1]
    if min_stride < 2 or reduction_band_of(p, facts.scope) is None:
        return []
    accesses = facts.accesses(p)
    if not accesses or any(a.index is None for a in accesses):
        return []
    q, loads, reorder = None, [], ()
    packed = {mlir.op_key(op) for op in packable_loads(p, facts, options)}
    if packed:
        found = strided_loads(p, band, facts, min_stride)
        if found and packed <= {mlir.op_key(a.op) for a in found}:
            q, loads = p, [a for a in found if mlir.op_key(a.op) in packed]
            tile = plan_register_tile(p, facts, options)
            if tile is not None and tile.refusal is not None and tile.refusal.code == TileCode.NOT_PROFITABLE \
                    and all(reads_each_once(a, band[0]) for a in loads):
                (axis,) = loop_dims(p, facts.scope)
                return [_refuse(loads[0].op, p, DeinterleaveCode.INTERLEAVED, f"{len(loads)} load(s) of stride "
                                f"{lane_stride(loads[0], axis.name)} along the loop at {mlir.location_of(p)}",
                                lane_stride(loads[0], axis.name) or 0)]
    elif lanes_refusal(p, accesses, facts.scope) is None:
        # P gives the lanes already: a load of stride LANE_STRIDE is read as two vectors and a
        # shuffle per use (cpu_plan.strided_lane_load), copied when min_stride allows it
        found = strided_loads(p, band, facts, min_stride)
        if found:
            q, loads = p, found
            # rows outside the channels ((oh, c, ow), as fusion may leave a depthwise nest): the
            # channels first, so each channel's copy is made just before the nest reads it
            reorder = slicing_order(band, q, loads, tuple(range(len(band))), facts, options)
    else:
        for level in reversed(range(len(band) - 1)):
            cand = band[level]
            trips = constant_trip_count(cand)
            if trips is not None and trips < 2:
                continue
            found = strided_loads(cand, band, facts, min_stride)
            allowed = {mlir.op_key(a.op) for a in found}
            if lanes_refusal(cand, accesses, facts.scope, allowed) is not None:
                continue
            if not found:
                return []  # loop-order moves this loop without a copy
            order = plan_lanes_order(band, facts, options, allowed)
            if order is None or band[order.lanes] != cand:
                return []
            if order.refusal is not None:
                (l0, *_) = [a.op for a in found]
                return [_refuse(l0, cand, DeinterleaveCode.ORDER, order.refusal.message, lane_stride(
                    found[0], loop_dims(cand, facts.scope)[0].name) or 0)]
            q, loads = cand, found
            reorder = slicing_order(band, q, loads, order.order, facts, options)
            break
    if q is None:
        return []
    (axis,) = loop_dims(q, facts.scope)
    plans = [plan_load(a.op, q, band, lane_stride(a, axis.name), facts, options) for a in loads]
    refused = [pl for pl in plans if pl.refusal is not None]
    if refused:
        return refused  # one load left strided keeps the lanes refused: all or none
    costly = traffic_refusal(plans, q, band, facts, options)
    if costly is not None:
        return [costly]
    return [replace(pl, band=tuple(band), reorder=reorder) for pl in plans]
