"""Loop-nest facts: the loops of a block, their bounds, trip counts, nesting and perfection.

Bounds are isl texts over a function `Scope`, so trip counts are exact and symbolic:
`0 to %n` and `1 to %n + 1` have provably equal trip counts.
"""
from __future__ import annotations

import re

from dataclasses import dataclass

import islpy as isl

from .. import mlir
from ..mlir import ir
from .affine import LOOP_LIKE, NonAffine, Scope, map_exprs, num_ivs

# Every op that runs its body repeatedly (LOOP_LIKE have induction variables; scf.while does not).
LOOP_OPS = (*LOOP_LIKE, "scf.while")


def is_for(op: ir.Operation) -> bool:
    return op.name == "affine.for"


def loops_in_block(block: ir.Block) -> list[ir.Operation]:
    """The affine.for ops directly in `block`, in program order (the seed's InstLoops at a level)."""
    return [o for o in mlir.block_ops(block) if o.name == "affine.for"]


def body_block(loop: ir.Operation) -> ir.Block:
    return loop.regions[0].blocks[0]


def body_ops(loop: ir.Operation) -> list[ir.Operation]:
    """Ops of a loop body without its terminator."""
    return mlir.block_ops(body_block(loop))[:-1]


def parent_op(op: ir.Operation) -> ir.Operation | None:
    p = op.parent
    return mlir.operation(p) if p is not None else None


def ancestors(op: ir.Operation) -> list[ir.Operation]:
    """The ops enclosing `op` inside its function, innermost first."""
    out = []
    p = parent_op(op)
    while p is not None and p.name not in ("func.func", "builtin.module"):
        out.append(p)
        p = parent_op(p)
    return out


def nested_in(op: ir.Operation, outer: ir.Operation) -> bool:
    """True iff `outer` encloses `op` (strictly: not `op` itself) inside its function."""
    p = parent_op(op)
    while p is not None and p.name not in ("func.func", "builtin.module"):
        if p == outer:
            return True
        p = parent_op(p)
    return False


def enclosing_loops(op: ir.Operation, stop: ir.Operation | None = None) -> list[ir.Operation]:
    """Loop-like ops enclosing `op` (outermost first), up to but excluding `stop` or the function."""
    out = []
    p = parent_op(op)
    while p is not None and p.name not in ("func.func", "builtin.module"):
        if stop is not None and p == stop:
            break
        if p.name in LOOP_LIKE:
            out.append(p)
        p = parent_op(p)
    out.reverse()
    return out


def nesting_level(op: ir.Operation) -> int:
    """Number of affine.for ops enclosing `op` in its function."""
    return sum(1 for p in enclosing_loops(op) if p.name == "affine.for")


def is_perfect_nest(loop: ir.Operation) -> bool:
    """True iff every level holds exactly one op (the next loop), down to the innermost body."""
    ops = body_ops(loop)
    if len(ops) == 1 and ops[0].name == "affine.for":
        return is_perfect_nest(ops[0])
    return not any(o.name in LOOP_LIKE for o in ops) and not any(len(o.regions) for o in ops)


def perfect_nest(loop: ir.Operation) -> list[ir.Operation]:
    """The chain of affine.for ops of a perfect (prefix of a) nest, outermost first."""
    nest = [loop]
    while True:
        ops = body_ops(nest[-1])
        if len(ops) == 1 and ops[0].name == "affine.for":
            nest.append(ops[0])
        else:
            return nest


def has_iter_args(loop: ir.Operation) -> bool:
    return len(loop.results) > 0


def collect_interchangeable_loops(loop: ir.Operation) -> list[ir.Operation]:
    """The seed's permutable set, also the nest distribution splits: the perfect nest rooted at
    `loop`, outermost first, cut above the first loop that carries values (iter_args), since its
    results pin it in place."""
    out = []
    for lp in perfect_nest(loop):
        if has_iter_args(lp):
            break
        out.append(lp)
    return out


def loop_bound(loop: ir.Operation, which: str) -> tuple[ir.AffineMap, list[ir.Value]]:
    """An affine.for's lower ("lb") or upper ("ub") bound: its map and the operands the map takes."""
    lb = mlir.affine_map_attr(loop, "lowerBoundMap")
    ub = mlir.affine_map_attr(loop, "upperBoundMap")
    ops = list(loop.operands)
    if which == "lb":
        return lb, ops[:lb.n_inputs]
    return ub, ops[lb.n_inputs:lb.n_inputs + ub.n_inputs]


def constant_bounds(loop: ir.Operation) -> tuple[int, int] | None:
    """(lower, upper) of an affine.for whose bounds are single constants, else None."""
    lb = mlir.affine_map_attr(loop, "lowerBoundMap")
    ub = mlir.affine_map_attr(loop, "upperBoundMap")
    if len(lb.results) == 1 and len(ub.results) == 1:
        lo, hi = lb.results[0], ub.results[0]
        if isinstance(lo, ir.AffineConstantExpr) and isinstance(hi, ir.AffineConstantExpr):
            return lo.value, hi.value
    return None


def is_outermost_loop(op: ir.Operation) -> bool:
    """True iff no loop-like op (scf.while included) encloses `op` in its function."""
    p = parent_op(op)
    while p is not None and p.name not in ("func.func", "builtin.module"):
        if p.name in LOOP_OPS:
            return False
        p = parent_op(p)
    return True


@dataclass(frozen=True, eq=False)
class Loop:
    """One loop dimension: `name` ranges over max(lower) <= name < min(upper), stepping by `step`.

    An unbounded loop (scf.for, affine.parallel, ...) has no bounds: it is treated as ranging
    over every integer, a sound over-approximation for dependences.
    """

    op: ir.Operation
    name: str
    lower: tuple[str, ...]
    upper: tuple[str, ...]
    step: int

    @property
    def bounded(self) -> bool:
        return bool(self.lower) and bool(self.upper)

    def lower_text(self) -> str:
        """isl text of the actual lower bound: the max of the bound map's results."""
        if not self.lower:
            return "0"
        return self.lower[0] if len(self.lower) == 1 else f"max({', '.join(self.lower)})"

    def constraints(self, rename: dict[str, str] | None = None) -> list[str]:
        """isl constraints of this dimension (with names substituted by `rename`). With a step,
        the iterations are anchored at the actual lower bound (the largest bound result)."""
        n = self.name
        out = [f"{n} >= {lb}" for lb in self.lower] + [f"{n} < {ub}" for ub in self.upper]
        if self.step != 1 and len(self.lower) == 1:
            out.append(f"exists (e_{n}: {n} = {self.lower[0]} + {self.step} * e_{n})")
        elif self.step != 1 and self.lower:
            cases = []
            for k, lb in enumerate(self.lower):
                top = " and ".join([f"{lb} >= {o}" for m, o in enumerate(self.lower) if m != k] or ["1 = 1"])
                cases.append(f"({top} and exists (e{k}_{n}: {n} = {lb} + {self.step} * e{k}_{n}))")
            out.append("(" + " or ".join(cases) + ")")
        return [substitute(c, rename) for c in out] if rename else out


_IDENTIFIER = re.compile(r"\b([A-Za-z_][A-Za-z_0-9]*)\b")


def substitute(text: str, rename: dict[str, str] | None) -> str:
    """Rename whole identifiers in an isl text. (Split at the identifiers, which land at the
    odd places of the split, each renamed by one dict look-up.)"""
    if not rename:
        return text
    parts = _IDENTIFIER.split(text)
    get = rename.get
    parts[1::2] = [get(p, p) for p in parts[1::2]]
    return "".join(parts)


def loop_dims(op: ir.Operation, scope: Scope) -> list[Loop]:
    """The Loop facts of one loop-like op (one per induction variable), memoized in the scope."""
    key = mlir.op_key(op)
    stamp = _bounds_stamp(op)
    hit = scope.loop_cache.get(key)
    if hit is not None and hit[0] == stamp:
        # Same bounds and IV; the op handle may be a new op at a freed address: refresh it.
        return [d if d.op is op else Loop(op, d.name, d.lower, d.upper, d.step) for d in hit[1]]
    dims = _loop_dims(op, scope)
    scope.loop_cache[key] = (stamp, dims)
    return dims


def _bounds_stamp(op: ir.Operation) -> tuple:
    """What the Loop facts depend on; compared on every lookup, so a loop created at the address
    of an erased one (or rewritten in place) never gets stale bounds."""
    if op.name != "affine.for":
        return (op.name, tuple(op.regions[0].blocks[0].arguments))
    return (op.attributes["lowerBoundMap"], op.attributes["upperBoundMap"], op.attributes["step"],
            tuple(op.operands), op.regions[0].blocks[0].arguments[0])


def _loop_dims(op: ir.Operation, scope: Scope) -> list[Loop]:
    if op.name == "affine.for":
        lb_map = mlir.affine_map_attr(op, "lowerBoundMap")
        ub_map = mlir.affine_map_attr(op, "upperBoundMap")
        operands = list(op.operands)
        n_lb = lb_map.n_dims + lb_map.n_symbols
        n_ub = ub_map.n_dims + ub_map.n_symbols
        name = scope.iv_name(op)
        try:
            lower = tuple(map_exprs(lb_map, operands[:n_lb], scope))
            upper = tuple(map_exprs(ub_map, operands[n_lb:n_lb + n_ub], scope))
        except NonAffine:
            lower, upper = (), ()
        return [Loop(op, name, lower, upper, mlir.int_attr(op, "step"))]
    return [Loop(op, scope.iv_name(op, k), (), (), 1) for k in range(num_ivs(op))]


def domain_loops(op: ir.Operation, scope: Scope, stop: ir.Operation | None = None) -> list[Loop]:
    """Loop dimensions enclosing `op` (below `stop`), outermost first."""
    out: list[Loop] = []
    for lp in enclosing_loops(op, stop):
        out.extend(loop_dims(lp, scope))
    return out


@dataclass(frozen=True)
class TripCount:
    """Trip count of a loop as an isl piecewise affine function of outer IVs and parameters."""

    pw: isl.PwAff
    text: str

    @property
    def constant(self) -> int | None:
        if self.pw.is_cst():
            vals = []
            self.pw.foreach_piece(lambda s, a: vals.append(a.get_constant_val().to_python()))
            if len(set(vals)) == 1:
                return int(vals[0])
        return None

    def __str__(self) -> str:
        c = self.constant
        return str(c) if c is not None else self.text


def _header(params: list[str], dims: list[str]) -> str:
    return f"[{', '.join(params)}] -> {{ [{', '.join(dims)}] -> "


def trip_count(loop: ir.Operation, scope: Scope) -> TripCount | None:
    """max(0, ceil((min(ub) - max(lb)) / step)) as a function of the outer IVs and parameters.

    Memoized in the scope by value (bound texts, step, outer IV names): a pure function of them."""
    (lp,) = loop_dims(loop, scope)
    if not lp.bounded:
        return None
    outer = [d.name for d in domain_loops(loop, scope)]
    key = (lp.lower, lp.upper, lp.step, tuple(outer))
    cache = scope.trip_cache
    if key not in cache:
        cache[key] = _trip_count(lp, outer, scope)
    return cache[key]


def _trip_count(lp: Loop, outer: list[str], scope: Scope) -> TripCount | None:
    lb = _pw(lp.lower, outer, scope, "max")
    ub = _pw(lp.upper, outer, scope, "min")
    if lb is None or ub is None:
        return None
    diff = ub.sub(lb)
    if lp.step != 1:
        diff = diff.scale_down_val(isl.Val.int_from_si(diff.get_ctx(), lp.step)).ceil()
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(diff.get_domain_space()))
    tc = diff.max(zero).coalesce()
    return TripCount(tc, _pw_text(tc))


def _pw(exprs: tuple[str, ...], outer: list[str], scope: Scope, combine: str) -> isl.PwAff | None:
    params = sorted(scope.params)
    acc = None
    for e in exprs:
        pa = isl.PwAff(f"{_header(params, outer)} [({e})] }}")
        acc = pa if acc is None else getattr(acc, combine)(pa)
    return acc


def _pw_text(pw: isl.PwAff) -> str:
    text = str(pw)
    inner = text[text.find("{") + 1: text.rfind("}")].strip()
    return inner


def _aligned(a: isl.PwAff, b: isl.PwAff) -> tuple[isl.PwAff, isl.PwAff]:
    a = a.align_params(b.get_space())
    b = b.align_params(a.get_space())
    return a, b


def same_trip_count(l1: ir.Operation, l2: ir.Operation, scope: Scope) -> bool:
    """Exact, symbolic: the two sibling loops run the same number of iterations for every
    value of the parameters and outer IVs."""
    t1, t2 = trip_count(l1, scope), trip_count(l2, scope)
    if t1 is None or t2 is None:
        return False
    # Memoized per pair of trip counts (trip_count shares one per bounds): every pair of nests
    # with these bounds asks the same.
    hit = scope.trip_pairs.get((id(t1), id(t2)))
    if hit is None or hit[0] is not t1 or hit[1] is not t2:
        hit = scope.trip_pairs[(id(t1), id(t2))] = (t1, t2, _same_trip(t1, t2))
    return hit[2]


def _same_trip(t1: TripCount, t2: TripCount) -> bool:
    a, b = _aligned(t1.pw, t2.pw)
    if a.get_domain_space().dim(isl.dim_type.set) != b.get_domain_space().dim(isl.dim_type.set):
        return False
    return a.ne_set(b).is_empty()


def runs_at_least_once(loop: ir.Operation, scope: Scope) -> bool:
    """True iff the loop's trip count is >= 1 for every parameter value and outer iteration.

    Outer iterations are restricted to the outer loops' domains, so `for j = i to i + 4`
    inside `for i` counts as running, and `0 to %n` does not (%n may be 0).
    """
    tc = trip_count(loop, scope)
    if tc is None:
        return False
    if tc.constant is not None:
        return tc.constant >= 1
    outer = domain_loops(loop, scope)
    params = sorted(scope.params)
    names = [d.name for d in outer]
    cons = [c for d in outer for c in d.constraints()]
    dom = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(names)}] : {' and '.join(cons) or 'true'} }}")
    pw = tc.pw.align_params(dom.get_space())
    dom = dom.align_params(pw.get_space())
    zero_trip = pw.le_set(isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(pw.get_domain_space())))
    return zero_trip.intersect(dom).is_empty()


def constant_trip_count(loop: ir.Operation) -> int | None:
    """The trip count if it is a compile-time constant."""
    tc = trip_count(loop, Scope())
    return tc.constant if tc is not None else None


def constant_trip(loop: ir.Operation) -> tuple[int, int] | None:
    """(trip count, step) of an affine.for with single constant bounds, else None (no isl)."""
    cb = constant_bounds(loop) if loop.name == "affine.for" else None
    if cb is None:
        return None
    step = mlir.int_attr(loop, "step")
    return max(0, -((cb[0] - cb[1]) // step)), step


def known_trip_count(loop: ir.Operation) -> int | None:
    """constant_trip_count, without isl when the bounds are single constants."""
    t = constant_trip(loop)
    return t[0] if t is not None else constant_trip_count(loop)
