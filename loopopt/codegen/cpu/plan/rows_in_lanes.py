"""Rows in lanes (cpu): an order-sensitive reduction innermost, vectorized across the loop around it.

A float sum `acc = acc + x[i, j]` over the innermost loop R keeps its order when `reassociate`
is off, and LLVM then runs it one element per addition latency. The loop P around R runs rows
that are independent of one another (layernorm's and softmax's rows, the rows of a
matrix-vector product), so W of them run in the W lanes of a vector instead: lane l keeps row
i0 + l's sum and adds its elements in the order j, j + 1, ... as written. Every result is
bit-exact: each lane executes exactly its row's operations in their order on its own values.

The plan for P (`plan_rows_in_lanes`): P's iterations come in strips of W rows (the remainder
rows run P's body as it is). P's body is a sequence of statements, each run either for all W
rows at once on vectors (a *lanes* segment) or row by row in a loop over the lanes (a *rows*
segment, the rows in order), in the statements' order:

* a **lane reduction** (lanes): an innermost `affine.for` R with step 1 whose iter_args are all
  reductions (`cpu_plan.reductions_of`), at least one of them order-sensitive (`addf`, `mulf`),
  whose body holds only loads and ops with a bit-exact vector form, and whose bounds do not
  move with P. Its loads get their lanes by form (`load_form`): a load that reads a row along R
  (R moves only its last index, by one; *rows*) is read W columns at a time as W vectors, one
  per row, transposed in registers (`vector.shuffle`; `transpose_masks`): column k's vector
  holds element j0 + k of every row, added in order; a load contiguous along P (*lanes*) is one
  vector per column; a load that does not move with P (*uniform*) one scalar per column,
  broadcast; anything else one scalar per lane (*gather*). R's iterations that do not fill W
  columns run one column at a time;
* an op with a bit-exact vector form (arith, `VECTOR_MATH`) on values that move with P, a load
  or store contiguous along P (lanes);
* everything else that moves with P (rows): other loops (LLVM vectorizes them along their
  own loop), loads and stores at other addresses, math functions that are libm calls. A value
  a rows segment defines and a later segment uses is collected lane by lane into a vector; a
  lane value a rows segment uses is extracted from its vector;
* pure ops on values that do not move with P (uniform): once per strip.

Legal (`interleave_violation`, isl, exact) when no pair of conflicting instances in two rows i <
i' of one strip runs in the other order: the source's statement must come before the target's,
or both lie in one rows segment (which runs row i's statements before row i''s). A value P
carries (iter_args), an op with unknown effects, a vector op, an address computed from loaded
data, a reduction loop whose bounds move with P: refused, each with its code.

Chosen by measurement (docs/cpu_codegen.md section 19): against the forms a lane reduction could
take (gathers; a copy of W rows into a transposed buffer first; W scalar chains, the register
tile's "scalar copies"), the transposed block was fastest (layernorm's rows, warm: 0.33 of the
input's time, gathers 0.38, the packed copy 0.38, scalar copies 0.52), and 8 lanes of f32 (256
bits) 3-7% faster than 16 on an AVX-512 core: `LANE_BITS`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.accesses import AccessPattern
import islpy as isl

from ....analysis.dependence import conflicts, instance_pair, may_alias, pair_set
from ....analysis.effects import op_effects
from ....analysis.legality import unknown_effect_ops
from ....analysis.loops import body_block, body_ops, constant_trip_count, domain_loops, loop_dims, nested_in
from ....analysis.memory import escaping_use, is_placed
from ....analysis.refusal import Refusal
from ....analysis.vectorization import is_innermost
from ....mlir import ir
from .cpu_plan import VECTOR_MATH, Reduction, defined_inside, reduction_band_of, reductions_of, single_bounds
from .locality import index_strides

LANE_BITS = 256  # measured: 8 lanes of f32 beat 16 on an AVX-512 core (section 19)
PASS = "rows-in-lanes"

ROWS, LANES, UNIFORM, GATHER = "rows", "lanes", "uniform", "gather"


class LanesCode(enum.Enum):
    """Why a loop around an order-sensitive reduction does not run its rows in vector lanes."""

    SHAPE = "[STOP ROWS IN LANES] the row loop does not have step 1 and one lower and one upper bound"
    REASSOCIATE = "[STOP ROWS IN LANES] the reductions may be reassociated: LLVM vectorizes them along their loop"
    CARRIED_VALUE = "[STOP ROWS IN LANES] the row loop carries values in iter_args"
    UNSUPPORTED_OP = "[STOP ROWS IN LANES] an op of the row loop has no lane form"
    BOUNDS = "[STOP ROWS IN LANES] the reduction loop's bounds move with the row"
    NO_ROWS = "[STOP ROWS IN LANES] no reduction reads along a row: nothing for the transposed form"
    SHORT = "[STOP ROWS IN LANES] fewer rows or columns than one vector"
    CARRIED = "[STOP ROWS IN LANES] running the rows side by side would reverse a dependence"

    @property
    def message(self) -> str:
        return self.value

    @property
    def quiet(self) -> bool:
        """Said only when the step is named in --passes: the nest is no candidate after all
        (register tiling's, too short, or the reductions may be reassociated)."""
        return self in (LanesCode.NO_ROWS, LanesCode.SHORT, LanesCode.REASSOCIATE)


@dataclass(frozen=True)
class LaneLoad:
    """How one load of a lane reduction gets its lanes (ROWS, LANES, UNIFORM or GATHER)."""

    op: ir.Operation
    form: str


@dataclass(frozen=True)
class LaneReduction:
    """An innermost loop whose order-sensitive reductions run with one row per lane."""

    loop: ir.Operation
    reductions: tuple[Reduction, ...]
    loads: tuple[LaneLoad, ...]
    trips: int | None  # the constant trip count, None when symbolic

    def form_of(self, load: ir.Operation) -> str:
        return next(x.form for x in self.loads if x.op == load)


@dataclass(frozen=True)
class Segment:
    """Consecutive statements of P's body run for all lanes at once (`per_row` False: vector ops,
    one statement each) or row by row in a loop over the lanes (`per_row` True)."""

    ops: tuple[ir.Operation, ...]
    per_row: bool
    jammed: bool = False  # one row loop whose W copies run in one loop, the rows in order per iteration
    shared: tuple[ir.Operation, ...] = ()  # loads of a jammed loop the same in every row: once per iteration


@dataclass(frozen=True)
class RowsPlan:
    """P's rows in strips of `width` lanes. With a refusal, P is left as it is."""

    loop: ir.Operation
    width: int = 0
    segments: tuple[Segment, ...] = ()
    reductions: tuple[LaneReduction, ...] = ()
    uniform: tuple[ir.Operation, ...] = ()  # pure ops on values that do not move with P: once per strip
    private: tuple[ir.Value, ...] = ()  # buffers each row writes before it reads them: one copy per lane
    refusal: Refusal | None = None

    def reduction_of(self, loop: ir.Operation) -> LaneReduction | None:
        return next((r for r in self.reductions if r.loop == loop), None)


def _refuse(loop: ir.Operation, code: LanesCode, detail: str, *ops) -> RowsPlan:
    return RowsPlan(loop, refusal=Refusal(code, detail, (loop, *ops)))


# ----------------------------------------------------------------------------- candidates

def ordered_reductions(loop: ir.Operation) -> tuple[Reduction, ...]:
    """The reductions of an innermost affine.for when all its iter_args are reductions and at
    least one gives a result that depends on the order (addf, mulf), else ()."""
    if loop.name != "affine.for" or not is_innermost(loop):
        return ()
    reds, why = reductions_of(loop)
    if why is not None or not reds or all(r.exact for r in reds):
        return ()
    return tuple(reds)


def is_candidate(loop: ir.Operation) -> bool:
    """An affine.for whose body holds an innermost loop with an order-sensitive reduction."""
    return loop.name == "affine.for" and any(ordered_reductions(op) for op in body_ops(loop))


def candidates(fn: ir.Operation) -> list[ir.Operation]:
    """Every candidate loop of the function, in program order."""
    return [op for op in mlir.walk(fn) if op.name == "affine.for" and is_candidate(op)]


# ----------------------------------------------------------------------------- lane forms

# Ops on lanes that compute each lane as the scalar op would (IEEE operations, selects, casts).
def has_lane_form(op: ir.Operation) -> bool:
    """A pure op without regions whose vector form computes each lane as the scalar op does."""
    if op.regions or op.name == "arith.constant":
        return False
    return (op.name.startswith("arith.") or op.name in VECTOR_MATH) and all(
        _scalar(v.type) for v in [*op.operands, *op.results])


def _scalar(t: ir.Type) -> bool:
    return isinstance(t, (ir.FloatType, ir.IntegerType, ir.IndexType))


def element_bits(t: ir.Type) -> int:
    if isinstance(t, ir.FloatType):
        return ir.FloatType(t).width
    if isinstance(t, ir.IntegerType):
        return max(8, ir.IntegerType(t).width)
    return 64  # index


def lane_width(p: ir.Operation, options) -> int:
    """Lanes per vector: LANE_BITS (or the plan's narrower width) over the widest element P's
    body loads, stores or computes on."""
    bits = min(LANE_BITS, options.plan_vector_bits)
    widest = 8
    for op in mlir.walk(p):
        for v in [*op.results, *op.operands]:
            if _scalar(v.type) and not isinstance(v.type, ir.IndexType):
                widest = max(widest, element_bits(v.type))
    return max(1, bits // widest)


def contiguous_last(strides) -> bool:
    return (strides is not None and len(strides) >= 1 and all(s == 0 for s in strides[:-1])
            and strides[-1] == 1)


def unit_stride_memref(v: ir.Value) -> bool:
    """The memref's last dimension is contiguous in memory (a vector load reads it)."""
    mt = mlir.memref_type(v)
    if mt is None or not mt.shape:
        return False
    strides, _ = mt.get_strides_and_offset()
    return not strides or strides[-1] == 1


def address_value(v: ir.Value, p: ir.Operation, ivs: tuple) -> bool:
    """An index operand the strips can recompute for any lane: one of `ivs`, a value defined
    outside P, a constant, or an affine.apply of such values."""
    if any(v == iv for iv in ivs) or not defined_inside(v, p):
        return True
    owner, _ = mlir.value_owner(v)
    if owner is None:
        return False
    if owner.name == "arith.constant":
        return True
    if owner.name != "affine.apply":
        return False
    if _semi_affine(mlir.affine_map_attr(owner, "map")) and any(_depends_on(x, ivs, p) for x in owner.operands):
        return False  # a lane's row through mod / floordiv by a symbol: no access form models it
    return all(address_value(x, p, ivs) for x in owner.operands)


def _semi_affine(amap: ir.AffineMap) -> bool:
    """The map divides or takes a remainder (`mod`, `floordiv`, `ceildiv`)."""
    text = str(amap)
    return any(w in text for w in (" mod ", "floordiv", "ceildiv"))


def _depends_on(v: ir.Value, ivs: tuple, p: ir.Operation) -> bool:
    """`v` is one of `ivs` or computed inside P from one."""
    if any(v == iv for iv in ivs):
        return True
    if not defined_inside(v, p):
        return False
    owner, _ = mlir.value_owner(v)
    return owner is not None and any(_depends_on(x, ivs, p) for x in owner.operands)


def index_operands(op: ir.Operation) -> list[ir.Value]:
    k = 2 if op.name == "affine.store" else 1
    return list(op.operands)[k:]


def load_form(a: AccessPattern, pname: str, rname: str | None, private: bool = False) -> str:
    """ROWS, LANES, UNIFORM or GATHER for an access (see the module docstring). An access to a
    buffer each lane has a copy of (`private`) reads lane l's copy: ROWS when R walks its last
    dimension, else GATHER (a rows segment's per-row access when `rname` is None)."""
    if a.index is None:
        return GATHER
    if private:
        memref = a.op.operands[1 if a.is_write else 0]
        sr = index_strides(a, rname) if rname is not None else None
        return ROWS if contiguous_last(sr) and unit_stride_memref(memref) else GATHER
    sp = index_strides(a, pname)
    if sp is None or any(s is None for s in sp):
        return GATHER
    memref = a.op.operands[1 if a.is_write else 0]
    if all(s == 0 for s in sp):
        return UNIFORM
    if rname is not None:
        sr = index_strides(a, rname)
        if contiguous_last(sr) and unit_stride_memref(memref):
            return ROWS
    if contiguous_last(sp) and unit_stride_memref(memref):
        return LANES
    return GATHER


# ----------------------------------------------------------------------------- the plan

def _moves(op: ir.Operation, varying: set) -> bool:
    """Whether op (or an op nested in it) uses a value that moves with P."""
    return any(v in varying for o in [op, *mlir.walk(op)] for v in o.operands)


def varying_values(p: ir.Operation) -> tuple[set, list[ir.Operation]]:
    """(values that move with P, pure ops that do not: the same in every row). A pure op without
    regions on values that do not move is uniform; every other result moves."""
    varying = {body_block(p).arguments[0]}
    uniform = []
    for op in body_ops(p):
        pure = not op.regions and op_effects(op).pure and all(_scalar(r.type) for r in op.results)
        if pure and not _moves(op, varying):
            uniform.append(op)
            continue
        varying.update(op.results)
        if op.regions:  # values inside a nested loop move with P too (their uses are inside it)
            for o in mlir.walk(op):
                varying.update(o.results)
    return varying, uniform


def lane_reduction(r: ir.Operation, p: ir.Operation, facts, pname: str, width: int,
                   varying: set, private: tuple = ()) -> tuple[LaneReduction | None, tuple | None]:
    """R's lane plan, or (None, (code, detail, op)) when it is a candidate refused, or (None, None)
    when R has no order-sensitive reduction (then it runs row by row)."""
    reds = ordered_reductions(r)
    if not reds:
        return None, None
    if not single_bounds(r):
        return None, (LanesCode.SHAPE, f"the reduction loop at {mlir.location_of(r)} has step "
                      f"{mlir.int_attr(r, 'step')} or several bounds", r)
    lb = mlir.affine_map_attr(r, "lowerBoundMap")
    ub = mlir.affine_map_attr(r, "upperBoundMap")
    bound_ops = list(r.operands)[:lb.n_inputs + ub.n_inputs]
    if any(v in varying for v in bound_ops):
        return None, (LanesCode.BOUNDS, f"the loop at {mlir.location_of(r)}", r)
    (rdim,) = loop_dims(r, facts.scope)
    riv = body_block(r).arguments[0]
    piv = body_block(p).arguments[0]
    loads = []
    for op in body_ops(r):
        if op.name == "affine.load":
            if not all(address_value(v, p, (piv, riv)) for v in index_operands(op)):
                return None, (LanesCode.UNSUPPORTED_OP, f"the address of {op.name} at {mlir.location_of(op)} "
                              "is computed from loaded data, or from a row by mod / floordiv", op)
            acc = next(a for a in facts.accesses(op) if a.op == op)
            loads.append(LaneLoad(op, load_form(acc, pname, rdim.name, any(acc.root == b for b in private))))
            continue
        if op.name == "affine.apply" or has_lane_form(op) or (op.name == "arith.constant" and not op.operands):
            continue
        return None, (LanesCode.UNSUPPORTED_OP, f"{op.name} at {mlir.location_of(op)} in the reduction loop", op)
    trips = constant_trip_count(r)
    if trips is not None and trips < width:
        return None, None  # too short for a block of columns: it runs row by row
    return LaneReduction(r, reds, tuple(loads), trips), None


def strided_lane_loads(reductions: list, facts) -> tuple[ir.Operation, ...]:
    """Loads of the lane reductions contiguous along P that move along their reduction loop R by
    more than one element (a sum over the channels of NCHW, lanes along the row): LLVM cannot
    vectorize such a sum along R even reassociated, and the register tile takes only a row loop
    holding one reduction nest; the lanes read them as one vector per column."""
    out = []
    for lr in reductions:
        (rdim,) = loop_dims(lr.loop, facts.scope)
        for x in lr.loads:
            if x.form != LANES:
                continue
            acc = next(a for a in facts.accesses(x.op) if a.op == x.op)
            sr = index_strides(acc, rdim.name)
            if sr is not None and any(s != 0 for s in sr) and not contiguous_last(sr):
                out.append(x.op)
    return tuple(out)


def _position_op(op: ir.Operation, p: ir.Operation) -> ir.Operation:
    """The statement of P's body that holds `op`."""
    while mlir.operation(op.parent) != p:
        op = mlir.operation(op.parent)
    return op


def plan_rows_in_lanes(p: ir.Operation, facts, options, legality: bool = True) -> RowsPlan:
    """The plan of a candidate loop P (see the module docstring). With `legality` False the plan
    is not checked against the dependences (the step asks so first, to prepare only loops whose
    shape it takes)."""
    if not single_bounds(p):
        return _refuse(p, LanesCode.SHAPE, f"step {mlir.int_attr(p, 'step')}" if p.name == "affine.for" else p.name)
    if len(p.results):
        return _refuse(p, LanesCode.CARRIED_VALUE, f"{len(p.results)} value(s)")
    for op in mlir.walk(p):
        if any(isinstance(v.type, ir.VectorType) for v in [*op.operands, *op.results]):
            return _refuse(p, LanesCode.UNSUPPORTED_OP, f"{op.name} at {mlir.location_of(op)} is a vector op", op)
    unknown = unknown_effect_ops(p)
    if unknown:
        return _refuse(p, LanesCode.UNSUPPORTED_OP, f"{unknown[0].name} at {mlir.location_of(unknown[0])} "
                       "has unknown effects", unknown[0])
    width = lane_width(p, options)
    trips = constant_trip_count(p)
    if trips is not None and trips < width:
        return _refuse(p, LanesCode.SHORT, f"{trips} rows, {width} lanes")
    (pdim,) = loop_dims(p, facts.scope)
    piv = body_block(p).arguments[0]
    varying, uniform = varying_values(p)
    uniform_keys = {mlir.op_key(o) for o in uniform}
    private = private_buffers(p, facts)
    kinds: list[tuple[ir.Operation, bool]] = []  # (statement, per_row)
    reductions = []
    for op in body_ops(p):
        if mlir.op_key(op) in uniform_keys:
            continue
        if op.name == "affine.for":
            lr, bad = lane_reduction(op, p, facts, pdim.name, width, varying, private)
            if bad is not None:
                return _refuse(p, bad[0], bad[1], bad[2])
            if lr is not None:
                reductions.append(lr)
            kinds.append((op, lr is None))
            continue
        if op.name in ("affine.load", "affine.store") and all(address_value(v, p, (piv,)) for v in index_operands(op)):
            acc = next(a for a in facts.accesses(op) if a.op == op)
            scratch = any(acc.root == b for b in private)  # a lane's copy: row by row
            kinds.append((op, scratch or load_form(acc, pdim.name, None) != LANES))
            continue
        if has_lane_form(op):
            kinds.append((op, False))
            continue
        bad = next((r for r in op.results if not _scalar(r.type)), None)
        if bad is not None or op.name in ("affine.yield",):
            return _refuse(p, LanesCode.UNSUPPORTED_OP, f"{op.name} at {mlir.location_of(op)} defines a "
                           f"{bad.type if bad is not None else 'terminator'}", op)
        kinds.append((op, True))
    if not reductions:
        return _refuse(p, LanesCode.SHORT, f"every reduction loop runs fewer than {width} iterations")
    strided = strided_lane_loads(reductions, facts)
    if options.reassociate and not strided:
        return _refuse(p, LanesCode.REASSOCIATE, "--reassociate is on")
    if not any(x.form == ROWS for lr in reductions for x in lr.loads) and (
            not strided or reduction_band_of(p) is not None):
        return _refuse(p, LanesCode.NO_ROWS, "every access of the reductions is contiguous along the row loop, "
                       "the same in every row, or gathered (register tiling takes the first)")
    segments: list[Segment] = []
    for op, per_row in kinds:
        if per_row and segments and segments[-1].per_row:
            segments[-1] = Segment(segments[-1].ops + (op,), True)
        else:
            segments.append(Segment((op,), per_row))
    used = {x.op.operands[0] for lr in reductions for x in lr.loads}
    private = tuple(b for b in private if b in used)  # a copy per lane only where a reduction reads it
    plan = RowsPlan(p, width, tuple(segments), tuple(reductions), tuple(uniform), private)
    if not legality:
        return plan
    why = interleave_violation(plan, facts)
    if why is not None:
        return _refuse(p, LanesCode.CARRIED, why)
    jammed = tuple(Segment(seg.ops, True, True, shared_loads(seg.ops[0], p, facts))
                   if seg.per_row and jammable(seg, plan, facts, varying) else seg for seg in plan.segments)
    return RowsPlan(p, width, jammed, plan.reductions, plan.uniform, plan.private)


# ----------------------------------------------------------------------------- jammed row loops

def jammable(seg: Segment, plan: RowsPlan, facts, varying: set) -> bool:
    """A rows segment that is one innermost loop L (step 1, one lower and one upper bound that do
    not move with the row, no values carried, no private buffer) whose W copies may run as one
    loop with the rows in order in each iteration (`jam_violation`). Measured on atax's update of
    y: 0.905 of the time of W loops one after the other."""
    if len(seg.ops) != 1:
        return False
    (lp,) = seg.ops
    if lp.name != "affine.for" or not is_innermost(lp) or len(lp.results) or not single_bounds(lp):
        return False
    lb = mlir.affine_map_attr(lp, "lowerBoundMap")
    ub = mlir.affine_map_attr(lp, "upperBoundMap")
    if any(v in varying for v in list(lp.operands)[:lb.n_inputs + ub.n_inputs]):
        return False
    if any(op.regions or op.name not in ("affine.load", "affine.store", "affine.apply") and not has_lane_form(op)
           and not (op.name == "arith.constant" or op.name.startswith("math.")) for op in body_ops(lp)):
        return False
    accs = facts.accesses(lp)
    if any(a.root == b for a in accs for b in plan.private):
        return False
    return jam_violation(lp, plan, facts) is None


def shared_loads(lp: ir.Operation, p: ir.Operation, facts) -> tuple[ir.Operation, ...]:
    """Loads of a jammed loop L at an address that does not move with the row, from a buffer no
    access of L writes (nor may write): every row's copy reads the same value, loaded once."""
    accs = facts.accesses(lp)
    written = [a for a in accs if a.is_write]
    out = []
    for a in accs:
        if a.op.name != "affine.load" or mlir.operation(a.op.parent) != lp:
            continue
        if any(may_alias(a, w) for w in written):
            continue
        if all(address_value(v, p, (body_block(lp).arguments[0],)) and v != body_block(p).arguments[0]
               and not _row_apply(v, p) for v in index_operands(a.op)):
            out.append(a.op)
    return tuple(out)


def _row_apply(v: ir.Value, p: ir.Operation) -> bool:
    """An affine.apply that (through others) uses P's counter."""
    owner, _ = mlir.value_owner(v)
    if owner is None or owner.name != "affine.apply":
        return False
    piv = body_block(p).arguments[0]
    return any(x == piv or _row_apply(x, p) for x in owner.operands)


def jam_violation(lp: ir.Operation, plan: RowsPlan, facts) -> str | None:
    """None iff no pair of conflicting instances of L, in rows i < i' of one strip, has the later
    row's instance at an earlier iteration of L (which the jammed loop would run first)."""
    scope = facts.scope
    p, width = plan.loop, plan.width
    (pdim,) = loop_dims(p, scope)
    (ldim,) = loop_dims(lp, scope)
    n_outer = len(domain_loops(p, scope))
    accs = facts.accesses(lp)
    lb = pdim.lower_text()
    for a in accs:
        for b in accs:
            if not conflicts(a, b):
                continue
            pair = instance_pair(a, b, scope, fixed=n_outer)
            if pair is None:
                continue
            s, t = pair.src_rename[pdim.name], pair.dst_rename[pdim.name]
            js, jt = pair.src_rename[ldim.name], pair.dst_rename[ldim.name]
            same_strip = f"floor(({s} - ({lb}))/{width}) = floor(({t} - ({lb}))/{width})"
            if not pair_set(pair, [f"{s} < {t}", same_strip, f"{jt} < {js}"]).is_empty():
                return f"{a.op.name} at {mlir.location_of(a.op)} and {b.op.name} at {mlir.location_of(b.op)}"
    return None


# ----------------------------------------------------------------------------- private buffers

def private_buffers(p: ir.Operation, facts) -> tuple[ir.Value, ...]:
    """Buffers the function allocates (static shape, not escaping) that only P's body touches,
    and in which every element a row reads was written earlier by that row, in an earlier
    statement of P's body (exact, isl): each row uses the buffer as its own scratch (contraction
    leaves softmax's exponentials so, in one row shared by all rows), so each lane may have a copy."""
    scope = facts.scope
    n_outer = len(domain_loops(p, scope))
    position = {mlir.op_key(op): k for k, op in enumerate(body_ops(p))}
    by_root: dict = {}
    for a in facts.accesses(p):
        by_root.setdefault(a.root, []).append(a)
    out = []
    for root, accs in by_root.items():
        mt = mlir.memref_type(root)
        if not is_placed(root) or mt is None or any(d < 0 for d in mt.shape) or any(a.index is None for a in accs):
            continue
        if escaping_use(root, {"affine.load": 0, "affine.store": 1}) is not None:
            continue
        if any(not nested_in(mlir.operation(u.owner), p) for u in root.uses
               if mlir.operation(u.owner).name != "memref.dealloc"):
            continue
        if all(_covered(r, [w for w in accs if w.is_write], position, p, n_outer, scope)
               for r in accs if not r.is_write):
            out.append(root)
    return tuple(out)


def _covered(r: AccessPattern, writes: list, position: dict, p: ir.Operation, n_outer: int, scope) -> bool:
    """Every instance of the read `r` reads an element a write of the same row wrote in an
    earlier statement of P's body."""
    q = position[mlir.op_key(_position_op(r.op, p))]
    mine = instance_pair(r, r, scope, fixed=n_outer + 1)
    n_fixed_src = len(mine.fixed) + len(mine.src)
    reads = pair_set(mine).project_out(isl.dim_type.set, n_fixed_src, len(mine.dst))
    covered = None
    for w in writes:
        if position[mlir.op_key(_position_op(w.op, p))] >= q:
            continue
        pair = instance_pair(r, w, scope, fixed=n_outer + 1)
        if pair is None:
            continue
        s = pair_set(pair).project_out(isl.dim_type.set, n_fixed_src, len(pair.dst))
        covered = s if covered is None else covered.union(s)
    if covered is None:
        return False
    return reads.subtract(covered.align_params(reads.get_space())).is_empty()


# ----------------------------------------------------------------------------- legality

def interleave_violation(plan: RowsPlan, facts) -> str | None:
    """None iff running P's statements a strip of W rows at a time, segment by segment, keeps
    every dependence: for conflicting instances in rows i < i' of one strip, the source's
    statement comes first or both lie in one rows segment (exact, isl)."""
    p, width = plan.loop, plan.width
    scope = facts.scope
    (pdim,) = loop_dims(p, scope)
    n_outer = len(domain_loops(p, scope))
    position: dict = {}
    segment: dict = {}
    k = 0
    for s, seg in enumerate(plan.segments):
        for op in seg.ops:
            position[mlir.op_key(op)] = k
            segment[mlir.op_key(op)] = s
            k += 1
    accs = facts.accesses(p)
    where = {}
    for a in accs:
        st = _position_op(a.op, p)
        where[id(a)] = (position.get(mlir.op_key(st), -1), segment.get(mlir.op_key(st), -1))
    lb = pdim.lower_text()
    private = set(plan.private)
    for a in accs:
        for b in accs:
            if not conflicts(a, b) or (a.root in private and b.root in private and a.root == b.root):
                continue  # a private buffer: each row its own copy, in its own order
            (pa, sa), (pb, sb) = where[id(a)], where[id(b)]
            if sa == sb and sa >= 0 and plan.segments[sa].per_row:
                continue  # one rows segment: row i's statements all run before row i''s
            if pa < pb:
                continue
            pair = instance_pair(a, b, scope, fixed=n_outer)
            if pair is None:
                continue
            s, t = pair.src_rename[pdim.name], pair.dst_rename[pdim.name]
            same_strip = f"floor(({s} - ({lb}))/{width}) = floor(({t} - ({lb}))/{width})"
            bad = pair_set(pair, [f"{s} < {t}", same_strip])
            if not bad.is_empty():
                kind = {(True, True): "WAW", (True, False): "RAW", (False, True): "WAR"}[(a.is_write, b.is_write)]
                return (f"a {kind} dependence from {a.op.name} at {mlir.location_of(a.op)} in one row to "
                        f"{b.op.name} at {mlir.location_of(b.op)} in a later row of the strip")
    return None


# ----------------------------------------------------------------------------- the transpose

def transpose_masks(width: int) -> list[tuple[int, list[int], list[int]]]:
    """The stages of a width x width transpose of `width` row vectors by two-source shuffles:
    at half-size h (width/2, ..., 1) rows a and a + h (bit h of a clear) swap their off-diagonal
    h-blocks: new row a takes lanes c of a where bit h of c is clear and c - h of row a + h
    elsewhere; new row a + h lanes c + h of row a, then its own. After the last stage row k holds
    lane k of every input row, in order (log2(width) stages of `width` shuffles)."""
    out = []
    h = width // 2
    while h >= 1:
        first = [c if not c & h else width + c - h for c in range(width)]
        second = [c + h if not c & h else width + c for c in range(width)]
        out.append((h, first, second))
        h //= 2
    return out
