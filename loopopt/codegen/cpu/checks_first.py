"""Run-time checks first (cpu): a loop's checks run in a loop of their own before it.

A `cf.assert` in a loop lowers to a branch to `abort()`: LLVM's loop vectorizer takes no loop
with such an exit, and the cpu plan and the register tiler leave the loop scalar. torch-mlir
puts its checks in loops (batch-norm's `1 / sqrt(var + eps)` checks each divisor, a gather
checks each index it reads). When the check rule allows it (analysis/checks.py, docs/soundness.md
"Run-time checks"), the checks of an innermost loop L and the ops that compute their conditions
run first, in a loop C with L's bounds, and L keeps the rest:

    for i { x = A[i]; c = x != 0; assert c, "m"; B[i] = 1 / x }
      ->
    for i { x = A[i]; c = x != 0; assert c, "m" }      // C: the checks, in their order
    for i { x = A[i]; B[i] = 1 / x }                   // L: no exit, it vectorizes

Rule (`checks_first_refusal`). L is an innermost `affine.for` whose body holds checks that may
fail (`checks.checks_in`; none nested deeper), and

1. their conditions' slice (the ops of L's body they use, transitively) holds only pure ops and
   loads, none with a region, and no value L carries in iter_args;
2. nothing in L may write what a load of the slice reads (so C reads what L read there), and L's
   effects are all modelled;
3. the checks may run before every other op of L (`checks.order_refusal`: no op of L is a visible
   write or a check of another message; a load the check guards, the gather, may stay after it).

Then C aborts exactly where L would have, at the same iteration and check, with the same
message; what L's other ops wrote before that point was private memory, unseen after an abort;
and when no check fails, L computes what it did.

Vector lanes (`speculatable`). When every op of the slice is safe to run for every iteration
(pure and not dividing by a value that may be 0, loads proved inside their buffer), C becomes a
conjunction of the conditions, which vectorizes (`andi` is exact in any order), and the checks
run, in order, only when it is false:

    %ok = for i iter_args(%a = true) { x = A[i]; c = x != 0; yield %a and c }
    scf.if (%ok is false) { C }          // aborts at the first failing check, as L would

Remarks (pass `checks-first`): Passed `[CHECKS FIRST] ...` per loop, Missed `[STOP CHECKS FIRST]`
with the reason per loop left as is.
"""
from __future__ import annotations

from ... import mlir
from ...analysis import dependence
from ...analysis.accesses import access_pattern
from ...analysis.affine import Scope
from ...analysis.checks import checks_in, in_bounds, is_check, may_trap, order_refusal
from ...analysis.effects import READ_OPS, op_effects
from ...analysis.loops import body_block, body_ops, nested_in
from ...analysis.vectorization import is_innermost
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext

PASS = "checks-first"
MOVED = "[CHECKS FIRST] the loop's run-time checks run first, in a loop of their own"
REFUSED = "[STOP CHECKS FIRST] the loop's run-time checks stay in it"
SLICE_OPS = frozenset({"affine.load", "memref.load"})


def condition_slice(loop: ir.Operation, checks: list[ir.Operation]) -> tuple[list[ir.Operation], str | None]:
    """The ops of `loop`'s body that the checks' conditions use, transitively, in program order;
    or ([], why) when one is not a pure op or load directly in the body, or a value the loop
    carries is used."""
    block = body_block(loop)
    iv, carried = block.arguments[0], list(block.arguments)[1:]
    chosen: dict = {}
    work = [c.operands[0] for c in checks]
    while work:
        v = work.pop()
        owner, _ = mlir.value_owner(v)
        if owner is None:
            if v in carried:
                return [], "a condition uses a value the loop carries"
            continue  # the IV, or a value from outside the loop
        if not nested_in(owner, loop) or mlir.op_key(owner) in chosen:
            continue
        if mlir.operation(owner.parent) != loop or owner.regions:
            return [], f"a condition uses {owner.name} at {mlir.location_of(owner)}, nested in a region"
        if not (owner.name in SLICE_OPS or (owner.name.startswith(("arith.", "math.", "index."))
                                             or owner.name == "affine.apply")):
            return [], f"a condition uses {owner.name} at {mlir.location_of(owner)}"
        chosen[mlir.op_key(owner)] = owner
        work.extend(owner.operands)
    del iv
    return [o for o in body_ops(loop) if mlir.op_key(o) in chosen], None


def written_by_loop(loop: ir.Operation, loads: list[ir.Operation], scope: Scope) -> str | None:
    """A write of `loop` that may touch what one of `loads` reads, as a reason, or None."""
    from ...analysis.accesses import collect_accesses

    writes = [a for a in collect_accesses(loop, scope) if a.is_write]
    for ld in loads:
        a = access_pattern(ld, scope)
        for w in writes:
            if dependence.may_alias(a, w):
                return f"{w.op.name} at {mlir.location_of(w.op)} may write what {ld.name} at {mlir.location_of(ld)} reads"
    return None


def checks_first_refusal(loop: ir.Operation, scope: Scope) -> tuple[list, list, str | None]:
    """(checks, slice, None) when `loop`'s checks may run first (see the module docstring), else
    (checks, [], why). No checks: ([], [], None)."""
    checks = [c for c in body_ops(loop) if is_check(c) and checks_in(c)]
    if not checks:
        return [], [], None
    if not is_innermost(loop):
        return checks, [], "the loop holds other loops"
    eff = op_effects(loop)
    if eff.unknown:
        return checks, [], eff.reason
    nested = [c for o in body_ops(loop) if o.regions for c in checks_in(o)]
    if nested:
        return checks, [], f"the check at {mlir.location_of(nested[0])} is nested in a region of the loop"
    slice_ops, why = condition_slice(loop, checks)
    if why is not None:
        return checks, [], why
    why = written_by_loop(loop, [o for o in slice_ops if o.name in READ_OPS], scope)
    if why is not None:
        return checks, [], why
    rest = [o for o in body_ops(loop) if not is_check(o)]
    why = order_refusal(rest, checks, scope)
    if why is not None:
        return checks, [], why
    return checks, slice_ops, None


def speculatable(slice_ops: list[ir.Operation], scope: Scope) -> bool:
    """Every op of the slice may run for every iteration: no division by a value that may be 0,
    every load proved inside its buffer."""
    return all(not may_trap(o) and (o.name not in READ_OPS or in_bounds(o, scope)) for o in slice_ops)


def _clone_body(ops: list[ir.Operation], rename: dict, ip: ir.InsertionPoint) -> None:
    """Clone `ops` at `ip`, operands renamed through `rename` (which learns the clones' results)."""
    for op in ops:
        new = mlir.operation(op.clone(ip=ip))
        for n, v in enumerate(op.operands):
            w = rename.get(v)
            if w is not None:
                new.operands[n] = w
        for old, made in zip(op.results, new.results):
            rename[old] = made


def _yield(values: list, ip: ir.InsertionPoint) -> None:
    ir.Operation.create("affine.yield", operands=values, ip=ip)


def check_loop(loop: ir.Operation, ordered: list[ir.Operation], ip: ir.InsertionPoint) -> ir.Operation:
    """C at `ip`: `loop`'s bounds, the slice and the checks (`ordered`, in program order)."""
    c = mlir.for_with_bounds_of(loop, mlir.int_attr(loop, "step"), [], ip)
    rename = {body_block(loop).arguments[0]: body_block(c).arguments[0]}
    end = ir.InsertionPoint(body_block(c))
    _clone_body(ordered, rename, end)
    _yield([], end)
    return c


def conjunction_loop(loop: ir.Operation, slice_ops: list[ir.Operation], checks: list[ir.Operation],
                     ip: ir.InsertionPoint) -> ir.Value:
    """At `ip`: `true` and a loop with `loop`'s bounds carrying the conjunction of every
    iteration's conditions; returns the loop's result."""
    i1 = ir.IntegerType.get_signless(1)
    true = ir.Operation.create("arith.constant", results=[i1], attributes={"value": ir.IntegerAttr.get(i1, 1)},
                               ip=ip).results[0]
    red = mlir.for_with_bounds_of(loop, mlir.int_attr(loop, "step"), [true], ip)
    block = body_block(red)
    rename = {body_block(loop).arguments[0]: block.arguments[0]}
    end = ir.InsertionPoint(block)
    _clone_body(slice_ops, rename, end)
    conds = [rename.get(c.operands[0], c.operands[0]) for c in checks]
    every = conds[0]
    for cond in conds[1:]:  # this iteration's conditions first: the carried value sees one andi (a reduction)
        every = ir.Operation.create("arith.andi", results=[i1], operands=[every, cond], ip=end).results[0]
    acc = ir.Operation.create("arith.andi", results=[i1], operands=[block.arguments[1], every], ip=end).results[0]
    _yield([acc], end)
    return red.results[0]


def checks_first(loop: ir.Operation, checks: list[ir.Operation], slice_ops: list[ir.Operation],
                 lanes: bool) -> None:
    """Rewrite (checks_first_refusal(loop) allowed it): C before `loop` (inside `scf.if` after the
    conjunction with `lanes`), the checks erased from `loop` and the slice ops only they used."""
    ordered = [o for o in body_ops(loop) if o in slice_ops or any(o == c for c in checks)]
    ip = ir.InsertionPoint(loop)
    with loop.context, loop.location:
        if lanes:
            ok = conjunction_loop(loop, slice_ops, checks, ip)
            i1 = ir.IntegerType.get_signless(1)
            true = ir.Operation.create("arith.constant", results=[i1],
                                       attributes={"value": ir.IntegerAttr.get(i1, 1)}, ip=ip).results[0]
            failed = ir.Operation.create("arith.xori", results=[i1], operands=[ok, true], ip=ip).results[0]
            guard = ir.Operation.create("scf.if", results=[], operands=[failed], regions=2, ip=ip)
            then = guard.regions[0].blocks.append()
            inside = ir.InsertionPoint(then)
            check_loop(loop, ordered, inside)
            ir.Operation.create("scf.yield", operands=[], ip=inside)
        else:
            check_loop(loop, ordered, ip)
    for c in checks:
        c.erase()
    for op in reversed(slice_ops):  # erase what only the checks used, consumers first
        if all(next(iter(r.uses), None) is None for r in op.results):
            op.erase()


def checks_first_function(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Every innermost loop of `fn` whose checks may run first; returns how many loops."""
    if mlir.func_body(fn) is None:
        return 0
    fname = mlir.func_name(fn)
    scope = Scope()
    count = 0
    for loop in [o for o in mlir.walk(fn) if o.name == "affine.for"]:
        checks, slice_ops, why = checks_first_refusal(loop, scope)
        if not checks:
            continue
        where = mlir.location_of(loop, filename)
        if why is not None:
            log.add(PASS, MISSED, REFUSED, function=fname, location=where, args={"detail": why})
            continue
        lanes = speculatable(slice_ops, scope)
        checks_first(loop, checks, slice_ops, lanes)
        count += 1
        form = ("a conjunction of the conditions in vector lanes, the checks in order when it is false"
                if lanes else "the checks in order (a condition may trap: not run ahead)")
        log.add(PASS, PASSED, f"{MOVED}: {len(checks)} check{'s' if len(checks) != 1 else ''}, {form}",
                function=fname, location=where, args={"checks": len(checks), "lanes": lanes})
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `checks-first` (loopopt/pipeline.py)."""
    return checks_first_function(fn, ctx.log, ctx.filename)
