"""Issue 24, exact vector math: math.exp on f32 computed by libm's own algorithm
(codegen/cpu/math/libm.py, codegen/cpu/math/exact_math.py) gives libm's bits, natively.

The sweep kernel fills a buffer with f32 inputs made from bit patterns (every `stride`-th of the
2^32, plus the edge cases), computes `math.exp` on it in a plain loop (the shape LLVM's loop
vectorizer takes, as loopopt leaves it), and compares each result's bits with a direct call of
libm's `expf` on the same input, counting the inputs that differ. The rewrite tests run the
program before and after under mlir-runner with every output element printed (`full_limit`),
and compare them bit for bit.
"""
from __future__ import annotations

import decimal
import math
import os
import struct

import pytest

from loopopt import api, mlir, native
from loopopt.codegen.cpu.math import libm
from loopopt.toolchain import find_tool
from loopopt.codegen.cpu.math import exact_math

needs_runner = [pytest.mark.toolchain,
                pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")]
needs_glibc = pytest.mark.skipif(not libm.host_expf().matches, reason=libm.host_expf().reason)

CHUNK = 1 << 16


def _signed(bits: int) -> int:
    return bits - 2 ** 32 if bits >= 2 ** 31 else bits


def edge_bits() -> list[int]:
    """The checked inputs that are not samples: the distinguishing inputs, the branch bounds with
    their neighbours, zeros, subnormals, infinities, NaNs of both signs."""
    return libm.check_inputs()[:-libm.SAMPLES] + [0x7FC00000, 0xFFC00000, 0x7F800001, 0x00000002, 0x807FFFFF]


def sweep_kernel(count: int, stride: int, start: int = 0) -> str:
    """@sweep(%out: memref<2xi64>): out = (inputs whose math.exp differs from expf, the last such
    input's bits) over bits `start + i * stride` (i < count, a multiple of CHUNK) and edge_bits()."""
    edges = edge_bits()
    n_edges = len(edges)
    return f"""
memref.global "private" constant @edges : memref<{n_edges}xi32> = dense<[{", ".join(str(_signed(b)) for b in edges)}]>
func.func private @expf(f32) -> f32
func.func @sweep(%out: memref<2xi64>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %stride = arith.constant {stride} : i64
  %start = arith.constant {start} : i64
  %chunk = arith.constant {CHUNK} : i64
  memref.store %z, %out[%c0] : memref<2xi64>
  memref.store %z, %out[%c1] : memref<2xi64>
  %edges = memref.get_global @edges : memref<{n_edges}xi32>
  %xs = memref.alloc() : memref<{CHUNK}xf32>
  %ys = memref.alloc() : memref<{CHUNK}xf32>
  affine.for %g = 0 to {count // CHUNK + 1} {{
    %gi = arith.index_cast %g : index to i64
    %base = arith.muli %gi, %chunk : i64
    affine.for %i = 0 to {CHUNK} {{
      %ii = arith.index_cast %i : index to i64
      %k = arith.addi %base, %ii : i64
      %w0 = arith.muli %k, %stride : i64
      %w = arith.addi %w0, %start : i64
      %b = arith.trunci %w : i64 to i32
      %e = affine.load %edges[%i mod {n_edges}] : memref<{n_edges}xi32>
      %last = arith.constant {count // CHUNK} : index
      %is_edge = arith.cmpi eq, %g, %last : index
      %bits = arith.select %is_edge, %e, %b : i32
      %x = arith.bitcast %bits : i32 to f32
      affine.store %x, %xs[%i] : memref<{CHUNK}xf32>
    }}
    affine.for %i = 0 to {CHUNK} {{
      %x = affine.load %xs[%i] : memref<{CHUNK}xf32>
      %y = math.exp %x : f32
      affine.store %y, %ys[%i] : memref<{CHUNK}xf32>
    }}
    affine.for %i = 0 to {CHUNK} {{
      %x = affine.load %xs[%i] : memref<{CHUNK}xf32>
      %y = affine.load %ys[%i] : memref<{CHUNK}xf32>
      %r = func.call @expf(%x) : (f32) -> f32
      %yb = arith.bitcast %y : f32 to i32
      %rb = arith.bitcast %r : f32 to i32
      %ne = arith.cmpi ne, %yb, %rb : i32
      %ynan = arith.cmpf uno, %y, %y : f32
      %rnan = arith.cmpf uno, %r, %r : f32
      %both = arith.andi %ynan, %rnan : i1
      %t = arith.constant true
      %nb = arith.xori %both, %t : i1
      %bad = arith.andi %ne, %nb : i1
      scf.if %bad {{
        %n = memref.load %out[%c0] : memref<2xi64>
        %n1 = arith.addi %n, %one : i64
        memref.store %n1, %out[%c0] : memref<2xi64>
        %xb = arith.bitcast %x : f32 to i32
        %xw = arith.extui %xb : i32 to i64
        memref.store %xw, %out[%c1] : memref<2xi64>
      }}
    }}
  }}
  memref.dealloc %xs : memref<{CHUNK}xf32>
  memref.dealloc %ys : memref<{CHUNK}xf32>
  return
}}
"""


def made_exact(text: str) -> str:
    """`text` with every f32 math.exp replaced by exact_math's form (the table added)."""
    module = mlir.parse_module(text)
    with module.context:
        ops = [op for op in mlir.walk(module.operation) if op.name == "math.exp" and libm.exact_refusal(op) is None]
        name, exists = exact_math.table_name(module.operation)
        cache: dict = {}
        for op in ops:
            exact_math.make_exact(op, op, cache, name)
        if ops and not exists:
            exact_math.add_table(module.operation, name)
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module)


def mismatches(count: int, stride: int, start: int = 0, timeout: float = 600) -> tuple[int, int]:
    text = made_exact(sweep_kernel(count, stride, start))
    assert "math.exp" not in text
    run = native.run_native(text, "sweep", [None], reps=1, warmup=0, timeout=timeout)
    n, last = run.outputs[0].values
    return int(n), int(last)


def test_the_table_is_2_to_the_i_over_32():
    """Every entry recomputed: 2^(i/32) rounded to double (60 digits first), minus i << 47."""
    decimal.getcontext().prec = 60
    for i, entry in enumerate(libm.EXPF_TABLE):
        value = float(decimal.Decimal(2) ** (decimal.Decimal(i) / 32))
        assert struct.unpack("<Q", struct.pack("<d", value))[0] - (i << 47) == entry, i


def test_the_model_is_close_to_exp():
    """The model is an exp at all (within 1 ulp of the f64 exp rounded to f32 on the samples)."""
    for bits in libm.check_inputs():
        x = libm.f32_of_bits(bits)
        got = libm.expf_model(x)
        try:
            want = libm._f32(math.exp(x))
        except OverflowError:
            want = math.inf
        if math.isinf(want) or want == 0.0:
            assert got == want, hex(bits)
        else:
            ulp = abs(libm.bits_of_f32(got) - libm.bits_of_f32(want))
            assert ulp <= 1, (hex(bits), got, want)


def test_the_distinguishing_inputs_distinguish():
    """With r rounded twice (glibc or musl built without FMA) the model differs on exactly the
    distinguishing inputs: the host check can tell the builds apart."""

    def model_without_fma(x: float) -> float:
        z = libm.EXPF_INV_LN2_N * x
        kds = z + libm.EXPF_SHIFT
        ki = struct.unpack("<Q", struct.pack("<d", kds))[0]
        r = z - (kds - libm.EXPF_SHIFT)
        s = struct.unpack("<d", struct.pack("<Q", (libm.EXPF_TABLE[ki % 32] + (ki << 47)) % 2 ** 64))[0]
        c0, c1, c2 = libm.EXPF_POLY
        return libm._f32(((c0 * r + c1) * (r * r) + (c2 * r + 1.0)) * s)

    for bits in libm.DISTINGUISHING_INPUTS:
        x = libm.f32_of_bits(bits)
        assert libm.bits_of_f32(model_without_fma(x)) != libm.bits_of_f32(libm.expf_model(x)), hex(bits)


def test_host_check_reports_a_different_libm(monkeypatch):
    """A libm whose expf differs from the model on one input is not taken."""
    libm.host_expf.cache_clear()
    real = libm.expf_model
    monkeypatch.setattr(libm, "expf_model", lambda x: real(x) * (1 + 2 ** -20) if x == 1.0 else real(x))
    try:
        fact = libm.host_expf()
        assert not fact.matches and "0x3f800000" in fact.reason
    finally:
        libm.host_expf.cache_clear()


@pytest.mark.parametrize("bits", [0x7FC00000, 0x3F800000, 0xC2D00000])
def test_exact_refusal(bits):
    module = mlir.parse_module("""
func.func @f(%x: f32, %d: f64, %v: vector<4xf32>) -> (f32, f64, vector<4xf32>, f32) {
  %a = math.exp %x : f32
  %b = math.exp %d : f64
  %c = math.exp %v : vector<4xf32>
  %e = math.log %x : f32
  return %a, %b, %c, %e : f32, f64, vector<4xf32>, f32
}""")
    ops = [op for op in mlir.walk(module.operation) if op.name.startswith("math.")]
    assert [libm.exact_refusal(op) is None for op in ops] == [True, False, False, False]
    assert "f64" in libm.exact_refusal(ops[1]) and "math.log" in libm.exact_refusal(ops[3])


@pytest.mark.usefixtures("_host_glibc")
class TestNative:
    pytestmark = needs_runner

    def test_sweep_gives_libm_bits(self):
        # 2^22 inputs, every 1024th + 1 bit pattern (every exponent and sign), and the edges
        n, last = mismatches(1 << 22, 1025)
        assert n == 0, f"{n} inputs differ from expf, e.g. 0x{last:08x}"

    @pytest.mark.parametrize("mutant", ["r rounded twice", "no overflow bound", "a coefficient"])
    def test_the_sweep_finds_a_difference(self, mutant, monkeypatch):
        """The check can fail: the build without FMA (caught on the distinguishing inputs),
        a missing overflow bound, one coefficient off by 2^-30 relative."""
        if mutant == "r rounded twice":
            original = exact_math.emit_expf

            def twice(b, x, table):
                real_op = b.op

                def op(name, operands, rtype, attributes=None, ip=None):
                    if name == "math.fma" and len(operands) == 3 and operands[2].owner is not None \
                            and getattr(operands[2].owner, "name", "") == "arith.negf":
                        prod = real_op("arith.mulf", operands[:2], rtype)
                        return real_op("arith.addf", [prod, operands[2]], rtype)
                    return real_op(name, operands, rtype, attributes, ip)

                b.op = op
                return original(b, x, table)

            monkeypatch.setattr(exact_math, "emit_expf", twice)
        elif mutant == "no overflow bound":
            monkeypatch.setattr(libm, "EXPF_OVERFLOW", 1e30)
        else:
            c0, c1, c2 = libm.EXPF_POLY
            monkeypatch.setattr(libm, "EXPF_POLY", (c0, c1, c2 * (1 + 2 ** -30)))
        n, _ = mismatches(1 << 18, 16385)
        assert n > 0

    @pytest.mark.slow
    @pytest.mark.skipif(not os.environ.get("LOOPOPT_EXHAUSTIVE_MATH"),
                        reason="every f32 input takes ~1 min; set LOOPOPT_EXHAUSTIVE_MATH=1")
    def test_every_f32_input(self):
        n, last = mismatches(1 << 32, 1, timeout=3600)
        assert n == 0, f"{n} inputs differ from expf, e.g. 0x{last:08x}"


@pytest.fixture
def _host_glibc():
    if not libm.host_expf().matches:
        pytest.skip(libm.host_expf().reason)


SOFTMAX = """
func.func @softmax(%x: memref<64x256xf32>, %out: memref<64x256xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %mx = memref.alloc() : memref<64xf32>
  %e = memref.alloc() : memref<64x256xf32>
  %sum = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    affine.store %ninf, %mx[%i] : memref<64xf32>
    affine.for %j = 0 to 256 {
      %v = affine.load %x[%i, %j] : memref<64x256xf32>
      %m = affine.load %mx[%i] : memref<64xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %mx[%i] : memref<64xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 256 {
      %v = affine.load %x[%i, %j] : memref<64x256xf32>
      %m = affine.load %mx[%i] : memref<64xf32>
      %d = arith.subf %v, %m : f32
      %s = arith.constant 40.0 : f32
      %d2 = arith.mulf %d, %s : f32
      %ex = math.exp %d2 : f32
      affine.store %ex, %e[%i, %j] : memref<64x256xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.store %zero, %sum[%i] : memref<64xf32>
    affine.for %j = 0 to 256 {
      %v = affine.load %e[%i, %j] : memref<64x256xf32>
      %s = affine.load %sum[%i] : memref<64xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%i] : memref<64xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 256 {
      %v = affine.load %e[%i, %j] : memref<64x256xf32>
      %s = affine.load %sum[%i] : memref<64xf32>
      %r = arith.divf %v, %s : f32
      affine.store %r, %out[%i, %j] : memref<64x256xf32>
    }
  }
  memref.dealloc %mx : memref<64xf32>
  memref.dealloc %e : memref<64x256xf32>
  memref.dealloc %sum : memref<64xf32>
  return
}
"""


def _remarks(result, text: str) -> list[str]:
    return [r.message for r in result.remarks if text in r.message]


@pytest.mark.usefixtures("_host_glibc")
@pytest.mark.parametrize("exact", [True, None])
def test_softmax_exp_is_exact_and_the_results_keep_their_bits(exact):
    """The default (None: the host check) and the explicit switch: the exp loop loses its libm
    call, the table is in the module once, its get_global outside the loops; mlir-runner gives
    the same bits before and after (exp of differences times 40: results down to subnormals)."""
    result = api.optimize(SOFTMAX, "cpu", **({} if exact is None else {"exact_math": exact}))
    out = result.text
    assert "math.exp" not in out and out.count("memref.global \"private\" constant @loopopt_expf_table") == 1
    assert len(_remarks(result, "[EXACT MATH] replaced by libm's own algorithm in vectorizable ops: math.exp")) == 1
    module = mlir.parse_module(out)
    gets = [op for op in mlir.walk(module.operation) if op.name == "memref.get_global"]
    assert len(gets) == 1 and gets[0].parent.name == "func.func"
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    before = native.run_native(SOFTMAX, "softmax", [None, None], reps=1, warmup=0, full_limit=1 << 15)
    after = native.run_native(out, "softmax", [None, None], reps=1, warmup=0, full_limit=1 << 15)
    assert native.compare_outputs(before.outputs, after.outputs, rtol=0.0) is None


def test_switched_off_the_loop_keeps_its_libm_call():
    result = api.optimize(SOFTMAX, "cpu", exact_math=False)
    assert "math.exp" in result.text and "loopopt_expf_table" not in result.text
    assert not _remarks(result, "[EXACT MATH]")


def test_with_approximate_math_the_polynomial_wins():
    result = api.optimize(SOFTMAX, "cpu", approximate_math=True, exact_math=True)
    assert "loopopt_expf_table" not in result.text and _remarks(result, "[MATH APPROX]")


@pytest.mark.parametrize("other, code", [
    ("%l = math.log %d2 : f32", "[STOP VECTORIZE] a math function has no bit-exact vector form"),
    ("%l = math.exp %dd : f64", "[STOP VECTORIZE] a math function has no vector form or approximation"),
])
def test_a_loop_with_another_math_function_is_left_whole(other, code):
    """One math op without an exact form keeps the whole loop as it is (exp included)."""
    text = SOFTMAX.replace("%ex = math.exp %d2 : f32",
                           "%ex = math.exp %d2 : f32\n      %dd = arith.extf %d2 : f32 to f64\n      " + other)
    result = api.optimize(text, "cpu", exact_math=True)
    assert result.text.count("math.exp") == 1 + ("f64" in other) and "loopopt_expf_table" not in result.text
    assert _remarks(result, code)


def test_a_symbol_of_the_tables_name_makes_the_name_fresh():
    text = 'memref.global "private" constant @loopopt_expf_table : memref<2xi64> = dense<[1, 2]>\n' + SOFTMAX
    text = text.replace("%ninf = arith.constant", "%keep = memref.get_global @loopopt_expf_table : memref<2xi64>\n"
                        "  %ninf = arith.constant")
    result = api.optimize(text, "cpu", exact_math=True)
    assert "@loopopt_expf_table_1 : memref<32xi64>" in result.text
    assert "@loopopt_expf_table : memref<2xi64>" in result.text


def test_an_unread_table_is_erased():
    module = mlir.parse_module("func.func @f() { return }")
    with module.context:
        exact_math.add_table(module.operation, "loopopt_expf_table")
        assert "loopopt_expf_table" in str(module)
        assert exact_math.erase_unused_tables(module.operation) == 1
        assert "loopopt_expf_table" not in str(module)


EXP_LOOP = """
  func.func @{name}(%x: memref<256xf32>, %out: memref<256xf32>) {{
    affine.for %i = 0 to 256 {{
      %v = affine.load %x[%i] : memref<256xf32>
      %e = math.exp %v : f32
      affine.store %e, %out[%i] : memref<256xf32>
    }}
    return
  }}"""


def test_two_functions_share_one_table_and_a_nested_module_has_its_own():
    """The table is a symbol of the module the function is in: one for @a and @b, one more in
    the nested module for @c; every get_global names a table of its own module."""
    text = ("module {" + EXP_LOOP.format(name="a") + EXP_LOOP.format(name="b")
            + "\n  module @inner {" + EXP_LOOP.format(name="c") + "\n  }\n}")
    result = api.optimize(text, "cpu", exact_math=True)
    out = result.text
    assert "math.exp" not in out and out.count("constant @loopopt_expf_table : memref<32xi64>") == 2
    module = mlir.parse_module(out)
    for op in mlir.walk(module.operation):
        if op.name == "memref.get_global":
            fn = op.parent
            while fn.name != "func.func":
                fn = fn.parent
            holder = fn.parent
            names = {str(o.attributes["sym_name"]) for o in holder.regions[0].blocks[0].operations
                     if "sym_name" in o.attributes}
            assert '"loopopt_expf_table"' in names
    if find_tool("mlir-opt"):
        from loopopt.toolchain import verify_with_mlir_opt

        assert verify_with_mlir_opt(out) is None


@pytest.mark.usefixtures("_host_glibc")
def test_a_dynamic_loop_and_an_exp_of_a_loaded_index_keep_their_bits():
    """A loop of symbolic trip count, and an exp of a value that makes kd huge (x = 88.7, 1e-40,
    -103.9 ...): the inputs come from the harness's fill, scaled to reach every branch."""
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    text = """
func.func @dyn(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %s = arith.constant 120.0 : f32
  affine.for %i = 0 to %n {
    %v = affine.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %s : f32
    %e = math.exp %w : f32
    affine.store %e, %out[%i] : memref<?xf32>
  }
  return
}"""
    result = api.optimize(text, "cpu", exact_math=True)
    assert "math.exp" not in result.text
    before = native.run_native(text, "dyn", [[1000], [1000]], reps=1, warmup=0, full_limit=1 << 15)
    after = native.run_native(result.text, "dyn", [[1000], [1000]], reps=1, warmup=0, full_limit=1 << 15)
    assert native.compare_outputs(before.outputs, after.outputs, rtol=0.0) is None


ADVERSARIAL = {
    # an exp feeding a max reduction in iter_args (exact in any order: the loop still vectorizes)
    "max of exp": """
func.func @k(%x: memref<64x300xf32>, %out: memref<64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %s = arith.constant 30.0 : f32
  affine.for %i = 0 to 64 {
    %m = affine.for %j = 0 to 300 iter_args(%acc = %ninf) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<64x300xf32>
      %w = arith.mulf %v, %s : f32
      %e = math.exp %w : f32
      %n = arith.maximumf %acc, %e : f32
      affine.yield %n : f32
    }
    affine.store %m, %out[%i] : memref<64xf32>
  }
  return
}""",
    # exp of exp, and its result used twice
    "exp of exp": """
func.func @k(%x: memref<64x300xf32>, %out: memref<64x300xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 300 {
      %v = affine.load %x[%i, %j] : memref<64x300xf32>
      %e = math.exp %v : f32
      %e2 = math.exp %e : f32
      %p = arith.mulf %e2, %e : f32
      affine.store %p, %out[%i, %j] : memref<64x300xf32>
    }
  }
  return
}""",
    # an exp of the IV, in a loop with a symbolic upper bound inside a fused pair
    "exp of the index": """
func.func @k(%x: memref<64x300xf32>, %out: memref<64x300xf32>) {
  %t = memref.alloc() : memref<64x300xf32>
  %c = arith.constant -0.37 : f32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 300 {
      %ji = arith.index_cast %j : index to i32
      %jf = arith.sitofp %ji : i32 to f32
      %a = arith.mulf %jf, %c : f32
      %e = math.exp %a : f32
      affine.store %e, %t[%i, %j] : memref<64x300xf32>
    }
  }
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 300 {
      %v = affine.load %x[%i, %j] : memref<64x300xf32>
      %e = affine.load %t[%i, %j] : memref<64x300xf32>
      %p = arith.mulf %v, %e : f32
      affine.store %p, %out[%i, %j] : memref<64x300xf32>
    }
  }
  memref.dealloc %t : memref<64x300xf32>
  return
}""",
}


@pytest.mark.usefixtures("_host_glibc")
@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_adversarial_exp_loops_keep_their_bits(case):
    text = ADVERSARIAL[case]
    result = api.optimize(text, "cpu", exact_math=True)
    assert "math.exp" not in result.text, case
    assert _remarks(result, "[EXACT MATH]")
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    before = native.run_native(text, "k", [None, None], reps=1, warmup=0, full_limit=1 << 15)
    after = native.run_native(result.text, "k", [None, None], reps=1, warmup=0, full_limit=1 << 15)
    assert native.compare_outputs(before.outputs, after.outputs, rtol=0.0) is None, case


def random_exp_program(seed: int) -> tuple[str, list]:
    """A seeded program around math.exp, as fusion and the cpu phase meet it: a producer nest
    t = f(x, y) with an exp somewhere in a random expression, a consumer out = g(t, x) (it may
    fuse with the producer), and sometimes a row reduction (max, exact in any order; or a sum,
    kept in order) of exp(t). Shapes static or symbolic; the inputs scaled so that exp reaches
    overflow, underflow and subnormal results. Returns the text and the harness sizes."""
    import random

    rng = random.Random(seed)
    n, m = rng.choice([17, 64, 100]), rng.choice([16, 61, 100])
    symbolic = rng.random() < 0.4
    shape = "?x?" if symbolic else f"{n}x{m}"
    rshape = "?" if symbolic else f"{n}"
    t_type, r_type = f"memref<{shape}xf32>", f"memref<{rshape}xf32>"
    lines, k = [], [0]

    def fresh() -> str:
        k[0] += 1
        return f"%v{k[0]}"

    def expr(leaves: list[str], depth: int, need_exp: bool) -> str:
        if depth == 0 and not need_exp:
            return rng.choice(leaves)
        op = "exp" if need_exp and (depth == 0 or rng.random() < 0.5) else rng.choice(["add", "sub", "mul", "exp"])
        if op == "exp":
            a = expr(leaves, max(0, depth - 1), False)
            v = fresh()
            lines.append(f"      {v} = math.exp {a} : f32")
            return v
        a = expr(leaves, max(0, depth - 1), need_exp and rng.random() < 0.5)
        b = expr(leaves, max(0, depth - 1), False)
        v = fresh()
        lines.append(f"      {v} = arith.{op}f {a}, {b} : f32")
        return v

    scale = rng.choice(["1.0", "12.0", "60.0", "120.0"])
    dims = ("%n", "%m") if symbolic else (str(n), str(m))
    head = [f"func.func @k(%x: {t_type}, %y: {t_type}, %out: {t_type}, %red: {r_type}) {{",
            f"  %s = arith.constant {scale} : f32", "  %half = arith.constant 0.5 : f32"]
    if symbolic:
        head += ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
                 f"  %n = memref.dim %x, %c0 : {t_type}", f"  %m = memref.dim %x, %c1 : {t_type}",
                 f"  %t = memref.alloc(%n, %m) : {t_type}"]
    else:
        head.append(f"  %t = memref.alloc() : {t_type}")
    body = []
    for nest, (dst, leaves_src) in enumerate([("%t", ("%x", "%y")), ("%out", ("%t", "%x"))]):
        lines.clear()
        loads = []
        for src in leaves_src:
            v = fresh()
            lines.append(f"      {v} = affine.load {src}[%i, %j] : {t_type}")
            loads.append(v)
        scaled = fresh()
        lines.append(f"      {scaled} = arith.mulf {loads[0]}, %s : f32")
        value = expr([scaled, loads[-1], "%half"], rng.randint(1, 3), nest == 0 or rng.random() < 0.5)
        lines.append(f"      affine.store {value}, {dst}[%i, %j] : {t_type}")
        body += [f"  affine.for %i = 0 to {dims[0]} {{", f"    affine.for %j = 0 to {dims[1]} {{", *lines,
                 "    }", "  }"]
    if rng.random() < 0.6:
        kind = rng.choice(["maximumf", "addf"])
        init = "0xFF800000" if kind == "maximumf" else "0.0"
        body += [f"  %init = arith.constant {init} : f32", f"  affine.for %i = 0 to {dims[0]} {{",
                 f"    %r = affine.for %j = 0 to {dims[1]} iter_args(%acc = %init) -> (f32) {{",
                 f"      %tv = affine.load %t[%i, %j] : {t_type}", "      %te = math.exp %tv : f32",
                 f"      %nx = arith.{kind} %acc, %te : f32", "      affine.yield %nx : f32", "    }",
                 f"    affine.store %r, %red[%i] : {r_type}", "  }"]
    text = "\n".join(head + body + [f"  memref.dealloc %t : {t_type}", "  return", "}"]) + "\n"
    sizes = [[n, m], [n, m], [n, m], [n]] if symbolic else [None] * 4
    return text, sizes


@pytest.mark.usefixtures("_host_glibc")
@pytest.mark.parametrize("seed", range(12))
def test_random_exp_programs_keep_their_bits(seed):
    """Seeded programs (random_exp_program) through the default cpu pipeline with exact_math:
    every output element the same bits natively before and after."""
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    text, sizes = random_exp_program(seed)
    result = api.optimize(text, "cpu", exact_math=True)
    assert not [r for r in result.remarks if r.message.startswith("[INTERNAL]")], seed
    before = native.run_native(text, "k", sizes, reps=1, warmup=0, full_limit=1 << 15)
    after = native.run_native(result.text, "k", sizes, reps=1, warmup=0, full_limit=1 << 15)
    assert native.compare_outputs(before.outputs, after.outputs, rtol=0.0) is None, (seed, text)


def test_random_exp_programs_reach_the_rewrite():
    """The generator is not vacuous: most of its programs get an [EXACT MATH] rewrite."""
    hits = sum(bool(_remarks(api.optimize(random_exp_program(s)[0], "cpu", exact_math=True), "[EXACT MATH]"))
               for s in range(12))
    assert hits >= 8, hits


def _cli(*args, stdin: str | None = None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "loopopt", *args], input=stdin, capture_output=True, text=True,
                          timeout=300)


def test_cli_switch(tmp_path):
    """`--exact-math` on and off from the command line; a bad value is one line and exit 2, and
    no output file is written."""
    src = tmp_path / "softmax.mlir"
    src.write_text(SOFTMAX)
    on = _cli(str(src), "--target", "cpu", "--exact-math", "--remarks", "-o", str(tmp_path / "on.mlir"))
    assert on.returncode == 0, on.stderr
    assert "[EXACT MATH]" in on.stderr and "loopopt_expf_table" in (tmp_path / "on.mlir").read_text()
    off = _cli(str(src), "--target", "cpu", "--exact-math", "false", "-o", "-")
    assert off.returncode == 0 and "math.exp" in off.stdout and "loopopt_expf_table" not in off.stdout
    bad = _cli(str(src), "--target", "cpu", "--exact-math", "maybe", "-o", str(tmp_path / "bad.mlir"))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "--exact-math" in bad.stderr
    assert not (tmp_path / "bad.mlir").exists()


def test_the_not_correctly_rounded_inputs_are_not():
    """At each of them the model is 1 ulp from e^x rounded to nearest (computed with mpmath at
    120 bits): a correctly rounded libm differs from glibc's there, and the host check sees it."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 120
    for bits in libm.NOT_CORRECTLY_ROUNDED_INPUTS:
        x = libm.f32_of_bits(bits)
        exact = mpmath.exp(mpmath.mpf(x))
        got = libm.expf_model(x)
        neighbours = [libm.f32_of_bits(libm.bits_of_f32(got) + d) for d in (-1, 0, 1)]
        nearest = min(neighbours, key=lambda c: abs(mpmath.mpf(c) - exact))
        assert nearest != got and abs(libm.bits_of_f32(nearest) - libm.bits_of_f32(got)) == 1, hex(bits)
