"""Rows and columns as one loop for every innermost loop (cpu, step `flat-loops`): an innermost
affine.for P over W columns alone in a loop H over rows, where every access that moves with
either indexes the last two dimensions of a contiguous H x W buffer by (h, w), runs as one loop
of H x W iterations through views joining those two dimensions (`flat_rows.flatten_pair`, the
same rule as the register tile's flat rows: `flat_rows.flat_pair_refusal`), whatever W is.

An elementwise op over an NCHW map of 28 x 28 (a squeeze-excitation's scale, a batch norm, a
residual add left in a nest of its own) otherwise runs 28-iteration loops: LLVM vectorizes each
by 8 with a scalar remainder of 4 and tests the operands' overlap again per row. As one loop of
784 it runs whole vectors (paired, 8x256x28x28 f32 `o = x * s[c]`: 0.17x the time of the two loops).
A row of whole vectors is joined too (docs/cpu_codegen.md section 41): LLVM's full unroll takes a
short loop of W columns whole (32 x 32 maps), and its loop vectorizer then runs the rows loop in
vectors across rows, each access a gather or scatter of 16 rows (GroupNorm(32, 256)'s affine
output over 1x256x32x32: 86% of the kernel's time); as one loop of H x W the columns stay the
vector loop. Iteration (h, w) is iteration h * W + w of the flat loop, in the same order, on the
same elements: bit-exact. Loops that carry values (a reduction's iter_args) are left as they are.

Remarks (pass `flat-loops`): `[FLAT LOOPS] the loops over H rows and W columns run as one loop of
H x W columns through a view joining the buffers' last two dimensions` per flattened pair; named
in --passes, `[STOP FLAT LOOPS] why` for a pair whose accesses index (h, w)
but which the rule refuses.
"""
from __future__ import annotations

from ... import mlir
from ...analysis.loops import body_block, constant_bounds
from ...mlir import ir
from ...remarks import MISSED, PASSED, RemarkLog
from ...step import StepContext
from .flat_rows import flat_pair_refusal, flatten_pair, pair_indexed
from .plan.cpu_plan import element_bits, innermost_loops

PASS = "flat-loops"
FLAT = "[FLAT LOOPS] the loops over {h} rows and {w} columns run as one loop of {n} columns through a view joining the buffers' last two dimensions"
STOP = "[STOP FLAT LOOPS] {why}"


def columns_loop(p: ir.Operation, width: int) -> bool:
    """P runs from 0 by 1 to a constant, and a vector holds more than one element."""
    b = constant_bounds(p)
    return b is not None and b[0] == 0 and mlir.int_attr(p, "step") == 1 and width > 1


def flat_loops_function(fn: ir.Operation, options, log: RemarkLog, filename: str = "<input>",
                        report_refusals: bool = False) -> int:
    """Flatten every (rows, columns) pair of innermost loops the rule takes; returns how many."""
    count = 0
    fname = mlir.func_name(fn)
    for p in [lp for lp in innermost_loops(fn) if not len(lp.results)]:
        h = mlir.operation(p.parent)
        if h.name != "affine.for":
            continue
        width = max(1, options.plan_vector_bits // element_bits(p))
        rows = constant_bounds(h)
        if rows is None or rows[1] < 2 or not columns_loop(p, width) or not pair_indexed(p):
            continue  # one row: nothing to join
        where = mlir.location_of(p, filename)
        why = flat_pair_refusal(p, width, whole_rows=True)
        if why is not None:
            if report_refusals:
                log.add(PASS, MISSED, STOP.format(why=why), function=fname, location=where)
            continue
        rows, cols = constant_bounds(h)[1], constant_bounds(p)[1]
        n = flatten_pair(p)
        log.add(PASS, PASSED, FLAT.format(h=rows, w=cols, n=n), function=fname, location=where,
                args={"rows": rows, "columns": cols})
        count += 1
    return count


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `flat-loops` (loopopt/pipeline.py)."""
    with fn.context:
        return flat_loops_function(fn, ctx.options, ctx.log, ctx.filename, report_refusals=ctx.explicit)
