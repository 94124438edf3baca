"""Rows in lanes (cpu): a loop around an order-sensitive reduction runs W rows in vector lanes.

Applies a `plan.rows_in_lanes.RowsPlan` (the rule and its legality are in
codegen/cpu/plan/rows_in_lanes.py). For P = `for i { S1; ...; Sn }` it builds, in P's place:

    for i0 = lb to main step W                 // strips of W rows
      uniform ops                               // the same in every row: once
      S_k for all rows at once                  // a lanes segment: vector ops, vector loads/stores,
                                                //   or a lane reduction (below)
      for l = 0 to W iter_args(collected)       // a rows segment: row i0 + l's statements in order,
        S_k ... with i = i0 + l                 //   lane values extracted, values a later segment
                                                //   uses inserted into vectors
    for i = max(main, lb) to ub { S1; ...; Sn } // the rows left over, as written

`main = lb + ((ub - lb) floordiv W) * W`. A lane reduction R (`for j iter_args(acc) { acc =
acc + f(x[i, j], ...) }`) becomes

    for j0 = lbR to mainR step W iter_args(vector accumulators) {
      rows:  W vector loads x[i0 + l, j0 : j0 + W], transposed (vector.shuffle): column k
      for k = 0 .. W-1: acc = acc + f(column k, ...)          // lane l: row i0 + l, in order
    }
    for j = max(mainR, lbR) to ubR iter_args(...) { the body on one column (W scalar loads) }

Once the plan takes P's shape, and before its dependences are checked, loads of P's body that
read what a store of the same block wrote are forwarded (scalar replacement's rule,
`scalar_replacement.forward_in_block`) and stores nothing reads any more are removed
(`dead_stores.dead_store_violation`), with those steps' remarks: contraction leaves a fused
row's sum in a one-element buffer written and read by every row, which would otherwise tie the
rows together (LICM has since put the loads beside the stores).

Remarks (pass `rows-in-lanes`): `[ROWS IN LANES] ...` (Passed) per loop, with the width, the
segments and the forms of the reductions' loads; `[STOP ROWS IN LANES] ...` (Missed) per
candidate refused, with its code.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_block, body_ops, loop_bound
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from ...transforms.rewriter import Rewriter
from . import dead_stores
from .plan.rows_in_lanes import (GATHER, LANES, PASS, ROWS, UNIFORM, LaneReduction, RowsPlan, candidates,
                                 plan_rows_in_lanes, transpose_masks)
from .register_tile import _constant, at_least, multiple_bound
from .scalar_replacement import forward_in_block

DONE = "[ROWS IN LANES]"


# ----------------------------------------------------------------------------- small builders

def _vt(t: ir.Type, width: int) -> ir.Type:
    return ir.VectorType.get([width], t)


def _create(name: str, results, operands, ip, attributes=None, loc=None) -> ir.Operation:
    with loc or ir.Location.unknown():
        return ir.Operation.create(name, results=results, operands=operands, attributes=attributes or {}, ip=ip)


def _add_index(base: ir.Value, offset, ip) -> ir.Value:
    """`base + offset` (an int: a constant offset, 0 gives base; a value: d0 + d1)."""
    with ir.Location.unknown():
        d0, d1 = ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)
        if isinstance(offset, int):
            if offset == 0:
                return base
            return affine_d.AffineApplyOp(ir.AffineMap.get(1, 0, [d0 + offset]), [base], ip=ip).result
        return affine_d.AffineApplyOp(ir.AffineMap.get(2, 0, [d0 + d1]), [base, offset], ip=ip).result


def _dense_zero(t: ir.Type, width: int, ip) -> ir.Value:
    vt = _vt(t, width)
    zero = "0.0" if isinstance(t, ir.FloatType) else "0"
    return _create("arith.constant", [vt], [], ip, {"value": ir.Attribute.parse(f"dense<{zero}> : {vt}")})


def clone_with(op: ir.Operation, subst: dict, ip) -> ir.Operation:
    """A clone of `op` at `ip` whose uses of values defined outside it take `subst`'s values."""
    new = op.clone(ip=ip)
    for o in [new, *mlir.walk(new)]:
        for k, v in enumerate(o.operands):
            w = subst.get(v)
            if w is not None:
                o.operands[k] = w
    return new


def outside_operands(op: ir.Operation) -> list[ir.Value]:
    """Values `op` or an op nested in it uses that are defined outside `op`."""
    inner = set()
    for o in [op, *mlir.walk(op)]:
        inner.update(o.results)
        for region in o.regions:
            for block in region.blocks:
                inner.update(block.arguments)
    out = []
    for o in [op, *mlir.walk(op)]:
        for v in o.operands:
            if v not in inner and v not in out:
                out.append(v)
    return out


# ----------------------------------------------------------------------------- one strip

class _Strip:
    """The values of one strip of W rows: `vec[v]` lane l = v in row i0 + l; `uniform[v]` the same
    in every row; scalars of single lanes built on demand."""

    def __init__(self, plan: RowsPlan, i0: ir.Value) -> None:
        self.plan, self.width, self.i0 = plan, plan.width, i0
        self.p = plan.loop
        self.piv = body_block(self.p).arguments[0]
        self.vec: dict = {}
        self.uniform: dict = {}
        self.cache: dict = {}
        self.private: dict = {}  # buffer -> its copies, one per lane (a leading dimension)

    def inside(self, v: ir.Value) -> bool:
        from .plan.cpu_plan import defined_inside
        return defined_inside(v, self.p)

    def vector(self, v: ir.Value, ip) -> ir.Value:
        """v's lanes: its vector, P's counter as the lanes' rows, anything else broadcast."""
        if v in self.vec:
            return self.vec[v]
        if v == self.piv:
            key = ("iota", ip.block)
            if key not in self.cache:
                vt = _vt(v.type, self.width)
                iota = _create("arith.constant", [vt], [], ip,
                               {"value": ir.Attribute.parse(f"dense<[{', '.join(map(str, range(self.width)))}]> : {vt}")})
                base = _create("vector.broadcast", [vt], [self.i0], ip).result
                self.cache[key] = _create("arith.addi", [vt], [base, iota.result], ip).result
            return self.cache[key]
        s = self.scalar(v, {}, ip)
        key = ("bcast", s, ip.block)
        if key not in self.cache:
            self.cache[key] = _create("vector.broadcast", [_vt(s.type, self.width)], [s], ip).result
        return self.cache[key]

    def scalar(self, v: ir.Value, ivs: dict, ip) -> ir.Value:
        """v as a scalar where it is the same in every lane, or an address: the counters in `ivs`
        replaced (P's by a lane's row), affine.apply of them recomputed."""
        for old, new in ivs.items():
            if v == old:
                return new
        if v in self.uniform:
            return self.uniform[v]
        if not self.inside(v):
            return v
        owner, _ = mlir.value_owner(v)
        if owner is not None and owner.name in ("affine.apply", "arith.constant"):
            key = ("apply", v, tuple(ivs.items()), ip.block)
            if key not in self.cache:
                new = clone_with(owner, {x: self.scalar(x, ivs, ip) for x in owner.operands}, ip)
                self.cache[key] = new.results[0]
            return self.cache[key]
        raise AssertionError(f"{v} has no scalar form in the strip")


# ----------------------------------------------------------------------------- private buffers

def _lane_map(m: ir.AffineMap, lane) -> ir.AffineMap:
    """`m` with a leading result for the lane: the constant `lane`, or a new first dim."""
    if isinstance(lane, int):
        return ir.AffineMap.get(m.n_dims, m.n_symbols, [ir.AffineConstantExpr.get(lane), *m.results])
    return ir.AffineMap.get(m.n_dims + 1, m.n_symbols,
                            [ir.AffineDimExpr.get(0), *[r.shift_dims(m.n_dims, 1) for r in m.results]])


def _private_access(op: ir.Operation, copies: ir.Value, lane, idx: list[ir.Value], ip,
                    value: ir.Value | None = None, width: int = 0, as_op: bool = False):
    """`op`'s access (a load, or a store of `value`) to lane `lane`'s copy of its buffer; a vector
    of `width` along the last dimension when width > 0. The loaded value (the new op with
    `as_op`)."""
    m = _lane_map(mlir.affine_map_attr(op, "map"), lane)
    operands = ([] if isinstance(lane, int) else [lane]) + idx
    attrs = {"map": ir.AffineMapAttr.get(m)}
    if op.name == "affine.load":
        t = op.results[0].type
        name, rt = ("affine.vector_load", _vt(t, width)) if width else ("affine.load", t)
        new = _create(name, [rt], [copies, *operands], ip, attrs, op.location)
        return new if as_op else new.result
    new = _create("affine.store", [], [value, copies, *operands], ip, attrs, op.location)
    return new if as_op else None


def allocate_copies(plan: RowsPlan, strip: "_Strip", ip) -> list[ir.Value]:
    """One buffer per private buffer with a leading dimension of W lanes, at `ip`."""
    out = []
    for buf in plan.private:
        mt = mlir.memref_type(buf)
        t = ir.MemRefType.get([plan.width, *mt.shape], mt.element_type)
        # no alignment attribute: the aligned lowering computes the pointer through integers, and
        # LLVM then cannot tell it from the exp table's (a gather it will not check at run time)
        new = _create("memref.alloc", [t], [], ip, {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0])})
        strip.private[buf] = new.result
        out.append(new.result)
    return out


def redirect_private(root: ir.Operation, strip: "_Strip", lane: ir.Value) -> ir.Operation:
    """Accesses in `root` (a clone in a rows segment, itself included) to a private buffer go to
    lane `lane`'s copy; returns root, or what replaced it."""
    out = root
    for o in [root, *mlir.walk(root)]:
        if o.name not in ("affine.load", "affine.store"):
            continue
        k = 1 if o.name == "affine.store" else 0
        copies = strip.private.get(o.operands[k])
        if copies is None:
            continue
        idx = list(o.operands)[k + 1:]
        value = o.operands[0] if k else None
        ip = ir.InsertionPoint(o)
        new = _private_access(o, copies, lane, idx, ip, value, as_op=True)
        if o.results:
            o.results[0].replace_all_uses_with(new.results[0])
        if o == root:
            out = new
        o.erase()
    return out


# ----------------------------------------------------------------------------- lanes segments

def _vector_access(op: ir.Operation, strip: _Strip, ivs: dict, value: ir.Value | None, ip) -> ir.Value | None:
    """A vector load (or store of `value`) of `op`'s address with the counters in `ivs` replaced:
    lanes running along the last dimension from there."""
    idx = [strip.scalar(v, ivs, ip) for v in (list(op.operands)[2:] if value is not None else list(op.operands)[1:])]
    attrs = {"map": op.attributes["map"]}
    if value is None:
        return _create("affine.vector_load", [_vt(op.results[0].type, strip.width)], [op.operands[0], *idx], ip,
                       attrs, op.location).result
    _create("affine.vector_store", [], [value, op.operands[1], *idx], ip, attrs, op.location)
    return None


def _scalar_load(op: ir.Operation, strip: _Strip, ivs: dict, ip, lane: int | None = None) -> ir.Value:
    idx = [strip.scalar(v, ivs, ip) for v in list(op.operands)[1:]]
    if op.operands[0] in strip.private:
        return _private_access(op, strip.private[op.operands[0]], lane, idx, ip)
    return _create("affine.load", [op.results[0].type], [op.operands[0], *idx], ip,
                   {"map": op.attributes["map"]}, op.location).result


def _gather(op: ir.Operation, strip: _Strip, ivs: dict, ip) -> ir.Value:
    """W scalar loads, lane l at row i0 + l, into one vector."""
    lanes = []
    for lane in range(strip.width):
        row = _add_index(strip.i0, lane, ip)
        lanes.append(_scalar_load(op, strip, {**ivs, strip.piv: row}, ip, lane))
    return _create("vector.from_elements", [_vt(op.results[0].type, strip.width)], lanes, ip).result


def transpose(rows: list[ir.Value], ip) -> list[ir.Value]:
    """Row vectors of a width x width block to its column vectors (`transpose_masks`)."""
    width = len(rows)
    cur = list(rows)
    for h, first, second in transpose_masks(width):
        nxt = [None] * width
        for a in range(width):
            if a & h:
                continue
            b = a + h
            for dst, mask in ((a, first), (b, second)):
                nxt[dst] = _create("vector.shuffle", [cur[a].type], [cur[a], cur[b]], ip,
                                   {"mask": ir.DenseI64ArrayAttr.get(mask)}).result
        cur = nxt
    return cur


def _row_vector(op: ir.Operation, strip: _Strip, lane: int, j0: ir.Value, riv: ir.Value, ip) -> ir.Value:
    """Row `lane` of a block: W elements along R from column j0 (of the lane's copy of a private
    buffer, or at P's counter i0 + lane)."""
    ivs = {strip.piv: _add_index(strip.i0, lane, ip), riv: j0}
    copies = strip.private.get(op.operands[0])
    if copies is not None:  # (contraction may leave P's counter as an operand its map ignores)
        idx = [strip.scalar(v, ivs, ip) for v in list(op.operands)[1:]]
        return _private_access(op, copies, lane, idx, ip, width=strip.width)
    return _vector_access(op, strip, ivs, None, ip)


def _lane_op(op: ir.Operation, operands: list[ir.Value], width: int, ip) -> ir.Operation:
    """`op` on vectors of `width` lanes (its attributes kept)."""
    attrs = {name: attr for name, attr in op.attributes.items()}
    return _create(op.name, [_vt(r.type, width) for r in op.results], operands, ip, attrs, op.location)


def _emit_reduction(lr: LaneReduction, strip: _Strip, ip) -> None:
    """The lane reduction R: blocks of W columns (rows transposed in registers), then single
    columns; R's results become vectors of the strip."""
    r, width = lr.loop, strip.width
    riv = body_block(r).arguments[0]
    carried = list(body_block(r).arguments)[1:]
    n_bounds = len(list(r.operands)) - len(carried)
    inits = [strip.vector(v, ip) for v in list(r.operands)[n_bounds:]]
    lo, hi = loop_bound(r, "lb"), loop_bound(r, "ub")
    lo = (lo[0], [strip.scalar(v, {}, ip) for v in lo[1]])
    hi = (hi[0], [strip.scalar(v, {}, ip) for v in hi[1]])
    main = multiple_bound(lo, hi, width)
    a, b = _constant(lo), _constant(main)
    current = inits
    if not (a is not None and b is not None and a >= b):
        blk = mlir.affine_for(lo, main, width, current, ip, r.location)
        bb = body_block(blk)
        inner = ir.InsertionPoint(bb)
        j0 = bb.arguments[0]
        accs = list(bb.arguments)[1:]
        columns: dict = {}
        for x in lr.loads:  # the rows of each row-walking load, transposed once per block
            if x.form == ROWS:
                rows = [_row_vector(x.op, strip, lane, j0, riv, inner) for lane in range(width)]
                columns[x.op] = transpose(rows, inner)
        for k in range(width):
            j = _add_index(j0, k, inner)
            accs = _emit_body(lr, strip, {riv: j}, dict(zip(carried, accs)), columns, k, inner)
        with r.location:
            affine_d.AffineYieldOp(accs, ip=inner)
        current = list(blk.results)
    c, d = _constant(main), _constant(hi)
    if not (c is not None and d is not None and c >= d):
        rem = mlir.affine_for(at_least(main, lo), hi, 1, current, ip, r.location)
        rb = body_block(rem)
        inner = ir.InsertionPoint(rb)
        accs = _emit_body(lr, strip, {riv: rb.arguments[0]}, dict(zip(carried, list(rb.arguments)[1:])), {}, None, inner)
        with r.location:
            affine_d.AffineYieldOp(accs, ip=inner)
        current = list(rem.results)
    for old, new in zip(r.results, current):
        strip.vec[old] = new


def _emit_body(lr: LaneReduction, strip: _Strip, ivs: dict, env: dict, columns: dict, k, ip) -> list[ir.Value]:
    """R's body for one column (`ivs`: R's counter at it; `env`: carried values as vectors;
    `columns[load][k]`: a transposed column), returning the values it yields. A value is a vector
    when it moves with the row, else a scalar broadcast where a vector op needs it."""
    r, width = lr.loop, strip.width
    local = dict(env)  # old value -> new (vector or scalar)
    uniform = set()

    def vec(v: ir.Value) -> ir.Value:
        if v in local:
            x = local[v]
            if v in uniform:
                key = ("bcast", x, ip.block)
                if key not in strip.cache:
                    strip.cache[key] = _create("vector.broadcast", [_vt(x.type, width)], [x], ip).result
                return strip.cache[key]
            return x
        if v in ivs:
            return _broadcast(ivs[v], strip, ip)
        return strip.vector(v, ip)

    for op in body_ops(r):
        if op.name == "affine.load":
            form = lr.form_of(op)
            if form == ROWS and k is not None:
                local[op.results[0]] = columns[op][k]
            elif form == LANES:
                local[op.results[0]] = _vector_access(op, strip, {**ivs, strip.piv: strip.i0}, None, ip)
            elif form == UNIFORM:
                local[op.results[0]] = _scalar_load(op, strip, ivs, ip)
                uniform.add(op.results[0])
            else:  # GATHER, or a row walk's column left over
                local[op.results[0]] = _gather(op, strip, ivs, ip)
            continue
        moves = any(v not in uniform if v in local else _moves_in_strip(v, strip) for v in op.operands)
        if op.name in ("affine.apply", "arith.constant") or not moves:
            new = clone_with(op, {v: (local[v] if v in local else strip.scalar(v, ivs, ip)) for v in op.operands}, ip)
            for old, fresh in zip(op.results, new.results):
                local[old] = fresh
                uniform.add(old)
            continue
        new = _lane_op(op, [vec(v) for v in op.operands], width, ip)
        for old, fresh in zip(op.results, new.results):
            local[old] = fresh
    yield_op = mlir.block_ops(body_block(r))[-1]
    return [vec(v) for v in yield_op.operands]


def _broadcast(s: ir.Value, strip: _Strip, ip) -> ir.Value:
    key = ("bcast", s, ip.block)
    if key not in strip.cache:
        strip.cache[key] = _create("vector.broadcast", [_vt(s.type, strip.width)], [s], ip).result
    return strip.cache[key]


def _moves_in_strip(v: ir.Value, strip: _Strip) -> bool:
    """Whether a value from outside R's body moves with the row: P's counter or a strip vector."""
    return v == strip.piv or v in strip.vec


def _emit_lanes(op: ir.Operation, strip: _Strip, ip) -> None:
    """One statement of a lanes segment: a lane reduction, a vector load or store, a vector op."""
    lr = strip.plan.reduction_of(op)
    if lr is not None:
        _emit_reduction(lr, strip, ip)
        return
    if op.name == "affine.load":
        strip.vec[op.results[0]] = _vector_access(op, strip, {strip.piv: strip.i0}, None, ip)
        return
    if op.name == "affine.store":
        _vector_access(op, strip, {strip.piv: strip.i0}, strip.vector(op.operands[0], ip), ip)
        return
    new = _lane_op(op, [strip.vector(v, ip) for v in op.operands], strip.width, ip)
    for old, fresh in zip(op.results, new.results):
        strip.vec[old] = fresh


# ----------------------------------------------------------------------------- rows segments

def _emit_rows(ops: tuple, later: set, strip: _Strip, ip) -> None:
    """A rows segment: a loop over the lanes running each row's statements in order; values the
    later segments use (`later`) are inserted lane by lane into vectors of the strip."""
    width = strip.width
    defined = [r for op in ops for r in op.results]
    out = [v for v in defined if v in later]
    inits = [_dense_zero(v.type, width, ip).result for v in out]
    with ops[0].location:
        zero, w = ir.AffineMap.get_constant(0), ir.AffineMap.get_constant(width)
    lanes = mlir.affine_for((zero, []), (w, []), 1, inits, ip, ops[0].location)
    block = body_block(lanes)
    inner = ir.InsertionPoint(block) if inits else ir.InsertionPoint(mlir.block_ops(block)[-1])
    lane = block.arguments[0]
    row = _add_index(strip.i0, lane, inner)
    local: dict = {strip.piv: row}
    for op in ops:
        subst = {}
        for v in outside_operands(op):
            if v in local:
                subst[v] = local[v]
            elif v in strip.uniform:
                subst[v] = strip.uniform[v]
            elif v in strip.vec:
                local[v] = _create("vector.extract", [v.type], [strip.vec[v], lane], inner,
                                   {"static_position": ir.DenseI64ArrayAttr.get([-(2 ** 63)])}).result
                subst[v] = local[v]
        new = clone_with(op, subst, inner)
        if strip.private:
            new = redirect_private(new, strip, lane)
        for old, fresh in zip(op.results, new.results):
            local[old] = fresh
    carried = list(block.arguments)[1:]
    vals = [_create("vector.insert", [acc.type], [local[v], acc, lane], inner,
                    {"static_position": ir.DenseI64ArrayAttr.get([-(2 ** 63)])}).result
            for v, acc in zip(out, carried)]
    if inits:
        with ops[0].location:
            affine_d.AffineYieldOp(vals, ip=inner)
    for v, res in zip(out, lanes.results):
        strip.vec[v] = res


def _emit_jammed(seg, strip: _Strip, ip) -> None:
    """A jammed rows segment: one copy of the row loop L whose body runs W times per iteration,
    row i0 + l's copy l-th (each row's lane values extracted once, before the loop; the loads the
    same in every row once, in the first copy)."""
    lp = seg.ops[0]
    shared = {mlir.op_key(o) for o in seg.shared}
    width = strip.width
    outside = [v for v in outside_operands(lp) if strip.inside(v) or v == strip.piv]
    lanes = []
    for lane in range(width):
        subst = {strip.piv: _add_index(strip.i0, lane, ip)}
        for v in outside:
            if v in strip.uniform:
                subst[v] = strip.uniform[v]
            elif v in strip.vec:
                subst[v] = _create("vector.extract", [v.type], [strip.vec[v]], ip,
                                   {"static_position": ir.DenseI64ArrayAttr.get([lane])}).result
        lanes.append(subst)
    lo, hi = loop_bound(lp, "lb"), loop_bound(lp, "ub")
    lo = (lo[0], [strip.scalar(v, {}, ip) for v in lo[1]])
    hi = (hi[0], [strip.scalar(v, {}, ip) for v in hi[1]])
    new = mlir.affine_for(lo, hi, 1, [], ip, lp.location)
    block = body_block(new)
    inner = ir.InsertionPoint(mlir.block_ops(block)[-1])
    liv = body_block(lp).arguments[0]
    once: dict = {}
    for subst in lanes:
        local = {**subst, liv: block.arguments[0], **once}
        for op in body_ops(lp):
            if mlir.op_key(op) in shared and op.results[0] in once:
                continue
            fresh = clone_with(op, {v: local[v] for v in op.operands if v in local}, inner)
            for old, res in zip(op.results, fresh.results):
                local[old] = res
            if mlir.op_key(op) in shared:
                once[op.results[0]] = fresh.results[0]


# ----------------------------------------------------------------------------- the rewrite

def build_rows_in_lanes(plan: RowsPlan) -> list[ir.Operation]:
    """The strips and the remainder rows, built before P; P's body ends in the remainder loop
    (moved), P is left empty for the caller to erase. Returns the new loops."""
    p, width = plan.loop, plan.width
    ip = ir.InsertionPoint(p)
    lb, ub = loop_bound(p, "lb"), loop_bound(p, "ub")
    main = multiple_bound(lb, ub, width)
    out = []
    with p.context, p.location:
        pending = _Strip(plan, None)
        copies = allocate_copies(plan, pending, ip)
        strips = mlir.affine_for(lb, main, width, [], ip, p.location)
        sin = ir.InsertionPoint(mlir.block_ops(body_block(strips))[-1])
        strip = _Strip(plan, body_block(strips).arguments[0])
        strip.private = pending.private
        for buf in copies:
            _create("memref.dealloc", [], [buf], ip)
        for op in plan.uniform:
            new = clone_with(op, {v: strip.uniform[v] for v in op.operands if v in strip.uniform}, sin)
            for old, fresh in zip(op.results, new.results):
                strip.uniform[old] = fresh
        later_uses = _later_uses(plan)
        for s, seg in enumerate(plan.segments):
            if seg.jammed:
                _emit_jammed(seg, strip, sin)
            elif seg.per_row:
                _emit_rows(seg.ops, later_uses[s], strip, sin)
            else:
                for op in seg.ops:
                    _emit_lanes(op, strip, sin)
        out.append(strips)
        a, b = _constant(main), _constant(ub)
        if not (a is not None and b is not None and a >= b):
            rest = mlir.affine_for(at_least(main, lb), ub, 1, [], ip, p.location)
            rblock = body_block(rest)
            term = mlir.block_ops(rblock)[-1]
            body_block(p).arguments[0].replace_all_uses_with(rblock.arguments[0])
            for op in body_ops(p):
                op.move_before(term)
            out.append(rest)
    erase_unused_applies(out[:1])
    return out


def erase_unused_applies(ops: list[ir.Operation]) -> None:
    """Drop the affine.apply ops of the new loops nothing uses (a column counter a block's
    transposed loads did not need), last first so chains go too."""
    for root in ops:
        for o in reversed([x for x in mlir.walk(root) if x.name == "affine.apply"]):
            if next(iter(o.results[0].uses), None) is None:
                o.erase()


def _later_uses(plan: RowsPlan) -> list[set]:
    """Per segment: the values of P's body its ops define that ops of later segments use."""
    out = []
    for s, seg in enumerate(plan.segments):
        used = set()
        for later in plan.segments[s + 1:]:
            for op in later.ops:
                used.update(outside_operands(op))
        out.append(used)
    return out


# ----------------------------------------------------------------------------- the step

def forward_row_values(p: ir.Operation, facts: Facts, rewriter: Rewriter, log: RemarkLog, fname: str,
                       filename: str) -> None:
    """Loads of P's body that read what a store of the body wrote take the stored value; stores
    nothing reads then are removed, and buffers left with only their dealloc."""
    forward_in_block(body_block(p), facts, rewriter, log, fname, filename)
    scope = facts.scope
    for st in [op for op in body_ops(p) if op.name == "affine.store"]:
        buf = st.operands[1]
        if dead_stores.buffer_violation(buf) is not None:
            continue
        if dead_stores.dead_store_violation(st, scope, buffer_checked=True) is None:
            where = mlir.location_of(st, filename)
            rewriter.erase(st)
            log.add(PASS, PASSED, dead_stores.REMOVED, function=fname, location=where)
            users = [mlir.operation(x.owner) for x in buf.uses]
            alloc, _ = mlir.value_owner(buf)
            if alloc is not None and all(u.name == "memref.dealloc" for u in users):
                for u in users:
                    rewriter.erase(u)
                rewriter.erase(alloc)


def describe(plan: RowsPlan) -> str:
    forms = sorted({x.form for lr in plan.reductions for x in lr.loads if x.form != UNIFORM})
    kinds = ", ".join(sorted({r.kind for lr in plan.reductions for r in lr.reductions}))
    per_row = sum(1 for s in plan.segments if s.per_row and not s.jammed)
    jammed = sum(1 for s in plan.segments if s.jammed)
    lane_type = list(body_block(plan.reductions[0].loop).arguments)[1].type
    text = (f"{DONE} {plan.width} rows in the lanes of vector<{plan.width}x{lane_type}>: {len(plan.reductions)} "
            f"reduction loop(s) ({kinds}) with each row's order kept")
    if ROWS in forms:
        text += f", rows read {plan.width} columns at a time and transposed in registers"
    if LANES in forms:
        text += ", " + ("and " if ROWS in forms else "") + "columns contiguous along the rows read as one vector each"
    if GATHER in forms:
        text += "; some loads gathered lane by lane"
    if per_row:
        text += f"; {per_row} segment(s) row by row"
    if jammed:
        text += f"; {jammed} row loop(s) jammed, the rows in order in each iteration"
    return text


def rows_in_lanes_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                           report_refusals: bool = True) -> int:
    """Plan and apply every candidate loop of the function; returns how many were rewritten. A
    refused candidate gets a Missed remark unless its code is quiet (`LanesCode.quiet`: then only
    with `report_refusals`, the step's explained form)."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    erased: set = set()  # the candidates inside a loop rewritten before them (candidates are in pre-order)
    for p in candidates(fn):
        if mlir.op_key(p) in erased:
            continue
        facts = Facts()
        rewriter = Rewriter(facts)
        where = mlir.location_of(p, filename)
        plan = plan_rows_in_lanes(p, facts, options, legality=False)
        if plan.refusal is None:  # a shape the step takes: its row values forwarded, then the whole plan
            forward_row_values(p, facts, rewriter, log, fname, filename)
            facts = Facts()
            plan = plan_rows_in_lanes(p, facts, options)
        if plan.refusal is not None:
            if report_refusals or not plan.refusal.code.quiet:
                log.refused(PASS, plan.refusal, function=fname, location=where)
            continue
        args = {"width": plan.width, "reductions": len(plan.reductions),
                "segments": ["jammed" if s.jammed else "rows" if s.per_row else "lanes" for s in plan.segments],
                "forms": sorted({x.form for lr in plan.reductions for x in lr.loads})}
        text = describe(plan)

        def build(plan=plan):
            new = build_rows_in_lanes(plan)
            mlir.erase_innermost_first(plan.loop)
            return [new]

        erased |= {mlir.op_key(o) for o in mlir.walk(p) if o.name == "affine.for"}
        rewriter.replace([p], build)
        log.add(PASS, PASSED, text, function=fname, location=where, args=args)
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `rows-in-lanes` (loopopt/pipeline.py)."""
    with fn.context:
        return rows_in_lanes_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
