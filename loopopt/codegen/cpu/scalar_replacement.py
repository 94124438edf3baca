"""Scalar replacement (cpu): reductions run in registers, stored values feed later loads.

Two rewrites, both on exact addresses only (the same memref value, the same affine map, the
same index operands: the same element in every execution):

* **Store-to-load forwarding.** In one block, a load of the address a store wrote earlier in
  the same block, with no op in between that may write memory the store's buffer may occupy
  (`ends_entry`: one predicate, `Effects.may_write`, over every op, region ops by the union of
  their bodies), reads the stored value: its uses take the stored value and the load is
  erased. A store through a memref of untraced origin (an `arith.select` or `scf.if` result, a
  private function's argument fed such a value) may be to any buffer, so any write ends it.
* **Accumulator promotion.** In an `affine.for`, loads and stores directly in the body at an
  address that does not change with the loop (every index operand is defined outside it) are a
  value carried from one iteration to the next (the first of them is a load). It becomes an `iter_args` value: loaded once
  before the loop, stored once after it, each load in the body replaced by the value current at
  that point (the loop-carried one, or the latest stored one), each store dropped.

  Promotion is legal when nothing else in the loop can observe or change that element between
  iterations: the loop's effects are all modelled (no calls, no unregistered ops), the buffer
  is traced (`memory.buffer_key`), and no other access in the loop, at any depth, may touch the
  same buffer (`dependence.may_alias`; another element of the same buffer is refused too). The
  load before the loop and the store after it touch an element the loop touches, so they are
  valid whenever the loop runs once; a loop that may run zero times is promoted only when the
  same address was accessed earlier in the same block (then the element exists, and storing
  back the value just loaded changes nothing). A loop that already carries values is left alone.
  A loop with a run-time check that may fail keeps an accumulator in memory when the buffer is
  seen after an abort (its stores would move past the check) or its load may trap
  (`check_refusal`, docs/soundness.md "Run-time checks").

Every promotion and forwarding is a Passed remark of pass "scalar-replacement"; every refused
candidate a Missed remark through `RemarkLog.refused` with a `[SCALAR REPLACEMENT]` message.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ... import mlir
from ...analysis import dependence
from ...analysis.facts import Facts
from ...analysis.loops import ancestors, body_block, has_iter_args, runs_at_least_once
from ...analysis.memory import UNTRACED, alias_root, buffer_key
from ...analysis.refusal import Refusal
from ...mlir import ir
from ...options import Options
from ...remarks import PASSED, RemarkLog
from ...transforms.rewriter import Rewriter
from ...step import StepContext

PASS = "scalar-replacement"
FORWARDED = "[SCALAR REPLACEMENT] load replaced by the value stored to the same address earlier in the block"
PROMOTED = "[SCALAR REPLACEMENT] accumulator at a loop-invariant address promoted to iter_args"


class _Code:
    """Refusal reasons of promotion (they reuse refusal.Refusal with a message of their own)."""

    UNMODELLED = "[SCALAR REPLACEMENT] kept in memory: the loop has unmodelled effects"
    UNTRACED = "[SCALAR REPLACEMENT] kept in memory: the buffer is not traced and may alias any other"
    OTHER_ACCESS = "[SCALAR REPLACEMENT] kept in memory: another access in the loop may touch the buffer"
    ZERO_TRIP = "[SCALAR REPLACEMENT] kept in memory: the loop may run zero times"
    ITER_ARGS = "[SCALAR REPLACEMENT] kept in memory: the loop already carries values"
    CHECK = "[SCALAR REPLACEMENT] kept in memory: a run-time check in the loop must see its stores"


# ------------------------------------------------------------------------------- addresses

def _address(op: ir.Operation) -> tuple:
    """(memref, map, index operands) of an affine.load / affine.store: equal tuples name the
    same element in every execution."""
    pos = 1 if op.name == "affine.store" else 0
    ops = list(op.operands)
    return (ops[pos], str(op.attributes["map"]), tuple(ops[pos + 1:]))


def _same_address(a: tuple, b: tuple) -> bool:
    return a[0] == b[0] and a[1] == b[1] and len(a[2]) == len(b[2]) and all(x == y for x, y in zip(a[2], b[2]))


def _defining_op(v: ir.Value) -> ir.Operation | None:
    """The op that defines v, or for a block argument the op owning its block."""
    owner, block = mlir.value_owner(v)
    if owner is not None:
        return owner
    return mlir.operation(block.owner) if block is not None and block.owner is not None else None


def _inside(op: ir.Operation | None, loop: ir.Operation) -> bool:
    """True iff op is `loop` or nested in it."""
    if op is None:
        return False
    return op == loop or any(p == loop for p in ancestors(op))


def _invariant_in(address: tuple, loop: ir.Operation) -> bool:
    memref, _, index = address
    return all(not _inside(_defining_op(v), loop) for v in (memref, *index))


# ------------------------------------------------------------------------------ forwarding

@dataclass(frozen=True)
class StoredValue:
    """A store whose value a later load of the same address may take: its address, the store,
    and the key of the buffer it wrote (`memory.buffer_key`; UNTRACED for a memref of unknown
    origin, which may be any buffer)."""

    address: tuple
    store: ir.Operation
    key: object


def ends_entry(op: ir.Operation, entry: StoredValue, facts: Facts) -> bool:
    """True iff `op` may write memory the entry's buffer may occupy (`Effects.may_write`, with
    the effects of everything nested in a region op): then a later load may not read the stored
    value. An entry of an untraced buffer is ended by any write; a write through an untraced
    memref, or an op with unknown effects, ends every entry."""
    return facts.effects(op).may_write(entry.key)


def forward_in_block(block: ir.Block, facts: Facts, rewriter: Rewriter, log: RemarkLog, fname: str,
                     filename: str) -> int:
    """Store-to-load forwarding in one block (see the module docstring); returns loads removed."""
    count = 0
    latest: list[StoredValue] = []  # stores whose value is still what their address holds
    for op in mlir.block_ops(block):
        if op.name == "affine.load":
            addr = _address(op)
            hit = next((e.store for e in reversed(latest) if _same_address(e.address, addr)), None)
            if hit is not None and hit.operands[0].type == op.results[0].type:
                where = mlir.location_of(op, filename)
                rewriter.replace_all_uses(op.results[0], hit.operands[0])
                rewriter.erase(op)
                log.add(PASS, PASSED, FORWARDED, function=fname, location=where,
                        args={"store": mlir.location_of(hit, filename)})
                count += 1
            continue
        if latest and not facts.effects(op).pure:
            latest = [e for e in latest if not ends_entry(op, e, facts)]
        if op.name == "affine.store":
            addr = _address(op)
            latest.append(StoredValue(addr, op, buffer_key(alias_root(addr[0]))))
    return count


# ------------------------------------------------------------------------------- promotion

@dataclass
class Accumulator:
    """One promotable address of a loop: its accesses directly in the body, in program order."""

    address: tuple
    ops: list = field(default_factory=list)

    @property
    def element_type(self) -> ir.Type:
        return ir.MemRefType(self.address[0].type).element_type


def candidates(loop: ir.Operation) -> list[Accumulator]:
    """Addresses invariant in `loop` that its body directly loads and then stores (a value
    carried from one iteration to the next: the first access is a load), grouped with every
    load and store of the same address directly in the body. An address only stored to is
    left alone (it carries nothing; promoting it would only add a loop-carried value)."""
    groups: list[Accumulator] = []
    for op in mlir.block_ops(body_block(loop)):
        if op.name not in ("affine.load", "affine.store"):
            continue
        addr = _address(op)
        if not _invariant_in(addr, loop):
            continue
        g = next((g for g in groups if _same_address(g.address, addr)), None)
        if g is None:
            g = Accumulator(addr)
            groups.append(g)
        g.ops.append(op)
    return [g for g in groups if g.ops[0].name == "affine.load" and any(o.name == "affine.store" for o in g.ops)]


def _accessed_before(loop: ir.Operation, address: tuple) -> bool:
    """Some load or store of the same address precedes `loop` in its block."""
    for op in mlir.block_ops(loop.block):
        if op == loop:
            return False
        if op.name in ("affine.load", "affine.store") and _same_address(_address(op), address):
            return True
    return False


def promotion_refusal(loop: ir.Operation, acc: Accumulator, facts: Facts) -> Refusal | None:
    """None if `acc` may live in a register across the loop's iterations, else why not."""
    from ...analysis.refusal import Code

    def refusal(message: str, detail: str) -> Refusal:
        return Refusal(Code.UNMODELLED, detail, (loop,), message)

    eff = facts.effects(loop)
    if eff.unknown:
        return refusal(_Code.UNMODELLED, eff.reason)
    if eff.aborts:
        why = check_refusal(loop, acc, facts)
        if why is not None:
            return refusal(_Code.CHECK, why)
    key = buffer_key(alias_root(acc.address[0]))
    if key is UNTRACED:
        return refusal(_Code.UNTRACED, f"memref used at {mlir.location_of(acc.ops[0])}")
    mine = {mlir.op_key(o) for o in acc.ops}
    probe = next(a for a in facts.accesses(loop) if mlir.op_key(a.op) in mine)
    for a in facts.accesses(loop):
        if mlir.op_key(a.op) not in mine and dependence.may_alias(a, probe):
            return refusal(_Code.OTHER_ACCESS, f"{a.op.name} at {mlir.location_of(a.op)}")
    if has_iter_args(loop):
        return refusal(_Code.ITER_ARGS, "")
    if not runs_at_least_once(loop, facts.scope) and not _accessed_before(loop, acc.address):
        return refusal(_Code.ZERO_TRIP, "")
    return None


def check_refusal(loop: ir.Operation, acc: Accumulator, facts: Facts) -> str | None:
    """Promoted, the accumulator's stores all run after the loop and its load before it, across
    every run-time check of the loop (analysis/checks.py): refused when the loop holds a check
    that may fail and an access of the accumulator is a hazard to it (the buffer is seen after
    an abort, or the load is not proved inside the buffer). Why, or None."""
    from ...analysis.checks import checks_in, hazards

    checks = checks_in(loop)
    bad = hazards(acc.ops, facts.scope) if checks else []
    return f"{bad[0].text}, and the loop holds the check at {mlir.location_of(checks[0])}" if bad else None


def promote(loop: ir.Operation, accs: list[Accumulator], rewriter: Rewriter) -> ir.Operation:
    """Rebuild `loop` with one iter_args value per accumulator (load before, store after);
    returns the new loop. Requires promotion_refusal(...) is None for each. Every attribute
    of an accumulator's ops is read before the first of them is erased. The rebuild is one
    rewriter replacement: its listeners forget every op of the old loop before any is erased
    (a new op may take an erased op's address, and must not inherit its cached facts)."""

    def build():
        with loop.context, loop.location:
            maps = [_map_attr(acc) for acc in accs]
            before = ir.InsertionPoint(loop)
            inits = []
            for acc, amap in zip(accs, maps):
                memref, _, index = acc.address
                load = ir.Operation.create("affine.load", results=[acc.element_type], operands=[memref, *index],
                                           attributes={"map": amap}, ip=before)
                inits.append(load)
            new_op = mlir.for_with_bounds_of(loop, mlir.int_attr(loop, "step"), [x.results[0] for x in inits],
                                             before)
            block = body_block(new_op)
            old_block = body_block(loop)
            old_block.arguments[0].replace_all_uses_with(block.arguments[0])
            current = list(block.arguments[1:])
            owner = {mlir.op_key(o): k for k, acc in enumerate(accs) for o in acc.ops}
            anchor = ir.Operation.create("affine.yield", operands=current, ip=ir.InsertionPoint(block))
            for op in mlir.block_ops(old_block)[:-1]:
                k = owner.get(mlir.op_key(op))
                if k is None:
                    op.move_before(anchor)
                elif op.name == "affine.load":
                    op.results[0].replace_all_uses_with(current[k])
                    op.erase()
                else:
                    current[k] = op.operands[0]
                    op.erase()
            ir.Operation.create("affine.yield", operands=current, ip=ir.InsertionPoint(anchor))
            anchor.erase()
            after = ir.InsertionPoint(loop)
            stores = []
            for acc, amap, result in zip(accs, maps, new_op.results):
                memref, _, index = acc.address
                stores.append(ir.Operation.create("affine.store", operands=[result, memref, *index],
                                                  attributes={"map": amap}, ip=after))
        loop.erase()
        return [[*inits, new_op.operation, *stores]]

    return rewriter.replace([loop], build)[0][len(accs)]


def _map_attr(acc: Accumulator) -> ir.Attribute:
    return acc.ops[0].attributes["map"]


# ----------------------------------------------------------------------------------- driver

def scalar_replacement_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Forwarding in every loop body and the function body, then accumulator promotion in
    every affine.for, innermost first. Returns the number of promotions (accumulators moved
    into iter_args)."""
    body = mlir.func_body(fn)
    if body is None:
        return 0
    fname = mlir.func_name(fn)
    facts = Facts()
    rewriter = Rewriter(facts)
    loops = [op for op in mlir.walk(fn) if op.name == "affine.for"]
    promoted = 0
    for loop in reversed(loops):  # children before their parents
        forward_in_block(body_block(loop), facts, rewriter, log, fname, filename)
        accs = candidates(loop)
        if not accs:
            continue
        ok = []
        for acc in accs:
            r = promotion_refusal(loop, acc, facts)
            where = mlir.location_of(acc.ops[0], filename)
            if r is None:
                ok.append(acc)
            else:
                log.refused(PASS, r, function=fname, location=where, args={"loop": mlir.location_of(loop, filename)})
        if not ok:
            continue
        where = mlir.location_of(loop, filename)
        sites = [mlir.location_of(acc.ops[0], filename) for acc in ok]
        promote(loop, ok, rewriter)
        for site in sites:
            log.add(PASS, PASSED, PROMOTED, function=fname, location=site, args={"loop": where})
        promoted += len(ok)
    forward_in_block(body, facts, rewriter, log, fname, filename)
    return promoted


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `scalar-replacement` (loopopt/pipeline.py)."""
    return scalar_replacement_function(fn, ctx.options, ctx.log, ctx.filename)
