"""Loop-invariant code motion (seed 000 §LICM), run module-wide after fusion.

The rule. An op is invariant in an `affine.for` iff
  1. none of its operands is defined inside the loop (the seed's in-loop-def set: every
     block argument and op result nested in the loop), and
  2. its kind may move (the seed's kind==2 gate mapped onto MLIR op kinds):
     - side-effect-free compute (arith, math, index, affine.apply/min/max, memref.dim,
       views) always moves, except integer division/remainder by a value that may be zero
       (arith/index divisions, and affine maps or sets with `mod`/`floordiv`/`ceildiv` by a
       symbol), which moves only out of a loop that provably runs at least once;
     - a load moves only if no write inside the loop may touch the element it reads
       (writes through views, buffers passed to calls, calls that may reach memory beyond
       their arguments, unknown ops) AND the loop provably runs at least once, since
       hoisting out of a zero-trip loop executes an access that never happened;
     - a whole loop or conditional (affine.for/if/parallel, scf.for/if) moves as one op when
       nothing inside it uses a value of the loop other than its own, it does not write,
       allocate or call, its loads pass the load test, and (if it reads memory or may trap)
       the loop provably runs at least once. It then runs once instead of once per iteration,
       which computes the same values because nothing it reads changes in the loop;
     - a run-time check (`cf.assert`) moves, when its condition is invariant, only out of a
       loop that provably runs at least once and past ops that are not hazards to it; a load
       or a division that a check before it in the body may guard is hoisted only when it
       cannot trap (analysis/checks.py, docs/soundness.md "Run-time checks");
     - stores, calls, allocations and unknown ops never move.
Invariant ops are moved, in program order, to just before the loop (its preheader), so
operand order and dominance are kept. Loops are visited innermost first and every loop
looks at its body after its inner loops were processed, so an op can leave several levels.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import islpy as isl

from .. import mlir
from ..analysis.accesses import AccessPattern, access_pattern, collect_accesses
from ..analysis.affine import Scope
from ..analysis.checks import (TRAPPING_OPS, affine_attrs_may_trap, divides_by_unknown, integer_set_exprs,  # noqa: F401
                               is_check, may_trap, order_refusal)
from ..analysis.dependence import element_constraints, instance_pair, may_alias, pair_set, sets_intersect, union_all
from ..analysis.effects import READ_OPS, REGION_OPS, WRITE_OPS, callee_text, is_pure_op, op_effects
from ..analysis.loops import body_block, body_ops, domain_loops, runs_at_least_once
from ..analysis.memory import ALLOC_OPS, UNTRACED, alias_root, callee_name, is_placed, root_origin, value_name
from ..analysis.refusal import Code, Refusal
from ..mlir import ir
from ..options import Options
from ..remarks import PASSED, RemarkLog
from ..transforms.rewriter import Rewriter
from ..step import StepContext

PASS_NAME = "licm"
HOIST_MESSAGE = "[LICM] Moving inst {name} to a new insertion point"
MISSED_PREFIX = "[LICM] not hoisted: "


def _refuse(code: Code, detail: str) -> Refusal:
    """A LICM refusal; its remark keeps the seed-style text `[LICM] not hoisted: <detail>`."""
    return Refusal(code, detail, message=MISSED_PREFIX + detail)

# The seed's kind discriminator, mapped onto MLIR ops.
PURE, LOAD, WRITE, CALL, ALLOC, REGION, TERMINATOR, UNKNOWN, CHECK = (
    "pure", "load", "write", "call", "alloc", "region", "terminator", "unknown", "check")
CALL_OPS = ("func.call", "func.call_indirect")
OTHER_WRITE_OPS = ("memref.dealloc", "memref.copy")
TERMINATORS = ("affine.yield", "scf.yield", "scf.condition", "func.return")
# Region ops that may move as a whole: they always terminate and have no effect of their own.
HOISTABLE_REGION_OPS = ("affine.for", "affine.if", "affine.parallel", "scf.for", "scf.if")
def op_kind(op: ir.Operation) -> str:
    """Which motion rule applies to `op`: pure, load, write, call, alloc, region, terminator
    or unknown."""
    name = op.name
    if name in TERMINATORS:
        return TERMINATOR
    if len(op.regions):
        return REGION
    if name in READ_OPS:
        return LOAD
    if name in WRITE_OPS or name in OTHER_WRITE_OPS:
        return WRITE
    if name in CALL_OPS:
        return CALL
    if name in ALLOC_OPS:
        return ALLOC
    if is_check(op):
        return CHECK
    if is_pure_op(op):
        return PURE
    return UNKNOWN


def in_loop_defs(loop: ir.Operation) -> set:
    """The seed's in-loop-def set: every value defined inside `loop` (block arguments,
    including the induction variable and iter_args, and results of nested ops)."""
    defs: set = set()

    def visit(op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                defs.update(block.arguments)
                for child in block.operations:
                    child = mlir.operation(child)
                    defs.update(child.results)
                    visit(child)

    visit(loop)
    return defs


def operand_defined_in_loop(op: ir.Operation, defs: set) -> ir.Value | None:
    """The first operand of `op` that is defined inside the loop, or None."""
    for v in op.operands:
        if v in defs:
            return v
    return None


# ---------------------------------------------------------------- what a loop may write

@dataclass(frozen=True)
class Clobber:
    """An op in the loop that may write memory not named by its operands.

    reach "any": an unknown op, which may write every buffer.
    reach "external": a call whose callee may write memory other than its arguments (a global,
    or the callee is not visible); it may write every buffer the function did not allocate
    itself (arguments may be globals in the caller).
    """

    what: str  # e.g. "call to @g", "unknown op test.op"
    reach: str  # "any" | "external"


@dataclass
class LoopFacts:
    """What decides whether a load may leave `loop`."""

    runs_at_least_once: bool
    writes: list[AccessPattern] = field(default_factory=list)  # whole-buffer for calls/unknown ops
    clobbers: list[Clobber] = field(default_factory=list)
    n_outer: int = 0  # loops around `loop`: the same iteration for a hoisted load and the writes
    written: dict = field(default_factory=dict)  # buffer key -> WrittenElements (built on first use)
    untraced_write: AccessPattern | None = field(init=False, default=None)  # may write any buffer

    def __post_init__(self):
        self.untraced_write = next((w for w in self.writes if w.key is UNTRACED), None)


def _own_memory(root: ir.Value, args: set) -> bool:
    """A buffer a callee may write without touching the caller's other memory: one of its
    arguments or a buffer it allocates itself."""
    return root in args or is_placed(root)


def callee_writes_only_arguments(call: ir.Operation, funcs: dict, seen: frozenset = frozenset()) -> bool:
    """True iff the callee is defined in the module and writes memory only through its
    arguments (or buffers it allocates): every store, dealloc and copy target has such a root,
    it has no unknown op, and each call it makes passes only such buffers to a callee with the
    same property. Reading globals is fine."""
    name = callee_name(call) if call.name == "func.call" else None
    if name is None:
        return False
    if name in seen:
        return True  # a recursive cycle writes nothing the rest of the cycle does not
    fn = funcs.get(name)
    body = mlir.func_body(fn) if fn is not None else None
    if body is None:
        return False
    args = set(body.arguments)
    for op in mlir.walk(fn):
        kind = op_kind(op)
        if kind == UNKNOWN or (kind == REGION and op.name not in REGION_OPS):
            return False
        if kind == WRITE:
            e = op_effects(op)
            if e.unknown or not all(_own_memory(e.values[k], args) for k in e.writes):
                return False
        if kind == CALL:
            passed = [alias_root(v) for v in op.operands if mlir.memref_type(v) is not None]
            if not all(_own_memory(r, args) for r in passed):
                return False
            if not callee_writes_only_arguments(op, funcs, seen | {name}):
                return False
    return True


def loop_clobbers(loop: ir.Operation, funcs: dict) -> list[Clobber]:
    """Calls and unknown ops inside `loop` that may write memory beyond their operands."""
    out = []
    for op in mlir.walk(loop):
        kind = op_kind(op)
        if kind == CALL:
            if not callee_writes_only_arguments(op, funcs):
                out.append(Clobber(callee_text(op), "external"))
        elif kind == UNKNOWN or (kind == REGION and op.name not in REGION_OPS):
            out.append(Clobber(f"unknown op {op.name}", "any"))
    return out


def provably_runs(loop: ir.Operation, scope: Scope) -> bool:
    """`runs_at_least_once`, with False when the bounds cannot be stated in isl."""
    try:
        return runs_at_least_once(loop, scope)
    except isl.Error:
        return False


def loop_facts(loop: ir.Operation, scope: Scope, funcs: dict) -> LoopFacts:
    writes = [a for a in collect_accesses(loop, scope) if a.is_write]
    return LoopFacts(provably_runs(loop, scope), writes, loop_clobbers(loop, funcs),
                     len(domain_loops(loop, scope)))


# ---------------------------------------------------------------- the load test



def load_outside(load: ir.Operation, loop: ir.Operation, scope: Scope) -> AccessPattern:
    """The load's access once its op (or the region op holding it) sits just before `loop`:
    enclosed by loop's outer loops and by the loops between `loop` and the load."""
    loops = tuple(domain_loops(loop, scope)) + tuple(domain_loops(load, scope, loop))
    return replace(access_pattern(load, scope), loops=loops)


def write_may_touch(load: AccessPattern, write: AccessPattern, scope: Scope) -> bool:
    """True iff some iteration of `write` (any iteration of the loop, same outer iterations)
    may store to the element `load` reads. Non-affine indices touch every element."""
    if not may_alias(load, write):
        return False
    # The loops around `loop` are the same iteration for both; their bounds are dropped (a
    # sound over-approximation) so that deep nests stay cheap for isl.
    pair = instance_pair(load, write, scope, constrain_fixed=False)
    try:
        return not pair_set(pair).is_empty()
    except isl.Error:  # isl cannot state it: assume the worst
        return True


def _writer_text(write: AccessPattern) -> str:
    op = write.op
    if op.name in WRITE_OPS:
        memref = op.operands[WRITE_OPS[op.name]]
        if alias_root(memref) != memref:
            owner, _ = mlir.value_owner(memref)
            return f"{op.name} through {owner.name}"
        return op.name
    return callee_text(op) if op.name in CALL_OPS else op.name


@dataclass
class WrittenElements:
    """The elements of one buffer that some iteration of the loop may write, as one isl set over
    the buffer's coordinates with the loops around the loop as parameters (a union over the
    buffer's writes, so a load is tested once, not once per write). `exact` is False when some
    write's elements cannot be compared coordinate-wise (unknown index, another rank, a
    different root in an argument alias class): then the whole buffer counts as written."""

    writes: list[AccessPattern]
    exact: bool
    elements: isl.Set | None = None


def _comparable(a: AccessPattern, b: AccessPattern) -> bool:
    """Coordinates of `a` and `b` name the same elements (`dependence.overlap_constraints`' rule)."""
    return (a.index is not None and b.index is not None and a.rank == b.rank and
            (a.root == b.root or root_origin(a.root) == root_origin(b.root) == "global"))


def access_elements(a: AccessPattern, n_outer: int, scope: Scope) -> isl.Set:
    """Elements `a` touches over the loops below its first `n_outer` ones (those stay
    parameters: the same iteration for every access compared)."""
    outer = [lp.name for lp in a.loops[:n_outer]]
    inner = a.loops[n_outer:]
    cons = [c for lp in inner for c in lp.constraints()]
    cons += element_constraints(a, [f"e{d}" for d in range(a.rank)])
    body = " and ".join(cons) or "true"
    if inner:
        body = f"exists ({', '.join(lp.name for lp in inner)}: {body})"
    params = sorted(scope.params) + outer
    return isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(f'e{d}' for d in range(a.rank))}] : {body} }}")


def written_elements(facts: LoopFacts, key, scope: Scope) -> WrittenElements | None:
    """What the loop may write of buffer `key` (None: nothing), built once per loop and buffer."""
    if key in facts.written:
        return facts.written[key]
    writes = [w for w in facts.writes if w.key == key]
    we = None
    if writes:
        exact = all(_comparable(writes[0], w) for w in writes)
        we = WrittenElements(writes, exact)
        if exact:
            try:
                we.elements = union_all(access_elements(w, facts.n_outer, scope) for w in writes).coalesce()
            except isl.Error:  # isl cannot state it: the whole buffer
                we.exact, we.elements = False, None
    facts.written[key] = we
    return we


def written_culprit(ap: AccessPattern, facts: LoopFacts, scope: Scope) -> AccessPattern | None:
    """A write of the loop that may touch the element the load `ap` reads, or None.

    Writes through an untraced memref may touch any buffer; a load through one may be touched
    by any write. Otherwise only writes of the load's buffer count, tested as one set."""
    if facts.untraced_write is not None:
        return facts.untraced_write
    if ap.key is UNTRACED:
        return facts.writes[0] if facts.writes else None
    we = written_elements(facts, ap.key, scope)
    if we is None:
        return None
    if we.exact and _comparable(we.writes[0], ap):
        try:
            if not sets_intersect(access_elements(ap, facts.n_outer, scope), we.elements):
                return None
        except isl.Error:
            pass
    # Touched (or not comparable as one set): the first write that touches the load on its own
    # names the culprit; pairwise, so only refusals and mixed buffers pay for it.
    return next((w for w in we.writes if write_may_touch(ap, w, scope)), None)


def load_reason(load: ir.Operation, loop: ir.Operation, scope: Scope, facts: LoopFacts) -> Refusal | None:
    """None if the load may leave `loop`, else why not: a write in the loop may touch what it
    reads, or the loop may run zero times. `load` may sit inside a region op being hoisted."""
    root = alias_root(load.operands[READ_OPS[load.name]])
    name = value_name(root)
    ap = load_outside(load, loop, scope)
    w = written_culprit(ap, facts, scope)
    if w is not None:
        return _refuse(Code.LICM_WRITTEN_IN_LOOP, f"{name} is written in the loop ({_writer_text(w)})")
    for c in facts.clobbers:
        if c.reach == "any" or not is_placed(root):
            return _refuse(Code.LICM_WRITTEN_IN_LOOP, f"{name} may be written by {c.what} in the loop")
    if not facts.runs_at_least_once:
        return _refuse(Code.LICM_ZERO_TRIP, "loop may run zero times")
    return None


# ---------------------------------------------------------------- whole region ops

def used_from_loop(region_op: ir.Operation, defs: set, memo: dict | None = None) -> ir.Value | None:
    """A value of the loop (in `defs`) used by `region_op` or anything nested in it, other than
    the values `region_op` defines itself; None if there is none."""
    free = summarize(region_op, {} if memo is None else memo).free
    hits = [v for v in free if v in defs]
    if not hits:
        return None
    # The first such use in program order (a deterministic remark).
    for op in [region_op, *mlir.walk_list(region_op)]:
        for v in op.operands:
            if v in hits:
                return v
    return hits[0]


@dataclass(frozen=True)
class RegionSummary:
    """What the motion rule needs to know of a region op's contents, computed once per op.

    free: values its nested ops (and it) use that are defined outside it; blocker: the first
    nested op (pre-order) that writes, calls, allocates, is unknown or has a region that may not
    move with it; loads: its nested loads, in order; traps: it or a nested op may trap."""

    free: frozenset
    blocker: str | None
    loads: tuple
    traps: bool


def _blocks_motion(o: ir.Operation) -> bool:
    kind = op_kind(o)
    return kind in (WRITE, CALL, ALLOC, UNKNOWN, CHECK) or (kind == REGION and o.name not in HOISTABLE_REGION_OPS)


def summarize(op: ir.Operation, memo: dict) -> RegionSummary:
    """The RegionSummary of `op`, built bottom-up and memoized by op (each op is read once, so
    deep nests cost linear time). Valid while nothing moves inside `op`: LICM visits loops
    innermost first, so an op is summarized only after every loop inside it was processed."""
    key = mlir.op_key(op)
    if key in memo:
        return memo[key]
    stack = [(op, False)]
    while stack:
        o, ready = stack.pop()
        k = mlir.op_key(o)
        if k in memo:
            continue
        children = [c for region in o.regions for block in region.blocks for c in mlir.block_ops(block)]
        pending = [c for c in children if len(c.regions) and mlir.op_key(c) not in memo]
        if pending and not ready:
            stack.append((o, True))
            stack.extend((c, False) for c in pending)
            continue
        free, inside, blocker, loads, traps = set(o.operands), set(), None, [], may_trap(o)
        for region in o.regions:
            for block in region.blocks:
                inside.update(block.arguments)
        for c in children:
            inside.update(c.results)
            if blocker is None and _blocks_motion(c):
                blocker = c.name
            if len(c.regions):
                sub = memo[mlir.op_key(c)]
                free |= sub.free
                blocker = blocker or sub.blocker
                loads.extend(sub.loads)
                traps = traps or sub.traps
            else:
                free.update(c.operands)
                if op_kind(c) == LOAD:
                    loads.append(c)
                traps = traps or may_trap(c)
        memo[k] = RegionSummary(frozenset(free - inside), blocker, tuple(loads), traps)
    return memo[key]


def region_reason(op: ir.Operation, loop: ir.Operation, scope: Scope, facts: "LoopFacts | _LazyFacts",
                  memo: dict | None = None) -> Refusal | None:
    """None if the region op `op` (closed over values from outside `loop`) may leave `loop`."""
    if op.name not in HOISTABLE_REGION_OPS:
        return _refuse(Code.LICM_REGION, f"{op.name} has regions")
    get = facts.get if isinstance(facts, _LazyFacts) else (lambda: facts)
    summary = summarize(op, {} if memo is None else memo)
    if summary.blocker is not None:
        return _refuse(Code.LICM_SIDE_EFFECTS, f"{op.name} contains {summary.blocker}")
    for load in summary.loads:
        reason = load_reason(load, loop, scope, get())
        if reason is not None:
            return _refuse(reason.code, f"{op.name} reads memory: {reason.detail}")
    if summary.traps and not get().runs_at_least_once:
        return _refuse(Code.LICM_MAY_TRAP, f"loop may run zero times and {op.name} may divide by zero")
    return None


# ---------------------------------------------------------------- the invariance test

class _LazyFacts:
    """LoopFacts of one loop, computed on first use (most loops never need them)."""

    def __init__(self, loop: ir.Operation, scope: Scope, funcs: dict) -> None:
        self.loop, self.scope, self.funcs, self._facts = loop, scope, funcs, None

    def get(self) -> LoopFacts:
        if self._facts is None:
            self._facts = loop_facts(self.loop, self.scope, self.funcs)
        return self._facts


def invariance_reason(op: ir.Operation, loop: ir.Operation, defs: set, scope: Scope,
                      facts: "LoopFacts | _LazyFacts", memo: dict | None = None) -> Refusal | None:
    """None iff `op` (a direct child of `loop`'s body) is invariant and may be hoisted;
    otherwise the reason it stays. `defs` is `local_defs(loop)` (or `in_loop_defs(loop)`) minus
    what was hoisted; `memo` holds region summaries (`summarize`)."""
    get = facts.get if isinstance(facts, _LazyFacts) else (lambda: facts)
    v = operand_defined_in_loop(op, defs)
    if v is not None:
        return _refuse(Code.LICM_OPERAND_IN_LOOP, f"operand {value_name(v)} is defined in the loop")
    kind = op_kind(op)
    why = check_order_reason(op, loop, scope)
    if why is not None:
        return _refuse(Code.LICM_CHECK, f"a run-time check keeps its order: {why}")
    if kind == CHECK:
        if not get().runs_at_least_once:
            return _refuse(Code.LICM_ZERO_TRIP, "loop may run zero times (the check would abort a run that never "
                           "reached it)")
        return None
    if kind == PURE:
        if may_trap(op) and not get().runs_at_least_once:
            return _refuse(Code.LICM_MAY_TRAP, f"loop may run zero times and {op.name} may divide by zero")
        return None
    if kind == LOAD:
        return load_reason(op, loop, scope, get())
    if kind == REGION:
        v = used_from_loop(op, defs, memo)
        if v is not None:
            return _refuse(Code.LICM_OPERAND_IN_LOOP, f"{op.name} uses {value_name(v)}, defined in the loop")
        return region_reason(op, loop, scope, facts, memo)
    if kind == TERMINATOR:
        return _refuse(Code.LICM_TERMINATOR, f"{op.name} ends the loop body")
    return _refuse(Code.LICM_SIDE_EFFECTS, {
        WRITE: f"{op.name} writes memory",
        CALL: f"{callee_text(op)} may have side effects",
        ALLOC: f"{op.name} allocates",
        UNKNOWN: f"unknown op {op.name} may have side effects",
    }[kind])


def check_order_reason(op: ir.Operation, loop: ir.Operation, scope: Scope) -> str | None:
    """Hoisted, `op` runs before the ops that precede it in the loop's first iteration: when it
    is a run-time check, or one of them holds one, they must not be hazards to each other
    (analysis/checks.py: a load or division the check guards, a visible write, another check's
    message). Why not, or None."""
    ops = body_ops(loop)
    before = ops[:next(k for k, o in enumerate(ops) if o == op)]
    if not (is_check(op) or any(op_effects(b).aborts for b in before)):
        return None
    return order_refusal(before, [op], scope)


def is_candidate(op: ir.Operation, defs: set, memo: dict | None = None) -> bool:
    """Ops worth testing (and a Missed remark when they stay): every operand is from outside
    the loop, and for a region op everything nested in it uses only outside values too."""
    kind = op_kind(op)
    if kind == TERMINATOR or operand_defined_in_loop(op, defs) is not None:
        return False
    return kind != REGION or used_from_loop(op, defs, memo) is None


def local_defs(loop: ir.Operation) -> set:
    """The values of `loop` that its body's ops (and ops nested in them) can use: by dominance,
    only the body's block arguments and the results of the body's own ops. It stands for
    `in_loop_defs` in every test of a body op, at the cost of the body, not of the subtree."""
    block = body_block(loop)
    defs = set(block.arguments)
    for op in block.operations:
        defs.update(op.results)
    return defs


# ---------------------------------------------------------------- the transform

def loops_innermost_first(root: ir.Operation) -> list[ir.Operation]:
    """Every affine.for nested in `root`, inner loops before the loops enclosing them."""
    out: list[ir.Operation] = []

    def visit(op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    visit(mlir.operation(child))
        if op.name == "affine.for":
            out.append(op)

    for region in root.regions:
        for block in region.blocks:
            for child in block.operations:
                visit(mlir.operation(child))
    return out


@dataclass(frozen=True)
class Hoist:
    """One op moved out of one loop."""

    op: ir.Operation
    loop: ir.Operation


def hoist_from_loop(loop: ir.Operation, scope: Scope, funcs: dict, log: RemarkLog,
                    function: str = "", filename: str = "<input>", rewriter: Rewriter | None = None,
                    memo: dict | None = None) -> list[Hoist]:
    """Move every invariant op of `loop`'s body (in program order) to just before `loop`.
    `memo` keeps region summaries across the loops of one function (innermost loops first)."""
    memo = {} if memo is None else memo
    defs = local_defs(loop)
    facts = _LazyFacts(loop, scope, funcs)
    loop_loc = None
    done: list[Hoist] = []
    for op in body_ops(loop):
        candidate = is_candidate(op, defs, memo)
        if not candidate:
            continue
        reason = invariance_reason(op, loop, defs, scope, facts, memo)
        loop_loc = loop_loc or mlir.location_of(loop, filename)
        args = {"inst": op.name, "loop": loop_loc}
        if reason is None:
            (rewriter or Rewriter()).move_before(op, loop)
            defs.difference_update(op.results)
            done.append(Hoist(op, loop))
            log.add(PASS_NAME, PASSED, HOIST_MESSAGE.format(name=op.name), function=function,
                    location=mlir.location_of(op, filename), args=args, trace=True)  # the seed's log line
        else:
            log.refused(PASS_NAME, reason, function=function, location=mlir.location_of(op, filename), args=args)
    return done


def licm_function(fn: ir.Operation, log: RemarkLog, filename: str = "<input>", funcs: dict | None = None) -> int:
    """LICM over one `func.func` (innermost loops first); returns the number of distinct ops
    moved. `funcs` maps symbol names to the module's functions (for callee summaries); by
    default it is read from the module holding `fn`."""
    if mlir.func_body(fn) is None:
        return 0
    if funcs is None:
        parent = mlir.operation(fn.parent)
        funcs = {mlir.func_name(f): f for f in mlir.block_ops(parent.regions[0].blocks[0]) if f.name == "func.func"}
    scope = Scope()
    name = mlir.func_name(fn)
    moved: set = set()
    rewriter = Rewriter()
    memo: dict = {}
    for loop in loops_innermost_first(fn):
        for h in hoist_from_loop(loop, scope, funcs, log, name, filename, rewriter, memo):
            moved.add(h.op)
    return len(moved)


def licm(module: ir.Module, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Hoist loop-invariant ops out of every affine.for of every function, in place.

    Returns the number of distinct ops moved (an op leaving two loops counts once; it gets
    one Passed remark per loop it leaves). `options` is accepted for the driver's uniform
    signature; the pass has no knobs (the driver decides whether to run it).
    """
    del options
    funcs = {mlir.func_name(f): f for f in mlir.functions(module)}
    return sum(licm_function(fn, log, filename, funcs) for fn in mlir.functions(module))


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `licm` (loopopt/pipeline.py)."""
    return licm_function(fn, ctx.log, ctx.filename)
