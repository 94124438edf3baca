"""Contraction after fusion: a placed intermediate whose every read is satisfied within one
iteration is replaced by the stored value itself, and its buffer is removed; failing that, a
buffer each iteration of a loop uses privately is shrunk to the slice one iteration owns.

Rule (forwarding): a buffer allocated by the function, used only by affine loads and stores of
it (scalar or `affine.vector_*`) and its dealloc, all of them in one block, where every load is
preceded in that block by a store that writes exactly the element (or vector box, same type)
it reads, never escapes: each load can take the value of the latest such store, and the buffer
is dead afterwards.

Whatever else uses the buffer (a view, select, call, yield, return, a store of the buffer
itself, an access we do not model) keeps it, with a Missed remark that says why, for buffers
that are candidates (a load and a store inside one common loop: the shape fusion leaves).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cmp_to_key

from math import gcd

import islpy as isl

from .. import mlir
from ..analysis.accesses import access_pattern
from ..analysis.affine import Scope
from ..analysis.affine import NonAffine, simplified
from ..analysis.dependence import affine_form, iterations_share_elements, same_element
from ..analysis.loops import ancestors, domain_loops, substitute
from ..analysis.memory import ALLOC_OPS, block_reentered, escaping_use
from ..analysis.refusal import Code, Refusal
from ..mlir import ir
from ..options import Options
from ..remarks import PASSED, RemarkLog
from ..transforms.rewriter import Rewriter
from ..step import StepContext

# Modelled accesses of a buffer: op -> position of the memref operand (indices follow it).
LOADS = {"affine.load": 0, "affine.vector_load": 0}
STORES = {"affine.store": 1, "affine.vector_store": 1}
# Ops that may lie between an allocation and its accesses for shrinking: loops given by their
# bounds (the analysis sees their iterations) and conditionals (a body runs at most once).
MODELLED_NESTING = ("affine.for", "affine.if", "scf.if")
KEPT = "[CONTRACTION] kept {buffer} at {where}: {reason}"


def kept_refusal(alloc: ir.Operation, where: str, not_forwarded: Refusal, not_shrunk: Refusal) -> Refusal:
    """Why a candidate buffer stays: one reason when both plans stop at it, else both."""
    if not_forwarded.detail == not_shrunk.detail:
        code, reason = not_forwarded.code, not_forwarded.detail
    else:
        code, reason = not_shrunk.code, f"not forwarded ({not_forwarded.detail}); not shrunk ({not_shrunk.detail})"
    return Refusal(code, reason, (alloc,), KEPT.format(buffer=alloc.results[0].type, where=where, reason=reason))


def escape_reason(buf: ir.Value, filename: str = "<input>") -> str | None:
    """None iff every use of `buf` is a modelled access of it (an affine load from it, an affine
    store into it) or its dealloc; otherwise the use that lets it escape or is not modelled."""
    user = escaping_use(buf, {**LOADS, **STORES})
    return None if user is None else f"used by {user.name} at {mlir.location_of(user, filename)}"


def _accesses_of(buf: ir.Value) -> list[ir.Operation]:
    return [u for u in (mlir.operation(x.owner) for x in buf.uses) if u.name != "memref.dealloc"]


def control_flow_reason(alloc: ir.Operation, ops: list[ir.Operation], filename: str = "<input>") -> str | None:
    """None iff every access in `ops` is nested in the allocation's block through modelled ops
    only (affine.for, affine.if, scf.if) and that block is not re-entered by a branch. Otherwise
    a loop the analysis does not see (scf.while, a cf back edge, ...) may carry the buffer's
    contents from one trip to the next."""
    block = alloc.block
    if len(block.region.blocks) > 1 and block_reentered(block):
        return "its block is re-entered by a branch (a loop of blocks)"
    for op in ops:
        p = op
        while p.block != block:
            parent = mlir.operation(p.parent) if p.parent is not None else None
            if parent is None or parent.name in ("func.func", "builtin.module"):
                return f"the access at {mlir.location_of(op, filename)} is in another block than the allocation"
            if parent.name not in MODELLED_NESTING:
                return (f"{parent.name} at {mlir.location_of(parent, filename)} lies between the allocation "
                        f"and the access at {mlir.location_of(op, filename)}")
            p = parent
    return None


def contraction_decision(alloc: ir.Operation, scope: Scope | None = None, positions=None,
                         filename: str = "<input>") -> tuple[list | None, Refusal | None]:
    """(plan, None) with the (load, forwarding store) pairs if the buffer can be contracted,
    else (None, why not).

    Each load is forwarded from the latest preceding store of the buffer in the block, which must
    provably write the same element or box (isl) with a value of the load's type.
    `positions(block)` gives op -> index in block (cached by the caller)."""
    scope = scope or Scope()
    buf = alloc.results[0]
    why = escape_reason(buf, filename)
    if why is not None:
        return None, Refusal(Code.CONTRACTION_ESCAPES, why)
    accesses = _accesses_of(buf)
    if not accesses:
        return None, Refusal(Code.CONTRACTION_NOT_FORWARDED, "it is never accessed")
    block = accesses[0].block
    if any(u.block != block for u in accesses):
        return None, Refusal(Code.CONTRACTION_NOT_FORWARDED, "its accesses are in different blocks")
    stores: list = []  # access patterns of the stores seen so far, in order
    plan = []
    if positions is not None:
        order = positions(block)
        in_order = sorted(accesses, key=lambda o: order[mlir.op_key(o)])
    else:  # MLIR keeps each block's op order: no scan of the block per buffer
        in_order = sorted(accesses, key=cmp_to_key(lambda x, y: -1 if x.is_before_in_block(y) else 1))
    for op in in_order:
        if op.name in STORES:
            stores.append(access_pattern(op, scope))
            continue
        load = access_pattern(op, scope)
        where = mlir.location_of(op, filename)
        if not stores:
            return None, Refusal(Code.CONTRACTION_NOT_FORWARDED,
                                 f"the load at {where} is not preceded by a store in its block")
        latest = stores[-1]
        if not same_element(latest, load, scope) or latest.op.operands[0].type != op.results[0].type:
            return None, Refusal(Code.CONTRACTION_NOT_FORWARDED,
                                 f"the load at {where} does not read exactly what the latest store wrote")
        plan.append((op, latest.op))
    return plan, None


def contraction_plan(alloc: ir.Operation, scope: Scope | None = None,
                     positions=None) -> list[tuple[ir.Operation, ir.Operation]] | None:
    """(load, forwarding store) pairs if the buffer can be contracted, else None
    (see `contraction_decision`)."""
    return contraction_decision(alloc, scope, positions)[0]


def is_remark_candidate(alloc: ir.Operation) -> bool:
    """A placed buffer worth a Missed remark when it is kept: it has a load and a store, and one
    affine.for that does not enclose the allocation encloses all of them (what fusion leaves
    between a producer and its consumer)."""
    buf = alloc.results[0]
    users = [mlir.operation(u.owner) for u in buf.uses]
    loads = [u for u in users if u.name in LOADS or u.name == "memref.load"]
    stores = [u for u in users if u.name in STORES or u.name == "memref.store"]
    if not loads or not stores:
        return False
    own = {mlir.op_key(p) for p in ancestors(alloc)}
    common = None
    for op in loads + stores:
        keys = [mlir.op_key(p) for p in ancestors(op) if p.name == "affine.for"]
        common = set(keys) if common is None else common & set(keys)
    return bool(common - own)


def contract(module: ir.Module, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Contract every eligible placed buffer in the module; returns how many were removed."""
    return sum(contract_function(fn, options, log, filename) for fn in mlir.functions(module))


def contract_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Contract (or else shrink) every eligible placed buffer of one function; a candidate that
    is kept gets a Missed remark with the reason."""
    count = 0
    fname = mlir.func_name(fn)
    scope = Scope()
    rewriter = Rewriter()
    allocs = [o for o in mlir.walk(fn) if o.name in ALLOC_OPS]
    for alloc in allocs:
        where = mlir.location_of(alloc, filename)
        plan, why_not = contraction_decision(alloc, scope, None, filename)
        if plan is None:
            shrink, why_not_shrink = shrink_decision(alloc, scope, filename)
            if shrink is not None:
                old = "x".join("?" if d == mlir.DYNAMIC else str(d) for d in mlir.memref_type(alloc.results[0]).shape)
                loop_at = mlir.location_of(shrink.loop, filename)
                rewriter.replace([alloc], lambda: [[apply_shrink(alloc, shrink)]])
                count += 1
                log.add("contraction", PASSED, f"[CONTRACTION] buffer at {where} shrunk from {old} to "
                        f"{'x'.join(map(str, shrink.shape))}: each iteration of the loop at {loop_at} owns its slice",
                        function=fname, location=where, args={"shape": list(shrink.shape)})
            elif is_remark_candidate(alloc):
                log.refused("contraction", kept_refusal(alloc, where, why_not, why_not_shrink),
                            function=fname, location=where)
            continue
        buf = alloc.results[0]
        kind = alloc.name
        for load, store in plan:
            rewriter.replace_all_uses(load.results[0], store.operands[0])
            rewriter.erase(load)
        for u in [mlir.operation(u.owner) for u in buf.uses]:
            rewriter.erase(u)
        rewriter.erase(alloc)
        count += 1
        log.add("contraction", PASSED, f"[CONTRACTION] {kind} at {where} replaced by its stored values; buffer removed",
                function=fname, location=where, args={"loads_forwarded": len(plan)})
    return count


# ---------------------------------------------------------------------------------------
# Shrinking a buffer to the slice one iteration needs.


@dataclass(frozen=True)
class ShrinkPlan:
    """Replace a placed buffer by one of `shape`: an access at old index x (in dimension d)
    made in iteration iv of `loop` goes to (x - coefficients[d] * iv - offsets[d]) / strides[d]."""

    loop: ir.Operation  # the loop each of whose iterations owns its elements
    shape: tuple[int, ...]
    offsets: tuple[int, ...]
    strides: tuple[int, ...]  # every value of x - coefficient * iv is offset + k * stride
    accesses: tuple  # AccessPattern of every load/store of the buffer
    coefficients: tuple[int, ...] = ()  # per dimension, the slice's shift per unit of iv (0 if empty)


def private_loop_violation(accesses, alloc_depth: int, loop_index: int, scope: Scope) -> bool:
    """True iff two different iterations of the loops from the allocation's depth down to the
    loop at `loop_index` may touch one element (the buffer then carries values between them).
    Exact (isl, `dependence.iterations_share_elements`): inner loops whose bounds depend on
    these IVs keep those bounds, and vector accesses cover their boxes."""
    return iterations_share_elements(accesses, alloc_depth, loop_index + 1, scope)


def _constant_box(a) -> list[tuple[int, int]] | None:
    """[lower, upper) of each loop of access `a` when every one has a single constant lower and
    upper bound and step 1 (the common case, answered without building isl sets), else None."""
    box = []
    for lp in a.loops:
        if lp.step != 1 or len(lp.lower) != 1 or len(lp.upper) != 1:
            return None
        try:
            box.append((int(lp.lower[0]), int(lp.upper[0])))
        except ValueError:
            return None
    return box


def _affine_in_box(a, text: str, scope: Scope):
    """(coefficient per loop of `a`, constant, box) when `text` is affine in the loops' IVs with
    no parameter and the loops form a constant box (`_constant_box`), else None."""
    box = _constant_box(a)
    if box is None:
        return None
    form = affine_form(text, tuple(lp.name for lp in a.loops), tuple(sorted(scope.params)))
    if form is None or any(form[1]):
        return None
    return form[0], form[2], box


def _box_range(coeffs, const: int, box) -> tuple[int, int, int] | None:
    """_value_range of c . x + const over the box: None if it is empty; the stride is the gcd of
    the coefficients of the loops that take two values (the gcd of the differences between
    values), 1 when the values span more than 4096 (as listing them would)."""
    if any(hi <= lo for lo, hi in box):
        return None
    low = const + sum(min(c * lo, c * (hi - 1)) for c, (lo, hi) in zip(coeffs, box))
    high = const + sum(max(c * lo, c * (hi - 1)) for c, (lo, hi) in zip(coeffs, box))
    stride = 0
    if high - low <= 4096:
        for c, (lo, hi) in zip(coeffs, box):
            if hi - lo > 1:
                stride = gcd(stride, abs(c))
    else:
        stride = 1
    return low, high, stride


def _value_range(a, text: str, scope: Scope) -> tuple[int, int, int] | None:
    """(min, max, stride) of the values `text` takes over the access's loops; stride is the gcd
    of the differences between values (1 when the set is too large to list). An affine text
    over constant loop bounds is answered by arithmetic (`_box_range`), the rest with isl."""
    fast = _affine_in_box(a, text, scope)
    if fast is not None:
        return _box_range(*fast)
    dims = [lp.name for lp in a.loops]
    cons = [c for lp in a.loops for c in lp.constraints()] + [f"v = {text}"]
    s = isl.Set(f"[{', '.join(sorted(scope.params))}] -> {{ [v] : exists ({', '.join(dims)}: "
                f"{' and '.join(cons)}) }}").remove_redundancies()
    if s.is_empty():
        return None
    try:
        lo, hi = s.dim_min(0), s.dim_max(0)
    except isl.Error:  # unbounded (e.g. a loop without affine bounds)
        raise NonAffine("unbounded footprint") from None
    if not (lo.is_cst() and hi.is_cst()):
        raise NonAffine("symbolic footprint")
    vals = []
    lo.foreach_piece(lambda _s, aff: vals.append(aff.get_constant_val().to_python()))
    hi.foreach_piece(lambda _s, aff: vals.append(aff.get_constant_val().to_python()))
    low, high = int(min(vals)), int(max(vals))
    stride = 0
    values = s.project_out(isl.dim_type.param, 0, s.dim(isl.dim_type.param))  # every parameter value
    if high - low <= 4096 and values.is_bounded():
        points = []
        values.foreach_point(lambda pt: points.append(int(pt.get_coordinate_val(isl.dim_type.set, 0).to_python())))
        for v in points:
            stride = gcd(stride, v - low)
    else:
        stride = 1
    return low, high, stride


def iv_coefficient(a, text: str, iv: str, scope: Scope) -> int | None:
    """The constant by which `text` (an index of access `a`) grows when the IV `iv` grows by one,
    or None when that change is not one constant (e.g. `floor(iv / 2)`)."""
    dims = [lp.name for lp in a.loops]
    form = affine_form(text, tuple(dims), tuple(sorted(scope.params))) if iv in dims else None
    if form is not None:  # an affine text grows by its coefficient of iv
        return form[0][dims.index(iv)]
    diff = f"({substitute(text, {iv: f'({iv} + 1)'})}) - ({text})"
    try:
        pw = isl.PwAff(f"[{', '.join(sorted(scope.params))}] -> {{ [{', '.join(dims)}] -> [({diff})] }}")
    except isl.Error:
        return None
    if not pw.is_cst():
        return None
    vals: list = []
    pw.foreach_piece(lambda _s, aff: vals.append(aff.get_constant_val().to_python()))
    return int(vals[0]) if len(set(vals)) == 1 else None


def slope_of_minimum(a, text: str, iv: str, scope: Scope) -> int | None:
    """The constant by which the smallest value of `text` over one iteration of `iv` (every
    other loop of access `a` free) grows per unit of `iv`, or None if it is not one constant.
    For `T[j]` under `for j = 4 * i to 4 * i + 4` it is 4, though the index does not name i."""
    fast = _affine_in_box(a, text, scope)
    names = [lp.name for lp in a.loops]
    if fast is not None and iv in names:
        coeffs, _, box = fast
        lo, hi = box[names.index(iv)]
        if any(h <= low for low, h in box):
            return None  # no iteration: no minimum
        # Over a constant box the minimum moves by iv's coefficient; with one iteration of iv
        # isl gives the slope of a constant (0), so that case is asked below.
        if hi - lo > 1:
            return coeffs[names.index(iv)]
    others = [lp.name for lp in a.loops if lp.name != iv]
    cons = " and ".join([c for lp in a.loops for c in lp.constraints()] + [f"v = {text}"])
    body = f"exists ({', '.join(others)}: {cons})" if others else cons
    try:
        m = isl.Map(f"[{', '.join(sorted(scope.params))}] -> {{ [{iv}] -> [v] : {body} }}").lexmin()
        pma = isl.PwMultiAff.from_map(m)
    except isl.Error:  # unbounded or not expressible: the slope is only a candidate shift
        return None
    slopes: list = []
    pma.foreach_piece(lambda _s, ma: slopes.append(
        ma.get_aff(0).get_coefficient_val(isl.dim_type.in_, 0).to_python()))
    if len(set(slopes)) != 1 or int(slopes[0]) != slopes[0]:
        return None
    return int(slopes[0])


@dataclass(frozen=True)
class DimSlice:
    """How one dimension shrinks: new index = (old - coefficient * iv - offset) / stride."""

    coefficient: int
    offset: int
    high: int
    stride: int

    @property
    def size(self) -> int:
        return (self.high - self.offset) // self.stride + 1


def dim_slice(accesses, dim: int, iv: str, scope: Scope) -> DimSlice:
    """The smallest slice of dimension `dim` over the shifts `x - c * iv` with c = 0, a
    coefficient of `iv` in some access's index, or the slope of some access's smallest index per
    iteration (`slope_of_minimum`). One shift serves every access, so within one
    iteration (iv fixed) two accesses meet in the new buffer iff they met in the old one; the
    range and residue class of the shifted values are computed exactly over every instance
    (including the boxes of vector accesses). Raises NonAffine when no shift gives a constant
    range."""
    cands = {0} | {c for a in accesses for f in (iv_coefficient, slope_of_minimum)
                   for c in [f(a, a.index[dim], iv, scope)] if c is not None}
    best, why = None, "no slice"
    for c in sorted(cands, key=lambda c: (abs(c), c)):
        try:
            found = []
            for a in accesses:
                text = a.index[dim] if c == 0 else f"({a.index[dim]}) - {c} * {iv}"
                r = _value_range(a, text, scope)
                if r is not None:
                    found.append((r, a.extents()[dim]))
        except NonAffine as e:
            why = str(e)
            continue
        lo = min((r[0] for r, _ in found), default=0)
        hi = max((r[1] + w - 1 for r, w in found), default=0)
        if any(w != 1 for _, w in found):
            stride = 1  # a box covers consecutive elements
        else:
            stride = 0
            for r, _ in found:  # values of every access must share one residue class
                stride = gcd(gcd(stride, r[2]), r[0] - lo)
        cand = DimSlice(c, lo, hi, max(stride, 1))
        if best is None or cand.size < best.size:
            best = cand
    if best is None:
        raise NonAffine(why)
    return best


def shrink_decision(alloc: ir.Operation, scope: Scope,
                    filename: str = "<input>") -> tuple[ShrinkPlan | None, Refusal | None]:
    """(plan, None) to shrink `alloc`'s buffer to the elements one iteration of some loop uses,
    else (None, why not).

    Rule: the buffer does not escape (`escape_reason`); every access is an affine (vector)
    load/store with an affine index, nested in the allocation's block through affine.for,
    affine.if and scf.if only, in a block no branch re-enters (`control_flow_reason`), inside
    one common loop L below the allocation; no two iterations of the loops from the allocation
    down to L touch the same element (isl, exact); and the shifted footprint (`dim_slice`) is
    constant and smaller. Then each iteration can reuse one small buffer."""
    buf = alloc.results[0]
    t = mlir.memref_type(buf)
    why = escape_reason(buf, filename)
    if why is not None:
        return None, Refusal(Code.CONTRACTION_ESCAPES, why)
    ops = _accesses_of(buf)
    if not ops:
        return None, Refusal(Code.CONTRACTION_NOT_PRIVATE, "it is never accessed")
    why = control_flow_reason(alloc, ops, filename)
    if why is not None:
        return None, Refusal(Code.CONTRACTION_CONTROL_FLOW, why)
    accesses = [access_pattern(u, scope) for u in ops]
    for a in accesses:
        if a.index is None or len(a.index) != len(t.shape):
            return None, Refusal(Code.CONTRACTION_NOT_PRIVATE,
                                 f"the access at {mlir.location_of(a.op, filename)} has no affine index")
    depth = min(len(a.loops) for a in accesses)
    common = 0
    while common < depth and all(a.loops[common].op == accesses[0].loops[common].op for a in accesses):
        common += 1
    alloc_depth = len(domain_loops(alloc, scope))
    if common <= alloc_depth:
        return None, Refusal(Code.CONTRACTION_NOT_PRIVATE, "no loop below the allocation encloses every access")
    old_size = 1
    for d in t.shape:
        old_size = None if d == mlir.DYNAMIC or old_size is None else old_size * d
    reasons = []
    for k in range(alloc_depth, common):
        lp = accesses[0].loops[k]
        at = mlir.location_of(lp.op, filename)
        if lp.op.name != "affine.for" or not lp.bounded:
            reasons.append(f"the loop at {at} has no affine bounds")
            continue
        if private_loop_violation(accesses, alloc_depth, k, scope):
            reasons.append(f"iterations of the loop at {at} share elements")
            continue
        try:
            slices = [dim_slice(accesses, dim, lp.name, scope) for dim in range(len(t.shape))]
        except NonAffine as e:
            reasons.append(f"the slice of one iteration of the loop at {at} is not constant ({e})")
            continue
        shape = tuple(s.size for s in slices)
        new_size = 1
        for d in shape:
            new_size *= d
        if old_size is not None and new_size >= old_size:
            reasons.append(f"one iteration of the loop at {at} may use the whole buffer")
            continue
        return ShrinkPlan(lp.op, shape, tuple(s.offset for s in slices), tuple(s.stride for s in slices),
                          tuple(accesses), tuple(s.coefficient for s in slices)), None
    return None, Refusal(Code.CONTRACTION_NOT_PRIVATE, reasons[0])


def shrink_plan(alloc: ir.Operation, scope: Scope) -> ShrinkPlan | None:
    """A plan to shrink `alloc`'s buffer, or None (see `shrink_decision`)."""
    return shrink_decision(alloc, scope)[0]


def _iv_operand(op: ir.Operation, first: int, m: ir.AffineMap, iv: ir.Value) -> ir.AffineExpr | None:
    """The map expression naming `iv` among the access's index operands (a dim or a symbol)."""
    for k, v in enumerate(list(op.operands)[first:]):
        if v == iv:
            return ir.AffineExpr.get_dim(k) if k < m.n_dims else ir.AffineExpr.get_symbol(k - m.n_dims)
    return None


def _with_iv_dim(op: ir.Operation, first: int, m: ir.AffineMap, iv: ir.Value) -> ir.Operation:
    """A copy of the access `op` (which replaces it) whose map takes `iv` as one more dimension
    operand (after the existing ones); the map's results are unchanged."""
    operands = list(op.operands)
    new_operands = operands[:first + m.n_dims] + [iv] + operands[first + m.n_dims:]
    attrs = {name: op.attributes[name] for name in op.attributes}
    attrs["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(m.n_dims + 1, m.n_symbols, list(m.results)))
    new = ir.Operation.create(op.name, results=[r.type for r in op.results], operands=new_operands,
                              attributes=attrs, loc=op.location, ip=ir.InsertionPoint(op))
    for old_r, new_r in zip(op.results, new.results):
        old_r.replace_all_uses_with(new_r)
    op.erase()
    return new


def apply_shrink(alloc: ir.Operation, plan: ShrinkPlan) -> ir.Operation:
    """Rewrite the buffer and every access per `plan`; returns the new allocation."""
    buf = alloc.results[0]
    old_t = mlir.memref_type(buf)
    iv = plan.loop.regions[0].blocks[0].arguments[0]
    coefs = plan.coefficients or (0,) * len(plan.shape)
    with alloc.context, alloc.location:
        new_t = ir.MemRefType.get(list(plan.shape), old_t.element_type, memory_space=old_t.memory_space)
        kind = mlir.memref_d.AllocaOp if alloc.name == "memref.alloca" else mlir.memref_d.AllocOp
        new = kind(new_t, [], [], ip=ir.InsertionPoint(alloc))
        for a in plan.accesses:
            op = a.op
            first = LOADS.get(op.name, STORES.get(op.name)) + 1
            m = mlir.affine_map_attr(op, "map")
            iv_expr = _iv_operand(op, first, m, iv)
            if iv_expr is None and any(coefs):
                op = _with_iv_dim(op, first, m, iv)
                iv_expr = ir.AffineExpr.get_dim(m.n_dims)
                m = mlir.affine_map_attr(op, "map")
            results = []
            for r, c, off, st in zip(m.results, coefs, plan.offsets, plan.strides):
                e = r
                if c:
                    e = ir.AffineAddExpr.get(e, ir.AffineMulExpr.get(iv_expr, ir.AffineConstantExpr.get(-c)))
                e = simplified(e + ir.AffineConstantExpr.get(-off), m.n_dims, m.n_symbols)  # d1 - d1: no index left moving
                results.append(ir.AffineExpr.get_floor_div(e, ir.AffineConstantExpr.get(st)) if st > 1 else e)
            op.attributes["map"] = ir.AffineMapAttr.get(ir.AffineMap.get(m.n_dims, m.n_symbols, results))
    buf.replace_all_uses_with(new.result)
    alloc.erase()
    return mlir.operation(new)


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `contraction` (loopopt/pipeline.py)."""
    return contract_function(fn, ctx.options, ctx.log, ctx.filename)
