"""Issue 35: a sweep's shifted loads shared through vector windows (codegen/cpu/plan/sweep_vectors.py,
codegen/cpu/sweep_vectors.py).

Every rewrite is checked bit for bit in the reference interpreter (which refuses any vector
lane outside its memref: each test array is exactly what the loop reads, so a vector read past
the elements the loop read fails) and natively: a 3-point sweep at symbolic lengths 0 .. 51 at
widths 8 and 16, rows of a 2-D array, two windows and a load of one offset with int and float
ops, an in-place sweep that reads only ahead (legal, exact), two stores, the time-tiled jacobi,
40 seeded random sweeps. Refused: an in-place Gauss-Seidel sweep whose shifted load reads this
sweep's own writes (said by default), a second store that would write an element before the
first store's later write, a load after a store, a strided walk, a view with strides, no shared
loads (quiet). The legality guard is shown to be needed.
"""
from __future__ import annotations

import functools
import pytest

import os

from loopopt import driver, mlir
from loopopt.analysis.facts import Facts
from loopopt.codegen.cpu import sweep_vectors
from loopopt.codegen.cpu.plan import sweep_vectors as plan_mod
from loopopt.codegen.cpu.plan.sweep_vectors import SweepCode, plan_sweep_vectors
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results, native_mismatch
from loopopt.toolchain import find_tool

W8 = Options(target=TARGETS["cpu"], vector_bits=256, sweep_window_bits=256)
W16 = Options(target=TARGETS["cpu"], vector_bits=512)
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

SWEEP = """func.func @k(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
    %l = affine.load %A[%i - 1] : memref<?xf32>
    %c = affine.load %A[%i] : memref<?xf32>
    %r = affine.load %A[%i + 1] : memref<?xf32>
    %s0 = arith.addf %l, %c : f32
    %s = arith.addf %s0, %r : f32
    %v = arith.mulf %third, %s : f32
    affine.store %v, %B[%i] : memref<?xf32>
  }
  return
}
"""

# The 3-point sweep storing B[i + 1]: its third load (A[i + 1]) is aligned like the store.
SHIFTED_STORE = SWEEP.replace("affine.store %v, %B[%i]", "affine.store %v, %B[%i + 1]")

# The store's index moves with a symbol the loads' indices do not have: B[i + m] against A[i + c],
# none aligned alike (the shuffles stay).
SYMBOL_STORE = SWEEP.replace("%n: index,", "%n: index, %m: index,").replace(
    "affine.store %v, %B[%i]", "affine.store %v, %B[%i + symbol(%m)]")

# In place: A[i] = f(A[i - 1], A[i], A[i + 1]); the load of A[i - 1] reads this sweep's own store.
GAUSS_SEIDEL = SWEEP.replace("affine.store %v, %B[%i]", "affine.store %v, %A[%i]")

# In place but reading only ahead: A[i] = f(A[i], A[i + 1], A[i + 2]); nothing stored is read later.
AHEAD = """func.func @k(%n: index, %A: memref<?xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %i = 0 to affine_map<()[s0] -> (s0 - 2)>()[%n] {
    %l = affine.load %A[%i] : memref<?xf32>
    %c = affine.load %A[%i + 1] : memref<?xf32>
    %r = affine.load %A[%i + 2] : memref<?xf32>
    %s0 = arith.addf %l, %c : f32
    %s = arith.subf %s0, %r : f32
    %v = arith.mulf %third, %s : f32
    affine.store %v, %A[%i] : memref<?xf32>
  }
  return
}
"""

# Two stores: B[i] then B[i + 1]; the next iteration's B[i + 1] must be the last one written
# (WAW_BAD), or B[i + 1] then B[i] (WAW_OK: every element's last writer stays the same).
WAW_BAD = """func.func @k(%A: memref<300xf32>, %B: memref<301xf32>) {
  affine.for %i = 1 to 299 {
    %l = affine.load %A[%i - 1] : memref<300xf32>
    %r = affine.load %A[%i + 1] : memref<300xf32>
    %s = arith.addf %l, %r : f32
    %d = arith.subf %l, %r : f32
    affine.store %s, %B[%i] : memref<301xf32>
    affine.store %d, %B[%i + 1] : memref<301xf32>
  }
  return
}
"""
WAW_OK = WAW_BAD.replace("affine.store %s, %B[%i] : memref<301xf32>\n    affine.store %d, %B[%i + 1]",
                         "affine.store %d, %B[%i + 1] : memref<301xf32>\n    affine.store %s, %B[%i]")

# The store comes first, then a load of the element it wrote (same iteration) and of the next.
STORE_FIRST = """func.func @k(%A: memref<300xf32>, %B: memref<300xf32>) {
  affine.for %i = 0 to 299 {
    %b = affine.load %B[%i] : memref<300xf32>
    affine.store %b, %A[%i] : memref<300xf32>
    %x = affine.load %A[%i] : memref<300xf32>
    %y = affine.load %A[%i + 1] : memref<300xf32>
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %b : f32
    affine.store %t, %B[%i] : memref<300xf32>
  }
  return
}
"""

# Rows of a 2-D array (the rows' loop outside), two windows (A's three columns, C's two), a load
# of one offset (Q), int ops on a window and a select.
ROWS = """func.func @k(%m: index, %n: index, %A: memref<?x?xf32>, %C: memref<?x?xi32>, %Q: memref<?x?xf32>, %B: memref<?x?xf32>) {
  %z = arith.constant 0 : i32
  affine.for %j = 0 to %m {
    affine.for %i = 2 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
      %a = affine.load %A[%j, %i - 2] : memref<?x?xf32>
      %b = affine.load %A[%j, %i + 1] : memref<?x?xf32>
      %c = affine.load %A[%j, %i] : memref<?x?xf32>
      %q = affine.load %Q[%j, %i] : memref<?x?xf32>
      %x = affine.load %C[%j, %i - 1] : memref<?x?xi32>
      %y = affine.load %C[%j, %i] : memref<?x?xi32>
      %d = arith.subi %x, %y : i32
      %p = arith.cmpi sgt, %d, %z : i32
      %s0 = arith.mulf %a, %b : f32
      %s1 = arith.addf %s0, %c : f32
      %s2 = arith.divf %s1, %q : f32
      %v = arith.select %p, %s2, %a : f32
      affine.store %v, %B[%j, %i] : memref<?x?xf32>
    }
  }
  return
}
"""

STRIDED_WALK = """func.func @k(%A: memref<600xf32>, %B: memref<300xf32>) {
  affine.for %i = 0 to 299 {
    %x = affine.load %A[%i * 2] : memref<600xf32>
    %y = affine.load %A[%i * 2 + 1] : memref<600xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %B[%i] : memref<300xf32>
  }
  return
}
"""

STRIDED_VIEW = """func.func @k(%A: memref<300xf32, strided<[2]>>, %B: memref<300xf32>) {
  affine.for %i = 1 to 299 {
    %x = affine.load %A[%i - 1] : memref<300xf32, strided<[2]>>
    %y = affine.load %A[%i] : memref<300xf32, strided<[2]>>
    %s = arith.addf %x, %y : f32
    affine.store %s, %B[%i] : memref<300xf32>
  }
  return
}
"""

ELEMENTWISE = """func.func @k(%A: memref<300xf32>, %C: memref<300xf32>, %B: memref<300xf32>) {
  affine.for %i = 0 to 300 {
    %x = affine.load %A[%i] : memref<300xf32>
    %y = affine.load %C[%i] : memref<300xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %B[%i] : memref<300xf32>
  }
  return
}
"""


def rewrite(src: str, options: Options = W8, explicit: bool = True) -> tuple[str, list]:
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            sweep_vectors.sweep_vectors_function(fn, options, log, "t.mlir", report_refusals=explicit)
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), list(log)


def plan_of(src: str, options: Options = W8):
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        return plan_sweep_vectors(plan_mod.candidates(fn)[0], Facts(), options)


# every element compared (outputs up to 2^20 elements), no warm-up call
same_natively = functools.partial(native_mismatch, warmup=0, full_limit=1 << 20)


JACOBI = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "programs",
                      "jacobi_1d.mlir")
# every residue modulo 8 and 16 up to three vectors of 16 (the peeled ends' every case), then longer
LENGTHS = list(range(0, 52)) + [67, 130, 1000]
NATIVE_LENGTHS = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 18, 30, 35, 67, 130, 1000]


# ----------------------------------------------------------------------------- the rewrite

def test_the_three_point_sweep_loads_one_window_vector_per_block_and_shuffles_the_rest():
    out, remarks = rewrite(SWEEP, W16)
    (r,) = remarks
    assert r.message.startswith("[SWEEP VECTORS] vectors of 16, one load per window (3 offsets, 1 aligned "
                                "loaded on its own)")
    assert r.args == {"width": 16, "windows": 1, "aligned": 1}
    main = out.split("iter_args")[1].split("scf.yield")[0]
    # the window's next vector and the centre (A[i], aligned like the store B[i]); one shuffle for A[i + 1]
    assert main.count("vector.load") == 2 and main.count("vector.shuffle") == 1
    assert main.count("vector.store") == 1 and "[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]" in main
    assert out.count("scf.for") == 2 and "affine.for" not in out  # the blocks, then whole vectors
    assert out.count("vector.create_mask") == 2 and out.count("vector.maskedstore") == 2  # the two ends
    assert out.count("vector.maskedload") == 6


def test_the_operand_aligned_like_the_store_is_loaded_whatever_its_offset():
    """The store at i + 1: A[i + 1] (the window's third offset) is the aligned one; a store whose
    index moves with a symbol the loads do not have aligns none of them (both shuffled)."""
    assert [len(g.aligned) for g in plan_of(SHIFTED_STORE, W16).groups] == [1]
    out, remarks = rewrite(SHIFTED_STORE, W16)
    assert remarks[0].args["aligned"] == 1
    main = out.split("iter_args")[1].split("scf.yield")[0]
    # A[i] is lanes 1 .. 16 of the window (shuffled); A[i + 1] an aligned load of its own
    assert main.count("vector.load") == 2 and main.count("vector.shuffle") == 1
    assert "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]" in main
    assert [len(g.aligned) for g in plan_of(SYMBOL_STORE, W16).groups] == [0]
    out, remarks = rewrite(SYMBOL_STORE, W16)
    assert remarks[0].args["aligned"] == 0
    main = out.split("iter_args")[1].split("scf.yield")[0]
    assert main.count("vector.load") == 1 and main.count("vector.shuffle") == 2


@pytest.mark.parametrize("options", [W8, W16], ids=["w8", "w16"])
def test_a_shifted_or_symbolic_store_keeps_every_bit_in_the_interpreter(options):
    out, remarks = rewrite(SHIFTED_STORE, options)
    assert remarks[0].message.startswith("[SWEEP VECTORS]")
    for n in LENGTHS:  # arrays exactly as long as the loop reads and writes
        assert_same_results(SHIFTED_STORE, out, sizes={0: n, 1: (n,), 2: (n + 1,)}, trials=1, allow_zero=True)
    out, remarks = rewrite(SYMBOL_STORE, options)
    assert remarks[0].message.startswith("[SWEEP VECTORS]")
    for n in LENGTHS[::3]:
        for m in (0, 3, 5):
            assert_same_results(SYMBOL_STORE, out, sizes={0: n, 1: m, 2: (n,), 3: (n + m,)}, trials=1,
                                allow_zero=True)


@has_runner
def test_a_shifted_store_keeps_every_bit_natively():
    out, _ = rewrite(SHIFTED_STORE, W16)
    for n in NATIVE_LENGTHS:
        assert same_natively(SHIFTED_STORE, out, [n, [max(n, 1)], [max(n + 1, 1)]]) is None, n


@pytest.mark.parametrize("options", [W8, W16], ids=["w8", "w16"])
def test_every_length_keeps_every_bit_in_the_interpreter(options):
    out, remarks = rewrite(SWEEP, options)
    assert remarks[0].message.startswith("[SWEEP VECTORS]")
    for n in LENGTHS:  # %A and %B hold exactly n elements: a lane past them fails in the interpreter
        assert_same_results(SWEEP, out, sizes={0: n, 1: (n,), 2: (n,)}, trials=1,
                            allow_zero=True)


@has_runner
@pytest.mark.parametrize("options", [W8, W16], ids=["w8", "w16"])
def test_every_length_keeps_every_bit_natively(options):
    out, _ = rewrite(SWEEP, options)
    for n in NATIVE_LENGTHS:
        assert same_natively(SWEEP, out, [n, [max(n, 1)], [max(n, 1)]]) is None, n


def test_rows_two_windows_and_a_single_load_keep_every_bit():
    out, remarks = rewrite(ROWS, W8)
    assert remarks[0].args == {"width": 8, "windows": 2, "aligned": 2}, remarks  # A[j, i] and C[j, i]
    for m, n in ((3, 40), (2, 11), (1, 3), (0, 5), (2, 1), (4, 26)):
        assert_same_results(ROWS, out, sizes={0: m, 1: n, 2: (m, n), 3: (m, n), 4: (m, n), 5: (m, n)},
                            trials=1, allow_zero=True)


@has_runner
def test_rows_two_windows_and_a_single_load_keep_every_bit_natively():
    out, _ = rewrite(ROWS, W16)
    for m, n in ((3, 40), (2, 17), (1, 3), (5, 100)):
        assert same_natively(ROWS, out, [m, n, [m, n], [m, n], [m, n], [m, n]]) is None


def test_an_in_place_sweep_reading_only_ahead_is_rewritten_and_keeps_every_bit():
    out, remarks = rewrite(AHEAD, W8)
    assert remarks[0].message.startswith("[SWEEP VECTORS]"), remarks
    for n in (0, 2, 3, 9, 10, 11, 19, 100):
        assert_same_results(AHEAD, out, sizes={0: n, 1: (n,)}, trials=1, allow_zero=True)


@has_runner
def test_jacobi_time_tiles_then_sweep_vectors_keep_every_bit_natively():
    src = open(JACOBI).read().replace("1048576", "20000").replace("1048575", "19999").replace("to 100 {", "to 7 {")
    res = driver.optimize(src, Options(target=TARGETS["cpu"], vector_bits=512, sb_size=1024))
    out, remarks = res.text, list(res.remarks)
    assert sum(r.message.startswith("[SWEEP VECTORS]") for r in remarks) == 2
    assert any(r.message.startswith("[TIME TILING]") for r in remarks)
    assert same_natively(src.replace("@jacobi_1d", "@k"), out.replace("@jacobi_1d", "@k"), [None] * 3) is None


# ----------------------------------------------------------------------------- refusals

def test_an_in_place_gauss_seidel_sweep_is_refused_by_default():
    plan = plan_of(GAUSS_SEIDEL)
    assert plan.refusal is not None and plan.refusal.code is SweepCode.CARRIED, plan
    out, remarks = rewrite(GAUSS_SEIDEL, explicit=False)
    assert len(remarks) == 1 and remarks[0].message == SweepCode.CARRIED.message
    assert "reads at a later iteration" in remarks[0].args["reason"]
    assert "vector" not in out


def test_a_load_after_a_store_is_not_a_sweep():
    plan = plan_of(STORE_FIRST)
    assert plan.refusal.code is SweepCode.SHAPE and "comes after a store" in plan.refusal.detail


def test_two_stores_keep_each_elements_last_writer_or_are_refused():
    plan = plan_of(WAW_BAD)
    assert plan.refusal.code is SweepCode.CARRIED and "writes again at a later iteration" in plan.refusal.detail
    assert WAW_OK != WAW_BAD
    out, remarks = rewrite(WAW_OK)
    assert remarks[0].message.startswith("[SWEEP VECTORS]"), remarks
    assert_same_results(WAW_OK, out, trials=2)


def test_other_shapes_are_left_quietly():
    assert plan_of(STRIDED_WALK).refusal.code is SweepCode.SHAPE
    assert plan_of(STRIDED_VIEW).refusal.code is SweepCode.SHAPE
    assert plan_of(ELEMENTWISE).refusal.code is SweepCode.NO_WINDOW
    short = SWEEP.replace("affine_map<()[s0] -> (s0 - 1)>()[%n]", "20")
    assert plan_of(short, W8).refusal.code is SweepCode.SHORT
    for src in (STRIDED_WALK, STRIDED_VIEW, ELEMENTWISE, short):
        out, remarks = rewrite(src, explicit=False)
        assert remarks == [] and "vector" not in out
        _, remarks = rewrite(src, explicit=True)
        assert remarks[0].message.startswith("[STOP SWEEP VECTORS]")


def test_the_legality_guard_is_needed(monkeypatch):
    """Without the dependence check the Gauss-Seidel sweep and the store-first loop compute
    other results."""
    monkeypatch.setattr(plan_mod, "carried_violation", lambda *a: None)
    out, remarks = rewrite(GAUSS_SEIDEL)
    assert remarks[0].message.startswith("[SWEEP VECTORS]")
    with pytest.raises(AssertionError):
        assert_same_results(GAUSS_SEIDEL, out, sizes={0: 100, 1: (100,), 2: (100,)}, trials=1)
    out, _ = rewrite(WAW_BAD)
    with pytest.raises(AssertionError):
        assert_same_results(WAW_BAD, out, trials=1)


def random_sweep(rng) -> str:
    """A sweep of 2-5 loads of A or B at offsets -3 .. 3, a chain of float ops, then one or two
    stores to A or B at offsets -2 .. 2 (in place or not, in either order)."""
    loads, lines = [], []
    for k in range(rng.randint(2, 5)):
        buf, c = rng.choice("AB"), rng.randint(-3, 3)
        lines.append(f"    %l{k} = affine.load %{buf}[%i + {c}] : memref<?xf32>")
        loads.append(f"%l{k}")
    acc = loads[0]
    for k, x in enumerate(loads[1:]):
        op = rng.choice(["addf", "mulf", "subf", "maximumf"])
        lines.append(f"    %v{k} = arith.{op} {acc}, {x} : f32")
        acc = f"%v{k}"
    lines.append(f"    %w = arith.mulf {acc}, %h : f32")
    for s in range(rng.randint(1, 2)):
        value = acc if s else "%w"
        lines.append(f"    affine.store {value}, %{rng.choice('AB')}[%i + {rng.randint(-2, 2)}] : memref<?xf32>")
    return ("func.func @k(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {\n"
            "  %h = arith.constant 0.5 : f32\n"
            "  affine.for %i = 3 to affine_map<()[s0] -> (s0 - 3)>()[%n] {\n" + "\n".join(lines) + "\n  }\n  return\n}\n")


def test_random_sweeps_keep_their_results_rewritten_or_refused():
    """40 seeded random sweeps at lengths 0 .. 45 in the interpreter (arrays exactly as long as
    the loop reads): every rewritten one computes what it computed before, every refused one is
    left as it was; both kinds occur."""
    import random

    rng = random.Random(35)
    done = refused = 0
    for _ in range(40):
        src = random_sweep(rng)
        out, remarks = rewrite(src, W8)
        if remarks[0].message.startswith("[SWEEP VECTORS]"):
            done += 1
        else:
            refused += 1
            assert "vector" not in out
        for n in (0, 6, 7, 13, 14, 15, 22, 23, 30, 45):
            assert_same_results(src, out, sizes={0: n, 1: (n,), 2: (n,)}, trials=1, allow_zero=True)
    assert done >= 8 and refused >= 8, (done, refused)


# ----------------------------------------------------------------------------- interleaved blocks

def chain_body(length: int, store: str = "%B[%i]", extra_load: str = "") -> str:
    """A window-free sweep B[i] = f(A[i]) whose f is `length` dependent float ops (mulf, addf
    alternating: a Horner polynomial), optionally one more load added in."""
    lines = ["    %x = affine.load %A[%i] : memref<?xf32>"]
    acc = "%x"
    for k in range(length):
        op = "mulf" if k % 2 == 0 else "addf"
        other = "%x" if op == "mulf" else "%c"
        lines.append(f"    %v{k} = arith.{op} {acc}, {other} : f32")
        acc = f"%v{k}"
    if extra_load:
        lines.insert(1, f"    %y = affine.load {extra_load} : memref<?xf32>")
        lines.append(f"    %e = arith.addf {acc}, %y : f32")
        acc = "%e"
    lines.append(f"    affine.store {acc}, {store} : memref<?xf32>")
    return ("func.func @k(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {\n"
            "  %c = arith.constant 0.25 : f32\n"
            "  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 2)>()[%n] {\n" + "\n".join(lines) + "\n  }\n  return\n}\n")


LONG = chain_body(30)
SHORT_CHAIN = chain_body(10)
# in place: A[i] = f(A[i]) + B[i + 1] (legal) and A[i + 1] = f(A[i]) (not)
LONG_IN_PLACE = chain_body(30, store="%A[%i]", extra_load="%B[%i + 1]")
LONG_BEHIND = chain_body(30, store="%A[%i + 1]")

# the polynomials' own ops on a buffer seen through a view (memref.collapse_shape, as flat-loops writes)
VIEWED = """func.func @k(%A: memref<32x100xf32>, %B: memref<32x100xf32>) {
  %c = arith.constant 1.44269502 : f32
  %h = arith.constant 5.000000e-01 : f32
  %c1 = arith.constant 1 : i32
  %c23 = arith.constant 23 : i32
  %c127 = arith.constant 127 : i32
  %a = memref.collapse_shape %A [[0, 1]] : memref<32x100xf32> into memref<3200xf32>
  %b = memref.collapse_shape %B [[0, 1]] : memref<32x100xf32> into memref<3200xf32>
  affine.for %i = 0 to 3200 {
    %x = affine.load %a[%i] : memref<3200xf32>
    %ax = math.absf %x : f32
    %t0 = math.fma %ax, %c, %h : f32
    %f = math.floor %t0 : f32
    %r0 = math.fma %f, %x, %t0 : f32
    %r1 = math.fma %r0, %r0, %x : f32
    %r2 = math.fma %r1, %c, %r0 : f32
    %r3 = math.fma %r2, %r1, %h : f32
    %r4 = math.fma %r3, %c, %r2 : f32
    %r5 = math.fma %r4, %r3, %h : f32
    %r6 = math.fma %r5, %c, %r4 : f32
    %r7 = math.fma %r6, %r5, %h : f32
    %r8 = math.fma %r7, %c, %r6 : f32
    %r9 = math.fma %r8, %r7, %h : f32
    %ra = math.fma %r9, %c, %r8 : f32
    %rb = math.fma %ra, %r9, %h : f32
    %rc = math.fma %rb, %c, %ra : f32
    %rd = math.fma %rc, %rb, %h : f32
    %re = math.fma %rd, %c, %rc : f32
    %rf = math.fma %re, %rd, %h : f32
    %rg = math.fma %rf, %c, %re : f32
    %rh = math.fma %rg, %rf, %h : f32
    %k = arith.fptosi %f : f32 to i32
    %k1 = arith.shrsi %k, %c1 : i32
    %k2 = arith.addi %k1, %c127 : i32
    %k3 = arith.shli %k2, %c23 : i32
    %s = arith.bitcast %k3 : i32 to f32
    %m = arith.mulf %rh, %s : f32
    %m2 = arith.mulf %m, %r0 : f32
    %m3 = arith.addf %m2, %rh : f32
    %o = math.copysign %m3, %x : f32
    affine.store %o, %b[%i] : memref<3200xf32>
  }
  return
}
"""


def test_a_long_chain_is_interleaved_in_blocks_of_four_vectors():
    plan = plan_of(LONG, W8)
    assert plan.refusal is None and plan.interleave == 4 and plan.chain == 30, plan
    out, remarks = rewrite(LONG, W8)
    (r,) = remarks
    assert r.message == ("[SWEEP VECTORS] vectors of 8 in blocks of 4, interleaved op by op: a chain of 30 ops "
                         "overlapped 4 times; ends peeled")
    assert r.args == {"width": 8, "windows": 0, "aligned": 0, "interleave": 4, "chain": 30}
    main = out.split("scf.for")[1].split("scf.yield")[0]
    assert main.count("vector.load") == 4 and main.count("vector.store") == 4
    # op by op: the four copies of each op stand together
    ops = [ln.split("=")[1].split()[0] for ln in main.splitlines() if "= arith." in ln]
    assert ops[:8] == ["arith.mulf"] * 4 + ["arith.addf"] * 4, ops[:8]
    assert out.count("scf.for") == 2 and out.count("vector.maskedstore") == 2 and "affine.for" not in out


def test_a_short_chain_is_left_to_llvm_and_says_how_long_it_is():
    plan = plan_of(SHORT_CHAIN, W8)
    assert plan.refusal.code is SweepCode.NO_WINDOW and "its longest chain: 10 ops" in plan.refusal.detail
    out, remarks = rewrite(SHORT_CHAIN, W8, explicit=False)
    assert remarks == [] and "vector" not in out


def test_the_knob_turns_interleaving_off():
    from dataclasses import replace

    plan = plan_of(LONG, replace(W8, sweep_interleave=1))
    assert plan.refusal.code is SweepCode.NO_WINDOW
    plan = plan_of(LONG, replace(W8, sweep_interleave=2))
    assert plan.refusal is None and plan.interleave == 2


@pytest.mark.parametrize("src", [LONG, LONG_IN_PLACE], ids=["long", "in-place"])
def test_interleaved_blocks_keep_every_bit_in_the_interpreter(src):
    out, remarks = rewrite(src, W8)
    assert remarks[0].message.startswith("[SWEEP VECTORS] vectors of 8 in blocks of 4"), remarks
    # every residue of the blocks of 32 and of the vectors of 8, arrays exactly as long as the loop reads
    for n in list(range(0, 45)) + [67, 100, 131]:
        assert_same_results(src, out, sizes={0: n, 1: (n,), 2: (n,)}, trials=1, allow_zero=True)


def test_an_in_place_chain_storing_ahead_of_its_load_is_refused():
    """A[i + 1] = f(A[i]): each iteration reads what the one before stored; a block would read
    them all first."""
    plan = plan_of(LONG_BEHIND, W8)
    assert plan.refusal.code is SweepCode.CARRIED, plan
    out, remarks = rewrite(LONG_BEHIND, W8, explicit=False)
    assert remarks[0].message == SweepCode.CARRIED.message and "vector" not in out


def test_interleaving_needs_the_legality_guard(monkeypatch):
    monkeypatch.setattr(plan_mod, "carried_violation", lambda *a: None)
    out, remarks = rewrite(LONG_BEHIND, W8)
    assert remarks[0].message.startswith("[SWEEP VECTORS] vectors of 8 in blocks of 4")
    with pytest.raises(AssertionError):
        assert_same_results(LONG_BEHIND, out, sizes={0: 100, 1: (100,), 2: (100,)}, trials=1)


def test_an_access_through_a_view_walks_its_own_index():
    plan = plan_of(VIEWED, W8)
    assert plan.refusal is None and plan.interleave == 4 and plan.chain >= 16, plan
    # a view whose index does not walk by one along the loop is not a sweep
    for index in ("%i * 2", "(%i * 7) mod 3200"):
        strided = VIEWED.replace("affine.store %o, %b[%i]", f"affine.store %o, %b[{index}]")
        assert plan_of(strided, W8).refusal.code is SweepCode.SHAPE, index


@has_runner
@pytest.mark.parametrize("src,sizes", [
    (LONG, [[n, [max(n, 1)], [max(n, 1)]] for n in (0, 1, 3, 4, 9, 33, 34, 35, 40, 67, 1000, 1027)]),
    (VIEWED, [[None, None]]),
], ids=["long", "viewed-polynomial-ops"])
def test_interleaved_blocks_keep_every_bit_natively(src, sizes):
    out, remarks = rewrite(src, W8)
    assert remarks[0].message.startswith("[SWEEP VECTORS] vectors of 8 in blocks of 4"), remarks
    for s in sizes:
        assert same_natively(src, out, s) is None, s


def test_a_windows_blocks_are_512_bits_whatever_the_registers_a_chains_one_register():
    """On a 256-bit plan a window's blocks are 16 f32 lanes (two registers: section 82), a
    window-free chain's vectors one register (8); sweep_window_bits narrows the window's."""
    from dataclasses import replace

    avx2 = Options(target=TARGETS["cpu"], vector_bits=256)
    assert plan_of(SWEEP, avx2).width == 16
    assert plan_of(LONG, avx2).width == 8
    assert plan_of(SWEEP, replace(avx2, sweep_window_bits=256)).width == 8
    assert plan_of(SWEEP, Options(target=TARGETS["cpu"], vector_bits=128)).width == 16
    assert plan_of(LONG, Options(target=TARGETS["cpu"], vector_bits=128)).width == 4
    # the 16-lane blocks on the 256-bit plan compute the loop's results at every residue
    out, _ = rewrite(SWEEP, avx2)
    assert "vector<16xf32>" in out and "vector<8xf32>" not in out
    for n in (0, 1, 2, 15, 16, 17, 18, 31, 33, 47, 48, 49, 67, 130):
        assert_same_results(SWEEP, out, sizes={0: n, 1: (n,), 2: (n,)}, trials=1, allow_zero=True)


BIT_BUFFER = """
func.func @k(%x: memref<1024xf32>, %m: memref<1024xi1>, %y: memref<1024xf32>) {
  %s = arith.constant 1.0001 : f32
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 1024 {
    %c0 = affine.load %x[%i] : memref<1024xf32>
""" + "".join(f"    %c{k + 1} = arith.mulf %c{k}, %s : f32\n" for k in range(20)) + """
    %b = affine.load %m[%i] : memref<1024xi1>
    %r = arith.select %b, %c20, %z : f32
    affine.store %r, %y[%i] : memref<1024xf32>
  }
  return
}
"""


def test_a_buffer_of_i1_is_not_read_as_vectors():
    """A vector<8xi1> is 8 bits in memory, a memref<..xi1> one byte per element: a long chain
    selecting by a loaded i1 (torch's masks, the floor divisions of section 78) read its mask
    from the wrong bytes (arg2[2] differed natively). Refused with the reason; the default
    pipeline's result equals the input's natively."""
    plan = plan_of(BIT_BUFFER, W8)
    assert plan.refusal.code is SweepCode.SHAPE and "of an i1 buffer" in plan.refusal.detail
    out = driver.optimize(BIT_BUFFER, W8)
    assert "vector.load" not in out.text
    if find_tool("mlir-runner") is not None:
        assert same_natively(BIT_BUFFER, out.text) is None


# exp and tanh as a 512-bit plan approximates them (math_approx: 2^n by llvm.intr.ldexp); the
# argument of exp spans its overflow to inf and its subnormal results
SCALED_CHAIN = """func.func @k(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {
  %s = arith.constant 110.0 : f32
  affine.for %i = 0 to %n {
    %x = affine.load %A[%i] : memref<?xf32>
    %y = arith.mulf %x, %s : f32
    %e = math.exp %y : f32
    %t = math.tanh %x : f32
    %r = arith.addf %e, %t : f32
    affine.store %r, %B[%i] : memref<?xf32>
  }
  return
}
"""


def _scaled(interleave: int) -> tuple[str, list]:
    """SCALED_CHAIN through the cpu pipeline with approximate_math on a 512-bit plan (sweep_interleave
    as given: 1 leaves the loop, its scalar ldexp, to LLVM's vectorizer); the text and the remarks."""
    from loopopt import api

    r = api.optimize(SCALED_CHAIN, target="cpu", approximate_math=True, vector_bits=512,
                     sweep_interleave=interleave, filename="t.mlir")
    return r.text, list(r.remarks)


def test_a_chain_scaled_by_ldexp_is_interleaved_with_ldexp_on_vectors():
    """A 512-bit plan's exp scales by llvm.intr.ldexp (scalar exponent only in MLIR): the chain is
    interleaved all the same, each block's 2^n one call of LLVM's ldexp intrinsic on vectors of 16
    (section 83; before, the op kept the loop from sweep-vectors)."""
    out, remarks = _scaled(4)
    (r,) = [r for r in remarks if r.message.startswith("[SWEEP VECTORS]")]
    assert r.message.startswith("[SWEEP VECTORS] vectors of 16 in blocks of 4, interleaved op by op"), r.message
    main = out.split("scf.for")[1].split("scf.yield")[0]
    # two per block (exp's and tanh's), four blocks, on vectors; no scalar ldexp is left
    assert main.count('llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32"') == 8, main
    assert "llvm.intr.ldexp" not in out
    plain, _ = _scaled(1)
    assert plain.count("llvm.intr.ldexp") == 2 and "llvm.call_intrinsic" not in plain


def test_ldexp_on_vectors_keeps_every_bit_in_the_interpreter():
    out, _ = _scaled(4)
    plain, _ = _scaled(1)
    for n in [0, 1, 15, 16, 17, 63, 64, 65, 100, 131, 200]:
        assert_same_results(plain, out, sizes={0: n, 1: (n,), 2: (n,)}, trials=1, allow_zero=True)


@has_runner
def test_ldexp_on_vectors_keeps_every_bit_natively():
    """Against the loop LLVM vectorizes (its scalar ldexp widened to vscalefps on this host),
    every element at lengths around the blocks of 64."""
    out, _ = _scaled(4)
    plain, _ = _scaled(1)
    for n in (0, 1, 17, 63, 64, 65, 129, 1000, 4099):
        assert same_natively(plain, out, [n, [max(n, 1)], [max(n, 1)]]) is None, n
