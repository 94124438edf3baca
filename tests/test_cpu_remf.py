"""arith.remf on f32 as an exact reduction in vector ops (codegen/cpu/remf.py, docs section 78).

MLIR lowers `arith.remf` to one libm `fmodf` call per element. The step writes it as a reduction
by |y| 2^(24 j) that every vector form takes; these tests run the rewritten programs natively
(mlir-runner) and compare every result's bits with the host's `fmodf` (ctypes, and the input as
MLIR lowers it) and with numpy: adversarial pairs (every pair of special values, quotients next
to integers, |x| >> |y|, subnormals, NaNs with payloads), in scalar loops LLVM vectorizes and on
vector<8xf32> ops, and pseudo-random pairs of five kinds generated in the kernel and checked there
against fmodf (2^20 per run; 2^28 with LOOPOPT_EXHAUSTIVE_MATH=1).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os

import numpy as np
import pytest

from loopopt import mlir, native
from loopopt.codegen.cpu.remf import KEPT, LEVELS, REWRITTEN, levels
from loopopt.driver import optimize
from loopopt.options import TARGETS, Options
from loopopt.testing import native_mismatch
from loopopt.toolchain import find_tool

needs_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.fmodf.restype = ctypes.c_float
_LIBM.fmodf.argtypes = [ctypes.c_float, ctypes.c_float]


def cpu(**kw) -> Options:
    return Options(target=TARGETS["cpu"], vector_bits=256, **kw)


def f32(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def libm_fmodf_bits(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The host's fmodf of each pair, as bits (ctypes passes the floats' bits through unchanged;
    a signalling NaN too)."""
    out = np.empty(len(x), dtype=np.uint32)
    fx, fy = ctypes.c_float, ctypes.c_float
    for k, (a, b) in enumerate(zip(x.view(np.uint32).tolist(), y.view(np.uint32).tolist())):
        r = _LIBM.fmodf(fx.from_buffer_copy(np.uint32(a).tobytes()), fy.from_buffer_copy(np.uint32(b).tobytes()))
        out[k] = np.float32(r).view(np.uint32)
    return out


SPECIAL_BITS = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000,
                0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFA00001,
                0x7F800001, 0x3F800000, 0xBF800000, 0x3FC00000, 0xBFC00000, 0x3DCCCCCD, 0xBDCCCCCD, 0x3F7FFFFF,
                0x3F800001, 0x40000000, 0x4B800000, 0x4B7FFFFF, 0x4B800001, 0x33800000, 0x00400000, 0x4F000000]


def adversarial_pairs(n_random: int = 6000, seed: int = 78) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) as f32: every pair of SPECIAL_BITS; then x next to k y (k up to 2^30, 0..3 ulp off,
    both signs: quotients that round up to an integer), x = (k + 1/2) y, x next to y and 2y, |x|
    up to FLT_MAX over subnormal y, equal mantissas 0..60 binades apart, random bit patterns."""
    rng = np.random.default_rng(seed)
    sp = np.array(SPECIAL_BITS, dtype=np.uint32)
    xs, ys = [np.repeat(sp, len(sp))], [np.tile(sp, len(sp))]
    y = f32(rng.integers(0x00000001, 0x7F000000, n_random, dtype=np.uint32))
    k = np.floor(2.0 ** rng.uniform(0, 30, n_random))
    with np.errstate(over="ignore"):
        x = (k * y.astype(np.float64)).astype(np.float32)
        half = ((k + 0.5) * y.astype(np.float64)).astype(np.float32)
    off = rng.integers(-3, 4, n_random).astype(np.int64)
    near = (x.view(np.uint32).astype(np.int64) + off).astype(np.uint32)
    xs += [near, half.view(np.uint32)]
    ys += [y.view(np.uint32)] * 2
    yb = y.view(np.uint32).astype(np.int64)
    xs += [(yb + rng.integers(-2, 3, n_random)).astype(np.uint32), (yb + (1 << 23) + rng.integers(-2, 3, n_random))
           .astype(np.uint32)]
    ys += [y.view(np.uint32)] * 2
    xs.append(rng.integers(0x60000000, 0x7F800000, n_random, dtype=np.uint32))
    ys.append(rng.integers(0x00000001, 0x00800000, n_random, dtype=np.uint32))
    exp = rng.integers(0, 61, n_random).astype(np.int64)
    same = (yb % (1 << 23) + ((exp + 64) << 23)).astype(np.uint32)
    xs.append(same)
    ys.append((yb % (1 << 23) + (64 << 23)).astype(np.uint32))
    xs.append(rng.integers(0, 2 ** 32, n_random, dtype=np.uint32))
    ys.append(rng.integers(0, 2 ** 32, n_random, dtype=np.uint32))
    sign = rng.integers(0, 4, sum(len(a) for a in xs))
    xb, yb2 = np.concatenate(xs), np.concatenate(ys)
    xb = xb ^ np.where(sign & 1, np.uint32(0x80000000), np.uint32(0))
    yb2 = yb2 ^ np.where(sign & 2, np.uint32(0x80000000), np.uint32(0))
    keep = np.arange(len(sp) ** 2)  # the special pairs keep their own signs
    xb[keep], yb2[keep] = np.repeat(sp, len(sp)), np.tile(sp, len(sp))
    return f32(xb), f32(yb2)


def _dense(bits: np.ndarray) -> str:
    return ", ".join(str(int(v)) for v in bits.view(np.int32))


def bits_program(x: np.ndarray, y: np.ndarray, lanes: int = 0) -> str:
    """r[i] = bits(remf(x[i], y[i])), x and y constants given by their bits; with `lanes`, the loop
    steps by that many and remf is on vectors (a register tile's or a sweep's)."""
    n = len(x)
    t, it = (f"vector<{lanes}xf32>", f"vector<{lanes}xi32>") if lanes else ("f32", "i32")
    if lanes:
        loads = (f"%xb = affine.vector_load %x[%i] : memref<{n}xi32>, {it}\n"
                 f"    %yb = affine.vector_load %y[%i] : memref<{n}xi32>, {it}")
        store = f"affine.vector_store %rb, %r[%i] : memref<{n}xi32>, {it}"
    else:
        loads = f"%xb = affine.load %x[%i] : memref<{n}xi32>\n    %yb = affine.load %y[%i] : memref<{n}xi32>"
        store = f"affine.store %rb, %r[%i] : memref<{n}xi32>"
    return f"""
memref.global "private" constant @xs : memref<{n}xi32> = dense<[{_dense(x)}]>
memref.global "private" constant @ys : memref<{n}xi32> = dense<[{_dense(y)}]>
func.func @k(%r: memref<{n}xi32>) {{
  %x = memref.get_global @xs : memref<{n}xi32>
  %y = memref.get_global @ys : memref<{n}xi32>
  affine.for %i = 0 to {n} step {lanes or 1} {{
    {loads}
    %xf = arith.bitcast %xb : {it} to {t}
    %yf = arith.bitcast %yb : {it} to {t}
    %m = arith.remf %xf, %yf : {t}
    %rb = arith.bitcast %m : {t} to {it}
    {store}
  }}
  return
}}
"""


def native_bits(text: str, n: int) -> np.ndarray:
    got = native.run_native(text, "k", [None], reps=1, full_limit=n).outputs[0]
    return np.array(got.values, dtype=np.int64).astype(np.uint32)


def first_difference(got: np.ndarray, want: np.ndarray, x: np.ndarray, y: np.ndarray) -> str | None:
    bad = np.flatnonzero(got != want)
    if not bad.size:
        return None
    k = bad[0]
    return (f"{bad.size} of {len(got)} differ; fmodf({x[k]!r} [{x.view(np.uint32)[k]:#x}], {y[k]!r} "
            f"[{y.view(np.uint32)[k]:#x}]) = {want[k]:#x}, got {got[k]:#x}")


@needs_runner
@pytest.mark.parametrize("lanes", [0, 8])
def test_remf_gives_fmodf_bits_on_adversarial_pairs(lanes):
    """Every result's bits are the host fmodf's (ctypes) and those of the input as MLIR lowers it
    (a fmodf call per element), NaNs' payloads and zeros' signs included; numpy.fmod's too."""
    x, y = adversarial_pairs()
    n = len(x) - len(x) % 8
    x, y = x[:n], y[:n]
    src = bits_program(x, y, lanes)
    out = optimize(src, cpu())
    assert "arith.remf" not in out.text
    assert [r.message for r in out.remarks.remarks if r.pass_name == "remf"][0].startswith(REWRITTEN)
    got = native_bits(out.text, n)
    want = libm_fmodf_bits(x, y)
    assert first_difference(got, want, x, y) is None
    assert native_mismatch(src, out.text) is None  # the input's own fmodf calls, natively
    with np.errstate(invalid="ignore"):
        ref = np.fmod(x, y)
    number = ~np.isnan(ref)
    assert np.array_equal(got[number], ref.view(np.uint32)[number])
    assert np.array_equal(np.isnan(f32(got)), np.isnan(ref))


HASH = """
  %{p}c1 = arith.constant -1640531535 : i32
  %{p}c2 = arith.constant -2048144777 : i32
  %{p}s15 = arith.constant 15 : i32
  %{p}s13 = arith.constant 13 : i32
  %{p}a = arith.muli {inp}, %{p}c1 : i32
  %{p}b = arith.shrui %{p}a, %{p}s15 : i32
  %{p}c = arith.xori %{p}a, %{p}b : i32
  %{p}d = arith.muli %{p}c, %{p}c2 : i32
  %{p}e = arith.shrui %{p}d, %{p}s13 : i32
  %{p}h = arith.xori %{p}d, %{p}e : i32"""

PAIR = """
    %off = arith.constant {offset} : i32
    %ii = arith.index_cast %i : index to i32
    %j = arith.addi %ii, %off : i32
    %salt = arith.constant 1540483477 : i32
    %h2v = arith.xori %j, %salt : i32{hash1}{hash2}
    %c5 = arith.constant 5 : i32
    %mode = arith.remui %j, %c5 : i32
    %k31 = arith.constant 31 : i32
    %k7 = arith.constant 7 : i32
    %k3 = arith.constant 3 : i32
    %k8 = arith.constant 8 : i32
    %k23 = arith.constant 23 : i32
    %e0 = arith.andi %h1h, %k31 : i32
    %e1 = arith.shli %e0, %k23 : i32
    %u0 = arith.shrui %h1h, %k8 : i32
    %u1 = arith.andi %u0, %k7 : i32
    %u = arith.subi %u1, %k3 : i32
    %x1a = arith.addi %h2h, %e1 : i32
    %x1 = arith.addi %x1a, %u : i32
    %kmask = arith.constant 67108863 : i32
    %kk = arith.andi %h1h, %kmask : i32
    %kf = arith.sitofp %kk : i32 to f32
    %yf0 = arith.bitcast %h2h : i32 to f32
    %p = arith.mulf %kf, %yf0 : f32
    %pb = arith.bitcast %p : f32 to i32
    %x2 = arith.addi %pb, %u : i32
    %big = arith.constant 1073741824 : i32
    %x3 = arith.ori %h1h, %big : i32
    %sub = arith.constant -2139095041 : i32
    %y3 = arith.andi %h2h, %sub : i32
    %one = arith.constant 8388608 : i32
    %bit = arith.andi %h1h, %one : i32
    %x4a = arith.addi %h2h, %bit : i32
    %x4 = arith.addi %x4a, %u : i32
    %c1i = arith.constant 1 : i32
    %c2i = arith.constant 2 : i32
    %c4i = arith.constant 4 : i32
    %is1 = arith.cmpi eq, %mode, %c1i : i32
    %is2 = arith.cmpi eq, %mode, %c2i : i32
    %is3 = arith.cmpi eq, %mode, %k3 : i32
    %is4 = arith.cmpi eq, %mode, %c4i : i32
    %xa = arith.select %is1, %x1, %h1h : i32
    %xb = arith.select %is2, %x2, %xa : i32
    %xc = arith.select %is3, %x3, %xb : i32
    %xd = arith.select %is4, %x4, %xc : i32
    %yd = arith.select %is3, %y3, %h2h : i32
    %x = arith.bitcast %xd : i32 to f32
    %y = arith.bitcast %yd : i32 to f32"""


def pair_ops(offset: int) -> str:
    """The ops giving %x and %y of the index %i (hashed_program's five kinds)."""
    return PAIR.format(offset=offset, hash1=HASH.format(p="h1", inp="%j"), hash2=HASH.format(p="h2", inp="%h2v"))


def hashed_program(n: int, offset: int) -> str:
    """A kernel checking itself: x and y from a hash of the index (five kinds of pairs: random
    bits; y's mantissa with 0..31 binades more and -3..3 ulp; x next to k y with k up to 2^26;
    |x| >= 2 over subnormal y; x next to y or 2y), r = remf(x, y) in one loop (the step rewrites
    it; LLVM vectorizes it), then fmodf(x, y) called in a second loop; out = [mismatches, first
    index, x bits, y bits]."""
    pair = pair_ops(offset)
    return f"""
func.func private @fmodf(f32, f32) -> f32
func.func @k(%out: memref<4xi64>) {{
  %r = memref.alloc() : memref<{n}xi32>
  affine.for %i = 0 to {n} {{{pair}
    %m = arith.remf %x, %y : f32
    %mb = arith.bitcast %m : f32 to i32
    affine.store %mb, %r[%i] : memref<{n}xi32>
  }}
  %zero = arith.constant 0 : i64
  %none = arith.constant -1 : i64
  affine.store %zero, %out[0] : memref<4xi64>
  affine.store %none, %out[1] : memref<4xi64>
  affine.store %zero, %out[2] : memref<4xi64>
  affine.store %zero, %out[3] : memref<4xi64>
  affine.for %i = 0 to {n} {{{pair}
    %w = func.call @fmodf(%x, %y) : (f32, f32) -> f32
    %wb = arith.bitcast %w : f32 to i32
    %gb = affine.load %r[%i] : memref<{n}xi32>
    %bad = arith.cmpi ne, %wb, %gb : i32
    %cnt = affine.load %out[0] : memref<4xi64>
    %inc = arith.extui %bad : i1 to i64
    %cnt1 = arith.addi %cnt, %inc : i64
    affine.store %cnt1, %out[0] : memref<4xi64>
    %first = affine.load %out[1] : memref<4xi64>
    %unset = arith.cmpi slt, %first, %zero : i64
    %take = arith.andi %bad, %unset : i1
    %il = arith.index_cast %i : index to i64
    %f1 = arith.select %take, %il, %first : i64
    affine.store %f1, %out[1] : memref<4xi64>
    %xi = arith.bitcast %x : f32 to i32
    %yi = arith.bitcast %y : f32 to i32
    %xl = arith.extui %xi : i32 to i64
    %yl = arith.extui %yi : i32 to i64
    %ox = affine.load %out[2] : memref<4xi64>
    %oy = affine.load %out[3] : memref<4xi64>
    %nx = arith.select %take, %xl, %ox : i64
    %ny = arith.select %take, %yl, %oy : i64
    affine.store %nx, %out[2] : memref<4xi64>
    affine.store %ny, %out[3] : memref<4xi64>
  }}
  memref.dealloc %r : memref<{n}xi32>
  return
}}
"""


EXHAUSTIVE = os.environ.get("LOOPOPT_EXHAUSTIVE_MATH") == "1"


@needs_runner
def test_remf_gives_fmodf_bits_on_hashed_pairs():
    """2^20 pairs (2^28 with LOOPOPT_EXHAUSTIVE_MATH=1, in runs of 2^24) of five kinds, the rewritten
    remf's bits checked in the kernel against fmodf's."""
    n = 1 << 20 if not EXHAUSTIVE else 1 << 24
    for run in range(1 if not EXHAUSTIVE else 16):
        src = hashed_program(n, run * n)
        out = optimize(src, cpu(), passes=["remf"])
        assert "arith.remf" not in out.text
        got = native.run_native(out.text, "k", [None], reps=1, full_limit=4).outputs[0].values
        count, first, xb, yb = (int(v) for v in got)
        assert count == 0, (f"{count} of {n} differ from fmodf, the first at {first}: "
                            f"x = {xb:#x} ({f32([xb])[0]!r}), y = {yb:#x} ({f32([yb])[0]!r})")


@pytest.mark.parametrize("wrong", ["no correction", "26 quotient bits"])
def test_the_hashed_check_finds_a_wrong_reduction(monkeypatch, wrong):
    """The check fails when the reduction is wrong: without the correction of a quotient one too
    large, or with steps of 26 quotient bits (q * b_j no longer exact), fmodf differs."""
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.codegen.cpu import remf

    if wrong == "no correction":
        monkeypatch.setattr(remf, "_correct", lambda b, r, nbj: r)
    else:
        monkeypatch.setattr(remf, "STEP_BITS", 26)
    out = optimize(hashed_program(1 << 16, 0), cpu(), passes=["remf"])
    count = int(native.run_native(out.text, "k", [None], reps=1, full_limit=4).outputs[0].values[0])
    assert count > 0


def test_levels_of_constant_and_computed_divisors():
    """A constant divisor takes the steps whose b_j stays finite (6 for 1.5 and 0.1, 12 for the
    least subnormal, 1 for FLT_MAX); a computed one all LEVELS, each guarded."""
    assert len(levels(1.5)) == len(levels(-0.1)) == 6
    assert len(levels(float(f32([1])[0]))) == 12 and len(levels(float(f32([0x7F7FFFFF])[0]))) == 1
    assert [lv.j for lv in levels(None)] == list(reversed(range(LEVELS)))
    assert len(levels(float("inf"))) == len(levels(0.0)) == LEVELS
    assert levels(1.5)[-1].divisor == 1.5 and levels(1.5)[0].divisor == 1.5 * 2.0 ** 120


def _remarks(out):
    return [(r.message, r.detail if hasattr(r, "detail") else None) for r in out.remarks.remarks
            if r.pass_name == "remf"]


def test_kept_ops_say_why_and_the_ir_verifies():
    """f64 and f16 keep the call, and so does a scalar remf outside every loop; each says why."""
    src = """
func.func @k(%x: memref<8xf64>, %h: memref<8xf16>, %a: f32, %b: f32) -> f32 {
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf64>
    %m = arith.remf %v, %v : f64
    affine.store %m, %x[%i] : memref<8xf64>
    %w = affine.load %h[%i] : memref<8xf16>
    %n = arith.remf %w, %w : f16
    affine.store %n, %h[%i] : memref<8xf16>
  }
  %r = arith.remf %a, %b : f32
  return %r : f32
}
"""
    out = optimize(src, cpu())
    assert out.text.count("arith.remf") == 3
    kept = [r for r in out.remarks.remarks if r.pass_name == "remf"]
    assert [r.message for r in kept] == [KEPT] * 3
    details = [r.args["detail"] for r in kept]
    assert details[0].startswith("f64: an exact reduction takes 40 steps")
    assert details[1] == "element type f16: only f32 is rewritten"
    assert details[2].startswith("a scalar outside every loop")
    assert mlir.verify(mlir.parse_module(out.text).operation) is None


def test_a_constant_divisor_takes_its_steps_only():
    src = """
func.func @k(%x: memref<64xf32>) {
  %c = arith.constant 1.5 : f32
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %m = arith.remf %v, %c : f32
    affine.store %m, %x[%i] : memref<64xf32>
  }
  return
}
"""
    out = optimize(src, cpu(), passes=["remf"])
    assert "arith.remf" not in out.text and out.text.count("arith.divf") == 6 + 1
    [r] = [r for r in out.remarks.remarks if r.pass_name == "remf"]
    assert r.message == f"{REWRITTEN}: 6 steps, the divisor constant" and r.args["steps"] == 6
    assert mlir.verify(mlir.parse_module(out.text).operation) is None


def test_the_neuron_targets_keep_remf():
    src = bits_program(f32([0x3F800000] * 8), f32([0x3FC00000] * 8))
    assert "arith.remf" in optimize(src, Options()).text


REUSED_BUFFER = """
func.func @k(%x: memref<64xf32>, %r: memref<64xf32>, %s: memref<64xf32>, %t: memref<64xf32>) {
  %a = arith.constant 1.5 : f32
  %b = arith.constant 0.1 : f32
  %d = memref.alloc() : memref<f32>
  affine.store %a, %d[] : memref<f32>
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %a : f32
    %y = affine.load %d[] : memref<f32>
    %m = arith.remf %w, %y : f32
    affine.store %m, %r[%i] : memref<64xf32>
  }
  affine.store %b, %d[] : memref<f32>
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %a : f32
    %y = affine.load %d[] : memref<f32>
    %m = arith.remf %w, %y : f32
    affine.store %m, %s[%i] : memref<64xf32>
    affine.store %v, %d[] : memref<f32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %y = affine.load %d[] : memref<f32>
    %m = arith.remf %v, %y : f32
    affine.store %m, %t[%i] : memref<64xf32>
  }
  memref.dealloc %d : memref<f32>
  return
}
"""


def test_a_divisor_stored_into_a_zero_d_buffer_is_known_only_where_every_store_is_straight_line():
    """torch's |b| of a number b reaches the loop through a reused 0-d buffer: the last store before
    the loop gives the divisor (6 steps each for 1.5 and 0.1) while every store is an op of one
    block; a store inside a loop makes every load's divisor computed (12 steps). The results are
    the input's natively."""
    out = optimize(REUSED_BUFFER, cpu(), passes=["remf"])
    assert [r.args["steps"] for r in out.remarks.remarks if r.pass_name == "remf"] == [12, 12, 12]
    straight = REUSED_BUFFER.replace("    affine.store %v, %d[] : memref<f32>\n", "")
    out = optimize(straight, cpu(), passes=["remf"])
    assert [(r.args["steps"], r.args["divisor"]) for r in out.remarks.remarks
            if r.pass_name == "remf"] == [(6, "constant"), (6, "constant"), (6, "constant")]
    if find_tool("mlir-runner") is not None:
        assert native_mismatch(straight, optimize(straight, cpu()).text) is None
