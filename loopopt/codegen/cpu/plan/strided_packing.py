"""Strided operand packing (cpu): the operand of a reduction nest whose lanes the register tile
refuses only because it moves by a stride larger than LANE_STRIDE along them (a convolution of
stride 16 along its output columns: a ViT patch embedding; a ConvNeXt stem's 4x4 stride 4) is
copied first into a buffer whose last dimension runs along the lanes loop (im2col's layout).

The register tile (cpu_plan.plan_register_tile) runs the lanes along P, the parallel loop around
the reduction band (c, kh, kw): a load X[.., oh * s + kh, ow * s + kw] with P = ow moves by s
elements per lane. Stride 2 is read as two vectors and a shuffle (`strided_lane_load`); a larger
stride is not, so the lanes are refused, and the nest runs as scalar copies or as LLVM's dot
products along kw with a horizontal sum each. Copied once, before the product's parallel loops,
into Xp[c, kh, kw, oh, ow] = X[.., oh * s + kh, ow * s + kw], the load becomes Xp[c, kh, kw, oh, ow]:
contiguous along ow, and (oh, ow) the last two dimensions, which flat_rows (section 27) may join
into one loop of whole vectors.

`plan_strided_pack(p, facts, options)` decides for one lanes loop P. A load qualifies when:
- the register tile plans P's nest with its lanes refused (scalar copies, or refused as no gain
  because LLVM vectorizes the reduction loop), and its own lane test
  (`cpu_plan.lane_width_refusal`) passes once every load of a constant stride larger than
  LANE_STRIDE along P's last dimension (`cpu_plan.lane_stride`) counts as contiguous: those loads
  are the only reason;
- the copy goes before `top`, of the affine.for loops around P (P included, up to the first op
  of another kind) the outermost whose IV the load's index does not use (the loop the copy is
  reused over: the output channels), and nothing in `top` writes a buffer that may alias the
  load's, nor has unknown effects (`op_effects`): the load is read-only in the nest, so each
  value it reads there is the value the copy read just before `top`. Of several such loops the
  outermost whose nest does not write the buffer is taken; none: WRITTEN;
- the buffer's dimensions are the loops inside `top` whose IVs the index uses: those of the
  reduction band (outermost first), then those around P, P last; each of constant bounds and
  step 1; every element the copy reads over their box (the loops outside `top` over their
  bounds) lies in the source's static shape (isl, as operand packing checks);
- the copy holds at most `options.strided_pack_growth` times the elements it reads (isl's count
  of the index's image over the box, the loops outside `top` at their lower bounds): a
  non-overlapping kernel (kernel = stride) copies each element once; an overlapping one, KH x KW /
  (s x s) times;
- each index operand is an IV of those loops, a value defined outside `top`, or an affine.apply
  of such (the copy rebuilds it).
Packing reads the same values in another place: results are bit-exact.
"""
from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import AccessPattern, access_pattern
from ....analysis.affine import NonAffine
from ....analysis.effects import op_effects
from ....analysis.loops import ancestors, body_block, constant_bounds, loop_dims, nested_in
from ....analysis.memory import UNTRACED, alias_root, buffer_key, value_name
from ....analysis.refusal import Refusal
from ....mlir import ir
from .cpu_plan import (TileCode, lane_stride, lane_width_refusal, lanes_of, memory_reductions, plan_register_tile,
                       reduction_band_of)
from .packing import in_bounds


class PackCode(enum.Enum):
    """Why a strided operand is not packed (the remark text)."""

    WRITTEN = "[STOP STRIDED PACK] the strided operand may be written in the nest the copy would go before"
    NO_REUSE = "[STOP STRIDED PACK] every loop around the lanes loop moves the strided operand: no loop reuses a copy"
    SHAPE = "[STOP STRIDED PACK] a loop of the copy does not run from a constant to a constant by 1"
    OUT_OF_BOUNDS = "[STOP STRIDED PACK] the copy would read elements outside the operand's static shape"
    TOO_LARGE = "[STOP STRIDED PACK] the copy would hold more than strided_pack_growth times the elements it reads"
    INDEX = "[STOP STRIDED PACK] an index operand cannot be rebuilt before the nest"

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class StridedPack:
    """Copy what `load` reads over the box of `dims` into a buffer of shape `shape` before `top`
    (allocated before `root`, the function-level op holding the nest); the load then reads the
    buffer at (IV - lower bound) of each of `dims`."""

    load: ir.Operation
    p: ir.Operation  # the lanes loop
    top: ir.Operation
    root: ir.Operation
    dims: tuple[ir.Operation, ...]  # the buffer's dimensions' loops, P last
    lowers: tuple[int, ...]
    shape: tuple[int, ...]
    stride: int
    recipes: tuple = ()  # per index operand of the load: ("dim", k), ("outside", v), ("apply", map, [...])
    reads: int = 0  # elements of the source one copy reads
    refusal: Refusal | None = None

    @property
    def elements(self) -> int:
        return math.prod(self.shape)


def packable_loads(p: ir.Operation, facts, options) -> list[ir.Operation]:
    """The loads whose stride along P alone keeps the register tile from putting P's iterations
    in vector lanes (the module's first rule), or []."""
    plan = plan_register_tile(p, facts, options)
    if plan is None:
        return []
    refused_lanes = (plan.refusal is None and plan.width == 1) or \
        (plan.refusal is not None and plan.refusal.code == TileCode.NOT_PROFITABLE)
    if not refused_lanes:
        return []
    band = reduction_band_of(p, facts.scope)
    r = band[0]
    mem = memory_reductions(r, facts.scope) if len(band) == 1 else []
    packed: list = []
    if lane_width_refusal(p, r, lanes_of(p, r, None, mem), facts, [], [], packed) is not None:
        return []
    return packed


def _refuse(load, p, code: PackCode, detail: str, stride: int = 0) -> StridedPack:
    return StridedPack(load, p, p, p, (), (), (), stride, refusal=Refusal(code, detail, (p, load)))


def _function_level(op: ir.Operation) -> ir.Operation:
    """The op of the function's body holding `op` (itself at function level), or `op` when it is
    in no function."""
    chain = [op, *ancestors(op)]
    return chain[-1] if mlir.operation(chain[-1].parent).name == "func.func" else op


def _recipes(load: ir.Operation, dims: list[ir.Operation], top: ir.Operation) -> list | None:
    """How to rebuild each index operand of `load` before `top` (see StridedPack.recipes), or
    None when one cannot be (an IV of a loop inside `top` that is not a dimension, an op inside
    `top` but an affine.apply)."""
    ivs = [body_block(d).arguments[0] for d in dims]

    def recipe(v: ir.Value, depth: int = 0):
        for k, iv in enumerate(ivs):
            if v == iv:
                return ("dim", k)
        owner, block = mlir.value_owner(v)
        if owner is None:
            parent = mlir.operation(block.owner) if block is not None and block.owner is not None else None
            inside = parent is not None and (parent == top or nested_in(parent, top))
            return None if inside else ("outside", v)
        if owner != top and not nested_in(owner, top):
            return ("outside", v)
        if owner.name != "affine.apply" or depth > 4:
            return None
        subs = [recipe(x, depth + 1) for x in owner.operands]
        return None if any(s is None for s in subs) else ("apply", owner.attributes["map"], subs)

    out = [recipe(v) for v in list(load.operands)[1:]]
    return None if any(x is None for x in out) else out


def _writes(loop: ir.Operation, key) -> bool:
    """Whether something in `loop` may write the buffer `key` or has unknown effects."""
    eff = op_effects(loop)
    return eff.unknown or eff.may_write(key)


def _count_reads(a: AccessPattern, box: list[tuple[str, int, int]], fixed: dict[str, int]) -> int | None:
    """Elements of the source the index reads over `box` ((name, lower, upper) per dimension
    loop), the loops outside the copy at the values `fixed` (isl), or None."""
    import islpy as isl

    names = [n for n, _, _ in box]
    cons = [f"{lo} <= {n} < {up}" for n, lo, up in box] or ["true"]
    index = list(a.index)
    for n, v in fixed.items():
        index = [re.sub(rf"\b{n}\b", f"({v})", e) for e in index]
    try:
        image = isl.Set(f"{{ [{', '.join(names)}] : {' and '.join(cons)} }}").apply(
            isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(index)}] }}"))
        return image.count_val().to_python()
    except (isl.Error, AttributeError, TypeError):
        return None


def plan_strided_pack(load: ir.Operation, p: ir.Operation, facts, options) -> StridedPack:
    """The packing of one load `packable_loads` gave for P (the module's rules), or a refusal."""
    scope = facts.scope
    (axis,) = loop_dims(p, scope)
    try:
        a = access_pattern(load, scope)
    except NonAffine:
        return _refuse(load, p, PackCode.INDEX, "the index is not affine")
    stride = lane_stride(a, axis.name) or 0
    chain = [p]  # the affine.for loops around P, P first
    for o in ancestors(p):
        if o.name != "affine.for":
            break
        chain.append(o)
    chain.reverse()  # outermost first
    names = {mlir.op_key(lp.op): lp.name for lp in a.loops}
    used = [lp for lp in chain if a.uses_iv(names.get(mlir.op_key(lp), "?"))]
    free = [lp for lp in chain if lp not in used]
    if not free:
        return _refuse(load, p, PackCode.NO_REUSE, f"the index uses the IV of each of the {len(chain)} loops", stride)
    key = buffer_key(alias_root(load.operands[0]))
    if key is UNTRACED:
        return _refuse(load, p, PackCode.WRITTEN, "the operand's buffer is not traced", stride)
    top = next((lp for lp in free if not _writes(lp, key)), None)
    if top is None:
        writer = next((o for o in mlir.walk(free[-1]) if o.name in ("affine.store", "memref.store")
                       and buffer_key(alias_root(o.operands[1])) == key), None)
        where = f": {writer.name} at {mlir.location_of(writer)}" if writer is not None else ""
        name = value_name(alias_root(load.operands[0]))
        return _refuse(load, p, PackCode.WRITTEN, f"{name} in the loop at {mlir.location_of(free[-1])}{where}", stride)
    band = reduction_band_of(p, scope) or []
    inner_chain = chain[chain.index(top):]
    dims = [b for b in band if a.uses_iv(names.get(mlir.op_key(b), "?"))] + \
        [lp for lp in inner_chain if lp in used and lp != p] + [p]
    bounds = []
    for d in dims:
        b = constant_bounds(d)
        if b is None or mlir.int_attr(d, "step") != 1 or b[1] <= b[0]:
            return _refuse(load, p, PackCode.SHAPE, f"the loop at {mlir.location_of(d)}", stride)
        bounds.append(b)
    outside = [lp for lp in a.loops if a.uses_iv(lp.name) and lp.op not in dims]
    if any(lp.op == top or nested_in(lp.op, top) for lp in outside):
        return _refuse(load, p, PackCode.INDEX, "a loop inside the copy's place moves the index", stride)
    mt = mlir.memref_type(a.root)
    box = [(names[mlir.op_key(d)], lo, hi) for d, (lo, hi) in zip(dims, bounds)]
    isl_dims = [(lp.name, lp.lower, lp.upper) for lp in outside] + [(n, (str(lo),), (str(hi),)) for n, lo, hi in box]
    if mt is None or not in_bounds(a.index, isl_dims, list(mt.shape)):
        return _refuse(load, p, PackCode.OUT_OF_BOUNDS, f"the index ({', '.join(a.index)}) over the copy's loops", stride)
    fixed = {}
    for lp in outside:
        b = constant_bounds(lp.op)
        if b is None:
            return _refuse(load, p, PackCode.SHAPE, f"the loop at {mlir.location_of(lp.op)} outside the copy", stride)
        fixed[lp.name] = b[0]
    shape = tuple(hi - lo for lo, hi in bounds)
    elements = 1
    for n in shape:
        elements *= n
    reads = _count_reads(a, box, fixed)
    growth = options.strided_pack_growth
    if reads is None or elements > growth * reads:
        shown = "uncounted" if reads is None else f"{reads}"
        return _refuse(load, p, PackCode.TOO_LARGE, f"{elements} elements for {shown} read, at most {growth} times", stride)
    recipes = _recipes(load, dims, top)
    if recipes is None:
        return _refuse(load, p, PackCode.INDEX, f"affine.load at {mlir.location_of(load)}", stride)
    return StridedPack(load, p, top, _function_level(top), tuple(dims), tuple(lo for lo, _ in bounds), shape,
                       stride, tuple(recipes), reads)


def plan_strided_packs(fn: ir.Operation, facts, options) -> list[StridedPack]:
    """A StridedPack (or refusal) per load to pack, in program order of their lanes loops."""
    from .cpu_plan import has_iter_args_op, in_reduction_band

    out = []
    for op in mlir.walk(fn):
        if op.name != "affine.for" or (has_iter_args_op(op) and in_reduction_band(op, facts.scope)):
            continue
        for load in packable_loads(op, facts, options):
            out.append(plan_strided_pack(load, op, facts, options))
    return out
