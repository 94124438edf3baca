"""Run-time checks (`cf.assert`): what a transform may do with them (docs/soundness.md, "Run-time
checks").

A check reads and writes no memory; when its condition is false the program prints the check's
message and aborts. What an aborting run shows is that it aborted, with which message, and what
it wrote before the abort to memory that outlives it: the function's arguments, globals, and any
buffer whose address leaves the function (a caller may map it to a file, or read it from a signal
handler). A buffer the function allocates and never lets escape dies unseen with the abort.

**The rule.** For every input, the transformed program must abort exactly when the original
does, with the same message, having made the same writes to visible memory, and it must not run
an op that may trap where the original would not have run it. So the order of every dynamic
instance of a check with every instance of a *hazard* is kept:

* another check with another message (which of two failing checks fires first);
* a visible effect: a write of memory that is not a private buffer (`private_buffer`), a call or
  any op with unknown effects (a write gained before the abort, or lost);
* an op that may trap: integer division or remainder by a value that may be 0 (or -1), an affine
  map dividing by a symbol (`may_trap`), or a memory access not proved inside its buffer's static
  shape over its loops' iterations (`in_bounds`; a gather indexed by loaded data, whose check is
  its guard, is one). Only this direction counts: a trap may move after a check (the original
  ran it first and trapped, or it did not trap), never before one.

Everything else (pure, non-trapping compute; loads proved in bounds; writes of private buffers)
moves freely across a check. A check never disappears; it may run earlier (hoisted out of a loop
that provably runs, or into a loop of checks of its own) only across ops that are not hazards to
it. A check whose condition a check of the same value has already asserted on every path to it
(`never_fails`) cannot abort and constrains nothing.

This module answers two questions: `order_refusal(first, second)`, why running ops of `second`
before ops of `first` they followed breaks the rule (fusion's battery, LICM, the checks step),
and `reorder_refusal(root)`, why reordering the iterations of a nest does (interchange, tiling,
distribution). Integer division and affine maps are judged by the same predicate as LICM's
speculation (`may_trap`, used there).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import islpy as isl

from .. import mlir
from ..mlir import ir
from .affine import Scope
from .effects import READ_OPS, REGION_OPS, WRITE_OPS, op_effects
from .memory import UNTRACED, escaping_use, root_origin

CHECK_OPS = frozenset({"cf.assert"})
CHECK, VISIBLE, TRAP = "check", "visible", "trap"

# Integer division and remainder are undefined for a zero divisor (and signed ones for MIN / -1).
TRAPPING_OPS = (
    "arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi", "arith.ceildivui",
    "arith.floordivsi", "index.divs", "index.divu", "index.rems", "index.remu", "index.ceildivs",
    "index.ceildivu", "index.floordivs",
)


def is_check(op: ir.Operation) -> bool:
    return op.name in CHECK_OPS


def message(check: ir.Operation) -> str:
    return ir.StringAttr(check.attributes["msg"]).value if "msg" in check.attributes else ""


def _constant_true(v: ir.Value) -> bool:
    owner, _ = mlir.value_owner(v)
    if owner is None or owner.name != "arith.constant":
        return False
    try:
        return ir.IntegerAttr(owner.attributes["value"]).value != 0
    except (ValueError, KeyError):
        return False


def never_fails(check: ir.Operation) -> bool:
    """The check cannot abort: its condition is the constant true, or a check of the same value
    runs before it on every path (an earlier op of its block, or of a block enclosing it, is a
    check of that value: that check aborted first, or the value is true)."""
    cond = check.operands[0]
    if _constant_true(cond):
        return True
    at = check
    while at is not None and at.name != "func.func":
        block_ops = mlir.block_ops(at.block)
        for op in block_ops[:block_ops.index(at)]:
            if is_check(op) and op.operands[0] == cond:
                return True
        parent = at.parent
        at = mlir.operation(parent) if parent is not None else None
    return False


def checks_in(op: ir.Operation) -> list[ir.Operation]:
    """The checks that may abort in `op` (itself included), in program order."""
    return [o for o in [op, *mlir.walk_list(op)] if is_check(o) and not never_fails(o)]


# ----------------------------------------------------------------------------- traps

def divides_by_unknown(e: ir.AffineExpr) -> bool:
    """True iff the affine expression takes `mod`, `floordiv` or `ceildiv` by anything but a
    positive constant (a semi-affine `d0 mod s0` divides by zero when the symbol is 0)."""
    if isinstance(e, (ir.AffineModExpr, ir.AffineFloorDivExpr, ir.AffineCeilDivExpr)):
        if not isinstance(e.rhs, ir.AffineConstantExpr) or e.rhs.value <= 0:
            return True
    if isinstance(e, ir.AffineBinaryExpr):
        return divides_by_unknown(e.lhs) or divides_by_unknown(e.rhs)
    return False


def integer_set_exprs(attr: ir.Attribute) -> list[ir.AffineExpr] | None:
    """The constraint expressions of an integer set (`e >= 0` / `e == 0`), or None if unreadable.
    The bindings do not expose the set of an IntegerSetAttr, so its printed form is read back as
    an affine map with the same dims and symbols."""
    m = re.fullmatch(r"affine_set<(.*?) : \((.*)\)>", str(attr), re.S)
    if m is None:
        return None
    body = re.sub(r" (>=|==) 0(?=,|$)", "", m.group(2).strip())
    try:
        amap = ir.Attribute.parse(f"affine_map<{m.group(1)} -> ({body})>", attr.context)
        return list(ir.AffineMapAttr(amap).value.results)
    except (ir.MLIRError, ValueError):
        return None


def affine_attrs_may_trap(op: ir.Operation) -> bool:
    """True iff one of the op's affine maps (affine.apply/min/max, access maps, loop bounds) or
    integer sets (affine.if conditions) divides by a value that may be zero."""
    for name in op.attributes:
        attr = op.attributes[name]
        if isinstance(attr, ir.AffineMapAttr):
            exprs = list(attr.value.results)
        elif isinstance(attr, ir.IntegerSetAttr):
            exprs = integer_set_exprs(attr)
            if exprs is None:
                return True  # a set we cannot read: assume the worst
        else:
            continue
        if any(divides_by_unknown(e) for e in exprs):
            return True
    return False


def may_trap(op: ir.Operation) -> bool:
    """The op itself (not its regions) may trap for some operand values: integer
    division/remainder whose divisor is not a constant other than 0 and -1, or an affine map or
    set that divides by a symbol (see `affine_attrs_may_trap`)."""
    if affine_attrs_may_trap(op):
        return True
    if op.name not in TRAPPING_OPS:
        return False
    owner, _ = mlir.value_owner(op.operands[1])
    if owner is None or owner.name not in ("arith.constant", "index.constant"):
        return True
    try:
        value = ir.IntegerAttr(owner.attributes["value"]).value
    except (KeyError, ValueError):
        return True
    return value in (0, -1)


def in_bounds(op: ir.Operation, scope: Scope) -> bool:
    """The load or store `op` touches only elements inside its buffer's static shape, on every
    iteration of the loops around it (isl; False when the index is not affine, the shape is
    dynamic, or isl cannot tell)."""
    from .accesses import access_pattern

    a = access_pattern(op, scope)
    mt = mlir.memref_type(a.root)
    if a.index is None or mt is None or any(s < 0 for s in mt.shape) or len(mt.shape) != len(a.index):
        return False
    names = [lp.name for lp in a.loops]
    cons = [c for lp in a.loops for c in lp.constraints()] or ["true"]
    params = ", ".join(sorted(scope.params))
    try:
        dom = isl.Set(f"[{params}] -> {{ [{', '.join(names)}] : {' and '.join(cons)} }}")
        for idx, w, size in zip(a.index, a.extents(), mt.shape):
            out = isl.Set(f"[{params}] -> {{ [{', '.join(names)}] : ({idx}) < 0 or ({idx}) + {w} > {size} }}")
            if not out.intersect(dom).is_empty():
                return False
    except isl.Error:
        return False
    return True


# ----------------------------------------------------------------------------- hazards

def private_buffer(root: ir.Value) -> bool:
    """A buffer the function allocates and never lets escape: no name reaches it from outside,
    so what it holds is never seen after an abort."""
    return root_origin(root) == "alloc" and escaping_use(root, {**READ_OPS, **WRITE_OPS}) is None


@dataclass(frozen=True)
class Hazard:
    """An op whose order with a check counts (see the module docstring)."""

    op: ir.Operation
    kind: str  # CHECK, VISIBLE or TRAP
    text: str  # what it is, for a remark

    def conflicts_with(self, check: ir.Operation, moves_before_check: bool) -> bool:
        """Whether this hazard and `check` may not swap: a check of another message; a visible
        effect; a trap only when it would move before the check."""
        if self.kind == CHECK:
            return message(self.op) != message(check)
        return self.kind == VISIBLE or moves_before_check


def op_hazard(op: ir.Operation, scope: Scope) -> Hazard | None:
    """The hazard `op` itself is (its regions aside), or None."""
    where = mlir.location_of(op)
    if is_check(op):
        return None if never_fails(op) else Hazard(op, CHECK, f'check "{message(op)}" at {where}')
    if op.name in REGION_OPS or op.name == "affine.yield":
        return Hazard(op, TRAP, f"{op.name} at {where} divides by a value that may be 0") if may_trap(op) else None
    eff = op_effects(op)
    if eff.unknown:
        return Hazard(op, VISIBLE, f"{op.name} at {where} has unknown effects")
    for k in eff.writes:
        root = eff.values.get(k)
        if k is UNTRACED or root is None or not private_buffer(root):
            return Hazard(op, VISIBLE, f"{op.name} at {where} writes memory seen after an abort")
    if may_trap(op):
        return Hazard(op, TRAP, f"{op.name} at {where} may divide by 0")
    if (op.name in READ_OPS or op.name in WRITE_OPS) and not in_bounds(op, scope):
        return Hazard(op, TRAP, f"{op.name} at {where} is not proved inside its buffer")
    if op.name == "memref.copy":  # shapes that differ at run time are undefined behaviour
        return Hazard(op, TRAP, f"{op.name} at {where} may trap")
    return None


def hazards(ops, scope: Scope) -> list[Hazard]:
    """The hazards of `ops` and everything nested in them, in program order."""
    out = []
    for top in ops:
        for op in [top, *mlir.walk_list(top)]:
            h = op_hazard(op, scope)
            if h is not None:
                out.append(h)
    return out


def order_refusal(first, second, scope: Scope) -> str | None:
    """Why running instances of the ops `second` (and what they hold) before instances of the
    ops `first` that preceded them breaks the check rule, or None. `second`'s hazards then run
    before `first`'s checks (any hazard may not), and `second`'s checks before `first`'s hazards
    (a trap may: it just no longer runs before the abort)."""
    c1 = [c for op in first for c in checks_in(op)]
    c2 = [c for op in second for c in checks_in(op)]
    if not c1 and not c2:
        return None
    if c1:
        for h in hazards(second, scope):
            c = next((c for c in c1 if h.conflicts_with(c, moves_before_check=True)), None)
            if c is not None:
                return f"{h.text} would run before the {_text(c)}"
    if c2:
        for h in hazards(first, scope):
            c = next((c for c in c2 if h.conflicts_with(c, moves_before_check=False)), None)
            if c is not None:
                return f"the {_text(c)} would run before {h.text}"
    return None


def reorder_refusal(root: ir.Operation, scope: Scope) -> str | None:
    """Why reordering the iterations and statements of the nest `root` may change what an
    aborting run shows, or None: it holds a check that may fail and a hazard to it (another
    check's message, a visible effect, a trap). With neither, every order aborts at a check of
    the one message, having written only private memory."""
    checks = checks_in(root)
    if not checks:
        return None
    for h in hazards([root], scope):
        c = next((c for c in checks if c != h.op and h.conflicts_with(c, moves_before_check=True)), None)
        if c is not None:
            return f"{h.text} keeps its order with the {_text(c)}"
    return None


def _text(check: ir.Operation) -> str:
    return f'check "{message(check)}" at {mlir.location_of(check)}'


def fusion_order_refusal(l1: ir.Operation, l2: ir.Operation, between: list[ir.Operation],
                         hoist: list[ir.Operation], scope: Scope) -> str | None:
    """Why fusing the sibling loops l1 < l2 breaks the check rule, or None. The fused loop stands
    where l1 was, `hoist` (ops between the loops that l2 needs) above it, the other ops between
    after it: l2's iterations run before l1's later ones, before the ops that stay, and the
    hoisted ops before l1 and before the ops that stayed ahead of them."""
    keys = {mlir.op_key(x) for x in hoist}
    stay = [x for x in between if mlir.op_key(x) not in keys]
    why = order_refusal([l1], [l2], scope) or order_refusal(stay, [l2], scope)
    if why is None and hoist:
        why = order_refusal([l1], hoist, scope)
        for x in hoist:
            if why is not None:
                break
            ahead = [s for s in stay if s.is_before_in_block(x)]
            why = order_refusal(ahead, [x], scope) if ahead else None
    return why
