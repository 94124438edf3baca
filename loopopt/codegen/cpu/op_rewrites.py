"""Rewriting every op of one kind in place, one remark per op: the walk the exact-arithmetic steps
share (`expm1`, `remf`). Each step gives its refusal rule and its emitter; this module finds the
ops, asks the rule, replaces the op's result with what the emitter built before it, and says
which ops were kept and why."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ... import mlir
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog


def element_type(t: ir.Type) -> str:
    """The element type's text of a scalar or vector type."""
    return str(ir.VectorType(t).element_type) if isinstance(t, ir.VectorType) else str(t)


@dataclass(frozen=True)
class Emitted:
    """What an emitter built for one op: the value that stands for its result, and the Passed
    remark's message and arguments."""

    value: ir.Value
    message: str
    args: dict


@dataclass(frozen=True)
class OpRewrite:
    """One step's rule: the ops named `op_name` are rewritten by `emit` unless `refusal` gives a
    reason; `pass_name` and `kept` name the remarks (Missed: `kept` with the reason)."""

    op_name: str
    pass_name: str
    kept: str
    refusal: Callable[[ir.Operation], str | None]
    emit: Callable[[ir.Operation], Emitted]


def rewrite_each(fn: ir.Operation, rule: OpRewrite, log: RemarkLog, filename: str = "<input>") -> int:
    """Every `rule.op_name` op of `fn` that `rule.refusal` allows, replaced by `rule.emit`'s value
    (built before the op, under its location) and erased; one remark per op, Passed or Missed with
    the reason. Returns how many were rewritten."""
    fname = mlir.func_name(fn)
    count = 0
    for op in [o for o in mlir.walk(fn) if o.name == rule.op_name]:
        where = mlir.location_of(op, filename)
        why = rule.refusal(op)
        if why is not None:
            log.add(rule.pass_name, MISSED, rule.kept, function=fname, location=where, args={"detail": why})
            continue
        with op.context, op.location:
            done = rule.emit(op)
        op.results[0].replace_all_uses_with(done.value)
        op.erase()
        count += 1
        log.add(rule.pass_name, PASSED, done.message, function=fname, location=where, args=done.args)
    return count
