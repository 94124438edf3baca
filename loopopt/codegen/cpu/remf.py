"""arith.remf on f32 computed exactly in ops that vectorize (cpu).

MLIR lowers `arith.remf` to LLVM's `frem`, which LLVM turns into one call to libm's `fmodf` per
element, even in a loop it vectorizes (8 scalar calls per vector). fmod is exact in IEEE arithmetic:
fmod(x, y) = x - trunc(x / y) * y is always representable. This step writes every f32 `arith.remf`
(scalar or vector) as a reduction by multiples of |y| in arith/math ops that each have one vector
instruction, bit for bit C's `fmodf` on every input (docs/cpu_codegen.md section 78):

    a = |x|,  b = |y|
    for j = J down to 0:                  b_j = b * 2^(24 j), exact or inf (b_0 = b)
        q = floor(a / b_j)                 a < b_j * 2^24 before the step: q is floor(a / b_j) or one more
        r = fma(q, -b_j, a)                exact: the true value is a mod b_j or that minus b_j, both representable
        r = r < 0 ? r + b_j : r            a mod b_j, exactly
        a = q == 0 ? a : r                 (b_j = inf: q = 0, and q * b_j would be NaN)
    fmod = copysign(a, x)
    fmod = t / t where x is NaN or inf, y is NaN or 0; t = (x is NaN ? x : x * y)   glibc's (x*y)/(x*y)

Each step keeps a mod b unchanged (b_j is a multiple of b), and leaves a < b_j: after the step
j = 0, a = |x| mod |y|. J = 11 covers every pair (|x| < 2^128, |y| >= 2^-149: the first quotient is
below 2^13). With a constant divisor the steps where b_j overflows are dropped (they leave a as it
is), and with them the `q == 0` selects: 6 steps for |y| = 1.5 or 0.1. The new ops carry no
fast-math flags (a contraction or reassociation would lose the exactness).

f64 keeps the libm call: the same reduction needs 40 steps of 53 bits (exponents 2^-1074 ..
2^1024), dearer than fmod's own loop. A scalar remf outside every loop keeps the call too: nothing
vectorizes it, and one call costs less than 12 steps.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import mlir
from ...analysis.liveness import ancestor_in
from ...analysis.loops import ancestors
from ...mlir import ir
from ...remarks import RemarkLog
from ...step import StepContext
from .math.math_approx import IROps
from .op_rewrites import Emitted, OpRewrite, element_type, rewrite_each
from .plan.constant_copies import constant_global, enclosing_module
from .powers import constant_value

PASS = "remf"
REWRITTEN = "[REMF] arith.remf computed exactly by a reduction in vector ops (C's fmodf, bit for bit)"
KEPT = "[STOP REMF] arith.remf kept: a libm fmod call per element"
STEP_BITS = 24  # quotient bits one step takes: q < 2^24 is an exact integer in f32
LEVELS = 12  # steps of a variable divisor: 24 * 11 + 24 > 128 + 149 binades
LOOPS = ("affine.for", "scf.for", "scf.while", "scf.parallel", "affine.parallel")


@dataclass(frozen=True)
class Level:
    """One reduction step: a mod b_j with b_j = |y| * 2^(24 j)."""

    j: int
    divisor: float | None  # b_j when the divisor is a constant (finite), None when it is computed


def remf_refusal(op: ir.Operation) -> str | None:
    """Why `op` (an arith.remf) keeps its libm call, or None."""
    elem = element_type(op.results[0].type)
    if elem == "f64":
        return ("f64: an exact reduction takes 40 steps of 53 quotient bits (exponents 2^-1074 .. 2^1024), "
                "dearer than the call")
    if elem != "f32":
        return f"element type {elem}: only f32 is rewritten"
    if not isinstance(op.results[0].type, ir.VectorType) and not any(p.name in LOOPS for p in ancestors(op)):
        return "a scalar outside every loop: nothing would vectorize it, and one call costs less than the steps"
    return None


def levels(divisor: float | None) -> list[Level]:
    """The steps, largest b_j first. A constant divisor (finite, nonzero) drops the steps whose
    b_j = |y| 2^(24 j) overflows (a < 2^128 <= b_j: the step leaves a as it is) and gives each
    step its b_j; any other divisor takes all LEVELS steps, b_j computed."""
    if divisor is None or not np.isfinite(divisor) or divisor == 0:
        return [Level(j, None) for j in reversed(range(LEVELS))]
    b = float(abs(np.float32(divisor)))
    out = []
    for j in range(LEVELS):
        bj = b * 2.0 ** (STEP_BITS * j)  # exact in a double
        if bj >= 2.0 ** 128:  # overflows f32
            break
        out.append(Level(j, bj))
    return list(reversed(out))


def constant_divisor(v: ir.Value) -> float | None:
    """The divisor's value up to its sign when it is known at compile time, else None: an f32
    constant (scalar or splat), its absf or negf, or a load from a `constant` memref.global
    holding one splat value (a torch scalar as a 0-d tensor)."""
    owner, _ = mlir.value_owner(v)
    if owner is not None and owner.name in ("math.absf", "arith.negf"):
        return constant_divisor(owner.operands[0])
    if owner is not None and owner.name in ("affine.load", "memref.load"):
        known = _global_splat(owner.operands[0])
        return known if known is not None else _stored_constant(owner)
    value = constant_value(v)
    return float(value) if isinstance(value, float) else None


def _stored_constant(load: ir.Operation) -> float | None:
    """The value a load from a rank-0 memref.alloc reads when every store to the buffer is an op
    of the alloc's block B (straight-line: none in a loop or a branch), nothing but its loads, those
    stores and its dealloc uses it, and the last store before the load's ancestor in B stores a
    constant: the load reads that constant (torch's |b| of a number b, computed into a 0-d
    tensor; bufferization reuses the buffer for the next number). Else None."""
    buf = load.operands[0]
    owner, _ = mlir.value_owner(buf)
    if owner is None or owner.name not in ("memref.alloc", "memref.alloca") or ir.MemRefType(buf.type).rank != 0:
        return None
    stores = []
    for use in buf.uses:
        user = mlir.operation(use.owner)
        if user.name in ("affine.load", "memref.load", "memref.dealloc"):
            continue
        if user.name in ("affine.store", "memref.store") and use.operand_number == 1:
            stores.append(user)
            continue
        return None
    block = owner.block
    if not stores or any(st.block != block for st in stores):
        return None
    at = ancestor_in(load, block)
    keys, last = {mlir.op_key(st) for st in stores}, None
    for op in mlir.block_ops(block) if at is not None else ():
        if mlir.op_key(op) == mlir.op_key(at):
            break
        if mlir.op_key(op) in keys:
            last = op
    if last is None:
        return None
    value = constant_value(last.operands[0])
    return float(value) if isinstance(value, float) else None


def _global_splat(memref: ir.Value) -> float | None:
    """The one float value of a `constant` memref.global with a splat initial value that
    `memref` (a memref.get_global) reads, else None."""
    owner, _ = mlir.value_owner(memref)
    if owner is None or owner.name != "memref.get_global":
        return None
    top = owner
    while top.parent is not None and top.parent.name != "builtin.module":
        top = mlir.operation(top.parent)
    module_op = enclosing_module(top)
    glob = constant_global(owner, module_op) if module_op is not None else None
    value = glob.attributes["initial_value"] if glob is not None else None
    if not isinstance(value, ir.DenseElementsAttr) or not ir.DenseElementsAttr(value).is_splat:
        return None
    splat = ir.DenseElementsAttr(value).get_splat_value()
    return splat.value if isinstance(splat, ir.FloatAttr) and str(splat.type) == "f32" else None


def _neg(b: IROps, v):
    return b._op("arith.negf", [v], b.ftype)


def _correct(b: IROps, r, nbj):
    """r + b_j where r < 0 (the quotient was one too large), else r: exact (module doc)."""
    return b.select(b.lt(r, b.f(0.0)), b.sub(r, nbj), r)


def _step(b: IROps, a, bj, nbj, guard_zero: bool):
    """One step of the module doc: a mod b_j (nbj = -b_j); with `guard_zero`, a kept where q = 0."""
    q = b.floor(b.div(a, bj))
    r = _correct(b, b.fma(q, nbj, a), nbj)
    return b.select(b.eq(q, b.f(0.0)), a, r) if guard_zero else r


def emit_remf(op: ir.Operation, const_anchor: ir.Operation, cache: dict) -> ir.Value:
    """The reduction of the module doc for `op`, before it (constants before `const_anchor`);
    returns the value that stands for op's result."""
    b = IROps(op, op.results[0].type, const_anchor, cache)
    x, y = op.operands[0], op.operands[1]
    steps = levels(constant_divisor(y))
    a = b.abs(x)
    if steps and steps[0].divisor is None:
        nb = [_neg(b, b.abs(y))]
        for _ in range(1, LEVELS):
            nb.append(b.mul(nb[-1], b.f(2.0 ** STEP_BITS)))
        for level in steps:
            a = _step(b, a, _neg(b, nb[level.j]), nb[level.j], guard_zero=True)
    else:
        for level in steps:
            a = _step(b, a, b.f(level.divisor), b.f(-level.divisor), guard_zero=False)
    result = b.copysign(a, x)
    t = b.select(b.isnan(x), x, b.mul(x, y))
    invalid = b.div(t, t)  # glibc: (x*y)/(x*y); x's own NaN where x is one (the first operand's)
    inf = b.f(float("inf"))
    result = b.select(b.eq(b.abs(y), b.f(0.0)), invalid, result)
    result = b.select(b.eq(b.abs(x), inf), invalid, result)
    unordered = b._cmpf("uno", x, y)
    return b.select(unordered, invalid, result)


def anchor_of(op: ir.Operation) -> ir.Operation:
    """Where the constants go: before the outermost loop around `op` (op itself outside loops)."""
    loops = [p for p in ancestors(op) if p.name in LOOPS]
    return loops[-1] if loops else op


def rewrite_remf(fn: ir.Operation, log: RemarkLog, filename: str = "<input>") -> int:
    """Every arith.remf in `fn` that `remf_refusal` allows, as emit_remf; one remark per op (Passed
    with the steps, or Missed with the reason). Returns how many were rewritten."""
    caches: dict = {}  # the constants before each anchor

    def emit(op: ir.Operation) -> Emitted:
        steps = len(levels(constant_divisor(op.operands[1])))
        divisor = "constant" if constant_divisor(op.operands[1]) is not None else "computed"
        anchor = anchor_of(op)
        value = emit_remf(op, anchor, caches.setdefault(mlir.op_key(anchor), {}))
        return Emitted(value, f"{REWRITTEN}: {steps} steps, the divisor {divisor}",
                       {"steps": steps, "divisor": divisor})

    return rewrite_each(fn, OpRewrite("arith.remf", PASS, KEPT, remf_refusal, emit), log, filename)


def run(fn: ir.Operation, ctx: StepContext) -> int:
    """The step `remf` (loopopt/pipeline.py)."""
    if mlir.func_body(fn) is None:
        return 0
    return rewrite_remf(fn, ctx.log, ctx.filename)
