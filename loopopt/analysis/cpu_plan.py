"""The cpu plan: what the code generation phase does with each loop nest, as data (issue 24).

Legality, cost and plan are separate, as in LLVM's loop vectorizer (legality, cost model, VPlan):
legality comes from the dependence analysis (`vectorization.carried_dependence`, memory only) and
the stride facts (`locality.index_strides`); the plan is a frozen dataclass per nest that a
transform (transforms/vectorize.py) applies, or a `Refusal` with a code saying why not.

Vector form, chosen by measurement (docs/cpu_codegen.md): LLVM's loop vectorizer under
`mlir-runner -O3` already vectorizes our scalar innermost loops at 8 x f32 (interleaved by 4,
with a scalar epilogue and runtime alias checks) when nothing in them stops it, and explicit
`affine.vector_load/store` of the same width measured 0-9% slower on elementwise loops, equal on
polynomial math and on vector partial sums. So a plan keeps the loop scalar, in the shape LLVM
takes (`form = "llvm"`), and lists the rewrites that remove what stops LLVM:

* a math function that the lowering makes a scalar libm call (exp, log, tanh, erf): replaced by
  a polynomial of arith ops (transforms/math_approx.py) when `options.approximate_math`;
* a floating-point sum or product reduction in iter_args, which LLVM keeps in order: its
  combining op gets `fastmath<reassoc>` when `options.reassociate` (LLVM then keeps vector
  partial sums). max/min (`maximumf`, `minimumf`, `maxnumf`, `minnumf`) and integer reductions
  give the same result in any order: LLVM vectorizes them as they are, nothing to ask.

A loop is *vectorizable* when it is an innermost `affine.for` with step 1, its body holds only
loads, stores and scalar arith/math ops (no region, call or vector op), no memory dependence is
carried by it, every access is invariant in it or contiguous along its last dimension, and every
value in iter_args is a reduction (carried only through one combining op whose result only
feeds the yield). The width is `options.vector_bits` over the widest element it loads or stores.

Loop order, tiles and unroll-and-jam factors of a nest (`NestPlan.order`, `tiles`, `unroll_jam`)
are fields for the next piece (GEMM-like nests); nothing sets them yet.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .. import mlir
from ..mlir import ir
from .accesses import AccessPattern
from .affine import Scope
from .loops import body_block, body_ops, constant_trip_count
from .locality import index_strides, stride_class
from .refusal import Refusal
from .vectorization import carried_dependence, is_innermost


class Code(enum.Enum):
    """Why the cpu phase leaves an innermost loop scalar (the remark text)."""

    NOT_UNIT_STEP = "[STOP VECTORIZE] not an affine.for with step 1"
    UNSUPPORTED_OP = "[STOP VECTORIZE] an op in the loop has no vector form"
    ALREADY_VECTOR = "[STOP VECTORIZE] the loop already computes on vectors"
    CARRIED = "[STOP VECTORIZE] a memory dependence is carried by the loop"
    STRIDED = "[STOP VECTORIZE] an access is not contiguous along the loop"
    NOT_A_REDUCTION = "[STOP VECTORIZE] a value carried in iter_args is not a reduction"
    LIBM_CALL = "[STOP VECTORIZE] a math function is a scalar libm call (approximate_math is off)"
    NO_APPROXIMATION = "[STOP VECTORIZE] a math function has no vector form or approximation"
    ORDERED_REDUCTION = "[STOP VECTORIZE] a floating-point reduction is kept in order (reassociate is off)"
    SHORT = "[STOP VECTORIZE] the loop runs fewer iterations than one vector"

    @property
    def message(self) -> str:
        return self.value


# Math ops whose LLVM intrinsic has a vector instruction here (sqrt, rsqrt = 1 / sqrt, ...).
VECTOR_MATH = frozenset({"math.absf", "math.absi", "math.sqrt", "math.rsqrt", "math.fma", "math.floor", "math.ceil",
                         "math.trunc", "math.roundeven", "math.copysign", "math.ctpop"})
# Math ops the lowering turns into scalar libm calls, and those math_approx replaces.
LIBM_MATH_APPROXIMATED = frozenset({"math.exp", "math.log", "math.tanh", "math.erf"})
# Reductions LLVM vectorizes as written: any order gives the same result (maxnumf/minnumf: the
# same but for the sign of a zero result, which their semantics leave open).
EXACT_REDUCTIONS = frozenset({"arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.addi",
                              "arith.muli", "arith.andi", "arith.ori", "arith.xori", "arith.maxsi", "arith.minsi",
                              "arith.maxui", "arith.minui"})
# Reductions whose result depends on the order: vector partial sums need `reassociate`.
REASSOCIABLE_REDUCTIONS = frozenset({"arith.addf", "arith.mulf"})
ACCESS_OPS = frozenset({"affine.load", "affine.store", "memref.load", "memref.store"})
SCALAR_OPS = frozenset({"affine.apply", "affine.yield"})


@dataclass(frozen=True)
class Reduction:
    """A value carried in iter_args through one combining op (`op`, result yielded at `position`)."""

    position: int
    op: ir.Operation
    exact: bool  # the same result in any order (max/min, integers); else it needs reassociation

    @property
    def kind(self) -> str:
        return self.op.name


@dataclass(frozen=True)
class VectorPlan:
    """What the cpu phase does with one innermost loop. With a refusal, the loop stays as it is."""

    loop: ir.Operation
    width: int = 0  # vector lanes of the plan (options.vector_bits / widest element bits)
    form: str = "llvm"  # "llvm": kept scalar in the shape LLVM's loop vectorizer takes (measured)
    remainder: str = "LLVM's scalar epilogue"  # who runs the iterations that do not fill a vector
    reductions: tuple[Reduction, ...] = ()
    approximate: tuple[ir.Operation, ...] = ()  # math ops to replace by polynomials
    reassociate: tuple[Reduction, ...] = ()  # reductions whose combining op gets fastmath<reassoc>
    refusal: Refusal | None = None

    @property
    def vectorizable(self) -> bool:
        return self.refusal is None


@dataclass(frozen=True)
class NestPlan:
    """The plan of one loop nest (a loop at function level and everything in it)."""

    root: ir.Operation
    vectors: tuple[VectorPlan, ...] = ()  # one per innermost loop of the nest
    order: tuple[int, ...] | None = None  # loop order, outermost first (next piece: interchange)
    tiles: tuple[int, ...] = ()  # cache tile sizes per loop (next piece)
    unroll_jam: tuple[int, ...] = field(default=())  # register blocking factors per loop (next piece)


def _refuse(loop: ir.Operation, code: Code, detail: str, *ops) -> VectorPlan:
    return VectorPlan(loop, refusal=Refusal(code, detail, (loop, *ops)))


# ----------------------------------------------------------------------------- facts of one loop

def body_refusal(loop: ir.Operation) -> tuple[Code, str, ir.Operation] | None:
    """The first op directly in the body that LLVM cannot put in vector lanes as it stands, or
    None: only loads, stores, index arithmetic and scalar arith/math ops; math functions that are
    libm calls are judged by the caller (they may be approximated)."""
    for op in body_ops(loop):
        if op.regions:
            return Code.UNSUPPORTED_OP, f"{op.name} (control flow or a nested region)", op
        if any(isinstance(v.type, ir.VectorType) for v in [*op.operands, *op.results]):
            return Code.ALREADY_VECTOR, f"{op.name} on {_vector_type(op)}", op
        name = op.name
        if name in ACCESS_OPS or name in SCALAR_OPS or name in VECTOR_MATH or name in LIBM_MATH_APPROXIMATED:
            continue
        if name.startswith("arith."):
            continue
        if name.startswith("math."):
            return Code.NO_APPROXIMATION, f"{name} is a scalar libm call", op
        return Code.UNSUPPORTED_OP, name, op
    return None


def _vector_type(op: ir.Operation) -> str:
    return next(str(v.type) for v in [*op.operands, *op.results] if isinstance(v.type, ir.VectorType))


def access_refusal(loop: ir.Operation, accesses: list[AccessPattern], scope: Scope) -> tuple[str, ir.Operation] | None:
    """The first access that is neither invariant in `loop` nor contiguous along it (row-major,
    the last dimension's stride 1 in memory), or None."""
    from .loops import loop_dims

    (axis,) = loop_dims(loop, scope)
    for a in accesses:
        where = mlir.location_of(a.op)
        if a.index is None:
            return f"{a.op.name} at {where} touches unknown elements", a.op
        strides = index_strides(a, axis.name)
        cls = stride_class(strides)
        if cls == "invariant":
            continue
        if cls == "strided":
            shown = ", ".join("?" if s is None else str(s) for s in strides)
            return f"{a.op.name} at {where} moves by [{shown}] elements per iteration", a.op
        mt = mlir.memref_type(a.root) or mlir.memref_type(a.op.operands[1 if a.is_write else 0])
        if mt is None:
            return f"{a.op.name} at {where}: the buffer's layout is unknown", a.op
        layout, _ = mt.get_strides_and_offset()
        if layout and layout[-1] != 1:
            return f"{a.op.name} at {where}: the buffer's last dimension is not contiguous in memory", a.op
    return None


def reductions_of(loop: ir.Operation) -> tuple[list[Reduction], str | None]:
    """The reductions of `loop`'s iter_args, or (the ones found, why one value is not a reduction).

    A value is a reduction when its block argument has exactly one use, a combining op directly
    in the body (EXACT_ or REASSOCIABLE_REDUCTIONS) whose other operand does not depend on any
    carried value, and that op's result is used only by the yield, at the same position."""
    block = body_block(loop)
    carried = list(block.arguments)[1:]
    if not carried:
        return [], None
    yield_op = mlir.block_ops(block)[-1]
    found = []
    for k, arg in enumerate(carried):
        uses = list(arg.uses)
        if len(uses) != 1:
            return found, f"iter_args #{k} is used {len(uses)} times in the body"
        user = mlir.operation(uses[0].owner)
        if user.name not in EXACT_REDUCTIONS and user.name not in REASSOCIABLE_REDUCTIONS:
            return found, f"iter_args #{k} feeds {user.name}, not a reduction"
        if mlir.operation(user.parent) != loop:
            return found, f"iter_args #{k} is used inside a nested region"
        other = [v for v in user.operands if v != arg]
        if len(other) != 1 or _depends_on(other[0], set(carried), loop):
            return found, f"the other operand of {user.name} depends on a carried value"
        res_uses = list(user.results[0].uses)
        if (len(res_uses) != 1 or mlir.operation(res_uses[0].owner) != yield_op
                or res_uses[0].operand_number != k):
            return found, f"the partial result of {user.name} is used outside the yield"
        found.append(Reduction(k, user, user.name in EXACT_REDUCTIONS))
    return found, None


def _depends_on(v: ir.Value, carried: set, loop: ir.Operation) -> bool:
    """Whether `v` is computed (inside `loop`) from one of the `carried` block arguments."""
    seen = set()
    work = [v]
    while work:
        x = work.pop()
        if x in carried:
            return True
        owner, _ = mlir.value_owner(x)
        if owner is None or mlir.op_key(owner) in seen or not _inside(owner, loop):
            continue
        seen.add(mlir.op_key(owner))
        work.extend(owner.operands)
    return False


def _inside(op: ir.Operation, loop: ir.Operation) -> bool:
    p = op.parent
    while p is not None:
        p = mlir.operation(p)
        if p == loop:
            return True
        if p.name == "func.func":
            return False
        p = p.parent
    return False


def element_bits(loop: ir.Operation) -> int:
    """The widest element the loop loads or stores (32 when it touches no memory)."""
    bits = [32]
    for op in body_ops(loop):
        if op.name in ACCESS_OPS:
            v = op.results[0] if op.name.endswith("load") else op.operands[0]
            t = v.type
            if isinstance(t, (ir.IntegerType, ir.FloatType)):
                bits.append(ir.FloatType(t).width if isinstance(t, ir.FloatType) else ir.IntegerType(t).width)
            elif isinstance(t, ir.IndexType):
                bits.append(64)
    return max(bits)


# ----------------------------------------------------------------------------- the plan

def plan_loop(loop: ir.Operation, facts, options, approximate_math: bool | None = None,
              reassociate: bool | None = None) -> VectorPlan:
    """The plan of one innermost loop (see the module docstring for the rule). The switches
    default to `options.approximate_math` / `options.reassociate`."""
    approximate_math = options.approximate_math if approximate_math is None else approximate_math
    reassociate = options.reassociate if reassociate is None else reassociate
    if loop.name != "affine.for" or mlir.int_attr(loop, "step") != 1:
        return _refuse(loop, Code.NOT_UNIT_STEP, f"step {mlir.int_attr(loop, 'step')}" if loop.name == "affine.for"
                       else loop.name)
    bad = body_refusal(loop)
    if bad is not None:
        return _refuse(loop, bad[0], bad[1], bad[2])
    why = carried_dependence(loop, facts, through_iter_args=False)
    if why is not None:
        return _refuse(loop, Code.CARRIED, why.reason)
    strided = access_refusal(loop, facts.accesses(loop), facts.scope)
    if strided is not None:
        return _refuse(loop, Code.STRIDED, strided[0], strided[1])
    reds, not_red = reductions_of(loop)
    if not_red is not None:
        return _refuse(loop, Code.NOT_A_REDUCTION, not_red)
    width = max(1, options.vector_bits // element_bits(loop))
    math_ops = [op for op in body_ops(loop) if op.name in LIBM_MATH_APPROXIMATED]
    if math_ops:
        from ..transforms.math_approx import approximation_refusal

        for op in math_ops:
            why_not = approximation_refusal(op)
            if why_not is not None:
                return _refuse(loop, Code.NO_APPROXIMATION, why_not, op)
        if not approximate_math:
            return _refuse(loop, Code.LIBM_CALL, ", ".join(sorted({op.name for op in math_ops})), *math_ops)
    ordered = [r for r in reds if not r.exact]
    if ordered and not reassociate:
        return _refuse(loop, Code.ORDERED_REDUCTION, ", ".join(r.kind for r in ordered), *(r.op for r in ordered))
    trips = constant_trip_count(loop)
    if trips is not None and trips < width:
        return _refuse(loop, Code.SHORT, f"{trips} iterations, {width} lanes")
    return VectorPlan(loop, width, reductions=tuple(reds), approximate=tuple(math_ops),
                      reassociate=tuple(ordered))


def innermost_loops(root: ir.Operation) -> list[ir.Operation]:
    """The innermost affine.for loops in `root` (itself included), in program order."""
    loops = [root] if root.name == "affine.for" else []
    loops += [op for op in mlir.walk(root) if op.name == "affine.for" and op != root]
    return [lp for lp in loops if is_innermost(lp)]


def plan_function(fn: ir.Operation, facts, options, **switches) -> list[NestPlan]:
    """One NestPlan per loop nest of the function (an affine.for inside no other affine.for; it
    may sit in an scf.for or a region), each with a VectorPlan per innermost loop."""
    from .loops import enclosing_loops

    plans = []
    for op in mlir.walk(fn):
        if op.name == "affine.for" and not any(lp.name == "affine.for" for lp in enclosing_loops(op)):
            vectors = tuple(plan_loop(lp, facts, options, **switches) for lp in innermost_loops(op))
            plans.append(NestPlan(op, vectors))
    return plans

