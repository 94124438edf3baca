"""Sweep vectors (cpu): a sweep whose loads read one array at several constant offsets along the
loop gets one vector load per W points, the shifted operands made by shuffles.

A *sweep* is an innermost affine.for of step 1, without iter_args, whose body is loads, elementwise
arith ops and stores, every load before every store; every load and store walk their last index along the loop by one
(`A[.., i + c]`, the other indices not moving with i), and nothing else uses the counter. Its
loads fall in *groups*: one buffer, the same indices but for the constant c. A group of two or
more offsets (span d = c_max - c_min, 1 <= d < W) is a *window*: the points [a, a + W) read
A[a + c_min .. a + c_min + W + d), which two consecutive vectors V0 = A[a + c_min, +W) and
V1 = A[a + c_min + W, +W) hold; the operand at offset c is lanes (c - c_min) .. (c - c_min + W - 1)
of V0 ++ V1 (`vector.shuffle`), and V1 is the next block's V0 (carried). LLVM's vectorizer loads
each operand on its own (jacobi_1d: three unaligned loads and one store per vector); the window
loads once. A group of one offset is one vector load per block. An operand of a window (not its
base) whose last index is the first store's plus a multiple of W is aligned like the store's
vectors: it is one aligned vector load of its own rather than a shuffle (`aligned_loads`; on the
AMD host jacobi_1d's blocks ran 0.84-0.86 of their time with one shuffle fewer, section 19.7).

Every lane computes its own point with the same ops in the same order: the results are the
loop's. The blocks read their loads earlier than the loop did (a block's loads, and the next
block's V0, before the block's store), so the rule (`carried_violation`, isl, exact): no store
of the loop writes an element a load reads in a later iteration, and none writes an element that
a store at or before it in the body writes again later (each store runs for the block's lanes in
body order). The vector loads stay inside the elements the loop reads (`codegen/cpu/sweep_vectors.py`
peels the ends): never a read the input did not make.

*Interleaved blocks.* A sweep without a window whose body is a long chain of dependent ops (at
least `LATENCY_CHAIN` ops from a load to a store: the polynomial of an exp, tanh or sigmoid, and
more of them in a row) runs at the latency of that chain under LLVM's vectorizer, which gives it
one vector per iteration (its interleave count is set by the registers the body needs, not by its
latency). Such a loop gets blocks of U vectors (`options.sweep_interleave`, 4): each op of the body is written
for the U vectors of the block before the next op, so U independent chains overlap in the core.
The same rule keeps the dependences: a block of U x W lanes still makes every
load before every store and each store for all its lanes in body order.

Not a candidate (said only in the explained form): another shape (`SHAPE`), no window and a short
chain (`NO_WINDOW`: LLVM's vectors already load each operand once), a constant trip count below 4 W
(`SHORT`).
Said by default: a dependence the blocks would reverse (`CARRIED`: an in-place Gauss-Seidel
sweep, `A[i] = f(A[i - 1], A[i], A[i + 1])`).
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from .... import mlir
from ....analysis.dependence import affine_form, conflicts, instance_pair, pair_set
from ....analysis.loops import body_ops, constant_trip_count, domain_loops, loop_dims
from ....analysis.refusal import Refusal
from ....mlir import ir
from .cpu_plan import defined_inside

PASS = "sweep-vectors"
MIN_VECTORS = 4  # a constant trip count below MIN_VECTORS * W is left to LLVM
LATENCY_CHAIN = 16  # a window-free body with a chain this long is interleaved (docs/cpu_codegen.md section 74)

# elementwise ops with one vector form per lane (arith.constant: a uniform value)
ELEMENTWISE = frozenset({
    "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf", "arith.maximumf", "arith.minimumf",
    "arith.maxnumf", "arith.minnumf", "arith.addi", "arith.subi", "arith.muli", "arith.andi", "arith.ori",
    "arith.xori", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui", "arith.cmpf", "arith.cmpi",
    "arith.select", "arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui",
    "arith.extsi", "arith.extui", "arith.trunci", "arith.constant",
    # what the polynomials of codegen/cpu/math write (one LLVM vector instruction each)
    "math.fma", "math.floor", "math.absf", "math.copysign", "arith.bitcast", "arith.shli", "arith.shrsi",
    "arith.shrui",
    # exp's scaling in a 512-bit plan (math_approx.Ops.scale): on vectors LLVM's ldexp intrinsic, one
    # vscalefps (math_approx.vector_ldexp; docs/cpu_codegen.md section 83)
    "llvm.intr.ldexp"})


class SweepCode(enum.Enum):
    """Why a sweep does not get window vectors."""

    SHAPE = "[STOP SWEEP VECTORS] not a sweep of contiguous loads, one contiguous store and elementwise ops"
    NO_WINDOW = ("[STOP SWEEP VECTORS] no buffer is read at two offsets along the loop and no long chain of ops: "
                 "nothing to share or overlap")
    SHORT = "[STOP SWEEP VECTORS] fewer iterations than four vectors"
    CARRIED = "[STOP SWEEP VECTORS] a load reads what an earlier iteration stored: the blocks would read it early"

    @property
    def message(self) -> str:
        return self.value

    @property
    def quiet(self) -> bool:
        """Said only when the step is named in --passes (LLVM vectorizes these loops anyway)."""
        return self is not SweepCode.CARRIED


@dataclass
class Group:
    """The loads of one buffer with equal indices but for a constant along the loop."""

    anchor: ir.Operation  # the load with the least offset (the window's base)
    loads: list = field(default_factory=list)  # (op, offset - least offset)
    aligned: frozenset = frozenset()  # op keys of the loads whose last index is the store's plus a multiple of W (`aligned_loads`)

    @property
    def span(self) -> int:
        return max(r for _, r in self.loads)


@dataclass
class SweepPlan:
    loop: ir.Operation
    width: int = 0
    groups: list = field(default_factory=list)
    store: ir.Operation | None = None  # the first store (its last index is aligned to W)
    refusal: Refusal | None = None
    interleave: int = 1  # vectors per block (> 1 only without a window)
    chain: int = 0  # the body's longest chain of ops (`chain_length`)


def _refuse(loop, code: SweepCode, detail: str, *ops) -> SweepPlan:
    return SweepPlan(loop, refusal=Refusal(code, detail, (loop, *ops)))


def is_candidate(loop: ir.Operation) -> bool:
    """An innermost affine.for of step 1 without results whose body holds a load."""
    if loop.name != "affine.for" or len(loop.results) or mlir.int_attr(loop, "step") != 1:
        return False
    ops = body_ops(loop)
    return (any(o.name == "affine.load" for o in ops)
            and not any(o.regions for o in ops))


def candidates(fn: ir.Operation) -> list[ir.Operation]:
    return [op for op in mlir.walk(fn) if is_candidate(op)]


def _elem_bits(t: ir.Type) -> int | None:
    """Bits of a scalar int or float type (i1 counts as 8); None for anything else (index,
    vectors, memrefs): those are not lanes."""
    if isinstance(t, ir.IntegerType):
        return max(8, t.width)
    if isinstance(t, ir.FloatType) and t.width in (16, 32, 64):
        return t.width
    return None


def _bit_buffer(access: ir.Operation) -> bool:
    """An affine.load or affine.store of a memref of i1: LLVM lays a vector<Nxi1> out as N bits,
    a memref<..xi1> holds one byte per element, so a vector access reads or writes other elements."""
    mem = access.operands[0] if access.name == "affine.load" else access.operands[1]
    elem = ir.MemRefType(mem.type).element_type
    return isinstance(elem, ir.IntegerType) and elem.width == 1


def _walk_form(acc, iv: str, names: tuple, params: tuple) -> tuple | None:
    """(the key of its indices without the constant along the loop, that constant) of an access
    whose last index is `iv + e + c` (e not moving with the loop) and whose other indices do not
    move with it; None for any other access."""
    if acc.index is None or not acc.index:
        return None
    key = []
    for k, text in enumerate(acc.index):
        form = affine_form(text, names, params)
        last = k == len(acc.index) - 1
        if form is None:
            if last or iv in text:
                return None
            key.append(text)
            continue
        ivs, pars, c = form
        if ivs[0] != (1 if last else 0):
            return None
        key.append((ivs[1:], pars) if last else text)
        if last:
            return tuple(key), c
    return None


def own_walk(op: ir.Operation, iv: ir.Value) -> bool:
    """Whether an affine load or store walks the last index of its own memref by one along the loop
    of counter `iv` (the last result of its map is `d + e`, d the counter's dimension, e free of
    it) and no other index moves with it: the test on the op's own map, for an access through a
    view (a memref.collapse_shape) whose element the facts name in the buffer's own indices."""
    m = mlir.affine_map_attr(op, "map")
    first = 1 if op.name == "affine.load" else 2
    operands = list(op.operands)[first:]
    at = [k for k, v in enumerate(operands) if v == iv]  # the counter may fill several dimensions
    if not at or any(k >= m.n_dims for k in at) or not m.results:
        return False
    dims = tuple(f"d{k}" for k in range(m.n_dims))
    syms = tuple(f"s{k}" for k in range(m.n_symbols))
    for k, r in enumerate(m.results):
        form = affine_form(str(r), dims, syms)
        last = k == len(m.results) - 1
        if form is None:
            if last or any(re.search(rf"\bd{j}\b", str(r)) for j in at):
                return False
            continue
        if sum(form[0][j] for j in at) != (1 if last else 0):
            return False
    return True


def _identity_layout(v: ir.Value) -> bool:
    """A memref whose last index is contiguous in memory: the identity layout (vector.load's rule)."""
    mt = mlir.memref_type(v)
    if mt is None or mt.rank == 0:
        return False
    return mlir.identity_layout(mt)


def carried_violation(loop: ir.Operation, facts) -> str | None:
    """None iff the blocks keep every dependence (exact, isl): no store writes an element a load
    reads at a later iteration (the blocks read early), and no store writes an element a store
    at or before it in the body writes again at a later iteration (a block runs each store for
    all its lanes in body order). The loads come before the stores in the body (the plan's
    shape), so a load still reads before every store of its own or a later iteration. Else the
    first such pair."""
    scope = facts.scope
    (iv,) = loop_dims(loop, scope)
    fixed = len(domain_loops(loop, scope))
    order = {mlir.op_key(o): k for k, o in enumerate(body_ops(loop))}
    accs = facts.accesses(loop)
    for a in accs:
        if not a.is_write:
            continue
        for b in accs:
            if b.is_write and order.get(mlir.op_key(b.op), 0) > order.get(mlir.op_key(a.op), 0):
                continue
            if not conflicts(a, b):
                continue
            pair = instance_pair(a, b, scope, fixed=fixed)
            if pair is None:
                continue
            s, t = pair.src_rename[iv.name], pair.dst_rename[iv.name]
            if not pair_set(pair, [f"{s} < {t}"]).is_empty():
                what = "writes again" if b.is_write else "reads"
                return (f"{a.op.name} at {mlir.location_of(a.op)} writes what {b.op.name} at "
                        f"{mlir.location_of(b.op)} {what} at a later iteration")
    return None


def chain_length(loop: ir.Operation) -> int:
    """The most ops on one path of the body's use-def graph that ends at a store, constants and
    loads not counted: the latency a vector of the loop waits for."""
    depth: dict = {}
    longest = 0
    for o in body_ops(loop):
        before = max((depth.get(v, 0) for v in o.operands), default=0)
        if o.name == "affine.store":
            longest = max(longest, before)
            continue
        d = 0 if o.name in ("arith.constant", "affine.load") else before + 1
        for r in o.results:
            depth[r] = d
    return longest


def window_width(bits: set, window_bits: int) -> int:
    """W, the lanes of a window's blocks: `window_bits` (options.sweep_window_bits, 512) of the
    widest element, whatever the plan's register width. On a 256-bit core LLVM writes each block's
    vector as two registers; the carried window and the blocks' loop then cost once per two
    registers' points (docs/cpu_codegen.md section 82)."""
    return max(2, window_bits // max(bits)) if bits else 0


def chain_width(bits: set, window_bits: int, register_bits: int) -> int:
    """The lanes of one vector of a window-free chain's interleaved blocks: one register of the
    plan's width (the block holds `sweep_interleave` of them), at most W."""
    return min(window_width(bits, window_bits), max(2, register_bits // max(bits))) if bits else 0


def aligned_loads(group: Group, forms: dict, store_form: tuple, width: int) -> frozenset:
    """The loads of a window, but its base, whose last index is the first store's plus a multiple
    of W: the blocks align the store's vectors, so these load an aligned vector of their own (one
    load) instead of a shuffle of the window's two (a cross-lane two-source permute, the blocks'
    bound on the AMD host: measured 0.84 of jacobi_1d's time, docs/cpu_codegen.md 19.7). The
    last index's part that moves with nothing but the constant must equal the store's."""
    (*_, s_last), s_c = store_form
    out = []
    for op, r in group.loads:
        (*_, last), c = forms[mlir.op_key(op)]
        if r > 0 and last == s_last and (c - s_c) % width == 0:
            out.append(mlir.op_key(op))
    return frozenset(out)


def plan_sweep_vectors(loop: ir.Operation, facts, options) -> SweepPlan:
    """The plan of a candidate loop (see the module docstring)."""
    scope = facts.scope
    ops = body_ops(loop)
    iv_value = loop.regions[0].blocks[0].arguments[0]
    stores = [o for o in ops if o.name == "affine.store"]
    bits = set()
    for o in ops:
        if o.name not in ("affine.load", "affine.store") and o.name not in ELEMENTWISE:
            return _refuse(loop, SweepCode.SHAPE, f"{o.name} at {mlir.location_of(o)}", o)
        values = list(o.results) + ([o.operands[0]] if o.name == "affine.store" else [])
        if o.name in ("affine.load", "affine.store") and _bit_buffer(o):
            return _refuse(loop, SweepCode.SHAPE, f"{o.name} at {mlir.location_of(o)} of an i1 buffer: a vector of "
                           "i1 is packed bits in memory, the buffer a byte per element", o)
        if o.name in ELEMENTWISE:
            values += list(o.operands)
        for v in values:
            b = _elem_bits(v.type)
            if b is None:
                return _refuse(loop, SweepCode.SHAPE, f"{o.name} at {mlir.location_of(o)} on {v.type}", o)
            bits.add(b)
    if not stores:
        return _refuse(loop, SweepCode.SHAPE, "no store")
    first_store = next(k for k, o in enumerate(ops) if o.name == "affine.store")
    late = [o for o in ops[first_store:] if o.name == "affine.load"]
    if late:
        return _refuse(loop, SweepCode.SHAPE, f"the load at {mlir.location_of(late[0])} comes after a store", late[0])
    width = window_width(bits, options.sweep_window_bits)
    (dim,) = loop_dims(loop, scope)
    outer = tuple(lp.name for lp in domain_loops(loop, scope))
    by_op = {mlir.op_key(a.op): a for a in facts.accesses(loop)}  # first: the indices' symbols join the scope
    names, params = (dim.name, *outer), tuple(sorted(scope.params))
    groups: dict = {}
    forms: dict = {}
    viewed = False
    for o in ops:
        if o.name not in ("affine.load", "affine.store"):
            continue
        acc = by_op.get(mlir.op_key(o))
        mem = o.operands[0] if o.name == "affine.load" else o.operands[1]
        form = None if acc is None or not _identity_layout(mem) else _walk_form(acc, dim.name, names, params)
        if form is None and acc is not None and _identity_layout(mem) and own_walk(o, iv_value):
            form = (("own", mlir.op_key(o)), 0)  # through a view: a group of its own (no window)
            viewed = True
        if form is None:
            return _refuse(loop, SweepCode.SHAPE, f"{o.name} at {mlir.location_of(o)} does not walk its last index by one", o)
        if o.name == "affine.load":
            key, c = form
            groups.setdefault((mem, key), []).append((o, c))
            forms[mlir.op_key(o)] = form
    wins = []
    for members in groups.values():
        least = min(c for _, c in members)
        anchor = next(op for op, c in members if c == least)
        wins.append(Group(anchor, [(op, c - least) for op, c in members]))
    chain = chain_length(loop)
    interleave = 1
    if not any(g.span > 0 for g in wins):
        if chain < LATENCY_CHAIN or options.sweep_interleave < 2:
            return _refuse(loop, SweepCode.NO_WINDOW,
                           f"the loop at {mlir.location_of(loop)} (its longest chain: {chain} ops)")
        interleave = options.sweep_interleave
        width = chain_width(bits, options.sweep_window_bits, options.plan_vector_bits)
    if not viewed:
        store_form = _walk_form(by_op[mlir.op_key(stores[0])], dim.name, names, params)
        for g in wins:
            g.aligned = aligned_loads(g, forms, store_form, width)
    too_wide = [g for g in wins if g.span >= width]
    if too_wide:
        return _refuse(loop, SweepCode.SHAPE, f"a window of {too_wide[0].span + 1} offsets, vectors of {width}")
    trips = constant_trip_count(loop)
    if trips is not None and trips < MIN_VECTORS * width * interleave:
        return _refuse(loop, SweepCode.SHORT, f"{trips} iterations, vectors of {width}"
                       + (f" in blocks of {interleave}" if interleave > 1 else ""))
    why = carried_violation(loop, facts)
    if why is not None:
        return _refuse(loop, SweepCode.CARRIED, why)
    return SweepPlan(loop, width, wins, stores[0], interleave=interleave, chain=chain)
