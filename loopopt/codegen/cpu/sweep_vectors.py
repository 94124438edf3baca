"""Sweep vectors (cpu): a sweep's shifted loads shared through vector windows.

Applies a `plan.sweep_vectors.SweepPlan` (the rule and its legality are in
codegen/cpu/plan/sweep_vectors.py). The loop `for i = lo to hi` (lo, hi the max / min of its bound
maps) becomes, W the width:

    p0 = min(hi, the first i >= lo where the first store's last index is a multiple of W)
    if p0 > lo: the body on lanes i = lo .. p0 - 1 of a vector at lo (masked: the other lanes touch no memory)
    ve = max(p0, p0 + W floor((hi - p0 - W + d) / W))         d: the widest window's span
    if ve > p0:
      V0_g = A_g[p0 + c_g .. +W)          one per window g (c_g its least offset)
      for a = p0 to ve step W  (V0_g carried):
        V1_g = A_g[a + W + c_g .. +W)
        operand at offset c_g + r: lanes r .. r + W - 1 of V0_g ++ V1_g (r = 0: V0_g itself),
          or A_g[a + c_g + r .. +W) when that offset is aligned like the store's (the plan's `aligned`)
        a load of one offset: A[a + c .. +W)
        the body's ops on vectors; the store's vector at a
        yield V1_g
    te = ve + W floor((hi - ve) / W)
    for a = ve to te step W              each operand loaded on its own (A[a + c .. +W))
    if hi > te: the body on lanes i = te .. hi - 1 of a vector at te (masked)

The last window loads A_g[.. ve - W + c_g + 2W) <= A_g[hi - 1 + c_g + d]: every vector access
reads only elements the loop read, and a masked vector only its lanes' elements. The new loops
are scf.for (their bounds are not affine in the bound operands); every access's indices are the
original map's results (affine.apply) at the lane-0 counter. Masked ends against scalar loops
measured 0.935 of jacobi_1d's time (paired, docs/cpu_codegen.md 19.6); the aligned operand loaded
instead of shuffled 0.84-0.86 (19.7).

Remarks (pass `sweep-vectors`): `[SWEEP VECTORS] ...` (Passed) per loop with the width and the
windows; `[STOP SWEEP VECTORS] ...` (Missed) per refused candidate (a quiet code only when the step
is named in --passes).
"""
from __future__ import annotations

from ... import mlir
from ...analysis.facts import Facts
from ...analysis.loops import body_block, body_ops, loop_bound
from ...mlir import ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from ...transforms.rewriter import Rewriter
from .math import math_approx
from .plan.sweep_vectors import PASS, SweepPlan, candidates, plan_sweep_vectors

DONE = "[SWEEP VECTORS]"


def _create(name: str, results, operands, ip, attributes=None, regions=0) -> ir.Operation:
    return ir.Operation.create(name, results=results, operands=operands, attributes=attributes or {},
                               regions=regions, ip=ip)


def _index() -> ir.Type:
    return ir.IndexType.get()


def _map_op(name: str, m: ir.AffineMap, operands, ip) -> ir.Value:
    """affine.apply / affine.min / affine.max of `m` (one result for apply)."""
    return _create(name, [_index()], list(operands), ip, {"map": ir.AffineMapAttr.get(m)}).result


def _d(k: int) -> ir.AffineExpr:
    return ir.AffineDimExpr.get(k)


def _const(v: int) -> ir.AffineExpr:
    return ir.AffineConstantExpr.get(v)


def _fdiv(e: ir.AffineExpr, w: int) -> ir.AffineExpr:
    return ir.AffineFloorDivExpr.get(e, _const(w))


def _apply(fn, values, ip) -> ir.Value:
    """affine.apply of `fn(d0, d1, ..)` over `values` (all dims)."""
    m = ir.AffineMap.get(len(values), 0, [fn(*[_d(k) for k in range(len(values))])])
    return _map_op("affine.apply", m, values, ip)


def _bound(loop: ir.Operation, which: str, ip) -> ir.Value:
    m, ops = loop_bound(loop, which)
    if len(m.results) == 1:
        return _map_op("affine.apply", m, ops, ip)
    return _map_op("affine.max" if which == "lb" else "affine.min", m, ops, ip)


def _indices(op: ir.Operation, iv: ir.Value, at: ir.Value, ip) -> list[ir.Value]:
    """The indices of an affine load or store with the loop counter `iv` replaced by `at`."""
    m = mlir.affine_map_attr(op, "map")
    first = 1 if op.name == "affine.load" else 2
    operands = [at if v == iv else v for v in list(op.operands)[first:]]
    return [_map_op("affine.apply", ir.AffineMap.get(m.n_dims, m.n_symbols, [r]), operands, ip) for r in m.results]


def _attrs(op: ir.Operation) -> dict:
    return {name: op.attributes[name] for name in op.attributes}


def _lanewise(op: ir.Operation, operands: list, vt, ip) -> list:
    """The results of the elementwise op `op` on the vector `operands` (vt: the vector type of a
    scalar type): the op itself on vectors, but for `llvm.intr.ldexp`, whose MLIR form takes a
    scalar exponent only: LLVM's ldexp intrinsic on vectors (math_approx.vector_ldexp)."""
    if op.name == math_approx.LDEXP:
        fastmath = op.attributes["fastmathFlags"] if "fastmathFlags" in op.attributes else None
        return [math_approx.vector_ldexp(operands[0], operands[1], ip, fastmath)]
    return list(_create(op.name, [vt(v.type) for v in op.results], operands, ip, _attrs(op)).results)


def _scf_for(lo, hi, step, inits, ip) -> tuple[ir.Operation, ir.Block]:
    loop = _create("scf.for", [v.type for v in inits], [lo, hi, step, *inits], ip, regions=1)
    block = loop.regions[0].blocks.append(_index(), *[v.type for v in inits])
    return loop, block


def _yield(values, block: ir.Block) -> None:
    _create("scf.yield", [], list(values), ir.InsertionPoint(block))


class _Vectors:
    """The loop's body on W lanes at the block starting at `a`."""

    def __init__(self, plan: SweepPlan, ip):
        self.plan, self.w = plan, plan.width
        self.iv = body_block(plan.loop).arguments[0]
        self.ip = ip
        self.zeros: dict = {}

    def vt(self, t: ir.Type) -> ir.Type:
        return ir.VectorType.get([self.w], t)

    def load(self, op: ir.Operation, at: ir.Value, ip, mask: ir.Value | None = None) -> ir.Value:
        vt = self.vt(op.results[0].type)
        idx = _indices(op, self.iv, at, ip)
        if mask is None:
            return _create("vector.load", [vt], [op.operands[0], *idx], ip).result
        key = (str(vt), str(mask))
        if key not in self.zeros:  # the masked-off lanes' value (touched by no store)
            zero = ir.FloatAttr.get(vt.element_type, 0.0) if isinstance(vt.element_type, ir.FloatType) else \
                ir.IntegerAttr.get(vt.element_type, 0)
            self.zeros[key] = _create("arith.constant", [vt], [], ip,
                                      {"value": ir.DenseElementsAttr.get_splat(vt, zero)}).result
        return _create("vector.maskedload", [vt], [op.operands[0], *idx, mask, self.zeros[key]], ip).result

    def shifted(self, v0: ir.Value, v1: ir.Value, r: int, ip) -> ir.Value:
        if r == 0:
            return v0
        mask = ir.DenseI64ArrayAttr.get(list(range(r, r + self.w)))
        return _create("vector.shuffle", [v0.type], [v0, v1], ip, {"mask": mask}).result

    def body(self, a: ir.Value, loaded: dict, ip, mask: ir.Value | None = None) -> None:
        """The body's ops at block `a`: `loaded` gives the vectors of the loads it has (the
        windows'); any other load is a vector load of its own. With `mask`, only its lanes load
        and store (the others touch no memory)."""
        self.bodies([a], [loaded], ip, mask)

    def bodies(self, starts: list, loaded: list, ip, mask: ir.Value | None = None) -> None:
        """The body at each block of `starts` (loaded[k]: block k's loaded vectors), interleaved:
        each op is written for every block before the next op. Values the same in every lane
        (constants) are computed once."""
        vals = [dict(ld) for ld in loaded]
        scal, cache = {}, {}

        def vec(k, v):
            if v in vals[k]:
                return vals[k][v]
            s = scal.get(v, v)
            if s not in cache:
                cache[s] = _create("vector.broadcast", [self.vt(s.type)], [s], ip).result
            return cache[s]

        for op in body_ops(self.plan.loop):
            if op.name == "affine.load":
                for k, a in enumerate(starts):
                    if op.results[0] not in vals[k]:
                        vals[k][op.results[0]] = self.load(op, a, ip, mask)
            elif op.name == "affine.store":
                for k, a in enumerate(starts):
                    idx = _indices(op, self.iv, a, ip)
                    if mask is None:
                        _create("vector.store", [], [vec(k, op.operands[0]), op.operands[1], *idx], ip)
                    else:
                        _create("vector.maskedstore", [], [op.operands[1], *idx, mask, vec(k, op.operands[0])], ip)
            elif any(v in vals[0] for v in op.operands):
                for k in range(len(starts)):
                    for x, y in zip(op.results, _lanewise(op, [vec(k, v) for v in op.operands], self.vt, ip)):
                        vals[k][x] = y
            else:  # a value the same in every lane (a constant)
                r = _create(op.name, [v.type for v in op.results], [scal.get(v, v) for v in op.operands], ip,
                            _attrs(op))
                for x, y in zip(op.results, r.results):
                    scal[x] = y


def _cmp(pred: int, a: ir.Value, b: ir.Value, ip) -> ir.Value:
    return _create("arith.cmpi", [ir.IntegerType.get_signless(1)], [a, b], ip,
                   {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), pred)}).result


def _masked_block(vec: "_Vectors", start: ir.Value, end: ir.Value, ip) -> None:
    """The body on the lanes start .. end - 1 (fewer than W) of a vector at `start`, when there
    is one: lane 0 is then an iteration, so every address is one the loop reads or a masked-off
    lane's, which touches no memory."""
    guard = _create("scf.if", [], [_cmp(4, end, start, ip)], ip, regions=2)  # sgt
    then = guard.regions[0].blocks.append()
    at = ir.InsertionPoint(then)
    count = _apply(lambda a_, b_: b_ - a_, [start, end], at)
    mask = _create("vector.create_mask", [ir.VectorType.get([vec.w], ir.IntegerType.get_signless(1))], [count], at)
    vec.body(start, {}, at, mask.result)
    _yield([], then)


def _aligned_head(plan: SweepPlan, ip) -> tuple:
    """The loop's bounds and the masked vector from its lower bound up to p0, the first store's
    first index that is a multiple of W (or the upper bound): (hi, p0, the head's _Vectors)."""
    loop, w = plan.loop, plan.width
    lo, hi = _bound(loop, "lb", ip), _bound(loop, "ub", ip)
    iv = body_block(loop).arguments[0]
    last = _indices(plan.store, iv, lo, ip)[-1]
    aligned = _apply(lambda lo_, e: lo_ + ir.AffineModExpr.get(_const(0) - e, _const(w)), [lo, last], ip)
    p0 = _map_op("affine.min", ir.AffineMap.get(2, 0, [_d(0), _d(1)]), [aligned, hi], ip)
    vec = _Vectors(plan, ip)
    _masked_block(vec, lo, p0, ip)
    return hi, p0, vec


def build_interleaved(plan: SweepPlan) -> None:
    """A window-free sweep's replacement in blocks of U = plan.interleave vectors, built before
    it: the masked head up to the first store's alignment, then

        for a = p0 to ve step U W     (ve = p0 + U W floor((hi - p0) / (U W)))
          the body at a, a + W, .., a + (U - 1) W, interleaved op by op
        for a = ve to te step W       (te = ve + W floor((hi - ve) / W))
          the body at a
        the masked tail te .. hi."""
    loop, w, u = plan.loop, plan.width, plan.interleave
    with loop.context, loop.location:
        ip = ir.InsertionPoint(loop)
        hi, p0, vec = _aligned_head(plan, ip)
        ve = _apply(lambda x, h: x + _fdiv(h - x, u * w) * (u * w), [p0, hi], ip)
        step = _create("arith.constant", [_index()], [], ip, {"value": ir.IntegerAttr.get(_index(), u * w)}).result
        main, block = _scf_for(p0, ve, step, [], ip)
        bip = ir.InsertionPoint(block)
        a = block.arguments[0]
        starts = [a] + [_apply(lambda x, k=k: x + k * w, [a], bip) for k in range(1, u)]
        _Vectors(plan, bip).bodies(starts, [{} for _ in starts], bip)
        _yield([], block)
        te = _apply(lambda x, h: x + _fdiv(h - x, w) * w, [ve, hi], ip)
        one = _create("arith.constant", [_index()], [], ip, {"value": ir.IntegerAttr.get(_index(), w)}).result
        tail, tblock = _scf_for(ve, te, one, [], ip)
        tip = ir.InsertionPoint(tblock)
        _Vectors(plan, tip).body(tblock.arguments[0], {}, tip)
        _yield([], tblock)
        _masked_block(vec, te, hi, ip)


def build_sweep_vectors(plan: SweepPlan) -> None:
    """The loop's replacement built before it (see the module docstring)."""
    if plan.interleave > 1:
        build_interleaved(plan)
        return
    loop, w = plan.loop, plan.width
    d = max(g.span for g in plan.groups)
    with loop.context, loop.location:
        ip = ir.InsertionPoint(loop)
        step = _create("arith.constant", [_index()], [], ip, {"value": ir.IntegerAttr.get(_index(), w)}).result
        hi, p0, vec = _aligned_head(plan, ip)
        ve = _map_op("affine.max", ir.AffineMap.get(2, 0, [_d(0), _d(0) + _fdiv(_d(1) - _d(0) - w + d, w) * w]),
                     [p0, hi], ip)
        run = _cmp(4, ve, p0, ip)  # sgt
        guard = _create("scf.if", [], [run], ip, regions=2)
        then = guard.regions[0].blocks.append()
        at = ir.InsertionPoint(then)
        vec = _Vectors(plan, at)
        windows = [g for g in plan.groups if g.span > 0]
        inits = [vec.load(g.anchor, p0, at) for g in windows]
        main, block = _scf_for(p0, ve, step, inits, at)
        a = block.arguments[0]
        bip = ir.InsertionPoint(block)
        nxt = _apply(lambda x: x + w, [a], bip)
        loaded, carry = {}, []
        for g, v0 in zip(windows, block.arguments[1:]):
            v1 = vec.load(g.anchor, nxt, bip)
            carry.append(v1)
            for op, r in g.loads:
                if mlir.op_key(op) in g.aligned:  # an aligned vector of its own: one load, no shuffle
                    loaded[op.results[0]] = vec.load(op, a, bip)
                else:
                    loaded[op.results[0]] = vec.shifted(v0, v1, r, bip)
        vec.body(a, loaded, bip)
        _yield(carry, block)
        _yield([], then)
        te = _apply(lambda x, h: x + _fdiv(h - x, w) * w, [ve, hi], ip)
        tail, tblock = _scf_for(ve, te, step, [], ip)
        tip = ir.InsertionPoint(tblock)
        vec.body(tblock.arguments[0], {}, tip)
        _yield([], tblock)
        _masked_block(vec, te, hi, ip)


def _window_text(g) -> str:
    own = f", {len(g.aligned)} aligned loaded on its own" if g.aligned else ""
    return f"{len(g.loads)} offsets{own}"


def describe(plan: SweepPlan) -> str:
    if plan.interleave > 1:
        return (f"{DONE} vectors of {plan.width} in blocks of {plan.interleave}, interleaved op by op: "
                f"a chain of {plan.chain} ops overlapped {plan.interleave} times; ends peeled")
    spans = ", ".join(_window_text(g) for g in plan.groups if g.span > 0)
    return (f"{DONE} vectors of {plan.width}, one load per window ({spans}), the shifted operands "
            f"shuffled from it; ends peeled")


def sweep_vectors_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>",
                           report_refusals: bool = True) -> int:
    """Plan and apply every candidate loop of the function; returns how many were rewritten."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    for loop in candidates(fn):
        facts = Facts()
        plan = plan_sweep_vectors(loop, facts, options)
        where = mlir.location_of(loop, filename)
        if plan.refusal is not None:
            if report_refusals or not plan.refusal.code.quiet:
                log.refused(PASS, plan.refusal, function=fname, location=where)
            continue

        def build(plan=plan):
            build_sweep_vectors(plan)
            mlir.erase_innermost_first(plan.loop)
            return [[]]

        Rewriter(facts).replace([loop], build)
        args = {"width": plan.width, "windows": sum(1 for g in plan.groups if g.span > 0),
                "aligned": sum(len(g.aligned) for g in plan.groups if g.span > 0)}
        if plan.interleave > 1:
            args.update(interleave=plan.interleave, chain=plan.chain)
        log.add(PASS, PASSED, describe(plan), function=fname, location=where, args=args)
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `sweep-vectors` (loopopt/pipeline.py)."""
    with fn.context:
        return sweep_vectors_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
