"""Issue 24, vectorized math: the polynomial approximations of codegen/cpu/math/math_approx.py against
libm, natively.

Each sweep runs one kernel under mlir-runner: it makes the inputs from 32-bit patterns (every
`stride`-th pattern of the whole f32 space, negative and positive, plus the edge cases: +-0,
subnormals, FLT_MAX, +-inf, NaN, and the bounds of each branch), evaluates the approximation as
math_approx emits it (on f32 scalars, and on vector<8xf32> as in a vectorized loop), and
compares it with libm's double-precision function rounded to f32 (the correctly rounded result
but for a double rounding on exact ties). The error is the distance in representable f32 values
(ulp); NaN must give NaN, and an infinite result must be exact. The kernel reduces to the
largest error and its input, so the sweep is as dense as the time allows: 2^22 inputs per
function and form here (about 1 s), every one of the 2^32 inputs in the slow test.
"""
from __future__ import annotations

import math
import os
import struct

import numpy as np
import pytest

from loopopt import mlir, native
from loopopt.toolchain import find_tool
from loopopt.codegen.cpu.host import host_vector_bits
from loopopt.codegen.cpu.math import math_approx

pytestmark = [pytest.mark.toolchain,
              pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")]

FUNCTIONS = ("math.exp", "math.log", "math.log1p", "math.tanh", "math.erf")
SCALED = ("math.exp", "math.tanh")  # the approximations that scale by 2^n (Ops.scale): two forms
# (fn, ldexp, lanes): the ldexp form exists on scalars only (asked for on vectors, they keep
# the two halves: MLIR's llvm.intr.ldexp takes a scalar exponent)
FORMS = [(fn, False, lanes) for fn in FUNCTIONS for lanes in (1, 8)] + [(fn, True, n) for fn in SCALED for n in (1, 8)]


def _bits(x: float) -> int:
    return struct.unpack("<i", struct.pack("<f", x))[0]


def _f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<i", bits))[0]


def edge_cases(fn: str) -> list[int]:
    """Bit patterns of the inputs every approximation must get right, and of its branch bounds
    (each with its neighbours)."""
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, float("inf"), float("-inf"), float("nan"), 3.4028234663852886e38,
               -3.4028234663852886e38, 1.1754943508222875e-38, 1.401298464324817e-45, -1.401298464324817e-45,
               5.877471754111438e-39, 1e-30, -1e-30, 1e-10, 100.0, -100.0, 1e10, -1e10]
    bounds = {"math.exp": [math_approx.EXP_HI, math_approx.EXP_LO, 88.0, -87.33654, -87.0, -103.0, 0.34657359,
                           -0.34657359],
              "math.log": [0.70710677, 1.4142135, 1.0000001, 0.99999994, 2.0 ** -126, 2.0 ** -149, 2.0 ** 127],
              "math.log1p": [-0.99999994, -0.5, 0.41421357, -0.29289323, 2.0 ** -24, -(2.0 ** -24), 2.0 ** -25,
                             1e-8, -1e-8, 16777216.0, 0.999999, 1e20],
              "math.tanh": [0.9, -0.9, 9.5, 9.01, 1e-4, 1e-20],
              "math.erf": [1.0, -1.0, 3.92, 3.83, -3.92, 1e-4, 1e-20, 2.46]}[fn]
    out = []
    for x in special + bounds:
        b = _bits(float(np.float32(x))) if not math.isnan(x) else 0x7FC00000
        out += [b, b + 1, b - 1] if b not in (0x7FC00000,) else [b, -0x400000]  # quiet NaN, negative NaN
    return [((v + 2 ** 31) % 2 ** 32) - 2 ** 31 for v in out]


def _ulp_checks(x: str, y: str, ref: str, k: str) -> list[str]:
    """MLIR lines: %d{k} = ulp distance of f32 %y from f32 %ref (2^40 on a NaN or inf mismatch)."""
    return f"""
      %yb{k} = arith.bitcast {y} : f32 to i32
      %rb{k} = arith.bitcast {ref} : f32 to i32
      %yw{k} = arith.extsi %yb{k} : i32 to i64
      %rw{k} = arith.extsi %rb{k} : i32 to i64
      %ym{k} = arith.andi %yw{k}, %c7fff : i64
      %rm{k} = arith.andi %rw{k}, %c7fff : i64
      %yn{k} = arith.subi %c0_64, %ym{k} : i64
      %rn{k} = arith.subi %c0_64, %rm{k} : i64
      %yneg{k} = arith.cmpi slt, %yw{k}, %c0_64 : i64
      %rneg{k} = arith.cmpi slt, %rw{k}, %c0_64 : i64
      %yo{k} = arith.select %yneg{k}, %yn{k}, %yw{k} : i64
      %ro{k} = arith.select %rneg{k}, %rn{k}, %rw{k} : i64
      %df{k} = arith.subi %yo{k}, %ro{k} : i64
      %dn{k} = arith.subi %c0_64, %df{k} : i64
      %d0{k} = arith.maxsi %df{k}, %dn{k} : i64
      %ynan{k} = arith.cmpf uno, {y}, {y} : f32
      %rnan{k} = arith.cmpf uno, {ref}, {ref} : f32
      %nanbad{k} = arith.xori %ynan{k}, %rnan{k} : i1
      %bothnan{k} = arith.andi %ynan{k}, %rnan{k} : i1
      %ya{k} = math.absf {y} : f32
      %ra{k} = math.absf {ref} : f32
      %yinf{k} = arith.cmpf oeq, %ya{k}, %inf : f32
      %rinf{k} = arith.cmpf oeq, %ra{k}, %inf : f32
      %anyinf{k} = arith.ori %yinf{k}, %rinf{k} : i1
      %ne{k} = arith.cmpf une, {y}, {ref} : f32
      %infbad{k} = arith.andi %anyinf{k}, %ne{k} : i1
      %bad{k} = arith.ori %nanbad{k}, %infbad{k} : i1
      %d1{k} = arith.select %bad{k}, %big, %d0{k} : i64
      %d{k} = arith.select %bothnan{k}, %c0_64, %d1{k} : i64
      %cur{k} = memref.load %out[%c0] : memref<2xi64>
      %gt{k} = arith.cmpi sgt, %d{k}, %cur{k} : i64
      scf.if %gt{k} {{
        memref.store %d{k}, %out[%c0] : memref<2xi64>
        %xb{k} = arith.bitcast {x} : f32 to i32
        %xw{k} = arith.extsi %xb{k} : i32 to i64
        memref.store %xw{k}, %out[%c1] : memref<2xi64>
      }}""".splitlines()


def sweep_kernel(fn: str, lanes: int, count: int, stride: int, edges: list[int], start: int = 0) -> str:
    """@sweep(%out: memref<2xi64>): out = (largest ulp error, input bits at it) of the f32 `fn`
    (scalar when lanes == 1, else on vector<lanes x f32>) against libm's f64 `fn` rounded to
    f32, over the inputs with bits `start + i * stride` (i < count, wrapping) and the `edges`."""
    n_edges = -(-len(edges) // lanes) * lanes
    padded = edges + [edges[0]] * (n_edges - len(edges))
    head = f"""
memref.global "private" constant @edges : memref<{n_edges}xi32> = dense<[{", ".join(map(str, padded))}]>
func.func @sweep(%out: memref<2xi64>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_64 = arith.constant 0 : i64
  %c7fff = arith.constant 2147483647 : i64
  %big = arith.constant 1099511627776 : i64
  %inf = arith.constant 0x7F800000 : f32
  %stride = arith.constant {stride} : i64
  %start = arith.constant {start} : i64
  %lanes64 = arith.constant {lanes} : i64
  memref.store %c0_64, %out[%c0] : memref<2xi64>
  memref.store %c0_64, %out[%c1] : memref<2xi64>
  %edges = memref.get_global @edges : memref<{n_edges}xi32>
  %xs = memref.alloca() : memref<{lanes}xf32>
  %ys = memref.alloca() : memref<{lanes}xf32>"""
    body = []
    for loop, (lo, hi), bits_of in (("sweep", (0, count // lanes), None), ("edges", (0, n_edges // lanes), "edges")):
        body.append(f"  affine.for %g = {lo} to {hi} {{")
        if lanes == 1:
            if bits_of:
                body.append("    %b0 = affine.load %edges[%g] : memref<{}xi32>".format(n_edges))
            else:
                body += ["    %gi = arith.index_cast %g : index to i64", "    %w1 = arith.muli %gi, %stride : i64",
                         "    %w = arith.addi %w1, %start : i64", "    %b0 = arith.trunci %w : i64 to i32"]
            body += ["    %x = arith.bitcast %b0 : i32 to f32", f"    %y = {fn} %x : f32",
                     "    affine.store %x, %xs[0] : memref<1xf32>", "    affine.store %y, %ys[0] : memref<1xf32>"]
        else:
            vi, vf = f"vector<{lanes}xi32>", f"vector<{lanes}xf32>"
            if bits_of:
                body.append(f"    %bv = affine.vector_load %edges[%g * {lanes}] : memref<{n_edges}xi32>, {vi}")
            else:
                iota = ", ".join(str(k * stride % 2 ** 32 - (2 ** 32 if k * stride % 2 ** 32 >= 2 ** 31 else 0))
                                 for k in range(lanes))
                body += ["    %gi = arith.index_cast %g : index to i64", "    %w0 = arith.muli %gi, %stride : i64",
                         "    %w1 = arith.muli %w0, %lanes64 : i64", "    %w = arith.addi %w1, %start : i64",
                         "    %b0 = arith.trunci %w : i64 to i32",
                         f"    %base = vector.broadcast %b0 : i32 to {vi}",
                         f"    %iota = arith.constant dense<[{iota}]> : {vi}",
                         f"    %bv = arith.addi %base, %iota : {vi}"]
            body += [f"    %x = arith.bitcast %bv : {vi} to {vf}", f"    %y = {fn} %x : {vf}",
                     f"    affine.vector_store %x, %xs[0] : memref<{lanes}xf32>, {vf}",
                     f"    affine.vector_store %y, %ys[0] : memref<{lanes}xf32>, {vf}"]
        body.append(f"    affine.for %l = 0 to {lanes} {{")
        body += ["      %xl = affine.load %xs[%l] : memref<{0}xf32>".format(lanes),
                 "      %yl = affine.load %ys[%l] : memref<{0}xf32>".format(lanes),
                 "      %xd = arith.extf %xl : f32 to f64", f"      %rd = {fn} %xd : f64",
                 "      %rl = arith.truncf %rd : f64 to f32"]
        body += _ulp_checks("%xl", "%yl", "%rl", "")
        body += ["    }", "  }"]
    return head + "\n" + "\n".join(body) + "\n  return\n}\n"


def approximated(text: str, ldexp: bool = False) -> str:
    """`text` with every f32 (or vector of f32) math op approximated by math_approx (exp scaled
    by llvm.intr.ldexp with `ldexp`)."""
    module = mlir.parse_module(text)
    with module.context:
        for op in list(mlir.walk(module.operation)):
            if op.name in math_approx.APPROXIMATIONS and math_approx.approximation_refusal(op) is None:
                math_approx.approximate(op, ldexp=ldexp)
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module)


def max_error(fn: str, lanes: int, count: int, stride: int, start: int = 0, timeout: float = 600,
              ldexp: bool = False) -> tuple[int, float]:
    """(largest ulp error, the input at it) of fn's approximation on the sweep, run natively
    (the harness calls the kernel twice: once untimed, once timed)."""
    text = approximated(sweep_kernel(fn, lanes, count, stride, edge_cases(fn), start), ldexp)
    assert f"{fn} %x" not in text  # the f32 op was replaced; the f64 reference stays libm's
    assert ("llvm.intr.ldexp" in text) == (ldexp and fn in SCALED and lanes == 1)
    run = native.run_native(text, "sweep", [None], reps=1, warmup=1, timeout=timeout)
    err, xbits = run.outputs[0].values
    return int(err), _f32(int(xbits))


@pytest.mark.parametrize("fn,ldexp,lanes", FORMS)
def test_max_error_against_libm(fn, ldexp, lanes):
    # 2^22 inputs: every 1024th bit pattern of the 2^32, so every exponent and sign, 4096
    # mantissas each (the stride is odd times 1024 apart from the start, so lanes differ)
    err, at = max_error(fn, lanes, 1 << 22, 1024 + 1, ldexp=ldexp)
    assert err <= math_approx.MAX_ULP[fn], f"{fn}: {err} ulp at x = {at!r}"


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("LOOPOPT_EXHAUSTIVE_MATH"),
                    reason="every f32 input takes ~10 min per function; set LOOPOPT_EXHAUSTIVE_MATH=1")
@pytest.mark.parametrize("fn,ldexp,lanes", [f for f in FORMS if (f[2] == 8) != f[1]])
def test_max_error_on_every_f32_input(fn, ldexp, lanes):
    """All 2^32 inputs in vector form (the ldexp form: scalar), in 8 runs of 2^29 (some 10
    minutes per function here)."""
    chunk = 1 << 29
    worst = max(max_error(fn, lanes, chunk, 1, start=k * chunk, timeout=3600, ldexp=ldexp) for k in range(8))
    assert worst[0] <= math_approx.MAX_ULP[fn], f"{fn}: {worst[0]} ulp at x = {worst[1]!r}"


def mismatches_kernel(fn: str, count: int, stride: int, edges: list[int]) -> str:
    """@cmp(%out: memref<1xi64>): how many of the inputs (bits i * stride, i < count, and
    `edges`) `fn` applied twice gives other bits on, NaN alike (both_forms makes the two
    applications the two forms of the approximation). Scalar ops in a loop of stores only, which
    LLVM's loop vectorizer widens (ldexp to vscalefps on AVX-512); a second loop counts."""
    n = count + len(edges)
    return f"""
memref.global "private" constant @edges : memref<{len(edges)}xi32> = dense<[{", ".join(map(str, edges))}]>
func.func @cmp(%out: memref<1xi64>) {{
  %c0_64 = arith.constant 0 : i64
  %stride = arith.constant {stride} : i32
  %edges = memref.get_global @edges : memref<{len(edges)}xi32>
  %xs = memref.alloc() : memref<{n}xi32>
  %bad = memref.alloc() : memref<{n}xi32>
  affine.for %i = 0 to {count} {{
    %ii = arith.index_cast %i : index to i32
    %w = arith.muli %ii, %stride : i32
    affine.store %w, %xs[%i] : memref<{n}xi32>
  }}
  affine.for %i = 0 to {len(edges)} {{
    %e = affine.load %edges[%i] : memref<{len(edges)}xi32>
    affine.store %e, %xs[%i + {count}] : memref<{n}xi32>
  }}
  affine.for %i = 0 to {n} {{
    %bits = affine.load %xs[%i] : memref<{n}xi32>
    %x = arith.bitcast %bits : i32 to f32
    %y1 = {fn} %x : f32
    %y2 = {fn} %x : f32
    %b1 = arith.bitcast %y1 : f32 to i32
    %b2 = arith.bitcast %y2 : f32 to i32
    %differ = arith.cmpi ne, %b1, %b2 : i32
    %n1 = arith.cmpf ord, %y1, %y1 : f32
    %n2 = arith.cmpf ord, %y2, %y2 : f32
    %either = arith.ori %n1, %n2 : i1
    %b = arith.andi %differ, %either : i1
    %bi = arith.extui %b : i1 to i32
    affine.store %bi, %bad[%i] : memref<{n}xi32>
  }}
  %s = affine.for %i = 0 to {n} iter_args(%acc = %c0_64) -> (i64) {{
    %v = affine.load %bad[%i] : memref<{n}xi32>
    %v64 = arith.extui %v : i32 to i64
    %acc2 = arith.addi %acc, %v64 : i64
    affine.yield %acc2 : i64
  }}
  affine.store %s, %out[0] : memref<1xi64>
  memref.dealloc %xs : memref<{n}xi32>
  memref.dealloc %bad : memref<{n}xi32>
  return
}}
"""


def both_forms(text: str, fn: str) -> str:
    """The two ops `fn` on f32 of `text` approximated: the first by the two-halves scaling, the
    second by ldexp."""
    module = mlir.parse_module(text)
    with module.context:
        ops = [op for op in mlir.walk(module.operation) if op.name == fn]
        assert len(ops) == 2
        for k, op in enumerate(ops):
            math_approx.approximate(op, ldexp=(k == 1))
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module)


@pytest.mark.parametrize("fn", SCALED)
def test_ldexp_scaling_gives_the_same_bits(fn):
    """The two forms of Ops.scale (exponent bits in two halves; llvm.intr.ldexp, vscalefps on
    this AVX-512 host) round p * 2^n once alike: the same bits on 2^22 inputs spread over the whole
    f32 space and the edge cases (subnormal and overflowing results, infinities, NaN)."""
    text = both_forms(mismatches_kernel(fn, 1 << 22, 1024 + 1, edge_cases(fn)), fn)
    assert text.count("llvm.intr.ldexp") == 1  # the second op; the first keeps the two halves
    if host_vector_bits() >= 512:  # the loop of both forms runs on vectors: vscalefps, not vscalefss
        n = (1 << 22) + len(edge_cases(fn))
        remarks = native.llvm_vectorizer_remarks(text, "cmp", [None])
        assert any(r.vectorized and r.in_kernel and r.source_line.endswith(f"= 0 to {n} {{") for r in remarks), remarks
    run = native.run_native(text, "cmp", [None], reps=1, warmup=0)
    assert run.outputs[0].values[0] == 0


def _to_int_minus_one(self, a):
    return self._bin("arith.subi", self._op("arith.fptosi", [a], self.itype), self.i(1), self.itype)


MATH_MUTANTS = {
    # a coefficient off by 1e-4 relative
    "exp coefficient": ("math.exp", lambda mp: mp.setattr(math_approx, "EXP_P",
                                                          (math_approx.EXP_P[0] * (1 + 1e-4),) + math_approx.EXP_P[1:])),
    # subnormal results flushed to zero (the underflow bound at FLT_MIN's logarithm)
    "exp underflow": ("math.exp", lambda mp: mp.setattr(math_approx, "EXP_LO", -87.3365479)),
    # log's subnormal inputs not scaled first
    "log subnormals": ("math.log", lambda mp: mp.setattr(math_approx, "FLT_MIN", 0.0)),
    # exp's argument not clamped at the overflow bound (2^n no longer fits the exponent bits)
    "exp overflow": ("math.exp", lambda mp: mp.setattr(math_approx, "EXP_HI", 1e30)),
    # tanh's argument of exp not clamped
    "tanh clamp": ("math.tanh", lambda mp: mp.setattr(math_approx, "TANH_CLAMP", 1e30)),
    # the ldexp form's exponent one too small (exp and tanh in that form are half the size)
    "ldexp exponent": ("math.exp", lambda mp: mp.setattr(math_approx.IROps, "to_int", _to_int_minus_one)),
    # erf's middle branch cut short
    "erf branch": ("math.erf", lambda mp: mp.setattr(math_approx, "ERFC_MID_CENTRE", 2.5)),
    # log1p without the rounding error of 1 + x: log(1 + x) as MLIR's default lowering writes it
    "log1p rounding term": ("math.log1p", lambda mp: mp.setitem(
        math_approx.APPROXIMATIONS, "math.log1p", lambda b, x: math_approx.log_f32(b, b.add(b.f(1.0), x)))),
}


@pytest.mark.parametrize("mutant", sorted(MATH_MUTANTS))
def test_the_sweep_finds_an_error(mutant, monkeypatch):
    """The check can fail: each mutation of an approximation is seen by the sweep."""
    fn, mutate = MATH_MUTANTS[mutant]
    mutate(monkeypatch)
    ldexp = mutant.startswith("ldexp")
    err, _ = max_error(fn, 1 if ldexp else 8, 1 << 18, 16384 + 1, ldexp=ldexp)
    assert err > math_approx.MAX_ULP[fn]


LOG1P_KERNEL = """func.func @k(%x: memref<64xf32>, %y: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %l = math.log1p %v : f32
    affine.store %l, %y[%i] : memref<64xf32>
  }
  return
}
"""


@pytest.mark.parametrize("approximate", [False, True])
def test_log1p_keeps_the_digits_of_a_small_argument(approximate):
    """math.log1p through loopopt.compile, as libm's log1pf (approximate_math off: the lowering's
    convert-math-to-llvm with approximate-log1p=false) and as math_approx's polynomial (on: the
    loop vectorized): within MAX_ULP of the correctly rounded log1p on small arguments, where
    log(1 + x) (MLIR's default lowering, both before) loses every digit: log1p(1e-10) was 0,
    log1p(1e-7) 1.19e-7."""
    import loopopt

    k = loopopt.compile(LOG1P_KERNEL, approximate_math=approximate)
    small = [1e-10, -1e-10, 1e-7, -1e-7, 3e-5, -3e-5, 1e-30, 2.0 ** -24, -0.5, 0.5, 1.0, 100.0, 1e30, -0.9999]
    x = np.array((small * 5)[:64], dtype=np.float32)
    y = np.zeros(64, dtype=np.float32)
    k(x, y)
    got = y.astype(np.float64)
    want = np.log1p(x.astype(np.float64)).astype(np.float32).astype(np.float64)
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(got - want) <= math_approx.MAX_ULP["math.log1p"] * ulp), \
        [(float(a), float(g), float(w)) for a, g, w in zip(x, got, want) if abs(g - w) > 2 * np.spacing(np.float32(abs(w)))]
