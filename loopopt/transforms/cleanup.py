"""Empty loops (every target): an affine.for whose body is its terminator alone and that carries
no values computes nothing; hoisting (LICM), store forwarding and dead-store removal can leave
one behind. It is erased, innermost first, so a nest that held only empty loops goes too.

Remark (pass `cleanup`): `[CLEANUP] empty loop removed` (Passed) per erased loop.
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir
from ..options import Options
from ..remarks import PASSED, RemarkLog
from .rewriter import Rewriter
from ..step import StepContext

PASS = "cleanup"
REMOVED = "[CLEANUP] empty loop removed"


def is_empty_loop(op: ir.Operation) -> bool:
    """An affine.for with no results whose body holds only its affine.yield."""
    if op.name != "affine.for" or len(op.results):
        return False
    return len(mlir.block_ops(op.regions[0].blocks[0])) == 1


def drop_empty_loops_function(fn: ir.Operation, options: Options, log: RemarkLog, filename: str = "<input>") -> int:
    """Erase every empty loop of `fn` (nests of them included); returns how many."""
    fname = mlir.func_name(fn)
    rewriter = Rewriter()
    count = 0
    for op in reversed([o for o in mlir.walk(fn) if o.name == "affine.for"]):  # children first
        if is_empty_loop(op):
            where = mlir.location_of(op, filename)
            rewriter.erase(op)
            log.add(PASS, PASSED, REMOVED, function=fname, location=where)
            count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `cleanup` (loopopt/pipeline.py)."""
    return drop_empty_loops_function(fn, ctx.options, ctx.log, ctx.filename)
