"""Global pooling windows as one loop (cpu, step `flat-reductions`): a reduction over the last two
dimensions of a buffer, `for h (acc) { for w (acc) { acc = acc op x[.., h, w] } }` with x ending in
exactly H x W contiguous elements (a global average or max pool over 7 x 7), runs as one reduction
loop of H x W elements through a `memref.collapse_shape` view joining x's last two dimensions
(codegen/cpu/flat_rows.py's view and access rule). Its 7-iteration inner loop was shorter than one
vector; the 49-element loop vectorizes (a reduction that may be reassociated, framework input, in
vector partial sums; otherwise it stays in order).

Rule (`flat_reduction_refusal`), exact: H and W are affine.for from 0 by 1 to constants (H, W);
H's body is W and the yield of W's results, in order; W's initial values are H's iteration
arguments, in order, each used there alone; the counters h and w are used only by loads and
stores of W's body that pass flat_rows.access_refusal (last two indices exactly (h, w), neither
elsewhere, a static row-major buffer ending in (H, W), defined before the nest); a vector holds
more than one element. A row of whole vectors is joined too (docs/cpu_codegen.md section 41):
LLVM unrolls a short w loop whole and then vectorizes the loop over rows, reading x by gathers
(InstanceNorm's statistics over 56 x 56 once nothing but the sums was left in the loop).
Iteration (h, w) is then iteration h * W + w of the one loop and element (.., h, w)
element (.., h * W + w) of the view: the same ops in the same order on the same elements, so the
carried values are bit for bit those of the pair.

Remarks (pass `flat-reductions`): `[FLAT REDUCTION] ...` (Passed) per pair joined; `[STOP FLAT
REDUCTION] why` (Missed) for a pair whose loads are indexed by (h, w) that the rule refuses.
"""
from __future__ import annotations

from dataclasses import dataclass

from ... import mlir
from ...analysis.loops import body_block, constant_bounds
from ...mlir import affine_d, ir
from ...options import Options
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext
from .flat_rows import access_refusal, accesses_through_views, pair_indexed, top_loop
from .plan.transpose_tiles import element_bits

PASS = "flat-reductions"
FLAT = ("[FLAT REDUCTION] the reduction loops over {h} rows and {w} columns run as one loop of {n} elements "
        "through a view joining the buffer's last two dimensions")
STOP = "[STOP FLAT REDUCTION] {why}"


@dataclass(frozen=True)
class FlatReduction:
    """The pair (outer H, inner W) of reduction loops to run as one loop of rows x cols."""

    outer: ir.Operation
    inner: ir.Operation
    rows: int
    cols: int


def reduction_pair(h: ir.Operation) -> ir.Operation | None:
    """W when `h` is an affine.for carrying values whose body is one affine.for W carrying values
    and the yield, and some access of W's body is indexed by (h, w) (`pair_indexed`): a candidate."""
    if h.name != "affine.for" or not h.results:
        return None
    ops = mlir.block_ops(body_block(h))
    if len(ops) != 2 or ops[0].name != "affine.for" or ops[1].name != "affine.yield" or not ops[0].results:
        return None
    return ops[0] if pair_indexed(ops[0]) else None


def flat_reduction_refusal(h: ir.Operation, w: ir.Operation, options: Options) -> str | None:
    """Why the pair (h, w) does not run as one loop (the module's rule), or None."""
    for loop in (h, w):
        b = constant_bounds(loop)
        if b is None or b[0] != 0 or mlir.int_attr(loop, "step") != 1:
            return "the rows or columns run from no 0 by 1 to a constant"
    h_args = list(body_block(h).arguments)[1:]
    yield_op = mlir.block_ops(body_block(h))[-1]
    if list(w.operands) != h_args or list(yield_op.operands) != list(w.results):
        return "the inner loop does not carry exactly the outer loop's values, in order"
    if any(len(list(a.uses)) != 1 for a in h_args):
        return "a value the outer loop carries is used besides the inner loop's start"
    rows, cols = constant_bounds(h)[1], constant_bounds(w)[1]
    bits = element_bits(w.results[0].type)
    lanes = options.plan_vector_bits // bits if bits else 0
    if not bits:
        return f"the loops carry {w.results[0].type}, not a scalar a vector's lanes could split"
    if lanes <= 1:
        return f"{cols} columns are whole vectors of {lanes} lanes"
    h_iv, w_iv = body_block(h).arguments[0], body_block(w).arguments[0]
    top = top_loop(h)
    for iv in (h_iv, w_iv):
        for u in iv.uses:
            why = access_refusal(mlir.operation(u.owner), h_iv, w_iv, rows, cols, top)
            if why is not None:
                return why
    return None


def plan_flat_reductions(fn: ir.Operation, options: Options) -> list[tuple[FlatReduction, str | None]]:
    """(pair, refusal or None) for every candidate pair of `fn`, in program order."""
    out = []
    for op in mlir.walk(fn):
        w = reduction_pair(op) if op.name == "affine.for" else None
        if w is None:
            continue
        why = flat_reduction_refusal(op, w, options)
        b = constant_bounds(op), constant_bounds(w)
        rows, cols = (b[0][1], b[1][1]) if None not in b else (0, 0)
        out.append((FlatReduction(op, w, rows, cols), why))
    return out


def flatten_reduction(plan: FlatReduction) -> None:
    """Run W over rows x cols elements through the views, starting from H's initial values, in
    H's place (the rule must hold)."""
    h, w = plan.outer, plan.inner
    with w.context, w.location:
        accesses_through_views(w)
        w.attributes["upperBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(plan.rows * plan.cols))
        for k, init in enumerate(list(h.operands)):
            w.operands[k] = init
        w.move_before(h)
        for old, new in zip(list(h.results), list(w.results)):
            old.replace_all_uses_with(new)
        h.erase()


# Combining ops the joined loop sums in vector lanes (`vector_sums`): the vector.reduction kind and
# whether reordering keeps every bit (max and min do; sums and products need --reassociate).
LANE_SUMS = {"arith.addf": ("add", False), "arith.mulf": ("mul", False), "arith.maximumf": ("maximumf", True),
             "arith.minimumf": ("minimumf", True)}


def lane_sum(loop: ir.Operation, options: Options) -> tuple[ir.Operation, ir.Operation, str] | None:
    """(load, combining op, vector.reduction kind) when the joined `loop` is `for q (acc) { v = load
    x[.., q]; acc = acc op v }` with op in LANE_SUMS and may be reordered (exactly, or with
    --reassociate), its trip count at least one vector; else None (it stays in order)."""
    ops = mlir.block_ops(body_block(loop))
    if len(ops) != 3 or ops[0].name != "affine.load" or ops[1].name not in LANE_SUMS or len(loop.results) != 1:
        return None
    load, comb, yld = ops
    acc = body_block(loop).arguments[1]
    kind, exact = LANE_SUMS[comb.name]
    if not exact and not options.reassociate:
        return None
    x, y = list(comb.operands)
    if not ((x == load.results[0] and y == acc) or (x == acc and y == load.results[0])):
        return None
    if list(yld.operands) != [comb.results[0]] or len(list(acc.uses)) != 1 or len(list(load.results[0].uses)) != 1:
        return None
    bits = element_bits(load.results[0].type)
    lanes = options.plan_vector_bits // bits if bits else 0
    if lanes < 2 or constant_bounds(loop)[1] < lanes:
        return None
    return load, comb, kind


def vector_sums(loop: ir.Operation, options: Options) -> tuple[int, int] | None:
    """The joined loop's reduction in vector partial sums (`lane_sum` must hold): its whole
    vectors accumulated lane by lane from the op's identity, the lanes combined by vector.reduction
    and with the initial value, then the rest in order by the loop itself from there. Returns
    (lanes, whole vectors) or None when it stays in order."""
    found = lane_sum(loop, options)
    if found is None:
        return None
    load, comb, kind = found
    elem = load.results[0].type
    lanes = options.plan_vector_bits // element_bits(elem)
    n = constant_bounds(loop)[1]
    whole = n // lanes * lanes
    ip = ir.InsertionPoint(loop)
    with loop.context, loop.location:
        vt = ir.VectorType.get([lanes], elem)
        identity = {"add": 0.0, "mul": 1.0, "maximumf": float("-inf"), "minimumf": float("inf")}[kind]
        start = ir.Operation.create("arith.constant", results=[vt], attributes={
            "value": ir.DenseElementsAttr.get_splat(vt, ir.FloatAttr.get(elem, identity))}, ip=ip).result
        vloop = affine_d.AffineForOp(0, whole, lanes, iter_args=[start], ip=ip)
        body = ir.InsertionPoint(vloop.body)
        q = vloop.induction_variable
        operands = list(load.operands)
        operands = [q if v == body_block(loop).arguments[0] else v for v in operands]
        vload = ir.Operation.create("affine.vector_load", results=[vt], operands=operands,
                                    attributes={"map": load.attributes["map"]}, ip=body).result
        attrs = {k: a for k, a in comb.attributes.items()}
        vcomb = ir.Operation.create(comb.name, results=[vt], operands=[vloop.inner_iter_args[0], vload],
                                    attributes=attrs, ip=body).result
        affine_d.AffineYieldOp([vcomb], ip=body)
        red = ir.Operation.create("vector.reduction", results=[elem], operands=[vloop.results[0]],
                                  attributes={"kind": ir.Attribute.parse(f"#vector.kind<{kind}>"), **(
                                      {"fastmath": attrs["fastmath"]} if "fastmath" in attrs else {})}, ip=ip).result
        init = loop.operands[0]
        joined = ir.Operation.create(comb.name, results=[elem], operands=[init, red], attributes=attrs, ip=ip).result
        if whole == n:  # whole vectors only: nothing left in order
            loop.results[0].replace_all_uses_with(joined)
            loop.erase()
        else:
            loop.operands[0] = joined
            loop.attributes["lowerBoundMap"] = ir.AffineMapAttr.get(ir.AffineMap.get_constant(whole))
    return lanes, whole // lanes


def flat_reductions_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Join every pair of reduction loops the rule admits; returns how many."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    count = 0
    with fn.context:
        for plan, why in plan_flat_reductions(fn, options):
            where = mlir.location_of(plan.outer, filename)
            if why is not None:
                log.add(PASS, MISSED, STOP.format(why=why), function=fname, location=where)
                continue
            flatten_reduction(plan)
            n = plan.rows * plan.cols
            sums = vector_sums(plan.inner, options)
            rest = n - sums[0] * sums[1] if sums else n
            how = (f", in vector partial sums of {sums[0]} lanes ({sums[1]} vectors"
                   + (f", then {rest} in order)" if rest else ")")) if sums else ", in order"
            log.add(PASS, PASSED, FLAT.format(h=plan.rows, w=plan.cols, n=n) + how, function=fname,
                    location=where, args={"rows": plan.rows, "columns": plan.cols, "lanes": sums[0] if sums else 1})
            count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `flat-reductions` (loopopt/pipeline.py)."""
    return flat_reductions_function(fn, ctx.options, ctx.log, ctx.filename)
