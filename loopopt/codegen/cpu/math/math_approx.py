"""Math approximation (cpu): math.exp, log, log1p, tanh and erf on f32 become polynomials in arith ops.

The lowering turns these ops into calls of libm's scalar `expf`, `logf`, `tanhf`, `erff`, which
LLVM's loop vectorizer cannot widen (no vector math library is linked): a loop that calls one
runs one element at a time (softmax's exp loop: 0.24-0.39 Gelem/s measured, docs/cpu_codegen.md).
Written as arith and math ops that have vector instructions (fma, floor, copysign, compares,
selects, integer shifts and bitcasts), the same loop vectorizes: 1.8-2.0 Gelem/s, 5-7x.

Each approximation is one function of an `Ops` builder and the argument, so the same text
serves f32 scalars and vectors of f32 (`IROps` emits MLIR ops of the argument's type; the tests
also run them on numpy arrays). The maximum errors in units in the last place (ulp of the
correctly rounded f32 result, 2^-149 for subnormal results) are measured natively against
libm by tests/test_cpu_math.py (`MAX_ULP`, 1 ulp for each but log1p's 2, is what it asserts;
every one of the 2^32 f32 inputs was checked, see docs/cpu_codegen.md):

  exp   range reduction x = n ln2 + r (|r| <= ln2/2, two-constant Cody-Waite with fma), e^r by a
        degree-6 polynomial (1 + r + r^2 P(r)), times 2^n rounded once (`Ops.scale`): built in
        the exponent bits in two halves so that subnormal results round once and large ones
        overflow to inf, or, for a 512-bit plan, one `llvm.intr.ldexp` (AVX-512's vscalefps), which
        gives the same bits;
        x < ln(2^-150) -> +0, x > ln(FLT_MAX) -> inf, NaN -> NaN.
  log   x = m 2^e with m in [sqrt(1/2), sqrt(2)) from the bits (subnormals scaled by 2^23 first),
        log(m) = f - f^2/2 + f^3 P(f) with f = m - 1 (exact), P of degree 7, plus e ln2 in two
        parts; log(0) = -inf, log(x < 0) = NaN, log(inf) = inf.
  log1p u = 1 + x rounded, log1p(x) = log(u) + (x - (u - 1)) / u: u - 1 is exact (Sterbenz
        for u in [1/2, 2], one binade below u above), so x - (u - 1) is the exact rounding error
        of 1 + x and the quotient its first-order term (log(1 + e/u) = e/u to f32); x where u is
        1 (|x| < 2^-24, -0 kept); log's own result where u <= 2^-25 (u = 0 at x = -1: -inf;
        x < -1: NaN) and at u = inf; NaN -> NaN. Softplus, Mish, BCE with logits and
        log-sigmoid call it.
  tanh  |x| < 0.9: x + x^3 P(x^2), P of degree 6; else 1 - 2 / (e^(2|x|) + 1) with the sign of x
        (|x| clamped to 9.5, where tanh is 1 in f32); NaN -> NaN.
  erf   |x| < 1: x P(x^2), P of degree 6 (its constant term 2/sqrt(pi) in two parts); 1 <= |x| < 3.92: 1 - Q(|x| - 2.46), Q of degree 15
        approximating erfc; beyond: 1; the sign of x; NaN -> NaN.

Coefficients: near-minimax fits (iteratively reweighted least squares on 4,000 Chebyshev nodes,
relative error for exp/log/tanh and erf's small branch, absolute for erfc), computed in high
precision (mpmath) and rounded to f32. All ops are plain arith/math ops without fast-math
flags, so LLVM evaluates them exactly as written (fma is `llvm.fma`, a hardware FMA here).
"""
from __future__ import annotations

from typing import Callable

from ....mlir import ir

EXP_P = (0.4999999403953552, 0.1666651964187622, 0.04166840761899948, 0.00836891494691372, 0.001381418202072382)
LOG_P = (0.3333333134651184, -0.25000837445259094, 0.2000129222869873, -0.16622760891914368, 0.14199714362621307,
         -0.13164237141609192, 0.12779004871845245, -0.07645832002162933)
TANH_P = (-0.33333322405815125, 0.13332977890968323, -0.05392930284142494, 0.021663546562194824,
          -0.008264550007879734, 0.0025826727505773306, -0.00045546155888587236)
ERF_SMALL_P = (1.1283791065216064, -0.3761262595653534, 0.1128358542919159, -0.02685382030904293,
               0.005188342649489641, -0.0008010310702957213, 7.854219438740984e-05)
ERFC_MID_P = (0.000503353716339916, -0.002656303346157074, 0.006534515880048275, -0.00983129907399416,
              0.009914221242070198, -0.006805404555052519, 0.0029370596166700125, -0.00044626163435168564,
              -0.0003557392046786845, 0.0002846491406671703, -7.594264025101438e-05, -1.5525618437095545e-05,
              1.7372987713315524e-05, -2.962767439385061e-06, -1.1001459370163502e-06, 3.5839673273585504e-07)
ERFC_MID_CENTRE = 2.46
ERF_C0_HI, ERF_C0_LO = 1.128379225730896, -5.8635382771399236e-08  # 2/sqrt(pi) in two f32 parts

LOG2E = 1.44269502
LN2_HI = 0.693147182  # f32(ln 2)
LN2_LO = -1.90465421e-09  # ln 2 - LN2_HI
EXP_HI = 88.72283935546875  # the least f32 above ln(FLT_MAX): exp of it and beyond is inf
EXP_LO = -103.972084  # ln(2^-150): below it exp rounds to +0
TANH_CLAMP = 9.5  # tanh(|x|) is 1 in f32 from 9.01 on; 2 * 9.5 stays in exp's range
FLT_MIN = 1.1754943508222875e-38  # the least normal f32: log scales what is below it by 2^23 first
SQRT_HALF_BITS = 0x3F3504F3  # f32(sqrt(1/2)): mantissas from here up to sqrt(2) keep their exponent


class Ops:
    """What an approximation needs: float arithmetic, compares, selects and 32-bit integer
    bit manipulation, elementwise on one shape. Subclasses build MLIR (`IROps`) or compute."""

    def f(self, value: float): raise NotImplementedError  # a float constant of the shape
    def i(self, value: int): raise NotImplementedError  # an i32 constant of the shape
    def fma(self, a, b, c): raise NotImplementedError  # a * b + c, rounded once
    def add(self, a, b): raise NotImplementedError
    def sub(self, a, b): raise NotImplementedError
    def mul(self, a, b): raise NotImplementedError
    def div(self, a, b): raise NotImplementedError
    def min(self, a, b): raise NotImplementedError  # arith.minimumf (NaN-propagating)
    def max(self, a, b): raise NotImplementedError  # arith.maximumf
    def abs(self, a): raise NotImplementedError
    def copysign(self, a, b): raise NotImplementedError
    def floor(self, a): raise NotImplementedError
    def lt(self, a, b): raise NotImplementedError  # ordered <
    def eq(self, a, b): raise NotImplementedError  # ordered ==
    def isnan(self, a): raise NotImplementedError
    def select(self, c, a, b): raise NotImplementedError
    def bits(self, a): raise NotImplementedError  # f32 -> i32, same bits
    def from_bits(self, a): raise NotImplementedError  # i32 -> f32, same bits
    def to_int(self, a): raise NotImplementedError  # fptosi (the argument is integral and in range)
    def to_float(self, a): raise NotImplementedError  # sitofp
    def iadd(self, a, b): raise NotImplementedError
    def isub(self, a, b): raise NotImplementedError
    def iand(self, a, b): raise NotImplementedError
    def shl(self, a, k: int): raise NotImplementedError
    def ashr(self, a, k: int): raise NotImplementedError

    def scale(self, p, n):
        """p * 2^n rounded once, for p in [0.7, 1.5) and the integral float n in [-150, 128]: 2^n
        in the exponent bits in two halves (each a normal f32; the first product is exact, the
        second rounds once, to a subnormal or to inf where the result is one)."""
        ni = self.to_int(n)
        n1 = self.ashr(ni, 1)
        n2 = self.isub(ni, n1)
        s1 = self.from_bits(self.shl(self.iadd(n1, self.i(127)), 23))
        s2 = self.from_bits(self.shl(self.iadd(n2, self.i(127)), 23))
        return self.mul(self.mul(p, s1), s2)

    def horner(self, x, coeffs):
        """c0 + x (c1 + x (c2 + ...)), one fma per coefficient."""
        acc = self.f(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, self.f(c))
        return acc


# ----------------------------------------------------------------------------- the approximations

def _exp_finite(b: Ops, xc):
    """e^xc for xc in [EXP_LO, EXP_HI] (no NaN): range reduction, polynomial, 2^n in two halves."""
    n = b.floor(b.fma(xc, b.f(LOG2E), b.f(0.5)))
    r = b.fma(n, b.f(-LN2_HI), xc)
    r = b.fma(n, b.f(-LN2_LO), r)
    q = b.horner(r, EXP_P)
    p = b.add(b.fma(q, b.mul(r, r), r), b.f(1.0))
    return b.scale(p, n)


def exp_f32(b: Ops, x):
    nan = b.isnan(x)
    xc = b.select(nan, b.f(0.0), b.max(b.min(x, b.f(EXP_HI)), b.f(EXP_LO)))
    y = _exp_finite(b, xc)
    y = b.select(b.lt(x, b.f(EXP_LO)), b.f(0.0), y)
    return b.select(nan, x, y)


def log_f32(b: Ops, x):
    tiny = b.lt(x, b.f(FLT_MIN))  # subnormal (or zero, negative): scale up first
    xs = b.select(tiny, b.mul(x, b.f(8388608.0)), x)
    bits = b.bits(xs)
    # m = the mantissa with the exponent of [sqrt(1/2), sqrt(2)); e = the exponent that remains
    shifted = b.isub(bits, b.i(SQRT_HALF_BITS))
    e = b.ashr(shifted, 23)
    m = b.from_bits(b.iadd(b.iand(shifted, b.i(0x007FFFFF)), b.i(SQRT_HALF_BITS)))
    e = b.to_float(b.isub(e, b.select(tiny, b.i(23), b.i(0))))
    f = b.sub(m, b.f(1.0))
    f2 = b.mul(f, f)
    p = b.horner(f, LOG_P)
    lp = b.fma(b.mul(f2, f), p, b.fma(f2, b.f(-0.5), f))
    y = b.fma(e, b.f(LN2_HI), b.fma(e, b.f(LN2_LO), lp))
    y = b.select(b.lt(x, b.f(0.0)), b.f(float("nan")), y)
    y = b.select(b.eq(x, b.f(0.0)), b.f(float("-inf")), y)  # +0 and -0
    y = b.select(b.eq(x, b.f(float("inf"))), x, y)
    return b.select(b.isnan(x), x, y)


def log1p_f32(b: Ops, x):
    """log(u) of u = 1 + x plus the first-order term of the rounding error of 1 + x (module doc)."""
    u = b.add(b.f(1.0), x)
    ly = log_f32(b, u)
    y = b.add(ly, b.div(b.sub(x, b.sub(u, b.f(1.0))), u))
    y = b.select(b.eq(u, b.f(1.0)), x, y)
    y = b.select(b.lt(u, b.f(2.0 ** -25)), ly, y)  # u = 0 (x = -1) or negative: log's -inf or NaN
    y = b.select(b.eq(u, b.f(float("inf"))), u, y)
    return b.select(b.isnan(x), x, y)


def tanh_f32(b: Ops, x):
    """Both branches on |x|, the sign of x put back at the end (tanh is odd; -0 stays -0)."""
    a = b.abs(x)
    a2 = b.mul(a, a)
    small = b.fma(b.mul(a2, a), b.horner(a2, TANH_P), a)
    ac = b.min(a, b.f(TANH_CLAMP))
    e = _exp_finite(b, b.add(ac, ac))
    big = b.sub(b.f(1.0), b.div(b.f(2.0), b.add(e, b.f(1.0))))
    y = b.copysign(b.select(b.lt(a, b.f(0.9)), small, big), x)
    # a NaN reaches fptosi in _exp_finite (poison in LLVM): the select keeps it out of the result
    return b.select(b.isnan(x), x, y)


def erf_f32(b: Ops, x):
    """Both branches on |x|, the sign of x put back at the end (erf is odd; -0 stays -0)."""
    a = b.abs(x)
    # a (c0 + a^2 P1(a^2)) with c0 = 2/sqrt(pi) carried in two parts: one rounding near 0
    a2 = b.mul(a, a)
    tail = b.fma(a2, b.horner(a2, ERF_SMALL_P[1:]), b.f(ERF_C0_LO))
    small = b.fma(a, b.f(ERF_C0_HI), b.mul(a, tail))
    t = b.sub(b.min(a, b.f(3.92)), b.f(ERFC_MID_CENTRE))
    mid = b.sub(b.f(1.0), b.horner(t, ERFC_MID_P))
    y = b.select(b.lt(a, b.f(1.0)), small, b.select(b.lt(a, b.f(3.92)), mid, b.f(1.0)))
    return b.select(b.isnan(x), x, b.copysign(y, x))


APPROXIMATIONS: dict[str, Callable] = {
    "math.exp": exp_f32,
    "math.log": log_f32,
    "math.log1p": log1p_f32,
    "math.tanh": tanh_f32,
    "math.erf": erf_f32,
}
# The documented maximum error of each approximation, in ulp of the correctly rounded result,
# over every f32 input (tests/test_cpu_math.py measures it natively and asserts it).
# Measured on all 2^32 inputs in vector<8xf32> form (docs/cpu_codegen.md): 1 ulp for each, 2 for
# log1p (log's ulp and the sum's rounding; section 59).
MAX_ULP: dict[str, float] = {"math.exp": 1.0, "math.log": 1.0, "math.log1p": 2.0, "math.tanh": 1.0, "math.erf": 1.0}


# ----------------------------------------------------------------------------- MLIR

_CMPF = {"oeq": 1, "ogt": 2, "olt": 4, "uno": 14}  # arith.cmpf predicate numbers


def scales_by_ldexp(vector_bits: int) -> bool:
    """Whether exp's 2^n scaling on scalars is one `llvm.intr.ldexp` (IROps(ldexp=True)) for a
    plan of this width: a 512-bit plan is for AVX-512, whose vscalefps LLVM 22 emits for ldexp in
    the loops its vectorizer widens (one instruction for the nine of the two halves, the same
    bits: both round p * 2^n once); AVX2 has no such instruction, and LLVM would call libm's
    ldexpf lane by lane. Ops already on vectors keep the two halves (MLIR's op takes a scalar
    exponent only); sweep-vectors writes the scalar op on its blocks' vectors as LLVM's intrinsic
    (`vector_ldexp`, docs/cpu_codegen.md section 83)."""
    return vector_bits >= 512


LDEXP = "llvm.intr.ldexp"
VECTOR_LDEXP = "llvm.ldexp"  # LLVM's intrinsic, on vectors through llvm.call_intrinsic (`vector_ldexp`)


def ldexp_intrinsic(ftype: ir.VectorType) -> str:
    """The name of LLVM's ldexp intrinsic on the float vector type `ftype` with an exponent of
    as many i32 lanes: `llvm.ldexp.v16f32.v16i32` for vector<16xf32>."""
    n = ir.VectorType(ftype).shape[-1]
    return f"{VECTOR_LDEXP}.v{n}{ir.VectorType(ftype).element_type}.v{n}i32"


def vector_ldexp(p: ir.Value, n: ir.Value, ip: ir.InsertionPoint, fastmath: ir.Attribute | None = None) -> ir.Value:
    """`llvm.intr.ldexp` lane by lane on a vector p (f32 lanes) and a vector n (i32 lanes): each lane p * 2^n
    rounded once, as the scalar op; one `vscalefps` (with the `vcvtdq2ps` of n) on AVX-512. MLIR 22's
    `llvm.intr.ldexp` takes a scalar exponent only, so this is `llvm.call_intrinsic` of LLVM's own
    intrinsic on vectors, which LLVM's ldexp is (the same bits as the scalar op widened by LLVM's loop
    vectorizer)."""
    attrs = {"intrin": ir.StringAttr.get(ldexp_intrinsic(p.type)), "op_bundle_sizes": ir.DenseI32ArrayAttr.get([]),
             "operandSegmentSizes": ir.DenseI32ArrayAttr.get([2, 0])}
    if fastmath is not None:
        attrs["fastmathFlags"] = fastmath
    return ir.Operation.create("llvm.call_intrinsic", results=[p.type], operands=[p, n], attributes=attrs,
                               ip=ip).results[0]


def is_vector_ldexp(op: ir.Operation) -> bool:
    """An `llvm.call_intrinsic` of LLVM's ldexp (`vector_ldexp`)."""
    return (op.name == "llvm.call_intrinsic" and "intrin" in op.attributes
            and ir.StringAttr(op.attributes["intrin"]).value.startswith(VECTOR_LDEXP + "."))


def approximation_refusal(op: ir.Operation) -> str | None:
    """None if `op` has an approximation here (one of APPROXIMATIONS on f32 or a vector of f32,
    without fast-math flags asking for less), else why not."""
    if op.name not in APPROXIMATIONS:
        return f"{op.name} has no approximation"
    t = op.results[0].type
    elem = ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t
    if not isinstance(elem, ir.F32Type):
        return f"{op.name} on {t}: only f32 is approximated"
    return None


class IROps(Ops):
    """Builds the ops before `anchor`, typed like the float value type `ftype` (f32 or a vector
    of f32); constants go before `const_anchor` (outside the loops, once per value)."""

    def __init__(self, anchor: ir.Operation, ftype: ir.Type, const_anchor: ir.Operation | None = None,
                 cache: dict | None = None, ldexp: bool = False) -> None:
        self.ip = ir.InsertionPoint(anchor)
        self.ldexp = ldexp
        self.const_ip = ir.InsertionPoint(const_anchor or anchor)
        self.ftype = ftype
        self.cache = cache if cache is not None else {}
        with anchor.context:
            if isinstance(ftype, ir.VectorType):
                shape = list(ir.VectorType(ftype).shape)
                self.itype = ir.VectorType.get(shape, ir.IntegerType.get_signless(32))
                self.btype = ir.VectorType.get(shape, ir.IntegerType.get_signless(1))
            else:
                self.itype = ir.IntegerType.get_signless(32)
                self.btype = ir.IntegerType.get_signless(1)

    def _op(self, name: str, operands: list, rtype: ir.Type, attributes: dict | None = None, ip=None):
        return ir.Operation.create(name, results=[rtype], operands=operands, attributes=attributes or {},
                                   ip=ip or self.ip).results[0]

    def _const(self, value, etype: ir.Type, rtype: ir.Type):
        key = (str(rtype), repr(value))
        hit = self.cache.get(key)
        if hit is None:
            scalar = ir.FloatAttr.get(etype, value) if isinstance(etype, ir.FloatType) else ir.IntegerAttr.get(etype, value)
            attr = ir.DenseElementsAttr.get_splat(rtype, scalar) if isinstance(rtype, ir.VectorType) else scalar
            hit = self.cache[key] = self._op("arith.constant", [], rtype, {"value": attr}, ip=self.const_ip)
        return hit

    def f(self, value):
        """A float constant of ftype (its element type: f32 for the approximations)."""
        etype = ir.VectorType(self.ftype).element_type if isinstance(self.ftype, ir.VectorType) else self.ftype
        return self._const(float(value), etype, self.ftype)

    def i(self, value):
        return self._const(int(value), ir.IntegerType.get_signless(32), self.itype)

    def _bin(self, name, a, b, rtype=None):
        return self._op(name, [a, b], rtype or self.ftype)

    def fma(self, a, b, c): return self._op("math.fma", [a, b, c], self.ftype)
    def add(self, a, b): return self._bin("arith.addf", a, b)
    def sub(self, a, b): return self._bin("arith.subf", a, b)
    def mul(self, a, b): return self._bin("arith.mulf", a, b)
    def div(self, a, b): return self._bin("arith.divf", a, b)
    def min(self, a, b): return self._bin("arith.minimumf", a, b)
    def max(self, a, b): return self._bin("arith.maximumf", a, b)
    def abs(self, a): return self._op("math.absf", [a], self.ftype)
    def copysign(self, a, b): return self._bin("math.copysign", a, b)
    def floor(self, a): return self._op("math.floor", [a], self.ftype)
    def call(self, name, a): return self._op(name, [a], self.ftype)  # a unary op by name (math.exp, math.log)

    def _cmpf(self, pred: str, a, b):
        attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _CMPF[pred])
        return self._op("arith.cmpf", [a, b], self.btype, {"predicate": attr})

    def lt(self, a, b): return self._cmpf("olt", a, b)
    def eq(self, a, b): return self._cmpf("oeq", a, b)
    def isnan(self, a): return self._cmpf("uno", a, a)

    def select(self, c, a, b):
        return self._op("arith.select", [c, a, b], a.type)

    def bits(self, a): return self._op("arith.bitcast", [a], self.itype)
    def from_bits(self, a): return self._op("arith.bitcast", [a], self.ftype)
    def to_int(self, a): return self._op("arith.fptosi", [a], self.itype)
    def to_float(self, a): return self._op("arith.sitofp", [a], self.ftype)
    def iadd(self, a, b): return self._bin("arith.addi", a, b, self.itype)
    def isub(self, a, b): return self._bin("arith.subi", a, b, self.itype)
    def iand(self, a, b): return self._bin("arith.andi", a, b, self.itype)
    def shl(self, a, k): return self._bin("arith.shli", a, self.i(k), self.itype)
    def ashr(self, a, k): return self._bin("arith.shrsi", a, self.i(k), self.itype)

    def scale(self, p, n):
        # MLIR's llvm.intr.ldexp takes a scalar exponent only: vectors keep the two halves
        if not self.ldexp or isinstance(self.ftype, ir.VectorType):
            return super().scale(p, n)
        return self._op(LDEXP, [p, self.to_int(n)], self.ftype)


def approximate(op: ir.Operation, const_anchor: ir.Operation | None = None, cache: dict | None = None,
                ldexp: bool = False) -> ir.Value:
    """Replace the math op `op` (approximation_refusal(op) is None) by its approximation, built
    right before it (constants before `const_anchor`, shared through `cache`; exp's scaling by
    `llvm.intr.ldexp` with `ldexp`, see scales_by_ldexp); returns the value that now stands for
    op's result. `op` is erased."""
    with op.context, op.location:
        b = IROps(op, op.results[0].type, const_anchor, cache, ldexp)
        value = APPROXIMATIONS[op.name](b, op.operands[0])
    op.results[0].replace_all_uses_with(value)
    op.erase()
    return value
