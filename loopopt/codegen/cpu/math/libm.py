"""The host's libm (cpu): whether its `expf` computes what a vector form of its algorithm computes.

MLIR lowers `math.exp` on f32 to a call of libm's scalar `expf`, and loops that call it run one
element at a time. A polynomial is faster but not bit-exact (codegen/cpu/math/math_approx.py, behind
`approximate_math`). The other way to vectorize the loop without changing one result is to compute
exactly what libm computes, in vector lanes.

glibc (2.28 on) and musl compute `expf` by one algorithm, in double precision:

    z  = x * 32/ln2                         k = round(z), r = z - k, |r| <= 1/2
    2^(k/32) = 2^(k div 32) * T[k mod 32]   (T: 32 doubles, 2^(i/32) rounded)
    e^x = 2^(k/32) * 2^(r/32) ~= s * (C0 r^3 + C1 r^2 + C2 r + 1), rounded once to f32

with k rounded by adding and subtracting 1.5 * 2^52, and x > 88.72 giving inf, x < -103.97
giving +0, NaN giving x + x. On x86-64 cores with FMA glibc selects a build (`__expf_fma`) in
which r is one fused multiply-add (z is never rounded): `expf_model` below is that build, and
`codegen/cpu/math/exact_math.py` emits it. Measured natively on every one of the 2^32 f32 inputs
(tests/test_cpu_exact_math.py, `LOOPOPT_EXHAUSTIVE_MATH=1`): the emitted form and this host's
`expf` agree on all of them; with r rounded twice (the build without FMA) 2 inputs differ, which
are in `DISTINGUISHING_INPUTS`; whether the polynomial's three steps are fused changes none.

Whether the host has that build is a fact checked at run time (`host_expf`): libm's `expf`, called
through ctypes, against the model on the distinguishing inputs, inputs where the algorithm is not
correctly rounded (so that a correctly rounded expf, as newer libcs may have, is refused), the
branch bounds and 2,000 more.
"""
from __future__ import annotations

import functools
import math
import struct
from dataclasses import dataclass

from ....mlir import ir

EXPF_TABLE_BITS = 5
# T[i] = bits(2^(i/32) rounded to double) - (i << 47): adding k << 47 to T[k mod 32] puts k div 32
# in the exponent (tests/test_cpu_exact_math.py recomputes every entry).
EXPF_TABLE = (
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
)
EXPF_INV_LN2_N = float.fromhex("0x1.71547652b82fep+0") * 32  # 32 / ln 2
EXPF_SHIFT = float.fromhex("0x1.8p+52")  # adding it rounds a double below 2^51 to an integer
EXPF_POLY = (float.fromhex("0x1.c6af84b912394p-5") / 32 ** 3, float.fromhex("0x1.ebfce50fac4f3p-3") / 32 ** 2,
             float.fromhex("0x1.62e42ff0c52d6p-1") / 32)
EXPF_OVERFLOW = float.fromhex("0x1.62e42ep6")  # f32: exp of anything above is inf
EXPF_UNDERFLOW = float.fromhex("-0x1.9fe368p6")  # f32: exp of anything below is +0

# f32 bit patterns on which r rounded twice (no FMA) gives another result than the FMA build.
DISTINGUISHING_INPUTS = (0x4202422F, 0xC27C65D9)
# f32 bit patterns on which the algorithm is not correctly rounded (1 ulp from e^x rounded to
# nearest): a correctly rounded expf (CORE-MATH's, say) differs there, so the check refuses it.
NOT_CORRECTLY_ROUNDED_INPUTS = (0x3F801252, 0x3F80171B, 0x3F8038C4, 0x3F805217)

SAMPLES = 2000  # pseudo-random finite inputs `host_expf` checks besides the fixed ones


def _fma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once (exact rationals; the operands are finite): the exact sum as one
    integer over another, and Python's true division of two integers rounds once (what
    `float(Fraction)` does, without building fractions: a few times faster)."""
    na, da = a.as_integer_ratio()
    nb, db = b.as_integer_ratio()
    nc, dc = c.as_integer_ratio()
    num = na * nb * dc + nc * da * db
    return num / (da * db * dc) if num != 0 else a * b + c


def _f32(x: float) -> float:
    """x rounded to the nearest f32 (ties to even), as a Python float; inf beyond the range."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f32_of_bits(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def bits_of_f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def expf_model(x: float) -> float:
    """glibc's `__expf_fma` of the f32 value x (see the module docstring), as a Python float."""
    if math.isnan(x):
        return x + x
    if x > EXPF_OVERFLOW:
        return math.inf
    if x < EXPF_UNDERFLOW:
        return 0.0
    kds = _fma(EXPF_INV_LN2_N, x, EXPF_SHIFT)
    ki = struct.unpack("<Q", struct.pack("<d", kds))[0]
    kd = kds - EXPF_SHIFT
    r = _fma(EXPF_INV_LN2_N, x, -kd)
    t = (EXPF_TABLE[ki % 32] + (ki << 47)) % 2 ** 64
    s = struct.unpack("<d", struct.pack("<Q", t))[0]
    c0, c1, c2 = EXPF_POLY
    p = _fma(c0, r, c1)
    q = _fma(c2, r, 1.0)
    y = _fma(p, r * r, q) * s
    return _f32(y)


def check_inputs() -> list[int]:
    """The f32 bit patterns `host_expf` compares: the distinguishing and the not correctly
    rounded inputs, every branch bound
    with its neighbours, signed zeros, subnormals, infinities, and SAMPLES more from an LCG."""
    fixed = [*DISTINGUISHING_INPUTS, *NOT_CORRECTLY_ROUNDED_INPUTS, 0, 0x80000000, 1, 0x80000001, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,
             0x7F800000, 0xFF800000, 0x3F800000, 0xBF800000]
    for bound in (EXPF_OVERFLOW, EXPF_UNDERFLOW, 88.0, -88.0):
        b = bits_of_f32(bound)
        fixed += [b - 1, b, b + 1]
    state, out = 12345, []
    while len(out) < SAMPLES:
        state = (state * 6364136223846793005 + 1442695040888963407) % 2 ** 64
        bits = state >> 32
        if (bits >> 23) & 0xFF != 0xFF:  # finite
            out.append(bits)
    return fixed + out


@dataclass(frozen=True)
class HostExpf:
    """Whether the host's libm `expf` gave expf_model's bits on every checked input."""

    matches: bool
    reason: str  # what was checked, or why it does not match


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or bits_of_f32(a) == bits_of_f32(b)


@functools.lru_cache(maxsize=1)
def libm_name() -> str | None:
    """The host's libm as ctypes finds it (e.g. `libm.so.6`), or None."""
    import ctypes.util

    return ctypes.util.find_library("m")


@functools.lru_cache(maxsize=1)
def libm_expf():
    """The host's libm `expf` as a Python function of a float (through ctypes), or a string
    saying why there is none. The reference interpreter calls it for `math.exp` on f32, as the
    native lowering does."""
    import ctypes

    name = libm_name()
    try:
        fn = ctypes.CDLL(name).expf
    except (OSError, AttributeError, TypeError) as e:
        return f"no libm expf ({e})"
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
    return fn


@functools.lru_cache(maxsize=1)
def host_expf() -> HostExpf:
    """The host's libm `expf` (libm_expf) against expf_model on check_inputs()."""
    name = libm_name()
    fn = libm_expf()
    if isinstance(fn, str):
        return HostExpf(False, fn)
    inputs = check_inputs()
    for bits in inputs:
        x = f32_of_bits(bits)
        got, want = fn(x), expf_model(x)
        if not _same(got, want):
            return HostExpf(False, f"{name} expf(0x{bits:08x}) = {got!r}, glibc's FMA build gives {want!r}")
    return HostExpf(True, f"{name} expf gives glibc's FMA build's bits on {len(inputs)} checked inputs")


def exact_refusal(op: ir.Operation) -> str | None:
    """None if `op` has an exact form here (math.exp on scalar f32), else why not. Fast-math
    flags on the op do not matter: libm's bits are within what any of them allows."""
    if op.name != "math.exp":
        return f"{op.name} has no exact vector form (only math.exp)"
    if not isinstance(op.results[0].type, ir.F32Type):
        return f"math.exp on {op.results[0].type}: only scalar f32 has an exact form"
    return None
