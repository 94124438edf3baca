"""De-interleaved copies (cpu): an operand every loop around its reduction nest moves, read with
a stride s along the loop that would give the register tile's lanes (a depthwise convolution of
stride 3), is copied first into a buffer split by residue mod s, in which it is contiguous along
that loop (codegen/cpu/plan/deinterleave.py has the rule; docs/cpu_codegen.md section 35).

`deinterleave(plan)` places before the function-level op holding the nest

    %d = memref.alloc() {alignment = 64} : memref<D0 x .. x Dk x s x J>

(the leading dimensions the nest reads, less the sliced ones) and, before the band's outermost
loop or at the start of the innermost slicing loop's body (`Deinterleave.slices`: a batch, the
channels; one slice per iteration), the copy

    affine.for %i0 = 0 to D0 { .. affine.for %ik = 0 to Dk {
        affine.for %j = 0 to V step W {                        (V: whole vectors of W columns)
            s vector loads of X[.., e0 + s * %j + k * W] (k < s), per residue r the s - 1
            vector.shuffles gathering lanes r, r + s, .. and an affine.vector_store to %d[.., r, %j] }
        the same group once at column F - W when F (whole groups of s) is no multiple of W
        affine.for %t = 0 to T { X[.., e0 + s * F + %t] stored at %d[.., %t, F] } } }   (T < s)

(W: `Deinterleave.width`, plan.copy_width; fewer than two whole groups: a scalar loop over
(%j, %r) instead), replaces the load by one of the buffer at (index - low) per leading dimension,
(e - e0) mod s and (e - e0) floordiv s for the last, and frees the buffer after the function-level
op.

A plan whose band is to be reordered first (`Deinterleave.reorder`) has its band interchanged
(`transforms.interchange.loop_interchange`, once per band) and its load planned again on the new
loops before the copy.

Remarks (pass `deinterleave-strided`): `[DEINTERLEAVE] ...` (Passed) per copied load, with the
reorder when there was one;
`[STOP DEINTERLEAVE] ...` (Missed) per band refused (DeinterleaveCode).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_block
from ...analysis.memory import value_name
from ...analysis.vectorization import is_innermost
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from ...transforms.rewriter import Rewriter
from dataclasses import replace

from .linear_views import joining_view
from .loop_order import band_starts
from .plan.cpu_plan import is_hot
from ...transforms.interchange import loop_interchange
from .plan.deinterleave import Deinterleave, plan_band, plan_load

PASS = "deinterleave-strided"
DONE = ("[DEINTERLEAVE] operand {name}, read {stride} elements apart along the loop at {lanes}, copied {where} "
        "into a {shape} buffer by residue mod {stride}: contiguous along that loop")


def plan_deinterleaves(fn: ir.Operation, facts, options) -> list[Deinterleave]:
    """Every copy (or refusal) of the function's bands above a reduction nest, in program order."""
    out = []
    for _, band in band_starts(fn):
        if band and not is_innermost(band[-1]):
            out.extend(plan_band(band, facts, options))
    return out


def _loop(n: int, ip: ir.InsertionPoint, lower: int = 0):
    loop = affine_d.AffineForOp(ir.AffineMap.get_constant(lower), ir.AffineMap.get_constant(n), 1, ip=ip)
    with ir.InsertionPoint(loop.body):
        affine_d.AffineYieldOp([])
    return loop.induction_variable, ir.InsertionPoint(mlir.block_ops(loop.body)[-1])


def _lead_source(plan: Deinterleave, lead: list, sliced) -> tuple[list, list]:
    """(operands, exprs) of the source's leading dimensions for the copy's IVs `lead` (one per
    leading dimension of the buffer): the IV plus the dimension's least index, or, for a sliced
    dimension, the IV of its loop as it is (`sliced`: dimension -> IV)."""
    operands, exprs, k = [], [], 0
    for d, lo in enumerate(plan.lows[:-1]):
        if d in sliced:
            exprs.append(ir.AffineDimExpr.get(len(operands)))
            operands.append(sliced[d])
        else:
            exprs.append(ir.AffineDimExpr.get(len(operands)) + lo)
            operands.append(lead[k])
            k += 1
    return operands, exprs


def _copy_one(plan: Deinterleave, source: ir.Value, buf: ir.Value, elem, lead: list, sliced, column: ir.Value,
              residue, group, ip: ir.InsertionPoint) -> None:
    """X[lead + lows, e0 + s * group + residue] stored at buf[lead, residue, group]; `residue` and
    `group` are values or ints."""
    n = len(lead)
    s, e0 = plan.stride, plan.lows[-1]
    operands, exprs = _lead_source(plan, lead, sliced)
    exprs.append(ir.AffineDimExpr.get(len(operands)) + e0)
    operands.append(column)
    value = ir.Operation.create("affine.load", results=[elem], operands=[source, *operands],
                                attributes={"map": ir.AffineMapAttr.get(ir.AffineMap.get(len(operands), 0, exprs))},
                                ip=ip).results[0]
    dims, outs = list(lead), [ir.AffineDimExpr.get(k) for k in range(n)]
    for part in (residue, group):
        if isinstance(part, int):
            outs.append(ir.AffineConstantExpr.get(part))
        else:
            outs.append(ir.AffineDimExpr.get(len(dims)))
            dims.append(part)
    ir.Operation.create("affine.store", operands=[value, buf, *dims],
                        attributes={"map": ir.AffineMapAttr.get(ir.AffineMap.get(len(dims), 0, outs))}, ip=ip)


def shuffle_masks(stride: int, width: int) -> list[list[list[int]]]:
    """Per residue r, the masks of the `stride - 1` vector.shuffle ops that gather lanes
    r, r + stride, .. of `stride` consecutive vectors of `width` lanes: the first shuffles vectors
    0 and 1, each next one the result and vector k (a lane whose element lies in a later vector
    keeps its own lane until then)."""
    out = []
    for r in range(stride):
        src = [divmod(stride * i + r, width) for i in range(width)]
        masks = [[pos if k == 0 else width + pos if k == 1 else i for i, (k, pos) in enumerate(src)]]
        for step in range(2, stride):
            masks.append([width + pos if k == step else i for i, (k, pos) in enumerate(src)])
        out.append(masks)
    return out


def _shuffle_group(plan: Deinterleave, source: ir.Value, buf: ir.Value, elem, lead: list, lead_source: tuple,
                   base: int, column, ip: ir.InsertionPoint) -> None:
    """Columns `column` .. `column` + width - 1 of the copy (`column` a value or an int): `stride`
    vectors loaded from `source` at its elements base + stride * column onwards (`lead_source`:
    the operands and index expressions in front, `_lead_source`), one vector per residue
    gathered from them by shuffles and stored at buf[lead, residue, column]."""
    s, w, n = plan.stride, plan.width, len(lead)
    vt = ir.VectorType.get([w], elem)
    src_ops, lead_exprs = lead_source
    src_col = ir.AffineConstantExpr.get(column) if isinstance(column, int) else ir.AffineDimExpr.get(len(src_ops))
    src_ops = src_ops + ([] if isinstance(column, int) else [column])
    operands = list(lead) + ([] if isinstance(column, int) else [column])
    col = ir.AffineConstantExpr.get(column) if isinstance(column, int) else ir.AffineDimExpr.get(n)
    parts = []
    for k in range(s):
        m = ir.AffineMap.get(len(src_ops), 0, lead_exprs + [src_col * s + (base + k * w)])
        parts.append(ir.Operation.create("affine.vector_load", results=[vt], operands=[source, *src_ops],
                                         attributes={"map": ir.AffineMapAttr.get(m)}, ip=ip).result)
    for r, masks in enumerate(shuffle_masks(s, w)):
        acc = parts[0]
        for k, mask in enumerate(masks):
            acc = ir.Operation.create("vector.shuffle", results=[vt], operands=[acc, parts[k + 1]],
                                      attributes={"mask": ir.DenseI64ArrayAttr.get(mask)}, ip=ip).result
        m = ir.AffineMap.get(len(operands), 0, [ir.AffineDimExpr.get(k) for k in range(n)] +
                             [ir.AffineConstantExpr.get(r), col])
        ir.Operation.create("affine.vector_store", operands=[acc, buf, *operands],
                            attributes={"map": ir.AffineMapAttr.get(m)}, ip=ip)


def _vector_group(plan: Deinterleave, source: ir.Value, buf: ir.Value, elem, lead: list, sliced, column,
                  ip: ir.InsertionPoint) -> None:
    """Columns `column` .. `column` + width - 1 of a row copy: the stride vectors end at the last
    column's last element (all in the copy's box)."""
    _shuffle_group(plan, source, buf, elem, lead, _lead_source(plan, lead, sliced), plan.lows[-1], column, ip)


def _vector_copy(plan: Deinterleave, source: ir.Value, buf: ir.Value, elem, lead: list, sliced, whole: int,
                 ip: ir.InsertionPoint) -> None:
    """Columns [0, `whole`) of the copy in vectors (whole >= width): a loop over whole vectors,
    then, when columns are left, one vector ending at the last column (it copies some columns
    again: the same values to the same places)."""
    _whole_vectors(plan.width, whole, lambda column, at: _vector_group(plan, source, buf, elem, lead, sliced,
                                                                       column, at), ip)


def _whole_vectors(w: int, whole: int, group, ip: ir.InsertionPoint) -> None:
    """`group(column, ip)` for columns 0, w, ... in a loop over the whole vectors of [0, `whole`)
    (whole >= w), then, when columns are left, once more at whole - w (some columns copied again:
    the same values to the same places)."""
    vectors = whole // w * w
    loop = affine_d.AffineForOp(ir.AffineMap.get_constant(0), ir.AffineMap.get_constant(vectors), w, ip=ip)
    with ir.InsertionPoint(loop.body):
        affine_d.AffineYieldOp([])
    group(loop.induction_variable, ir.InsertionPoint(mlir.block_ops(loop.body)[-1]))
    if whole > vectors:
        group(whole - w, ip)


def _plane_group(plan: Deinterleave, view: ir.Value, buf: ir.Value, elem, lead: list, sliced, column,
                 ip: ir.InsertionPoint) -> None:
    """Columns `column` .. `column` + width - 1 of a plane copy: the stream's elements
    h0 * W + stride * column onwards (`view`: the operand with its rows and columns joined)."""
    _shuffle_group(plan, view, buf, elem, lead, _lead_source(replace(plan, lows=plan.lows[:-1]), lead, sliced),
                   plan.lows[-2] * plan.plane, column, ip)


def _plane_copy(plan: Deinterleave, view: ir.Value, buf: ir.Value, elem, lead: list, sliced,
                ip: ir.InsertionPoint) -> None:
    """One slice's rows as one stream (`Deinterleave.plane`) of n = rows x W elements: its
    n / stride groups in a loop of whole vectors, the last vector overlapping the one before when
    they are no multiple of the width (scalars, over column and residue, below one vector)."""
    s, w = plan.stride, plan.width
    n = plan.rows * plan.plane
    groups = n // s  # s divides W
    base = plan.lows[-2] * plan.plane
    src_ops, lead_exprs = _lead_source(replace(plan, lows=plan.lows[:-1]), lead, sliced)
    nl = len(lead)

    def scalar(col: ir.Value | int, res: ir.Value | int, inner: ir.InsertionPoint) -> None:
        ops, dims, outs = list(src_ops), list(lead), [ir.AffineDimExpr.get(d) for d in range(nl)]
        flat = ir.AffineConstantExpr.get(base)
        for part, factor in ((col, s), (res, 1)):
            if isinstance(part, int):
                flat = flat + part * factor
                outs_e = ir.AffineConstantExpr.get(part)
            else:
                flat = flat + ir.AffineDimExpr.get(len(ops)) * factor
                ops.append(part)
                outs_e = ir.AffineDimExpr.get(len(dims))
                dims.append(part)
            outs.append(outs_e)
        outs = outs[:nl] + [outs[nl + 1], outs[nl]]  # buf[lead, residue, column]
        value = ir.Operation.create("affine.load", results=[elem], operands=[view, *ops], attributes={
            "map": ir.AffineMapAttr.get(ir.AffineMap.get(len(ops), 0, lead_exprs + [flat]))}, ip=inner).results[0]
        ir.Operation.create("affine.store", operands=[value, buf, *dims],
                            attributes={"map": ir.AffineMapAttr.get(ir.AffineMap.get(len(dims), 0, outs))}, ip=inner)

    if w > 1 and groups >= w:
        _whole_vectors(w, groups, lambda column, at: _plane_group(plan, view, buf, elem, lead, sliced, column, at),
                       ip)
    elif groups:
        j, inner = _loop(groups, ip)
        r, inner = _loop(s, inner)
        scalar(j, r, inner)


def _plane_index(plan: Deinterleave, res: list, sliced) -> list:
    """The buffer's index for a load whose map results are `res`, copied as a plane: (index - low)
    per kept leading dimension but the rows, then e mod s and (h - h0) * (W / s) + e floordiv s
    (s divides W: `plane_rows`)."""
    s, rows = plan.stride, len(res) - 2
    exprs = [e - lo for d, (e, lo) in enumerate(zip(res[:rows], plan.lows[:rows])) if d not in sliced]
    return exprs + [ir.AffineExpr.get_mod(res[-1], s),
                    (res[-2] - plan.lows[-2]) * (plan.plane // s) + ir.AffineExpr.get_floor_div(res[-1], s)]


def deinterleave(plan: Deinterleave) -> ir.Operation:
    """Apply one plan; returns the buffer's alloc."""
    load, top, root = plan.load, plan.top, plan.root
    source = load.operands[0]
    elem = load.results[0].type
    s, e0 = plan.stride, plan.lows[-1]
    whole, left = divmod(plan.last, s)
    with load.context, top.location:
        alloc = mlir.aligned_alloc(list(plan.shape), elem, ir.InsertionPoint(root))
        buf = alloc.results[0]
        # a plane copy reads the operand with its rows and columns joined (a view made before the band)
        view = joining_view(source, len(plan.lows) - 2, top, {}) if plan.plane else None
        sliced = {d: body_block(lp).arguments[0] for d, lp in plan.slices}
        ip = ir.InsertionPoint(mlir.block_ops(body_block(plan.slices[-1][1]))[0]) if plan.slices else \
            ir.InsertionPoint(top)
        lead = []
        for n in plan.shape[:-2]:
            iv, ip = _loop(n, ip)
            lead.append(iv)
        if plan.plane:
            _plane_copy(plan, view, buf, elem, lead, sliced, ip)
            whole, left = 0, 0
        elif plan.width > 1 and whole >= plan.width:
            _vector_copy(plan, source, buf, elem, lead, sliced, whole, ip)
        elif whole:
            j, inner = _loop(whole, ip)
            r, inner = _loop(s, inner)
            group = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(0) * s + ir.AffineDimExpr.get(1)])
            col = ir.Operation.create("affine.apply", results=[ir.IndexType.get()], operands=[j, r],
                                      attributes={"map": ir.AffineMapAttr.get(group)}, ip=inner).results[0]
            _copy_one(plan, source, buf, elem, lead, sliced, col, r, j, inner)
        if left:
            t, inner = _loop(left, ip)
            col = ir.Operation.create("affine.apply", results=[ir.IndexType.get()], operands=[t], attributes={
                "map": ir.AffineMapAttr.get(ir.AffineMap.get(1, 0, [ir.AffineDimExpr.get(0) + whole * s]))},
                ip=inner).results[0]
            _copy_one(plan, source, buf, elem, lead, sliced, col, t, whole, inner)
        old = mlir.affine_map_attr(load, "map")
        res = list(old.results)
        if plan.plane:
            exprs = _plane_index(plan, res, sliced)
        else:
            exprs = [e - lo for d, (e, lo) in enumerate(zip(res[:-1], plan.lows[:-1])) if d not in sliced]
            shifted = res[-1] - e0
            exprs += [ir.AffineExpr.get_mod(shifted, s), ir.AffineExpr.get_floor_div(shifted, s)]
        new_map = ir.AffineMap.get(old.n_dims, old.n_symbols, exprs)
    with load.location:
        new = ir.Operation.create("affine.load", results=[elem], operands=[buf, *list(load.operands)[1:]],
                                  attributes={"map": ir.AffineMapAttr.get(new_map)}, ip=ir.InsertionPoint(load))
    load.results[0].replace_all_uses_with(new.results[0])
    load.erase()
    ops = mlir.block_ops(root.block)
    after = ops[ops.index(root) + 1]
    with top.location:
        ir.Operation.create("memref.dealloc", operands=[buf], ip=ir.InsertionPoint(after))
    return alloc


def deinterleave_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                          report_refusals: bool = True) -> int:
    """Copy every operand codegen/cpu/plan/deinterleave.py selects; returns how many. A refusal
    says why when `report_refusals` or its nest is hot."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    rewriter = Rewriter()
    count = 0
    reordered: dict = {}  # op key of a band's first loop -> its loops after the reorder
    for plan in plan_deinterleaves(fn, Facts(), options):
        where = mlir.location_of(plan.load, filename)
        if plan.refusal is not None:
            if report_refusals or is_hot(plan.lanes):
                log.refused(PASS, plan.refusal, function=fname, location=where, args={"stride": plan.stride})
            continue
        note = ""
        if plan.reorder:
            key = mlir.op_key(plan.band[0])
            if key not in reordered:
                band, order = list(plan.band), list(plan.reorder)
                reordered[key] = rewriter.replace([band[0]], lambda band=band, order=order:
                                                  [loop_interchange(band, order)])[0]
            loops = reordered[key]
            plan = plan_load(plan.load, loops[-1], loops, plan.stride, Facts(), options)
            note = f" (the band reordered {':'.join(str(k) for k in order)} first, the slicing loops outermost)"
            if plan.refusal is not None:  # the same checks on the same accesses: not expected
                log.refused(PASS, plan.refusal, function=fname, location=where, args={"stride": plan.stride})
                continue
        name = value_name(plan.load.operands[0])
        shape = "x".join(str(n) for n in plan.shape)
        lanes = mlir.location_of(plan.lanes, filename)

        def build(plan=plan):
            deinterleave(plan)
            return None

        rewriter.replace([], build)
        where_copy = "before the nest" if not plan.slices else \
            f"at the start of the loop at {mlir.location_of(plan.slices[-1][1], filename)}, one slice per iteration"
        log.add(PASS, PASSED, DONE.format(name=name, stride=plan.stride, lanes=lanes, shape=shape, where=where_copy)
                + note, function=fname, location=where,
                args={"shape": shape, "stride": plan.stride, "elements": plan.elements, "reads": plan.reads})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `deinterleave-strided` (loopopt/pipeline.py)."""
    return deinterleave_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
