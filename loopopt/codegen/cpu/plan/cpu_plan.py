"""The cpu plan: what the code generation phase does with each loop nest, as data (issue 24).

Legality, cost and plan are separate, as in LLVM's loop vectorizer (legality, cost model, VPlan):
legality comes from the dependence analysis (`vectorization.carried_dependence`, memory only) and
the stride facts (`locality.index_strides`); the plan is a frozen dataclass per nest that a
transform (codegen/cpu/vectorize.py) applies, or a `Refusal` with a code saying why not.

Vector form, chosen by measurement (docs/cpu_codegen.md): LLVM's loop vectorizer under
`mlir-runner -O3` already vectorizes our scalar innermost loops at 8 x f32 (interleaved by 4,
with a scalar epilogue and runtime alias checks) when nothing in them stops it, and explicit
`affine.vector_load/store` of the same width measured 0-9% slower on elementwise loops, equal on
polynomial math and on vector partial sums. So a plan keeps the loop scalar, in the shape LLVM
takes (`form = "llvm"`), and lists the rewrites that remove what stops LLVM:

* a math function that the lowering makes a scalar libm call (exp, log, tanh, erf): replaced by
  a polynomial of arith ops (codegen/cpu/math/math_approx.py) when `options.approximate_math`; with it
  off, `math.exp` on f32 is replaced by libm's own algorithm in vectorizable ops
  (codegen/cpu/math/exact_math.py, bit-exact) when `options.exact_math` (on where the host's `expf` is
  checked to be that algorithm, codegen/cpu/math/libm.py);
* a floating-point sum or product reduction in iter_args, which LLVM keeps in order: its
  combining op gets `fastmath<reassoc>` when `options.reassociate` (LLVM then keeps vector
  partial sums). max/min (`maximumf`, `minimumf`, `maxnumf`, `minnumf`) and integer reductions
  give the same result in any order: LLVM vectorizes them as they are, nothing to ask.

A loop is *vectorizable* when it is an innermost `affine.for` with step 1, its body holds only
loads, stores and scalar arith/math ops (no region, call or vector op), no memory dependence is
carried by it, every access is invariant in it or contiguous along its last dimension, and every
value in iter_args is a reduction (carried only through one combining op whose result only
feeds the yield). The width is `options.plan_vector_bits` over the widest element it loads or stores.

A nest's plan also holds its loop order (`NestPlan.order`: codegen/cpu/plan/locality.py's OrderPlan,
applied by codegen/cpu/loop_order.py) and the register tiling of each reduction nest in
it (`NestPlan.tiles`: TilePlan below, applied by codegen/cpu/register_tile.py).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

from .... import mlir
from ....analysis.accesses import AccessPattern
from ....analysis.affine import Scope, simplified
from ....analysis.effects import READ_OPS, Effects, op_effects
from ....analysis.memory import UNTRACED, buffer_key_of
from ....analysis.loops import body_block, body_ops, constant_trip_count, nested_in
from ....analysis.refusal import Refusal
from ....analysis.vectorization import carried_dependence, is_innermost
from ....mlir import ir
from .locality import index_strides, stride_class, without_unit_tail
from .vector_math import vector_access_refusal, vector_lowering_refusal


class Code(enum.Enum):
    """Why the cpu phase leaves an innermost loop scalar (the remark text)."""

    NOT_UNIT_STEP = "[STOP VECTORIZE] not an affine.for with step 1"
    UNSUPPORTED_OP = "[STOP VECTORIZE] an op in the loop has no vector form"
    ALREADY_VECTOR = "[STOP VECTORIZE] the loop already computes on vectors"
    CARRIED = "[STOP VECTORIZE] a memory dependence is carried by the loop"
    STRIDED = "[STOP VECTORIZE] an access is not contiguous along the loop"
    NOT_A_REDUCTION = "[STOP VECTORIZE] a value carried in iter_args is not a reduction"
    LIBM_CALL = "[STOP VECTORIZE] a math function is a scalar libm call (approximate_math is off)"
    NO_EXACT_FORM = "[STOP VECTORIZE] a math function has no bit-exact vector form (approximate_math is off)"
    NO_APPROXIMATION = "[STOP VECTORIZE] a math function has no vector form or approximation"
    ORDERED_REDUCTION = "[STOP VECTORIZE] a floating-point reduction is kept in order (reassociate is off)"
    SHORT = "[STOP VECTORIZE] the loop runs fewer iterations than one vector"
    CHECK = "[STOP VECTORIZE] a run-time check (cf.assert) may abort the loop"

    @property
    def message(self) -> str:
        return self.value


# Math ops whose LLVM intrinsic has a vector instruction here (sqrt, rsqrt = 1 / sqrt, ...).
VECTOR_MATH = frozenset({"math.absf", "math.absi", "math.sqrt", "math.rsqrt", "math.fma", "math.floor", "math.ceil",
                         "math.trunc", "math.roundeven", "math.copysign", "math.ctpop"})
# Math ops the lowering turns into scalar libm calls, and those math_approx replaces.
LIBM_MATH_APPROXIMATED = frozenset({"math.exp", "math.log", "math.log1p", "math.tanh", "math.erf"})
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
    width: int = 0  # vector lanes of the plan (options.plan_vector_bits / widest element bits)
    form: str = "llvm"  # "llvm": kept scalar in the shape LLVM's loop vectorizer takes (measured)
    remainder: str = "LLVM's scalar epilogue"  # who runs the iterations that do not fill a vector
    reductions: tuple[Reduction, ...] = ()
    approximate: tuple[ir.Operation, ...] = ()  # math ops to replace by polynomials
    exact: tuple[ir.Operation, ...] = ()  # math ops to replace by libm's algorithm (bit-exact)
    reassociate: tuple[Reduction, ...] = ()  # reductions whose combining op gets fastmath<reassoc>
    refusal: Refusal | None = None

    @property
    def vectorizable(self) -> bool:
        return self.refusal is None


@dataclass(frozen=True)
class NestPlan:
    """The plan of one loop nest (a loop at function level and everything in it): its loop order
    (`locality.OrderPlan` of its outermost perfect band, None when there is nothing to order),
    the register tiling of each reduction nest in it (`TilePlan`: rows x vectors x lanes, the
    unroll-and-jam factors), and the vector plan of each innermost loop."""

    root: ir.Operation
    vectors: tuple[VectorPlan, ...] = ()  # one per innermost loop of the nest
    order: object = None  # locality.OrderPlan of the band starting at root (steps loop-order)
    tiles: tuple = field(default=())  # TilePlan per reduction nest (step register-tile)


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
        if name == "cf.assert":  # an exit LLVM's vectorizer does not take (codegen/cpu/checks_first.py)
            return Code.CHECK, f"at {mlir.location_of(op)}", op
        return Code.UNSUPPORTED_OP, name, op
    return None


def _vector_type(op: ir.Operation) -> str:
    return next(str(v.type) for v in [*op.operands, *op.results] if isinstance(v.type, ir.VectorType))


def access_refusal(loop: ir.Operation, accesses: list[AccessPattern], scope: Scope) -> tuple[str, ir.Operation] | None:
    """The first access that is neither invariant in `loop` nor contiguous along it (row-major:
    the index moves by 1 in the last dimension of more than one element and stays in every other
    dimension of more than one element, and that dimension's stride in memory is 1), or None.
    A dimension of static size 1 holds index 0 only, so it is left out (`unit_dims`): a step
    along dimension 1 of a 1000x512x1 buffer is the next element in memory."""
    from ....analysis.loops import loop_dims

    (axis,) = loop_dims(loop, scope)
    for a in accesses:
        where = mlir.location_of(a.op)
        if a.index is None:
            return f"{a.op.name} at {where} touches unknown elements", a.op
        strides = index_strides(a, axis.name)
        own = mlir.memref_type(a.op.operands[1 if a.is_write else 0])
        mt = own if getattr(a, "view_index", None) is not None else (mlir.memref_type(a.root) or own)
        unit = unit_dims(mt, strides)
        kept = None if strides is None else tuple(s for d, s in enumerate(strides) if d not in unit)
        cls = stride_class(kept)
        if cls == "invariant":
            continue
        if cls == "strided":
            shown = ", ".join("?" if s is None else str(s) for s in strides)
            return f"{a.op.name} at {where} moves by [{shown}] elements per iteration{_unlinear(a, loop, scope)}", a.op
        if mt is None:
            return f"{a.op.name} at {where}: the buffer's layout is unknown", a.op
        layout, _ = mt.get_strides_and_offset()
        last = max(d for d in range(len(strides)) if d not in unit)
        if layout and layout[last] != 1:
            return f"{a.op.name} at {where}: the buffer's last dimension is not contiguous in memory", a.op
    return None


def _unlinear(a: AccessPattern, loop: ir.Operation, scope: Scope) -> str:
    """For an access that moves by an unknown step in some dimension (a floordiv or mod of the
    loop's counter), why its address is not read at base + i (step linear-views' rule,
    plan/linear_views.py); empty otherwise."""
    from .linear_views import delinearized, plan_linear_view, top_loop

    if not delinearized(a.op, loop, scope):
        return ""
    lv = plan_linear_view(a.op, loop, top_loop(loop), scope)
    return f" ({lv.reason})" if lv.reason else " (step linear-views reads it at base + i)"


def unit_tail(mem: ir.Value) -> int:
    """How many trailing dimensions of static size 1 the buffer `mem` has that a lane access may
    leave out (an argument `memref<4x256x1xf32>` from a keepdim reduction): `mem` a block argument
    or an allocation (not a view), of identity layout, at least one dimension kept. Exact: an
    in-bounds index of a dimension of size 1 is 0 and those dimensions change no element's
    offset, so the access moves along the last dimension that is not one of them; the register
    tile's lane loads and stores read through a `memref.collapse_shape` without them
    (register_tile._Sweep.lane_memref), never past a dimension's end."""
    mt = mlir.memref_type(mem)
    if mt is None or not mlir.identity_layout(mt):
        return 0
    owner, _ = mlir.value_owner(mem)
    if owner is not None and owner.name not in ("memref.alloc", "memref.alloca"):
        return 0
    k = 0
    while k < mt.rank - 1 and not mt.is_dynamic_dim(mt.rank - 1 - k) and mt.get_dim_size(mt.rank - 1 - k) == 1:
        k += 1
    return k


def unit_dims(mt, strides) -> frozenset[int]:
    """The dimensions of the memref type `mt` of static size 1: they hold index 0 only (an index
    that moves in one is in bounds for one iteration, where no order matters), so they are
    skipped when asking which dimension an access walks. Empty when `strides` (an access's
    index_strides) is unknown or its rank is not the type's."""
    if mt is None or strides is None or mt.rank != len(strides):
        return frozenset()
    return frozenset(d for d in range(mt.rank) if not mt.is_dynamic_dim(d) and mt.get_dim_size(d) == 1)


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
        if owner is None or mlir.op_key(owner) in seen or not nested_in(owner, loop):
            continue
        seen.add(mlir.op_key(owner))
        work.extend(owner.operands)
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
    width = max(1, options.plan_vector_bits // element_bits(loop))
    math_ops = [op for op in body_ops(loop) if op.name in LIBM_MATH_APPROXIMATED]
    exact: list = []  # with approximate_math off: the math ops exact_math computes by libm's algorithm
    if math_ops:
        from ..math.math_approx import approximation_refusal

        for op in math_ops:
            why_not = approximation_refusal(op)
            if why_not is not None:
                return _refuse(loop, Code.NO_APPROXIMATION, why_not, op)
        if not approximate_math:
            if not options.exact_math:
                return _refuse(loop, Code.LIBM_CALL, ", ".join(sorted({op.name for op in math_ops})), *math_ops)
            from ..math.libm import exact_refusal

            for op in math_ops:
                why_not = exact_refusal(op)
                if why_not is not None:
                    return _refuse(loop, Code.NO_EXACT_FORM, why_not, op)
            exact, math_ops = math_ops, []
    ordered = [r for r in reds if not r.exact]
    if ordered and not reassociate:
        return _refuse(loop, Code.ORDERED_REDUCTION, ", ".join(r.kind for r in ordered), *(r.op for r in ordered))
    trips = constant_trip_count(loop)
    if trips is not None and trips < width:
        return _refuse(loop, Code.SHORT, f"{trips} iterations, {width} lanes")
    return VectorPlan(loop, width, reductions=tuple(reds), approximate=tuple(math_ops), exact=tuple(exact),
                      reassociate=tuple(ordered))


def innermost_loops(root: ir.Operation) -> list[ir.Operation]:
    """The innermost affine.for loops in `root` (itself included), in program order."""
    loops = [root] if root.name == "affine.for" else []
    loops += [op for op in mlir.walk(root) if op.name == "affine.for" and op != root]
    return [lp for lp in loops if is_innermost(lp)]


def plan_function(fn: ir.Operation, facts, options, **switches) -> list[NestPlan]:
    """One NestPlan per loop nest of the function (an affine.for inside no other affine.for; it
    may sit in an scf.for or a region), each with a VectorPlan per innermost loop."""
    from ....analysis.loops import enclosing_loops

    from .locality import plan_loop_order
    from ....analysis.loops import collect_interchangeable_loops

    plans = []
    for op in mlir.walk(fn):
        if op.name == "affine.for" and not any(lp.name == "affine.for" for lp in enclosing_loops(op)):
            vectors = tuple(plan_loop(lp, facts, options, **switches) for lp in innermost_loops(op))
            band = collect_interchangeable_loops(op)
            order = plan_loop_order(band, facts, options) if len(band) >= 2 and is_innermost(band[-1]) else None
            loops = [op, *(o for o in mlir.walk(op) if o.name == "affine.for")]
            tiles = tuple(t for t in (plan_register_tile(lp, facts, options) for lp in loops) if t is not None)
            plans.append(NestPlan(op, vectors, order, tiles))
    return plans



# ============================================================================= register tiling
#
# A *reduction nest* is a loop P (the loop to block) whose body holds loads, stores, scalar ops
# and exactly one loop R with values in iter_args, all reductions, and nothing but loads and
# scalar ops inside: C[i, j] = init; for k: acc = acc + A[i, k] * B[k, j]; store. P's iterations
# are the elements of one row of C, R walks each element's sum. When P carries no memory
# dependence, the iterations of P may run in any interleaving, so NV * W of them run together:
# W lanes of a vector (every access that moves with P is contiguous along it) times NV vectors,
# each lane executing exactly its own iteration's ops in their own order (each element keeps its
# k order: bit-exact). The loop Q around P, when it is parallel too and holds nothing else that
# writes, is unrolled by MR and jammed into the same R loop (MR rows of C): the loads of B are
# shared by the rows and the loads of A by the vectors. The accumulators (MR x NV x reductions)
# must fit the vector registers.

class TileCode(enum.Enum):
    """Why a loop around a reduction loop is not register tiled (the remark text)."""

    SHAPE = "[STOP REGISTER TILING] a loop of the nest does not have step 1 and one lower and one upper bound"
    CARRIED = "[STOP REGISTER TILING] a memory dependence is carried by the loop to block"
    REDUCTION_LOOP = "[STOP REGISTER TILING] the inner loop is not a reduction over loads"
    UNSUPPORTED_OP = "[STOP REGISTER TILING] an op of the nest has no lane form"
    NOT_PROFITABLE = "[STOP REGISTER TILING] no gain: LLVM vectorizes the reduction loop itself"
    SHORT = "[STOP REGISTER TILING] the loop runs fewer iterations than one tile"
    CARRIED_VALUE = "[STOP REGISTER TILING] a value carried by the loop to block is not a reduction its lanes may share"
    # the tile is still built, without column blocks (TilePlan.block_refusal)
    COLUMN_BLOCKS = "[STOP COLUMN BLOCKS] an op beside the product in the loop around it would run once per block"

    @property
    def message(self) -> str:
        return self.value


@dataclass(frozen=True)
class TilePlan:
    """Register blocking of one reduction nest: P (`loop`) in blocks of `vectors` x `width`
    iterations (vector lanes; width 1: scalar copies), the enclosing loop Q (`rows_loop`) in
    blocks of `rows`, jammed into one copy of R (`reduction_loop`). With a refusal, unchanged."""

    loop: ir.Operation
    reduction_loop: ir.Operation | None = None
    rows_loop: ir.Operation | None = None
    width: int = 1
    vectors: int = 1
    rows: int = 1
    fma: bool = False  # reductions acc + x * y become one math.fma (options.contract)
    reductions: tuple[Reduction, ...] = ()
    rows_why: str = ""  # why rows == 1, for the remark
    refusal: Refusal | None = None
    in_memory: tuple[MemoryReduction, ...] = ()  # sums the loop keeps in memory (before scalar replacement)
    col_block: int = 0  # NC: P's iterations in blocks of NC (one tile's columns: column_block); 0: none
    carried: tuple[Reduction, ...] = ()  # P's own reductions (a row maximum): lane-wise partials, combined after
    block_refusal: Refusal | None = None  # why the columns are not in blocks although B's panel exceeds L2
    band: tuple = ()  # the reduction band, outermost first (band[0] is reduction_loop): a conv's c, kh, kw
    between: tuple = ()  # loops between the rows loop and P (outermost first), run as they are for all rows
    strided: tuple = ()  # loads of stride 2 along P: two vectors and a shuffle per lane vector
    gathered: tuple = ()  # loads of i1 (bit-packed in a vector): one scalar load per lane, vector.from_elements
    masked_tail: bool = False  # the columns left over run as one masked vector (else one at a time)
    tail: int = 0  # lanes of the vector the columns left over after the whole vectors run in (tail_width); 0: width
    unrolled: tuple = ()  # loops of the band run as copies of their body (a kernel's 3 columns)
    cover: bool = False  # the tile's vectors cover all of P's (constant) iterations, the last one masked
    joint: bool = False  # the columns the whole steps leave over run in one step (shares_row_loads; P carries nothing)
    held: int = 0  # registers holding loads of neither rows nor lanes for the whole tile (held_registers)
    live: int = 0  # accumulator vectors per row live at once (live_vectors)
    scalar_why: str = ""  # lanes refused and reductions reorderable: the access LLVM's vectorizer refuses too
    lanes_why: str = ""  # with scalar_why: why P's iterations are not vector lanes

    @property
    def accumulators(self) -> int:
        return self.rows * self.vectors * (len(self.reductions) + len(self.in_memory))

    @property
    def all_reductions(self) -> tuple:
        return (*self.reductions, *self.in_memory)

    @property
    def tile(self) -> tuple[int, int]:
        """(rows, columns) of C held in registers (a covering tile whose last vector is the
        narrower tail: the whole vectors and the tail's lanes)."""
        if self.cover and self.tail:
            return self.rows, (self.vectors - 1) * self.width + self.tail
        return self.rows, self.vectors * self.width


def _tile_refuse(loop, code: TileCode, detail: str, *ops) -> TilePlan:
    return TilePlan(loop, refusal=Refusal(code, detail, (loop, *ops)))


def vector_registers(options) -> int:
    """Vector registers the plan may use: 32 with 512-bit vectors (AVX-512 has 32), else 16
    (AVX2 has 16 ymm registers; an AVX-512 core's extra 16 are not assumed at 256 bits)."""
    return 32 if options.plan_vector_bits >= 512 else 16


# Registers beside the accumulators: a broadcast of A, a vector of B and a product (mul + add
# keeps it in a register between the two); the other vectors of B are memory operands of the
# multiply. Measured (docs/cpu_codegen.md): 4 x 3 vectors best at 256 bits, 6 x 4 at 512.
SPARE_REGISTERS = 3
MAX_ROWS = 6


def spare_registers(mr: int, nv: int, width: int, loads: LoadCopies) -> int:
    """Registers an MR x NV tile of vectors (`width` > 1) holds besides its accumulators and `held`
    values: SPARE_REGISTERS, or, where the rows share each vector a step loads (`loads.lanes`,
    MR > 1: a convolution's input, GEMM's B), its NV vectors and a broadcast. The emitter loads
    each such vector once per step and every row's multiply-add uses it, so all NV are live
    while the rows run; LLVM keeps them in registers and spills accumulators when they do not
    fit (a 3 x 32 tile at 256 bits: 12 accumulators, 4 vectors and a broadcast in 16 ymm
    registers: 60 spill loads and stores per 108 FMAs, twice the time per output of a 4 x 24
    tile; section 45). Scalar copies (width 1, general registers) keep SPARE_REGISTERS: not
    measured. So does a band whose every loop is unrolled (`loads.unrolled`: small_cnn's first
    conv, 3 channels x 3 x 3 with constant weights, measured 1.43x slower as 6 x 16): there no
    loop carries the accumulators and the rows' loads, invariant in the column loops, are what
    LLVM keeps (section 45, Left)."""
    shared = nv + 1 if width > 1 and loads.lanes and mr > 1 and not loads.unrolled else 0
    return max(SPARE_REGISTERS, shared)


MAX_VECTORS = 4  # NV: one row's vectors; measured: 1 x 4 is as fast as 1 x 6 or 1 x 8


@dataclass(frozen=True)
class MemoryReduction:
    """A sum kept in memory by the reduction loop: `load` and `store` of one element whose
    address does not move with the loop, the `op` combining the loaded value with the rest
    (the form before scalar replacement; the tiling keeps it in a register across the loop)."""

    load: ir.Operation
    store: ir.Operation
    op: ir.Operation
    exact: bool

    @property
    def kind(self) -> str:
        return self.op.name


def memory_reductions(r: ir.Operation, scope, fixed: frozenset = frozenset()) -> list[MemoryReduction]:
    """The memory reductions directly in R's body: a load and a store at the same address (same
    memref, map and operands), none of the operands defined in R (but the values in `fixed`:
    counters of loops that run once), the store's value an EXACT_/REASSOCIABLE_REDUCTIONS op of
    the load's value (its only use) and of a value that does not depend on the load, used only
    by the store."""
    ops = body_ops(r)
    out = []
    for st in ops:
        if st.name != "affine.store":
            continue
        comb, _ = mlir.value_owner(st.operands[0])
        if comb is None or mlir.operation(comb.parent) != r or len(list(comb.results[0].uses)) != 1:
            continue
        if comb.name not in EXACT_REDUCTIONS and comb.name not in REASSOCIABLE_REDUCTIONS:
            continue
        for v in comb.operands:
            ld, _ = mlir.value_owner(v)
            if (ld is not None and ld.name == "affine.load" and mlir.operation(ld.parent) == r
                    and len(list(v.uses)) == 1 and _same_address(ld, st)
                    and not any(defined_inside(x, r) and x not in fixed for x in list(ld.operands)[1:])):
                other = [x for x in comb.operands if x != v]
                if len(other) == 1 and not _depends_on(other[0], {v}, r):
                    out.append(MemoryReduction(ld, st, comb, comb.name in EXACT_REDUCTIONS))
                break
    return out


def _same_address(load: ir.Operation, store: ir.Operation) -> bool:
    return (load.operands[0] == store.operands[1] and str(load.attributes["map"]) == str(store.attributes["map"])
            and list(load.operands)[1:] == list(store.operands)[2:])


LOOP_LIKE = ("affine.for", "scf.for", "scf.while", "affine.parallel")


def reduction_loop_of(loop: ir.Operation, scope=None) -> ir.Operation | None:
    """The one affine.for directly in `loop`'s body when it is innermost and carries values in
    iter_args or in memory (`memory_reductions`), else None."""
    inner = [op for op in body_ops(loop) if op.name in LOOP_LIKE]
    if len(inner) != 1 or inner[0].name != "affine.for" or not is_innermost(inner[0]):
        return None
    r = inner[0]
    return r if len(list(body_block(r).arguments)) > 1 or memory_reductions(r, scope) else None


def product_band_of(loop: ir.Operation, scope=None) -> list[ir.Operation] | None:
    """The loops register tiling would take as `loop`'s reduction band, outermost first, in
    either form the fusion step may see: one innermost loop (`reduction_loop_of`), a chain
    passing iter_args down (`reduction_band_of`, after scalar replacement), or, before scalar
    replacement, a chain of loops each holding only the next (`memory_band_of`: a product
    whose reduction runs over two dims, as MLIR's elementwise fusion leaves an output
    projection reading its heads, `C[i, j] += A[i, h, d] * B[h, d, j]`). None otherwise."""
    r = reduction_loop_of(loop, scope)
    if r is not None:
        return [r]
    return reduction_band_of(loop, scope) or memory_band_of(loop, scope)


def memory_band_of(loop: ir.Operation, scope=None) -> list[ir.Operation] | None:
    """A band of loops directly in `loop`'s body, each but the last holding the next and nothing
    else, the last innermost with sums in memory (`memory_reductions`) at addresses that use no
    counter of the band: every iteration of the band updates the same elements, so scalar
    replacement carries them through the band's iter_args, the form `reduction_band_of` takes.
    None for fewer than two loops (`reduction_loop_of`'s case) or another shape."""
    inner = [op for op in body_ops(loop) if op.name in LOOP_LIKE]
    if len(inner) != 1 or inner[0].name != "affine.for" or inner[0].results:
        return None
    band = [inner[0]]
    while True:
        ops = [op for op in mlir.first_ops(body_block(band[-1]), 3) if op.name != "affine.yield"]
        if len(ops) != 1 or ops[0].name != "affine.for" or ops[0].results:  # a long body is not listed
            break
        band.append(ops[0])
    if len(band) < 2 or not _innermost(band[-1]):
        return None
    reds = memory_reductions(band[-1], scope)
    if not reds or any(defined_inside(v, band[0]) for red in reds for v in list(red.load.operands)[1:]):
        return None
    return band


def band_loops(r: ir.Operation) -> list[ir.Operation]:
    """`r` and the loops nested in it one inside the other, outermost first: the one loop of its
    body, the one loop of that loop's body, ... (the chain stops at a body with none or several)."""
    band = [r]
    while True:
        inner = [op for op in body_ops(band[-1]) if op.name in LOOP_LIKE]
        if len(inner) != 1 or inner[0].name != "affine.for":
            return band
        band.append(inner[0])


def reduction_band_of(loop: ir.Operation, scope=None) -> list[ir.Operation] | None:
    """The reduction band directly in `loop`'s body, outermost first, or None: the one
    affine.for R1 of the body, the one affine.for of R1's body, ..., down to an innermost loop
    Rm, each of them carrying values in iter_args that every loop but Rm passes through to the
    next (`band_link_refusal`: a convolution's c, kh, kw chained through their iter_args), or one
    innermost loop keeping sums in memory (`memory_reductions`). Whether the innermost loop's
    values are reductions is `reductions_of`'s question. A loop of the chain that does more
    with its values (a row maximum of its own) is no link: it is then a loop to plan itself."""
    inner = [op for op in body_ops(loop) if op.name in LOOP_LIKE]
    if len(inner) != 1 or inner[0].name != "affine.for":
        return None
    first = inner[0]
    if not has_iter_args_op(first):  # sums in memory: one innermost loop
        return [first] if _innermost(first) and memory_reductions(first, scope) else None
    band = [first]  # every loop of the chain carries values (the walk stops at the first that does not)
    while True:
        nested = [op for op in body_ops(band[-1]) if op.name in LOOP_LIKE]
        if not nested:
            break
        if len(nested) != 1 or nested[0].name != "affine.for" or not has_iter_args_op(nested[0]):
            return None
        band.append(nested[0])
    if not is_innermost(band[-1]):
        return None
    return band if band_link_refusal(band) is None else None


def _innermost(op: ir.Operation) -> bool:
    """`is_innermost`, answering first from the body's own ops (a deep nest is not walked per level)."""
    return not any(o.name in LOOP_LIKE for o in body_ops(op)) and is_innermost(op)


def band_link_refusal(band: list[ir.Operation]) -> str | None:
    """Why the reduction band is not one chain, or None: every loop but the innermost passes its
    carried values through, in order (its block argument k is the next loop's init k and used
    nowhere else; the next loop's result k is what it yields at k, used nowhere else). The
    values then are the innermost loop's reductions, run over the whole band in its order."""
    for outer, inner in zip(band, band[1:]):
        args = list(body_block(outer).arguments)[1:]
        nb = _n_bound_operands(inner)
        inits = list(inner.operands)[nb:]
        y = mlir.block_ops(body_block(outer))[-1]
        where = mlir.location_of(outer)
        if len(args) != len(inits) or len(list(inner.results)) != len(args):
            return f"the loop at {where} carries {len(args)} values, the loop in it {len(inits)}"
        for k, (a, init) in enumerate(zip(args, inits)):
            if init != a or len(list(a.uses)) != 1:
                return f"iter_args #{k} of the loop at {where} is not passed to the loop in it alone"
        if list(y.operands) != list(inner.results):
            return f"the loop at {where} does not yield the results of the loop in it in order"
        for k, res in enumerate(inner.results):
            if len(list(res.uses)) != 1:
                return f"result #{k} of the loop in the loop at {where} is used besides the yield"
    return None


def _n_bound_operands(loop: ir.Operation) -> int:
    return (mlir.affine_map_attr(loop, "lowerBoundMap").n_inputs
            + mlir.affine_map_attr(loop, "upperBoundMap").n_inputs)


def band_ops(band: list[ir.Operation] | tuple) -> list[ir.Operation]:
    """The ops of every loop body of the band but the band's loops and terminators, outer first."""
    keys = {mlir.op_key(b) for b in band}
    return [o for b in band for o in body_ops(b) if mlir.op_key(o) not in keys and o.name != "affine.yield"]


def single_bounds(loop: ir.Operation) -> bool:
    return (loop.name == "affine.for" and mlir.int_attr(loop, "step") == 1
            and len(mlir.affine_map_attr(loop, "lowerBoundMap").results) == 1
            and len(mlir.affine_map_attr(loop, "upperBoundMap").results) == 1)


def bound_values(loop: ir.Operation) -> list[ir.Value]:
    lb = mlir.affine_map_attr(loop, "lowerBoundMap")
    ub = mlir.affine_map_attr(loop, "upperBoundMap")
    return list(loop.operands)[:lb.n_inputs + ub.n_inputs]


def defined_inside(v: ir.Value, op: ir.Operation) -> bool:
    """Whether `v` is defined inside `op` (a block argument of its regions included)."""
    owner, block = mlir.value_owner(v)
    at = owner if owner is not None else mlir.operation(block.owner)
    while at is not None:
        if at == op:
            return True
        if at.name == "func.func":
            return False
        p = at.parent
        at = mlir.operation(p) if p is not None else None
    return False


@dataclass(frozen=True)
class Lanes:
    """Which values of the nest move with P (`varying`: one per lane) and with Q (`per_row`);
    the rest is the same for every lane (computed once, broadcast where a lane form needs it)."""

    varying: frozenset  # ir.Value hashes of values that depend on P's IV
    per_row: frozenset  # ... on Q's IV

    def varies(self, v: ir.Value) -> bool:
        return v in self.varying

    def by_row(self, v: ir.Value) -> bool:
        return v in self.per_row


def lanes_of(p: ir.Operation, r: ir.Operation, q: ir.Operation | None, mem: list | tuple = (),
             between: list | tuple = ()) -> Lanes:
    """Data flow from the IVs: a result varies with an IV when an operand does; the values
    every loop of the reduction band (`band_loops(r)`) carries, its results, and the sums R keeps
    in memory, are taken to vary with P (each lane keeps its own accumulator). With rows (Q, the
    loops `between` it and P run as they are), a loop's carried values and results move with Q
    when an operand of the loop (an init, a bound) or a value it yields does."""
    band = band_loops(r)
    varying, per_row = {body_block(p).arguments[0]}, set()
    if q is not None:  # P's own reductions: each row its own (their results stay scalars)
        per_row.update([body_block(q).arguments[0], *list(body_block(p).arguments)[1:], *p.results])
    for b in band:
        varying.update(list(body_block(b).arguments)[1:] + list(b.results))
    varying.update(list(body_block(p).arguments)[1:])
    for m in mem:
        varying.update([m.load.results[0], m.op.results[0]])
    outer = [q, *between] if q is not None else []
    inner_keys = {mlir.op_key(x) for x in [*between, p]}
    ops = [o for lp in outer for o in body_ops(lp) if mlir.op_key(o) not in inner_keys]
    ops += [o for o in mlir.walk(p) if o != p]
    changed = True
    while changed:  # to a fixed point: values flow forward, and around loops through their yields
        changed = False
        for o in ops:
            if o.name == "affine.for":
                carried = list(body_block(o).arguments)[1:] + list(o.results)
                y = mlir.block_ops(body_block(o))[-1]
                if any(v in per_row for v in [*o.operands, *y.operands]) and not all(v in per_row for v in carried):
                    per_row.update(carried)
                    changed = True
                continue
            for v in o.results:
                if v not in varying and any(x in varying for x in o.operands):
                    varying.add(v)
                    changed = True
                if v not in per_row and any(x in per_row for x in o.operands):
                    per_row.add(v)
                    changed = True
    return Lanes(frozenset(varying), frozenset(per_row))


TILE_OPS = frozenset({"affine.load", "affine.store", "affine.apply", "affine.yield"})


def _scalar_type_bits(t) -> int | None:
    if isinstance(t, ir.FloatType):
        return ir.FloatType(t).width
    if isinstance(t, ir.IntegerType):
        return ir.IntegerType(t).width
    return None


def nest_op_refusal(p: ir.Operation, r: ir.Operation, q: ir.Operation | None,
                    mem: list | tuple = (), between: list | tuple = ()) -> tuple[TileCode, str, ir.Operation] | None:
    """The first op the tiling cannot copy: regions (but the reduction band's loops), vector ops,
    calls, ops outside arith/math and the affine loads, stores and applies; in the band no store
    but those of R's memory reductions (`mem`); in Q's body, and in the bodies of the loops
    `between` Q and P, only loads and pure ops before the loop they hold, and stores after it
    (each row's epilogue runs after the sweep of all rows: with Q carrying no dependence, every
    row's ops keep their order)."""
    sums = {mlir.op_key(m.store) for m in mem}
    band = band_loops(r)
    ops = [(o, "P") for o in body_ops(p) if o != r]
    ops += [(o, "R") for o in band_ops(band) if mlir.op_key(o) not in sums]
    if q is not None:
        for outer, inner in zip([q, *between], [*between, p]):
            qops = body_ops(outer)
            at = next(k for k, o in enumerate(qops) if o == inner)
            ops += [(o, "Q") for o in qops[:at]] + [(o, "Q after") for o in qops[at + 1:]]
    for op, where in ops:
        if op.regions:
            return TileCode.UNSUPPORTED_OP, f"{op.name} (a nested region)", op
        if any(isinstance(v.type, ir.VectorType) for v in [*op.operands, *op.results]):
            return TileCode.UNSUPPORTED_OP, f"{op.name} on vectors", op
        name = op.name
        if name in TILE_OPS or name.startswith("arith.") or name.startswith("math."):
            if where == "R" and name == "affine.store":
                return TileCode.REDUCTION_LOOP, f"affine.store at {mlir.location_of(op)} writes in the reduction loop", op
            if where == "Q" and name == "affine.store":
                return TileCode.UNSUPPORTED_OP, f"affine.store at {mlir.location_of(op)} beside the loop", op
            continue
        return TileCode.UNSUPPORTED_OP, name, op
    return None


# A load whose lanes read every LANE_STRIDE-th element of its last dimension (a convolution of
# stride 2 along its output columns, a pooling window of stride 2) reads two vectors and keeps
# every second element of them (`vector.shuffle`; register_tile.py).
LANE_STRIDE = 2


def strided_lane_load(p: ir.Operation, a: AccessPattern, axis: str) -> bool:
    """Whether the access `a` is an affine.load whose index moves with P by LANE_STRIDE elements
    of its last dimension and not at all in the others, in a buffer whose last dimension is
    contiguous: its W lanes then lie within LANE_STRIDE x W - 1 consecutive elements of one row,
    from the first lane's element to the last's, all in the buffer."""
    if a.op.name != "affine.load" or a.index is None:
        return False
    strides = index_strides(a, axis)
    if strides is None or any(s is None for s in strides) or list(strides[:-1]) != [0] * (len(strides) - 1) \
            or strides[-1] != LANE_STRIDE:
        return False
    mt = mlir.memref_type(a.op.operands[0])
    if mt is None:
        return False
    layout, _ = mt.get_strides_and_offset()
    return bool(layout) and layout[-1] == 1


def lane_stride(a: AccessPattern, axis: str) -> int | None:
    """The constant number of elements of its last dimension the affine.load `a` moves by per
    iteration of the loop `axis`, when it moves in no other dimension and that dimension is
    contiguous in memory; else None (codegen/cpu/plan/strided_packing.py packs a load whose
    stride exceeds LANE_STRIDE)."""
    if a.op.name != "affine.load" or a.index is None:
        return None
    strides = index_strides(a, axis)
    if strides is None or any(s is None for s in strides) or list(strides[:-1]) != [0] * (len(strides) - 1):
        return None
    mt = mlir.memref_type(a.op.operands[0])
    layout = mt.get_strides_and_offset()[0] if mt is not None else None
    return strides[-1] if layout and layout[-1] == 1 else None


def lane_width_refusal(p: ir.Operation, r: ir.Operation, lanes: Lanes, facts,
                       strided: list | None = None, gathered: list | None = None,
                       packed: list | None = None) -> str | None:
    """Why P's iterations cannot be vector lanes (then they are scalar copies), or None: every
    access that moves with P is an affine access contiguous along it (the next element of the
    last dimension, the buffer's last stride 1), or, given a `strided` list to collect them in,
    a load of stride LANE_STRIDE (`strided_lane_load`), given a `packed` list, a load of a larger
    constant stride along its last dimension (`lane_stride`: what a copy into a buffer whose last
    dimension runs along P would make contiguous), and, given a `gathered` list, a contiguous
    load of elements narrower than a byte (i1: a vector of them is bit-packed, the buffer holds a
    byte each, so each lane is loaded alone); stores move with P; values moving with P
    are float or integer data, or index values that only address such accesses; and every
    operand of an op that becomes a lane op has a lane form (`lane_operand_refusal`)."""
    from ....analysis.loops import loop_dims

    (axis,) = loop_dims(p, facts.scope)
    by_op = {mlir.op_key(a.op): a for a in facts.accesses(p)}
    piv = body_block(p).arguments[0]
    for op in body_ops(p) + band_ops(band_loops(r)):
        if op == r or op.name == "affine.yield":
            continue
        if op.name in ("affine.load", "affine.store"):
            moves = any(lanes.varies(v) for v in list(op.operands)[(2 if op.name == "affine.store" else 1):])
            if op.name == "affine.store" and not moves:
                return f"affine.store at {mlir.location_of(op)} writes one element for every iteration"
            if not moves:
                continue
            narrow = vector_access_refusal(op)
            if narrow is not None and (gathered is None or op.name != "affine.load"):
                return narrow
            a = by_op.get(mlir.op_key(op))
            if a is None:
                return f"{op.name} at {mlir.location_of(op)}: unknown access"
            if narrow is None and strided is not None and strided_lane_load(p, a, axis.name):
                strided.append(op)
                continue
            if narrow is None and packed is not None and (lane_stride(a, axis.name) or 0) > LANE_STRIDE:
                packed.append(op)
                continue
            why = access_refusal(p, [a], facts.scope)
            if why is not None:
                return why[0]
            strides = index_strides(a, axis.name)
            mem = op.operands[1 if op.name == "affine.store" else 0]
            judged = strides if narrow is not None else without_unit_tail(strides, mlir.memref_type(mem), unit_tail(mem))
            if judged is None or stride_class(judged) != "contiguous":
                shown = "?" if strides is None else ", ".join("?" if s is None else str(s) for s in strides)
                return narrow or (f"{op.name} at {mlir.location_of(op)} moves by [{shown}] elements per iteration: "
                                  "a lane load reads along the last dimension")
            if narrow is not None:
                gathered.append(op)
            if op.name == "affine.store":  # the stored value: a vector of W lanes
                why = lane_operand_refusal(op, op.operands[0], piv, lanes)
                if why is not None:
                    return why
            continue
        if not op.name.startswith("affine.") and any(lanes.varies(v) for v in op.results):
            why = vector_lowering_refusal(op)
            if why is not None:
                return why
            for v in op.operands:  # a lane op: every operand a vector, the loop's counter included
                why = lane_operand_refusal(op, v, piv, lanes)
                if why is not None:
                    return why
        for v in op.results:
            if not lanes.varies(v):
                continue
            if isinstance(v.type, ir.IndexType):
                # an index computed on lanes is data; as an address (not valid affine) it has no scalar form
                addresses = [u for u in v.uses if mlir.operation(u.owner).name.startswith("affine.")
                             and mlir.operation(u.owner).name != "affine.yield"
                             and not (mlir.operation(u.owner).name == "affine.store" and u.operand_number == 0)]
                if not op.name.startswith("affine.") and addresses:
                    return f"{op.name} at {mlir.location_of(op)}: an index computed on lanes addresses memory"
            elif _scalar_type_bits(v.type) is None:
                return f"{op.name} at {mlir.location_of(op)} yields {v.type}"
    return None


def lane_operand_refusal(op: ir.Operation, v: ir.Value, piv: ir.Value, lanes: Lanes) -> str | None:
    """Why the operand `v` of `op`, an op on vector lanes, has no lane form, or None. A value
    that does not move with P has one (broadcast: Q's or R's counter, a constant, a load of A);
    a float or integer value moving with P is already a vector (a lane op's result, a vector
    load, an accumulator); an index moving with P has one when it is P's own counter (the
    lanes' iterations, iv + [0, 1, .., W-1]) or an arith op's result (the same op on lanes).
    An index P moves through an affine.apply (a scalar address: lane 0's) or carries in
    iter_args has none."""
    if not lanes.varies(v) or not isinstance(v.type, ir.IndexType) or v == piv:
        return None
    owner, _ = mlir.value_owner(v)
    if owner is not None and owner.name.startswith("arith."):
        return None
    what = f"{owner.name}'s result" if owner is not None else "a value carried in iter_args"
    return (f"{op.name} at {mlir.location_of(op)}: an index that moves with the loop ({what}) is used as data, "
            "and only the loop's counter and arith ops on it have a lane form")


def lane_bits(p: ir.Operation, r: ir.Operation, lanes: Lanes) -> int:
    """The widest float or integer type among the values that move with P (32 if none), but for
    a value only compared (`arith.cmpf`/`cmpi` operands: sdpa's `extf` to f64 of a score tested
    against -inf): its vector spans two registers for one compare, the lanes need not halve."""
    bits = [32]
    for op in body_ops(p) + band_ops(band_loops(r)):
        for v in list(op.results) + (list(op.operands) if op.name == "affine.store" else []):
            b = _scalar_type_bits(v.type)
            users = [mlir.operation(u.owner).name for u in v.uses]
            if users and all(u in ("arith.cmpf", "arith.cmpi") for u in users) and op.name != "affine.store":
                continue
            if b is not None and lanes.varies(v):
                bits.append(b)
    for v in list(body_block(band_loops(r)[-1]).arguments)[1:]:
        b = _scalar_type_bits(v.type)
        if b is not None:
            bits.append(b)
    return max(bits)


@dataclass(frozen=True)
class LoadCopies:
    """The loads of the reduction band's innermost loop by what they move with: the rows loop
    only (a broadcast per row: GEMM's A, a convolution's weight), the lanes loop only (a vector
    shared by the rows: B, the convolution's input), both (a vector per row and vector), neither
    (one load for the whole tile: a depthwise convolution's weight under rows of output)."""

    rows: int = 1
    lanes: int = 1
    both: int = 0
    neither: int = 0
    unrolled: bool = False  # every loop of the band is emitted as copies of its body (`short_band_loop`)

    def per_step(self, mr: int, nv: int) -> int:
        """Loads one step of the innermost loop issues for an MR x NV tile."""
        return self.rows * mr + self.lanes * nv + self.both * mr * nv + self.neither

    def vectors(self, mr: int, nv: int) -> int:
        """Of those, the vector loads (the others are scalars broadcast): a vector at any offset
        may straddle two cache lines, a scalar never does."""
        return self.lanes * nv + self.both * mr * nv


GEMM_LOADS = LoadCopies()


def live_vectors(nv: int, width: int, cols: int | None, covers: bool, tail: bool) -> int:
    """Accumulator vectors per row that are live at once for a tile of NV vectors: NV, or 2 for
    one vector over a constant number of columns between one and two vectors followed by a
    vector of the columns left over (`tail`: masked, or a narrower one, `tail_width`): the whole
    vector and the tail each run once, straight-line code that LLVM schedules together (a
    depthwise convolution's 28 output columns at 16 lanes)."""
    if nv == 1 and tail and not covers and cols is not None and width < cols < 2 * width:
        return 2
    return nv


def held_registers(band: list[ir.Operation], loads: LoadCopies, registers: int) -> int:
    """Registers a tile holds besides its accumulators: each load that moves with neither the
    rows nor the lanes (a depthwise convolution's weight under rows of output), once per copy of
    the band's short loops unrolled around it (`short_band_loop`): those copies are one block, in
    which LLVM loads each once and keeps it for every row (3 x 3 weights: 9 registers). None
    when they exceed a third of the registers: then LLVM broadcasts them from memory at each use
    rather than give up the accumulators (9 weights in AVX2's 16 registers)."""
    copies = 1
    for b in band:
        if short_band_loop(b, band):
            copies *= constant_trip_count(b) or 1
    held = loads.neither * copies
    return held if held <= registers // 3 else 0


@dataclass(frozen=True)
class RowRest:
    """How the columns a tile's whole steps leave over run, for a constant trip count: `tail`
    lanes for the last ones (`tail_width`; 0: the full width), `masked` (section 17's mask
    allowed), `joint` (the whole vectors left and the tail in one step: P carries no values)."""

    tail: int = 0
    masked: bool = False
    joint: bool = True


def mixed_cover(cols: int | None, nv: int, width: int, rest: RowRest | None) -> bool:
    """Whether NV - 1 whole vectors and the narrower tail vector hold all `cols` columns: a tile
    that runs every column in one step, the tail's lanes its last vector (56 columns at 16 lanes:
    3 vectors and one of 8)."""
    return (rest is not None and rest.joint and rest.tail > 0 and cols is not None and nv > 1
            and cols // width == nv - 1 and 0 < cols % width <= rest.tail)


def shares_row_loads(loads: LoadCopies) -> bool:
    """Whether the vectors of one step share loads of the rows (a broadcast per row: GEMM's A, a
    convolution's weight), which is what a step of more vectors saves: where every lane load is
    per row and vector (a depthwise convolution's input; its weight held in registers) a joint step
    or a tile ending in the tail saves no load and only holds more registers at once (measured:
    a depthwise 28-column row as one covering step of 10 rows spilled 37 registers, 1.05x slower),
    so the tile is chosen per step and the columns left over run as before."""
    return loads.rows > 0


def tail_steps(cols: int, nv: int, width: int, rest: RowRest, covers: bool) -> list[int]:
    """The lanes of each step of one row's columns left over after an NV-vector tile's whole
    steps, as they run without a joint step (`row_steps` with `rest.joint` false): a whole vector
    per step, then the tail vector (`rest.tail` lanes, or a masked full one), then the columns no
    vector holds, one at a time. Empty where the tile covers the columns or leaves none."""
    if covers:
        return []
    k, left = divmod(cols % (nv * width), width)
    vec = 1 if left and (rest.masked or rest.tail) else 0
    scalars = left - (rest.tail if vec and not rest.masked else 0) if left and not rest.masked else 0
    return [width] * k + [rest.tail or width] * vec + [1] * scalars


def tail_starves(cols: int | None, width: int, mr: int, nv: int, reductions: int, rest: RowRest, covers: bool,
                 lane_bits: int, fma_pipes: tuple[int, int, int]) -> bool:
    """Whether the columns an MR x NV tile (chosen per step) leaves over, run as their own steps
    (`tail_steps`), starve the host's FMA pipes: a step of one vector holds MR x `reductions`
    independent accumulator chains, and a core keeps `FmaPipes.chains(bits)` FMAs of a vector of
    `bits` in flight (pipes x latency: Zen 4, 2 x 4 = 8 for a vector<8xf32>). A step with no more
    chains than that leaves the pipes no slack for its loads (section 44: 8 rows of one vector<8>
    at 56 columns, latency-bound in `llvm-mca`); only then do the columns left over join the
    whole vectors' step and the tile get chosen by the whole row (`RowRest`, `row_reuse`). Where
    every step of the tail has more chains (14 rows at 24 columns) the old tail stays."""
    from ..host import FmaPipes

    if cols is None:
        return False
    pipes = FmaPipes(*fma_pipes)
    return any(mr * reductions <= pipes.chains(lanes * lane_bits)
               for lanes in tail_steps(cols, nv, width, rest, covers))


def row_steps(cols: int, nv: int, width: int, rest: RowRest, covers: bool) -> list[int]:
    """The vectors of each step one row of an NV-vector tile takes over `cols` columns (what
    `register_tile._segments` emits): one step when the tile covers them; else the whole
    steps, then the columns left over: with `rest.joint` the whole vectors left and the tail in
    one step, else a step per vector; columns no vector holds one at a time (a step each)."""
    if covers:
        return [nv]
    q, rem = divmod(cols, nv * width)
    k, left = divmod(rem, width)
    vec = 1 if left and (rest.masked or rest.tail) else 0
    scalars = left - (rest.tail if vec and not rest.masked else 0) if left and not rest.masked else 0
    rest_steps = ([k + vec] if k + vec else []) if rest.joint else [1] * (k + vec)
    return [nv] * q + rest_steps + [1] * scalars


def choose_tile(registers: int, reductions: int, width: int, rows_max: int | None, cols_trip: int | None,
                rows_trip: int | None, loads: LoadCopies = GEMM_LOADS, cover: bool = False,
                tail: bool = False, held: int = 0, rest: RowRest | None = None) -> tuple[int, int]:
    """(MR, NV): the tile of accumulators with the most reuse, multiply-adds per load of one
    step of the reduction (for a product, MR x NV / (MR + NV): broadcasts of A and vector loads
    of B; `loads` in general), with MR x NV x reductions accumulators and `spare_registers` more
    fitting the registers; MR up to `rows_max` (1 without a row loop) and the row trip count,
    NV x width up to the column trip count, or, with `cover` (masks allowed), the NV vectors
    that cover all of a constant number of columns that is no multiple of the width, the last
    vector masked (a 1x1 convolution's 28 output columns: 2 vectors of 16), its reuse counted
    on the columns that exist. With `rest` (a constant column count) the reuse is that of the
    whole row: its multiply-adds over the loads of every step it takes (`row_steps`: the
    columns left over after the whole steps cost their loads, the rows' broadcasts included),
    and a tile whose last vector is the narrower tail may cover the columns (`mixed_cover`):
    a conv's 56 columns as 6 x (3 x 16 + 8) in one step rather than 8 x 48 and a vector<8> of 8
    rows in a step of its own, whose broadcasts serve 8 lanes each (a tile ending in the tail
    has the rows `rows_limit` gives a covering tile of NV vectors). Only where the rows share
    loads (`shares_row_loads`); else the reuse of one step, as before. The registers hold MR x
    `live_vectors` x reductions accumulators
    (with `tail`, a masked vector after one that runs once is live with it) and
    `held` values besides (`held_registers`); ties go to more accumulators (independent chains hide the
    latency of each add: a sum over a transposed operand, whose loads are as many for any
    tile), then to the tile leaving fewer iterations to remainder loops, then to more rows (a
    vector of B then serves more of them)."""
    rest = rest if shares_row_loads(loads) else None
    best = None
    for mr in range(1, (rows_max or 1) + 1):
        if rows_trip is not None and mr > rows_trip:
            break
        for nv in range(1, MAX_VECTORS + 1):
            covers = covering(cols_trip, nv, width) if cover else False
            mixed = not covers and mixed_cover(cols_trip, nv, width, rest)
            if mixed and mr > rows_limit(width, cols_trip, registers, True):
                continue  # the rows a covering tile of NV vectors may have
            covers = covers or mixed
            live = live_vectors(nv, width, cols_trip, covers, tail)
            if mr * live * reductions + held + spare_registers(mr, nv, width, loads) > registers or \
                    (cols_trip is not None and nv * width > cols_trip and not covers):
                continue
            left = (rows_trip % mr if rows_trip else 0) + (cols_trip % (nv * width) if cols_trip and not covers else 0)
            key = (row_reuse(mr, nv, width, cols_trip, loads, covers, rest, rows_trip), mr * nv, -left, mr)
            if best is None or key > best[0]:
                best = (key, mr, nv)
    return (best[1], best[2]) if best else (1, 1)


def row_reuse(mr: int, nv: int, width: int, cols: int | None, loads: LoadCopies, covers: bool,
              rest: RowRest | None, rows: int | None = None) -> float:
    """Multiply-adds (in vectors of `width` lanes, on the columns that exist) per load of an
    MR x NV tile: of one step, or with `rest` (a constant column count) of the whole row block,
    and with `rows` (Q's constant trip count) of the whole nest: its blocks of MR rows and the
    one block of the rows left over (`register_tile._rows`), each over the whole row."""
    if rest is not None and cols is not None:
        steps = row_steps(cols, nv, width, rest, covers)

        def block(m: int) -> int:
            return sum(loads.per_step(m, n) for n in steps)
        if rows:
            total = rows // mr * block(mr) + (block(rows % mr) if rows % mr else 0)
            return rows * cols / width / max(1, total)
        return mr * cols / width / max(1, block(mr))
    useful = mr * (cols / width if covers else nv)
    return useful / max(1, loads.per_step(mr, nv))


def cover_pays(cols: int | None, width: int) -> bool:
    """Whether a tile covering P's columns (its last vector masked, `covering`) may be chosen:
    where more than half the last vector's lanes are columns (cols mod width > width / 2). By
    `tail_width`'s model the covering tile's last vector takes the slots of a whole one, as does
    the masked tail after the whole vectors then (the narrowest vector holding the columns left
    over is the whole width); with half the lanes or fewer left over the tail runs in a vector
    of half the lanes or fewer, which never takes more slots (on a core that splits its widest
    vectors, half): 24 columns at 16 lanes run as one vector and one of 8, not two of 16."""
    return cols is not None and cols % width > width // 2


def covering(cols: int | None, nv: int, width: int) -> bool:
    """Whether NV vectors of `width` lanes are the fewest that cover `cols` columns, the last
    one partly: a tile that runs all of them in one step with the last vector masked."""
    return cols is not None and (nv - 1) * width < cols < nv * width


MIN_LANES = 4  # the narrowest vector a short loop is given (128 bits of f32)


def tail_width(cols: int | None, width: int, masked: bool) -> int:
    """Lanes of the one vector that runs the L = cols mod width columns left over after P's whole
    vectors (a constant trip count), or 0 (the plan's width, or none: no columns left over, or a
    symbolic count). Cost model: an op on a vector of w lanes of b bits takes ceil(w b / d) slots
    of a core whose vector unit is d bits wide (d = 512 on Intel's AVX-512 servers; 256 on AMD Zen 4,
    which runs a 512-bit op as two halves), and a masked lane costs as much as a used one. For
    every d the narrowest vector that holds the L columns takes the fewest slots: the smallest
    power of two >= L (at least MIN_LANES), masked past L (`masked`: section 17's masked tail
    allowed). Without masks the largest power of two <= L runs unmasked, the rest one at a time.
    A conv's 56 output columns at 16 lanes: 3 vectors and one of 8, not a 16-lane vector half
    masked (on Zen 4 half the tail's slots)."""
    if cols is None or width <= MIN_LANES:
        return 0
    left = cols % width
    if left < MIN_LANES and not (masked and left):
        return 0
    w = max(MIN_LANES, 1 << (left - 1).bit_length()) if masked else 1 << (left.bit_length() - 1)
    return w if w < width else 0


def narrower_width(cols: int, width: int, masked: bool = False) -> int:
    """The lanes for a loop of `cols` iterations, fewer than `width`. With a mask allowed
    (`masked`: section 17's masked tail) and more than MIN_LANES columns, the fewest lanes that
    hold them all, the smallest power of two >= cols: one vector, masked past the last column
    (7 output columns of a ResNet's last stage: one vector of 8 lanes, not a vector of 4 and a
    masked one: by `tail_width`'s model one vector of 2w lanes never takes more slots than two
    of w, half as many where the core's vector unit is as wide). Else the largest power of two
    that fits (a pooling window's 8 output columns run as one vector of 8 lanes, not 16), or
    `width` itself when that is below MIN_LANES (then the loop is refused as SHORT)."""
    if masked and cols > MIN_LANES:
        return min(width, 1 << (cols - 1).bit_length())
    w = 1 << (cols.bit_length() - 1)
    return w if w >= MIN_LANES else width


def rows_limit(width: int, cols_trip: int | None, registers: int = 32, cover: bool = False) -> int:
    """The most rows a tile may jam: MAX_ROWS, or more when the column loop is too short for
    MAX_VECTORS vectors (a convolution's 16 output columns are one vector of 16 lanes), up to
    MAX_ROWS x MAX_VECTORS accumulators and half the registers: with one vector per row every
    row costs a broadcast, so rows past 16 (at 512 bits) barely lower the loads per
    multiply-add (17/16 -> 25/24) while the weight rows one step touches grow (measured, paired
    on resnet_block: 16 rows 0.85x the time of 24)."""
    if cols_trip is None:
        return MAX_ROWS
    nv = max(1, min(MAX_VECTORS, (-(-cols_trip // max(1, width))) if cover else cols_trip // max(1, width)))
    return max(MAX_ROWS, min(MAX_ROWS * MAX_VECTORS // nv, registers // 2))


def _slot(values: list, v: ir.Value) -> int:
    """The position of `v` among `values` (appended when new): one dimension per distinct value."""
    for k, w in enumerate(values):
        if w == v:
            return k
    values.append(v)
    return len(values) - 1


def load_address(op: ir.Operation, values: list) -> tuple | None:
    """The element (first element of a vector) an affine.load or affine.vector_load reads: its
    memref, result type and index expressions over its operands, each operand a dimension
    numbered by `values` (shared by all the loads compared), as MLIR simplifies them: x[j + k + 1]
    and x[(j + 1) + k] are one element. None for other loads and for maps with symbols (then only
    the same op is the same load)."""
    if op.name not in ("affine.load", "affine.vector_load"):
        return None
    m = mlir.affine_map_attr(op, "map")
    if m.n_symbols:
        return None
    ctx = op.context
    dims = [ir.AffineDimExpr.get(_slot(values, v), context=ctx) for v in list(op.operands)[1:]]
    into = ir.AffineMap.get(len(values), 0, dims, context=ctx) if dims else None
    exprs = tuple(str(simplified(e.compose(into) if into is not None else e, len(values), 0)) for e in m.results)
    return op.operands[0], str(op.results[0].type), exprs


def written_in(ops: list[ir.Operation]):
    """A test of whether a memref may be written by `ops` or anything nested in them
    (`effects.op_effects`: any write to a buffer that may alias it, or an op of unknown effects)."""
    eff = Effects()
    for op in ops:
        eff.merge(op_effects(op))
    return lambda memref: eff.may_write(buffer_key_of(memref))


def load_copies(band: list[ir.Operation], lanes: Lanes) -> LoadCopies:
    """LoadCopies of the loads in the band's innermost loop, by `lanes` (P's and Q's data flow):
    the loads of one step that read distinct elements (`load_address`). One element loaded twice
    in a step is one load, as LLVM keeps the first: a transposed convolution's phases, fused in
    one nest, each load the input vector of the taps that meet it (4 phases of 2 taps: 2 input
    vectors per step, not 4). A load whose memref the body also writes (a sum in memory), or any
    load of a body that may write any memory (a call), counts every time."""
    ops = body_ops(band[-1])
    written = written_in(ops)
    counts = [0, 0, 0, 0]
    seen: list = []
    values: list = []
    for op in ops:
        if not op.name.endswith("load"):
            continue
        address = load_address(op, values)
        if address is not None and not written(op.operands[0]):
            if address in seen:
                continue
            seen.append(address)
        v = op.results[0]
        row, lane = lanes.by_row(v), lanes.varies(v)
        counts[0 if row and not lane else 1 if lane and not row else 2 if row else 3] += 1
    return LoadCopies(*counts, unrolled=len(band) > 1 and all(short_band_loop(b, band) for b in band))


def plan_register_tile(p: ir.Operation, facts, options) -> TilePlan | None:
    """The register tiling of the reduction nest P (see above), None when P is not one (its
    body holds no reduction band: one loop, or loops nested one in the other, carrying values)."""
    band = reduction_band_of(p, facts.scope)
    if band is None:
        return None
    r = band[0]
    if not single_bounds(p) or not all(single_bounds(b) for b in band):
        return _tile_refuse(p, TileCode.SHAPE, "step or bounds of the loop to block or of its reduction loop", r)
    carried, why_carried = lane_reductions(p)
    if why_carried is not None:
        return _tile_refuse(p, TileCode.CARRIED_VALUE, why_carried, r)
    if any(defined_inside(v, p) for b in band for v in bound_values(b)):
        return _tile_refuse(p, TileCode.REDUCTION_LOOP, "its bounds move with the loop to block", r)
    reds, not_red = reductions_of(band[-1])
    if not_red is not None:
        return _tile_refuse(p, TileCode.REDUCTION_LOOP, not_red, r)
    mem = memory_reductions(r, facts.scope) if len(band) == 1 else []
    if mem:
        from ....analysis.loops import runs_at_least_once

        if not runs_at_least_once(r, facts.scope):
            return _tile_refuse(p, TileCode.REDUCTION_LOOP, "a sum in memory and the loop may run zero times", r)
        stray = _stray_access(r, mem)
        if stray is not None:
            return _tile_refuse(p, TileCode.REDUCTION_LOOP, stray, r)
    bad = nest_op_refusal(p, r, None, mem)
    if bad is not None:
        return _tile_refuse(p, bad[0], bad[1], bad[2])
    why = carried_dependence(p, facts, through_iter_args=False)
    if why is not None:
        return _tile_refuse(p, TileCode.CARRIED, why.reason)
    lanes = lanes_of(p, r, None, mem)
    strided: list = []
    gathered: list = []
    narrow = lane_width_refusal(p, r, lanes, facts, strided, gathered)
    width = 1 if narrow is not None else max(1, options.plan_vector_bits // lane_bits(p, r, lanes))
    strided = strided if width > 1 else []
    gathered = gathered if width > 1 else []
    ordered = [x for x in (*reds, *mem) if not x.exact]
    column = None  # why LLVM cannot vectorize the reduction loop: an access not contiguous along it
    if width == 1 and (not ordered or bool(options.reassociate)):
        column = access_refusal(band[-1], facts.accesses(band[-1]), facts.scope)
        if column is None:
            return _tile_refuse(p, TileCode.NOT_PROFITABLE, f"lanes refused ({narrow}) and the reductions "
                                + ("may be reassociated" if ordered else "are exact in any order"), r)
    cols = constant_trip_count(p)
    masked = width > 1 and masked_tail_refusal(p, r, lanes, carried, strided, gathered) is None
    if cols is not None and width > 1 and cols < width:
        width = narrower_width(cols, width, masked)
    if cols is not None and cols < max(2, width) and not (masked and cols > MIN_LANES):
        return _tile_refuse(p, TileCode.SHORT, f"{cols} iterations, {width} lanes")
    registers = vector_registers(options) if width > 1 else 16
    nred = len(reds) + len(mem)
    cover = masked and cover_pays(cols, width)
    tail = masked or tail_width(cols, width, masked) > 0  # a vector after the whole ones (live_vectors)
    rest = RowRest(tail_width(cols, width, masked), masked, not carried) if cols is not None and width > 1 else None
    rows_q, between, rows_why, mr, nv, held = choose_rows(p, r, band, facts, mem, registers, nred, width, cols,
                                                          cover, tail)
    if rest is not None and tail_starves(cols, width, mr, nv, nred, rest, cover and covering(cols, nv, width),
                                         lane_bits(p, r, lanes), options.plan_fma_pipes):
        rows_q, between, rows_why, mr, nv, held = choose_rows(p, r, band, facts, mem, registers, nred, width, cols,
                                                              cover, tail, rest)
    else:
        rest = None  # the old tail keeps the pipes busy: the tile per step, the columns left over as before
    joint = rest is not None and not carried and shares_row_loads(load_copies(band, lanes_of(p, r, rows_q, mem, between)))
    mixed = joint and mixed_cover(cols, nv, width, rest)
    fma = bool(options.contract) and any(_multiply_add(x) is not None for x in (*reds, *mem))
    nc = column_block(band, p, lanes, nv * width, options) if rows_q is not None and mr > 1 and not carried \
        and not between else 0
    block_refusal = None
    copied = block_copy_refusal(rows_q, p) if nc else None
    if copied is not None:
        nc, block_refusal = 0, Refusal(TileCode.COLUMN_BLOCKS, copied[0], (p, copied[1]))
    return TilePlan(p, r, rows_q, width, nv, mr, fma, tuple(reds), rows_why if rows_q is None else "",
                    in_memory=tuple(mem), col_block=nc, carried=tuple(carried), block_refusal=block_refusal,
                    band=tuple(band), between=tuple(between), strided=tuple(strided), gathered=tuple(gathered),
                    unrolled=tuple(b for b in band if short_band_loop(b, band)),
                    masked_tail=masked, tail=0 if cover and covering(cols, nv, width) else tail_width(cols, width, masked),
                    held=held, live=live_vectors(nv, width, cols, covering(cols, nv, width) or mixed, tail),
                    cover=(cover and covering(cols, nv, width)) or mixed, joint=joint,
                    scalar_why=column[0] if column else "",
                    lanes_why=(narrow or "") if column else "")


# Loops of a reduction band this short run as copies of their body inside the loop around them
# (IREE unrolls a convolution's kernel columns the same way). Measured on a 64-channel 3x3
# convolution at 512 bits (paired A/B): 1-5% faster than the same loops left to LLVM.
UNROLL_TRIPS = 4


def short_band_loop(b: ir.Operation, band) -> bool:
    """A loop of a reduction band (of more than one loop) whose iterations are emitted one
    after the other: constant bounds, at most UNROLL_TRIPS iterations, and no memory sums."""
    from ....analysis.loops import constant_bounds

    cb = constant_bounds(b)
    return len(band) > 1 and cb is not None and 0 < cb[1] - cb[0] <= UNROLL_TRIPS and has_iter_args_op(b)


# Integer ops that trap or are undefined on the values of a lane whose iterations do not exist
# (a masked tail computes every lane: x86 has no vector division, LLVM divides lane by lane).
TRAPPING_OPS = frozenset({"arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.ceildivsi",
                          "arith.ceildivui", "arith.floordivsi"})


def masked_tail_refusal(p: ir.Operation, r: ir.Operation, lanes: Lanes, carried, strided,
                        gathered=()) -> str | None:
    """Why the columns left over after the last whole vector may not run as one vector with a
    mask (then they run one at a time), or None. The masked lanes load nothing
    (`vector.maskedload`), store nothing (`vector.maskedstore`) and compute on the pass-through
    value 0, so every op on lanes must be harmless on any value: no integer division or
    remainder; P carries no values (a partial from a masked lane would join the result); no
    stride-2 load (its second vector would reach past the last lane's element); no gathered load
    (it loads every lane, a masked one too)."""
    if carried:
        return "the loop carries values across its lanes"
    if strided:
        return "a load reads every second element"
    if gathered:
        return "a load of i1 reads every lane on its own"
    for op in body_ops(p) + band_ops(band_loops(r)):
        if op.name in TRAPPING_OPS and any(lanes.varies(v) for v in op.results):
            return f"{op.name} at {mlir.location_of(op)} may trap on a masked lane"
    return None


def rows_candidates(p: ir.Operation) -> list[tuple[ir.Operation, tuple]]:
    """The loops around P whose iterations may become the tile's rows, innermost first, each with
    the loops between it and P (outermost first): P's parent, then each loop further out while
    the loop below it is an affine.for of step 1 with single bounds, no carried values, and
    nothing else with a region in its body (it then runs as it is inside the rows' loop)."""
    out = []
    between: list = []
    child, at = p, mlir.operation(p.parent) if p.parent is not None else None
    while at is not None and at.name == "affine.for":
        out.append((at, tuple(between)))
        if not single_bounds(at) or has_iter_args_op(at) or any(o.regions for o in body_ops(at) if o != child):
            break
        between.insert(0, at)
        child, at = at, (mlir.operation(at.parent) if at.parent is not None else None)
    return out


def choose_rows(p: ir.Operation, r: ir.Operation, band: list, facts, mem, registers: int, nred: int, width: int,
                cols: int | None, cover: bool = False, tail: bool | None = None, rest: RowRest | None = None) -> tuple:
    """(Q, the loops between Q and P, why no rows, MR, NV, held registers): of the loops around P
    (`rows_candidates`) the one whose rows give the tile the most multiply-adds per load
    (`choose_tile` over `load_copies`: GEMM's i, a convolution's output channel f, not its output
    row oh, whose rows share nothing), among those whose rows may be jammed (`_rows_loop`); ties
    to more accumulators, then to fewer vector loads (a 1x1 convolution's one-vector tile loads
    as often over rows of f as over rows of oh, but broadcasts the weight where oh would load a
    vector of the input per row), then to the nearest. Without one: one row, with the nearest
    loop's reason. `cover`: tiles covering P's columns may be chosen; `tail`: a masked tail may
    follow (default: `cover`); `rest`: the reuse is the whole row's (`choose_tile`)."""
    tail = cover if tail is None else tail
    best = None
    first_why = "no loop around it"
    for k, (q, between) in enumerate(rows_candidates(p)):
        lanes = lanes_of(p, r, q, mem, between)
        loads = load_copies(band, lanes)
        held = held_registers(band, loads, registers)
        key, mr, nv = max(_tile_for_rows(registers, nred, width, cols, constant_trip_count(q), loads, c, k, tail, held,
                                         rest)
                          for c in ((False, True) if cover else (False,)))
        if best is not None and key <= best[0]:
            continue
        rows_q, why = _rows_loop(q, p, r, facts, mem, between)
        if rows_q is None:
            first_why = why if k == 0 else first_why
            continue
        if mr == 1:
            first_why = first_why if k else "one row fits the registers best"
            continue
        best = (key, q, between, mr, nv, held)
    if best is None:
        loads = load_copies(band, lanes_of(p, r, None, mem))
        held = held_registers(band, loads, registers)
        _, nv = choose_tile(registers, nred, width, 1, cols, None, loads, cover, tail, held, rest)
        return None, (), first_why, 1, nv, held
    _, q, between, mr, nv, held = best
    return q, between, "", mr, nv, held


def _tile_for_rows(registers: int, nred: int, width: int, cols: int | None, rows_trip: int | None,
                   loads: LoadCopies, cover: bool, k: int, tail: bool = False, held: int = 0,
                   rest: RowRest | None = None) -> tuple:
    """(key, MR, NV) of the tile `choose_tile` gives rows of trip count `rows_trip` (the k-th
    candidate), within `rows_limit` for tiles that may (`cover`) or may not cover P's columns:
    the key counts multiply-adds per load on the columns that exist, then accumulators, then
    fewer vector loads, then the nearer loop. Ties go to the tile without a mask (tried first).
    `tail`: a masked tail may follow; `held`: registers the tile holds besides; `rest`: the
    reuse is the whole row's (`choose_tile`), where the rows share loads (`shares_row_loads`)."""
    rest = rest if shares_row_loads(loads) else None
    mr, nv = choose_tile(registers, nred, width, rows_limit(width, cols, registers, cover), cols, rows_trip, loads,
                         cover, tail, held, rest)
    covers = (cover and covering(cols, nv, width)) or mixed_cover(cols, nv, width, rest)
    return (row_reuse(mr, nv, width, cols, loads, covers, rest, rows_trip), mr * nv, -loads.vectors(mr, nv), -k,
            not cover), mr, nv


# Reductions P itself may carry when its iterations become lanes: each lane (and each vector of
# the tile) keeps a partial started from the init, combined across lanes after P's sweep. Only
# idempotent ones (op(x, x) = x), so that every partial may start from the init itself, and
# exact in any order: maximumf/minimumf (IEEE maximum/minimum: NaN wins, -0 < +0, so even the
# sign of a zero is the same; which NaN comes out is not specified by LLVM in either order),
# maxnumf/minnumf (the same but for a zero's sign, which they leave open), and the integer
# max/min/and/or. A sum is not: the init would be counted once per partial.
LANE_REDUCTIONS = {"arith.maximumf": "maximumf", "arith.minimumf": "minimumf", "arith.maxnumf": "maxnumf",
                   "arith.minnumf": "minnumf", "arith.maxsi": "maxsi", "arith.minsi": "minsi",
                   "arith.maxui": "maxui", "arith.minui": "minui", "arith.andi": "and", "arith.ori": "or"}


def lane_reductions(p: ir.Operation) -> tuple[list[Reduction], str | None]:
    """P's own carried values (a row maximum fused into the loop over keys) when each is a
    reduction (`reductions_of`) of a LANE_REDUCTIONS kind; else ([], why not)."""
    if not has_iter_args_op(p):
        return [], None
    reds, why = reductions_of(p)
    if why is not None:
        return [], why
    for red in reds:
        if red.kind not in LANE_REDUCTIONS:
            return [], f"{red.kind} is not idempotent and exact in any order (its partials may not start from the init)"
    return reds, None


def column_block(band, p: ir.Operation, lanes: Lanes, tile_cols: int, options) -> int:
    """NC, the columns one block of row tiles sweeps: one tile's columns when B's K x N panel
    (K the reduction band's iterations, the product of its loops' trip counts: a convolution's
    input channels times its kernel taps; N P's trip count; the lanes' element size) is larger
    than half of L2 (`options.plan_cache_sizes`: the host's), else 0 (no blocks: the panel stays
    in L2 while each row tile sweeps it). With blocks of one tile, the tile's micro-panel of B
    (K x NC) serves every row tile before the next (BLIS's order of its jr and ir loops;
    docs/cpu_codegen.md section 18 measures it against blocks that fill half of L2, section 53
    on a convolution's band). A trip count unknown at compile time: 0 (codegen/cpu/cache_tile.py
    blocks such a nest first)."""
    trips = [constant_trip_count(b) for b in band]
    n = constant_trip_count(p)
    if n is None or any(t is None for t in trips):
        return 0
    elem = max(4, lane_bits(p, band[0], lanes) // 8)
    _, l2, _ = options.plan_cache_sizes
    if math.prod(trips) * n * elem <= l2 // 2 or n <= tile_cols:
        return 0
    return tile_cols


# Ops the column blocks may copy into every block: no effect on memory, a value that depends only
# on its operands (so every copy computes the same thing from the same row's values).
PURE_PREFIXES = ("arith.", "math.")
PURE_OPS = frozenset({"affine.apply"})


def block_copy_refusal(q: ir.Operation, p: ir.Operation) -> tuple[str, ir.Operation] | None:
    """Why P's columns may not come in blocks under Q, or None. Built in blocks, the nest runs
    Q's body once per block of columns (`for jc { for i { Q's ops; P over the block } }`), so
    every op of Q's body besides P is copied into every block: only pure ops may be (arith,
    math, affine.apply), and loads of a buffer that nothing in Q writes (`unwritten_load`: a
    convolution's bias, read per row; every copy reads the same unchanged element). Any other
    load would read what an earlier block's P already wrote (a load of C[i, 0] before the
    product), a store would run once per block (`D[i] += E[i]` after it). Values carried across
    the blocks (iter_args of Q or P) are refused before (`_rows_loop`, no blocks for P's own
    reductions)."""
    effects = None
    for op in body_ops(q):
        if op == p or op.name == "affine.yield":
            continue
        if not op.regions and (op.name.startswith(PURE_PREFIXES) or op.name in PURE_OPS):
            continue
        if not op.regions and op.name in READ_OPS:
            effects = effects or op_effects(q)
            if unwritten_load(op, effects):
                continue
        what = ("reads memory that the loop writes" if op.name.endswith("load") else "writes memory"
                if op.name.endswith("store") else "may touch memory")
        return f"{op.name} at {mlir.location_of(op)} {what}", op
    return None


def unwritten_load(op: ir.Operation, effects) -> bool:
    """Whether the load `op` reads a traced buffer that no op of the loop whose `effects`
    (`effects.op_effects`, the union over its body) are given may write: then a copy of it
    anywhere in that loop reads the same value."""
    key = buffer_key_of(op.operands[READ_OPS[op.name]])
    return key is not UNTRACED and not effects.may_write(key)


def _stray_access(r: ir.Operation, mem: list[MemoryReduction]) -> str | None:
    """Another access in R that may touch the buffer a memory reduction keeps its sum in (the
    sum then may not wait in a register), or None. Buffers are compared by their storage
    (`memory.buffer_key` of the alias root, so a cast or view of the sum's buffer counts; a
    memref of untraced origin may be any buffer); two sums that may share a buffer are refused
    too (their addresses may meet)."""
    from ....analysis.memory import buffer_key_of as key, keys_may_alias

    own = {mlir.op_key(x) for m in mem for x in (m.load, m.store)}
    sums = [key(m.store.operands[1]) for m in mem]
    for a in range(len(sums)):
        for b in range(a + 1, len(sums)):
            if keys_may_alias(sums[a], sums[b]):
                return (f"affine.store at {mlir.location_of(mem[b].store)} keeps a second sum in a buffer "
                        "that may be the first's")
    for op in body_ops(r):
        if mlir.op_key(op) in own:
            continue
        for v in op.operands:
            if isinstance(v.type, (ir.MemRefType, ir.UnrankedMemRefType)) and \
                    any(keys_may_alias(key(v), k) for k in sums):
                return f"{op.name} at {mlir.location_of(op)} may touch the buffer of a sum kept in memory"
    return None


def has_iter_args_op(loop: ir.Operation) -> bool:
    return len(list(body_block(loop).arguments)) > 1


def _rows_loop(q: ir.Operation | None, p: ir.Operation, r: ir.Operation, facts,
               mem: list | tuple = (), between: list | tuple = ()) -> tuple[ir.Operation | None, str]:
    """Q when its iterations (rows of C) may be jammed: an affine.for of step 1 with single
    bounds around P (around the loops `between` it and P, which then run as they are for all
    rows at once), carrying no values and no memory dependence, whose other ops, and those of the
    loops between, are loads and pure ops (stores after the loop they hold), with the bounds of
    the loops between, of P and of the reduction band not moving with it. Else (None, why not).

    Jamming Q's iterations across the loops between is legal when Q carries no dependence:
    every row keeps its own ops in their order, and ops of different rows touch no common
    element that one of them writes."""
    if q is None:
        return None, "no loop around it"
    if not single_bounds(q) or has_iter_args_op(q):
        return None, "the loop around it has a step, several bounds or carried values"
    band = band_loops(r)
    if any(defined_inside(v, q) for lp in [*between, p, *band] for v in bound_values(lp)):
        return None, "its bounds move with the loop around it"
    for outer, inner in zip([q, *between], [*between, p]):
        if any(o.regions for o in body_ops(outer) if o != inner):
            return None, "the loop around it holds other loops or regions"
    bad = nest_op_refusal(p, r, q, mem, between)
    if bad is not None:
        return None, f"beside it in the loop around it: {bad[1]}"
    why = carried_dependence(q, facts, through_iter_args=False)
    if why is not None:
        return None, f"the loop around it carries a dependence: {why.reason}"
    return q, ""


def _multiply_add(red: Reduction) -> ir.Operation | None:
    """The arith.mulf feeding an addf reduction directly, used only there (fma candidate)."""
    if red.kind != "arith.addf":
        return None
    for v in red.op.operands:
        owner, _ = mlir.value_owner(v)
        if owner is not None and owner.name == "arith.mulf" and len(list(v.uses)) == 1 \
                and owner.parent == red.op.parent:
            return owner
    return None


# A refused reduction nest is reported in the default remarks (not only when `register-tile` is
# named in --passes) when its innermost body runs at least this often, or an unknown number of
# times: 2^16 multiply-adds are ~0.1 ms scalar, where a tile would matter.
HOT_ITERATIONS = 1 << 16


def nest_iterations(p: ir.Operation) -> int | None:
    """How often the innermost body of P's nest runs: the product of the constant trip counts of
    the affine.for loops around P, P and the loops in it down its first innermost loop; None when
    one is not a constant."""
    from ....analysis.loops import ancestors, known_trip_count

    loops = [o for o in ancestors(p) if o.name == "affine.for"] + [p]
    at = p
    while True:
        inner = [o for o in body_ops(at) if o.name == "affine.for"]
        if not inner:
            break
        at = inner[0]
        loops.append(at)
    total = 1
    for lp in loops:
        n = known_trip_count(lp)
        if n is None:
            return None
        total *= n
    return total


def is_hot(p: ir.Operation) -> bool:
    """Whether a refusal of P's nest belongs in the default remarks (HOT_ITERATIONS)."""
    n = nest_iterations(p)
    return n is None or n >= HOT_ITERATIONS


def in_reduction_band(loop: ir.Operation, scope=None) -> bool:
    """Whether `loop` is a loop of the reduction band of the loop around it (then that loop is
    the one to plan, not this one)."""
    parent = mlir.operation(loop.parent) if loop.parent is not None else None
    if parent is None or parent.name != "affine.for":
        return False
    band = reduction_band_of(parent, scope)
    return band is not None and any(b == loop for b in band)


def plan_register_tiles(fn: ir.Operation, facts, options) -> list[TilePlan]:
    """A TilePlan per reduction nest of the function, in program order (a loop of another
    nest's reduction band is not planned: its nest is)."""
    out = []
    for op in mlir.walk(fn):
        if op.name == "affine.for" and not (has_iter_args_op(op) and in_reduction_band(op, facts.scope)):
            plan = plan_register_tile(op, facts, options)
            if plan is not None:
                out.append(plan)
    return out
