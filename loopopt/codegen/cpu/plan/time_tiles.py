"""Time tiles (cpu): a stencil's time loop and its sweeps tiled together, as PLUTO's time tiling.

A *time loop* T (`for t`) whose body is K >= 1 innermost sweeps S_0 .. S_{K-1} (`for i`: loads,
stores and scalar ops; jacobi_1d's two half steps A -> B and B -> A) streams every array through
memory once per sweep when the arrays exceed the caches: 200 sweeps of 8 MB for jacobi_1d. The
sweep instances S_k(t, i) run in the order (t, k, i); give them the combined time step
s = K (t - lbT) + k and the skewed position x = i + f s. When every dependence has
ds >= 0 and dx >= 0 (the skew f makes a stencil's backward reads (t + 1, i - 1) point forward),
rectangles of the (s, x) plane run in any order that keeps the rectangles' own order
lexicographic, and each rectangle keeps its data in L1:

    for tt = lbT to ubT step Bt                              // blocks of Bt time steps
      for xx = X0 + f K (tt - lbT) to X1 + f K (tt - lbT + Bt) step Bx   // skewed tiles
        for t = tt to min(tt + Bt, ubT)
          for i = max(lb_k, xx - f s) to min(ub_k, xx + Bx - f s)  S_k(t, i)   // k = 0 .. K-1

Every instance runs once and reads the values it read before (the same producers, as every
dependence keeps its order): bit-exact, whatever the sizes. X0 / X1 are the sweeps' least lower
and greatest upper bound (equal texts, or constants).

The plan (`plan_time_tiles`): T and the sweeps have step 1 and one lower and one upper bound, the
sweeps' bounds do not move with T, nothing else is in T's body, no values are carried; a
dependence is carried by T (else there is no reuse across time steps); the arrays the sweeps
touch exceed the L2 budget (`options.sb_budget`) when their sizes are known (symbolic sizes are
tiled: the loops above run any size, 0 and 1 included). The skew f is the least in 0 ..
MAX_SKEW whose tiled order keeps every dependence (`tiling_violation`: each conflicting pair of
instances, the source first in the original order, is checked in the tiled order, isl, exact). The sizes
(`tile_sizes`): Bt = min(T's trip count, MAX_TIME_BLOCK); Bx the largest power of two with
(Bx + f K Bt) points of every array in TILE_BYTES, halving Bt while Bx < MIN_WIDTH.
Measured on jacobi_1d (docs/cpu_codegen.md section 19): 0.28-0.31 of the input's time for
tiles whose working set is 17-36 KiB (Bt 32-100, Bx 2048-4096), 0.44 at 0.5 MiB.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .... import mlir
from ....analysis.dependence import conflicts, instance_pair, pair_set
from ....analysis.effects import op_effects
from ....analysis.legality import lex_less
from ....analysis.loops import body_block, body_ops, constant_trip_count, domain_loops, loop_dims
from ....analysis.refusal import Refusal
from ....analysis.vectorization import is_innermost
from ....mlir import ir
from .cpu_plan import defined_inside, single_bounds

PASS = "time-tiles"
TILE_BYTES = 32 * 1024  # a tile's working set: L1 (measured: 17-36 KiB best, section 19)
MAX_TIME_BLOCK = 64
MIN_WIDTH = 256  # a sweep's row in a tile: long enough for LLVM's vectors and loop overhead
MAX_SKEW = 4
# The most loops around a time loop the dependence test takes: each is two more dimensions of every
# isl set (a time loop at the bottom of a 500-deep nest took 2.5 s for one emptiness test); a
# stencil's time loop is at most a few loops deep.
MAX_OUTER_LOOPS = 8


class TimeCode(enum.Enum):
    """Why a time loop and its sweeps are not tiled together."""

    SHAPE = "[STOP TIME TILING] a loop of the stencil does not have step 1 and one lower and one upper bound"
    BODY = "[STOP TIME TILING] the time loop holds more than innermost sweeps of loads, stores and scalar ops"
    BOUNDS = "[STOP TIME TILING] a sweep's bounds move with the time loop, or the sweeps' bounds differ symbolically"
    NO_REUSE = "[STOP TIME TILING] no dependence is carried by the time loop: no reuse across time steps"
    FITS = "[STOP TIME TILING] the arrays fit in the L2 budget: nothing to gain"
    DEEP = "[STOP TIME TILING] the time loop is nested in more loops than the dependence test takes"
    CARRIED = "[STOP TIME TILING] the tiled order would reverse a dependence"

    @property
    def message(self) -> str:
        return self.value

    @property
    def quiet(self) -> bool:
        """Said only when the step is named in --passes: not a stencil after all (a tiled or
        triangular nest, other work in the sweeps, no reuse across steps, data that fit in L2)."""
        return self is not TimeCode.CARRIED


@dataclass(frozen=True)
class TimeTilePlan:
    """T's steps in blocks of `time_block`, the sweeps skewed by `skew` and tiled `width` wide."""

    loop: ir.Operation
    sweeps: tuple[ir.Operation, ...] = ()
    skew: int = 0
    time_block: int = 0
    width: int = 0
    lower: str = ""  # X0: the least lower bound of the sweeps, as isl text (the tiles' origin)
    refusal: Refusal | None = None


def _refuse(loop, code: TimeCode, detail: str, *ops) -> TimeTilePlan:
    return TimeTilePlan(loop, refusal=Refusal(code, detail, (loop, *ops)))


def is_candidate(loop: ir.Operation) -> bool:
    """An affine.for whose body is nothing but (two or more, or one) innermost affine.for loops."""
    ops = body_ops(loop) if loop.name == "affine.for" else []
    # a loop directly in a sweep's body answers first: a deep nest is not walked once per level
    return bool(ops) and all(o.name == "affine.for" and not any(c.name == "affine.for" for c in body_ops(o))
                             and is_innermost(o) for o in ops)


def candidates(fn: ir.Operation) -> list[ir.Operation]:
    return [op for op in mlir.walk(fn) if op.name == "affine.for" and is_candidate(op)]


def sweep_body_refusal(s: ir.Operation) -> ir.Operation | None:
    """The first op of a sweep that is not a load, a store or a scalar op without regions."""
    for op in body_ops(s):
        if op.regions or op_effects(op).unknown or any(isinstance(v.type, ir.VectorType)
                                                       for v in [*op.operands, *op.results]):
            return op
        if op.name.startswith(("affine.", "arith.", "math.")) or op.name in ("memref.load", "memref.store"):
            continue
        return op
    return None


def _bound_texts(s: ir.Operation, scope) -> tuple[str, str]:
    (d,) = loop_dims(s, scope)
    return d.lower[0], d.upper[0]


def _common_bound(texts: list[str], pick) -> str | None:
    """One text when all are equal, else the least / greatest constant (`pick` min or max)."""
    if len(set(texts)) == 1:
        return texts[0]
    try:
        return str(pick(int(t.strip("()")) for t in texts))
    except ValueError:
        return None


def footprint_bytes(loop: ir.Operation, facts) -> int | None:
    """Bytes of every buffer the loop touches, None when a size is not static."""
    total = 0
    seen = set()
    for a in facts.accesses(loop):
        if a.root in seen:
            continue
        seen.add(a.root)
        mt = mlir.memref_type(a.root)
        if mt is None or any(d < 0 for d in mt.shape):
            return None
        n = 1
        for d in mt.shape:
            n *= d
        total += n * mlir.element_size_bytes(mt.element_type)
    return total


def point_bytes(loop: ir.Operation, facts) -> int:
    """Bytes one point of the sweeps touches: an element of every buffer they access."""
    roots = {}
    for a in facts.accesses(loop):
        mt = mlir.memref_type(a.root)
        roots[a.root] = mlir.element_size_bytes(mt.element_type) if mt is not None else 8
    return max(1, sum(roots.values()))


# ----------------------------------------------------------------------------- dependences

@dataclass(frozen=True)
class _Pairs:
    """Every conflicting access pair of the sweeps, with the isl names of each side."""

    items: tuple  # (pair, p, q, tS, iS, tT, iT)
    tname: str
    lower_t: str
    k: int


def _pairs(t_loop: ir.Operation, sweeps: tuple, facts) -> _Pairs:
    scope = facts.scope
    (td,) = loop_dims(t_loop, scope)
    n_outer = len(domain_loops(t_loop, scope))
    # one access per signature: a pair's sets depend only on the two signatures (a fused chain of
    # N in-place updates of one element is two accesses, not 2N)
    accs = [(k, a) for k, s in enumerate(sweeps) for a in facts.distinct(s).flat]
    items = []
    for p, a in accs:
        for q, b in accs:
            if not conflicts(a, b):
                continue
            pair = instance_pair(a, b, scope, fixed=n_outer)
            if pair is None:
                continue
            (ia,), (ib,) = [loop_dims(sweeps[p], scope)[0].name], [loop_dims(sweeps[q], scope)[0].name]
            items.append((pair, p, q, pair.src_rename[td.name], pair.src_rename[ia], pair.dst_rename[td.name],
                          pair.dst_rename[ib], a, b))
    return _Pairs(tuple(items), td.name, td.lower_text(), len(sweeps))


def _before(p: int, q: int, tS: str, iS: str, tT: str, iT: str) -> str:
    """isl: instance (tS, p, iS) runs before (tT, q, iT) in the original order."""
    inner = "1 = 1" if p < q else "1 = 0" if p > q else f"{iS} < {iT}"
    return f"({tS} < {tT} or ({tS} = {tT} and {inner}))"


def carried_by_time(pairs: _Pairs) -> bool:
    """Some dependence runs from one time step to a later one (reuse across time steps)."""
    for pair, p, q, tS, iS, tT, iT, *_ in pairs.items:
        if not pair_set(pair, [f"{tS} < {tT}"]).is_empty():
            return True
    return False


def _new_time(k: int, t: str, i: str, pairs: _Pairs, f: int, bt: int, bx: int, x0: str) -> list[str]:
    """The tiled order of instance S_k(t, i): (time block, tile, t, k, i)."""
    lt, K = pairs.lower_t, pairs.k
    block = f"floor(({t} - ({lt}))/{bt})"
    s = f"({K} * ({t} - ({lt})) + {k})"
    tile = f"floor(({i} + {f} * {s} - ({x0}) - {f * K * bt} * {block})/{bx})"
    return [block, tile, t, str(k), i]


def tiling_violation(pairs: _Pairs, f: int, bt: int, bx: int, x0: str) -> str | None:
    """None iff the tiled order keeps every dependence (exact, isl); else the first it reverses."""
    for pair, p, q, tS, iS, tT, iT, a, b in pairs.items:
        src = _new_time(p, tS, iS, pairs, f, bt, bx, x0)
        dst = _new_time(q, tT, iT, pairs, f, bt, bx, x0)
        same = " and ".join(f"{x} = {y}" for x, y in zip(src, dst))
        bad = pair_set(pair, [_before(p, q, tS, iS, tT, iT), f"({lex_less(dst, src)} or ({same}))"])
        if not bad.is_empty():
            kind = {(True, True): "WAW", (True, False): "RAW", (False, True): "WAR"}[(a.is_write, b.is_write)]
            return f"a {kind} dependence from {a.op.name} at {mlir.location_of(a.op)} to {b.op.name} at {mlir.location_of(b.op)}"
    return None


# ----------------------------------------------------------------------------- the plan

def tile_sizes(trips: int | None, k: int, f: int, point: int) -> tuple[int, int]:
    """(Bt, Bx): Bt time steps per block (T's trip count when shorter than MAX_TIME_BLOCK), Bx
    the largest power of two with (Bx + f K Bt) points in TILE_BYTES, Bt halved while Bx is
    below MIN_WIDTH."""
    bt = MAX_TIME_BLOCK if trips is None else max(1, min(trips, MAX_TIME_BLOCK))
    while True:
        room = TILE_BYTES // point - f * k * bt
        bx = 1
        while bx * 2 <= room:
            bx *= 2
        if bx >= MIN_WIDTH or bt == 1:
            return bt, max(bx, MIN_WIDTH)
        bt = max(1, bt // 2)


def plan_time_tiles(t_loop: ir.Operation, facts, options) -> TimeTilePlan:
    """The plan of a candidate time loop (see the module docstring)."""
    sweeps = tuple(body_ops(t_loop))
    depth = len(domain_loops(t_loop, facts.scope))
    if depth > MAX_OUTER_LOOPS:
        return _refuse(t_loop, TimeCode.DEEP, f"{depth} loops around it, at most {MAX_OUTER_LOOPS}")
    if not single_bounds(t_loop) or len(t_loop.results):
        return _refuse(t_loop, TimeCode.SHAPE, f"the time loop at {mlir.location_of(t_loop)}")
    for s in sweeps:
        if not single_bounds(s) or len(s.results):
            return _refuse(t_loop, TimeCode.SHAPE, f"the sweep at {mlir.location_of(s)}", s)
        bad = sweep_body_refusal(s)
        if bad is not None:
            return _refuse(t_loop, TimeCode.BODY, f"{bad.name} at {mlir.location_of(bad)}", bad)
        lb = mlir.affine_map_attr(s, "lowerBoundMap")
        ub = mlir.affine_map_attr(s, "upperBoundMap")
        if any(defined_inside(v, t_loop) for v in list(s.operands)[:lb.n_inputs + ub.n_inputs]):
            return _refuse(t_loop, TimeCode.BOUNDS, f"the sweep at {mlir.location_of(s)}", s)
    scope = facts.scope
    lows, highs = zip(*(_bound_texts(s, scope) for s in sweeps))
    x0, x1 = _common_bound(list(lows), min), _common_bound(list(highs), max)
    if x0 is None or x1 is None:
        return _refuse(t_loop, TimeCode.BOUNDS, f"lower bounds {', '.join(lows)}; upper bounds {', '.join(highs)}")
    pairs = _pairs(t_loop, sweeps, facts)
    if not carried_by_time(pairs):
        return _refuse(t_loop, TimeCode.NO_REUSE, f"the loop at {mlir.location_of(t_loop)}")
    size = footprint_bytes(t_loop, facts)
    if size is not None and size <= options.sb_budget:
        return _refuse(t_loop, TimeCode.FITS, f"{size} bytes, budget {options.sb_budget}")
    trips, point = constant_trip_count(t_loop), point_bytes(t_loop, facts)
    first = None
    for f in range(MAX_SKEW + 1):  # the least skew whose tiled order keeps every dependence
        bt, bx = tile_sizes(trips, len(sweeps), f, point)
        why = tiling_violation(pairs, f, bt, bx, x0)
        if why is None:
            return TimeTilePlan(t_loop, sweeps, f, bt, bx, x0)
        first = first or why
    return _refuse(t_loop, TimeCode.CARRIED, f"with every skew up to {MAX_SKEW}, e.g. unskewed: {first}")
