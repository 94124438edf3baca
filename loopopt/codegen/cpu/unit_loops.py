"""Loops of one iteration replaced by their bodies, in every nest, before the cpu's planning steps.

Rule. Every `affine.for` with single constant bounds whose range holds exactly one iteration
(`transforms/unit_loops.runs_once`: `0 < ub - lb <= step`), carrying values or not, is replaced
by its body: the induction variable by `arith.constant lb` (one per value, at the start of the
function), each carried value's block argument
by its init, each result by the value yielded for it (`promote_unit_loop`); the constant is then written into every affine map that takes it as a
dimension operand (`fold_constant_operand`: an index reads as a constant, an inner loop's bound
of the counter as a constant bound). Exact: the body runs
once with exactly those values, the same ops in the same order.

Why: a copy nest whose innermost loops run once (torch.einsum's output permutation,
`[0, 1, 4, 2, 3]` of 4x256x1x1x256) leaves the elementwise work fused into it in the loop around
them, not innermost, where no vectorizer looks and no remark names it. Without them that loop is
innermost and `vectorize` (or LLVM) takes it. The register tile's own `drop_unit_loops` did this
only in nests that carry values (a 1x1 convolution's kernel loops); it stays for pipelines given
to --passes without this step.

Where (loopopt/pipeline.py): after `untile` (a strip-mined loop whose tile loop runs once is
made flat there first) and after `isolate-products` (which splits a batch loop of one into a
product's nest and the rest: without that loop it would have to split the channel loop the
product shares with other work, and refuses), before `pack-operands` and every later cpu step,
which then see the simplified nest. Innermost first, so a unit loop in a unit loop goes too.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.loops import constant_bounds, parent_op
from ...mlir import ir
from ...remarks import PASSED, RemarkLog
from ...step import StepContext
from ...transforms.unit_loops import fold_constant_operand, promote_unit_loop, runs_once

PASS = "unit-loops"
UNIT = "[UNIT LOOP]"


def _has_loop(op: ir.Operation) -> bool:
    return any(o.name == "affine.for" for o in mlir.walk(op))


def _index_constant(fn: ir.Operation, value: int, made: dict[int, ir.Value]) -> ir.Value:
    """`arith.constant value : index` at the start of `fn`'s body, one per value (the induction
    variables replaced; at the top, nothing hoists them later)."""
    if value not in made:
        body = mlir.func_body(fn)
        first = mlir.block_ops(body)[0]
        with fn.context, fn.location:
            made[value] = ir.Operation.create("arith.constant", results=[ir.IndexType.get()],
                                              attributes={"value": ir.IntegerAttr.get(ir.IndexType.get(), value)},
                                              ip=ir.InsertionPoint(first)).result
    return made[value]


def drop_unit_loops_everywhere(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Replace every loop of one iteration of `fn` by its body, innermost first; one remark with
    the count (and how many loops around them became innermost). Returns the count."""
    if mlir.func_body(fn) is None:
        return 0
    loops = [o for o in mlir.walk(fn) if o.name == "affine.for"]
    unit = [o for o in reversed(loops) if runs_once(o)]
    if not unit:
        return 0
    where = mlir.location_of(unit[-1], filename)  # the outermost one's, the first in the text
    parents = {}
    for op in unit:
        p = parent_op(op)
        if p is not None and p.name == "affine.for":
            parents[mlir.op_key(p)] = p
    gone = {mlir.op_key(o) for o in unit}
    constants: dict[int, ir.Value] = {}
    for op in unit:
        promote_unit_loop(op, _index_constant(fn, constant_bounds(op)[0], constants))
    for lb, iv in constants.items():
        fold_constant_operand(iv, lb)
    innermost = sum(1 for k, p in parents.items() if k not in gone and not _has_loop(p))
    n = len(unit)
    text = (f"{UNIT} {n} loop{'s' if n > 1 else ''} of one iteration replaced by {'their bodies' if n > 1 else 'its body'}"
            + (f"; {innermost} loop{'s' if innermost > 1 else ''} around them now innermost" if innermost else ""))
    log.add(PASS, PASSED, text, function=mlir.func_name(fn), location=where,
            args={"loops": n, "innermost": innermost})
    return n


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `unit-loops` (loopopt/pipeline.py)."""
    return drop_unit_loops_everywhere(fn, ctx.log, ctx.filename)
