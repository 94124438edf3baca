"""math.expm1 computed without losing a small argument's digits (cpu).

MLIR 22's convert-math-to-llvm lowers `math.expm1 %x` as `exp(x) - 1`. Near 0 the subtraction
cancels every digit exp(x) rounded away: in f32, expm1(1e-10) gives 0 and expm1(1e-7) gives
1.19e-7 (the true value is 1.00000005e-7). StableHLO's `exponential_minus_one` (JAX's `jnp.expm1`,
so `jax.nn.elu` and `jax.nn.celu`) reaches loopopt as `math.expm1`. This step writes every
`math.expm1` on f32 or f64 (scalar or vector) as Kahan's formula, in ops every lowering computes
as written:

    u = exp(x)
    expm1(x) = (u - 1) * (x / log(u))      where u is neither 1, 0-rounded nor inf
             = x                           where u == 1  (|x| below half an ulp of 1; -0 stays -0)
             = -1                          where u - 1 == -1  (x below ln(ulp(1) / 2); -inf too)
             = u                           where u == inf  (x beyond ln(MAX); +inf too)

u - 1 is exact when u is near 1 (Sterbenz), and x / log(u) corrects for the rounding of u: the
error of the result is a few ulp of the true expm1 whatever the argument (tests/test_cpu_expm1.py
measures it natively: `MAX_ULP`). A NaN goes through every branch as NaN. The new ops carry no
fast-math flags (a reassociation would undo the correction); `math.exp` and `math.log` are then
the vector steps' to plan like any other (libm calls, or polynomials with --approximate-math).
"""
from __future__ import annotations

from ... import mlir
from ...mlir import ir
from ...remarks import RemarkLog
from ...step import StepContext
from .math.math_approx import IROps
from .op_rewrites import Emitted, OpRewrite, element_type, rewrite_each

PASS = "expm1"
REWRITTEN = "[EXPM1] math.expm1 computed as (exp(x) - 1) * (x / log(exp(x))), exact near 0"
KEPT = "[STOP EXPM1] math.expm1 kept"
MAX_ULP = {"f32": 3.0, "f64": 3.0}  # measured bound the tests assert, against the true expm1
FLOAT_TYPES = ("f32", "f64")

def expm1_refusal(op: ir.Operation) -> str | None:
    """Why `op` (a math.expm1) keeps MLIR's lowering, or None."""
    elem = element_type(op.results[0].type)
    if elem not in FLOAT_TYPES:
        return f"element type {elem}: only {' and '.join(FLOAT_TYPES)} are rewritten"
    return None


def emit_expm1(op: ir.Operation) -> ir.Value:
    """Kahan's expm1 of op's operand, before `op` (module doc); returns the value."""
    b = IROps(op, op.results[0].type)
    x = op.operands[0]
    one, minus_one, inf = b.f(1.0), b.f(-1.0), b.f(float("inf"))
    u = b.call("math.exp", x)
    um1 = b.sub(u, one)
    y = b.mul(um1, b.div(x, b.call("math.log", u)))
    y = b.select(b.eq(u, one), x, y)
    y = b.select(b.eq(um1, minus_one), minus_one, y)
    return b.select(b.eq(u, inf), u, y)


def rewrite_expm1(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Every math.expm1 in `fn` that `expm1_refusal` allows, as emit_expm1; one remark per op
    (Passed, or Missed with the reason). Returns how many were rewritten."""
    rule = OpRewrite("math.expm1", PASS, KEPT, expm1_refusal,
                     lambda op: Emitted(emit_expm1(op), REWRITTEN, {"max_ulp": MAX_ULP}))
    return rewrite_each(fn, rule, log, filename)


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `expm1` (loopopt/pipeline.py)."""
    if mlir.func_body(fn) is None:
        return 0
    return rewrite_expm1(fn, ctx.log, ctx.filename)
