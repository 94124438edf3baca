"""Issue 24, GEMM piece: register tiling of reduction nests (codegen/cpu/plan/cpu_plan.py TilePlan,
codegen/cpu/register_tile.py).

One test per refusal code and per form (vector lanes, scalar copies, rows jammed, remainders,
symbolic sizes, fused multiply-add); every rewrite is checked on its IR, bit for bit in the
reference interpreter and natively (mlir-runner) when nothing is contracted. The legality is
fuzzed against an oracle that shares no code with it (a nest the plan tiles must compute the same
results with the iterations of each loop it reorders reversed), and each guard of the plan is
disabled in turn to show that a check of this file then fails (the mutation check).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import loopopt
from loopopt import mlir
from loopopt.codegen.cpu.plan import cpu_plan
from loopopt.codegen.cpu.plan.cpu_plan import TileCode, choose_tile, plan_register_tiles
from loopopt.analysis.facts import Facts
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results, make_inputs, native_mismatch, run_on_inputs
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.codegen.cpu.register_tile import multiple_bound, register_tile_function

CPU = Options(target=TARGETS["cpu"])
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def tile(src: str, options: Options = CPU) -> tuple[str, list]:
    """(the module after register tiling of every function, the remarks)."""
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            register_tile_function(fn, options, log, "t.mlir")
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), list(log)


def plan_facts(src: str, options: Options = CPU) -> list[tuple]:
    """(refusal code or None, rows, vectors, width, rows loop?) of every reduction nest."""
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        return [(p.refusal.code if p.refusal else None, p.rows, p.vectors, p.width, p.rows_loop is not None)
                for p in plan_register_tiles(fn, Facts(), options)]


def gemm(m="30", n="40", k="20", a="%A[%i, %k]", b="%B[%k, %j]", ta=None, tb=None, extra_p="", init="load",
         jlo="0", elem="f32", combine="arith.addf %acc, %p", mul="arith.mulf %a, %b") -> str:
    """C[i, j] = C[i, j] + sum_k A . B with the accumulator in iter_args (as scalar replacement
    leaves it); `ta`/`tb` the memref types of A and B (default: row-major for the indices)."""
    ta = ta or f"memref<{m}x{k}x{elem}>"
    tb = tb or f"memref<{k}x{n}x{elem}>"
    tc = f"memref<{m}x{n}x{elem}>"
    zero = "0.0" if elem.startswith("f") else "0"
    init_line = (f"      %c0 = affine.load %C[%i, %j] : {tc}" if init == "load" else
                 f"      %c0 = arith.constant {zero} : {elem}")
    return f"""func.func @k(%A: {ta}, %B: {tb}, %C: {tc}) {{
  affine.for %i = 0 to {m} {{
    affine.for %j = {jlo} to {n} {{
{init_line}
      %r = affine.for %k = 0 to {k} iter_args(%acc = %c0) -> ({elem}) {{
        %a = affine.load {a} : {ta}
        %b = affine.load {b} : {tb}
        %p = {mul} : {elem}
        %s = {combine} : {elem}
        affine.yield %s : {elem}
      }}
{extra_p}      affine.store %r, %C[%i, %j] : {tc}
    }}
  }}
  return
}}
"""



# ----------------------------------------------------------------------------- the forms

def test_a_gemm_gets_rows_and_vectors_with_remainders_and_stays_bit_exact():
    """40 columns at 8 lanes: 4 x 24 (a whole tile, then the 16 columns left over in one step of
    2 vectors, each row's broadcast serving both: 13 loads for 20 vectors of multiply-adds per
    row block) beats 3 x 32 (a tile, then one vector: 11 loads for 15), section 44."""
    src = gemm()
    out, remarks = tile(src)
    assert [r.message for r in remarks] == [
        "[REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept "
        "in order; the 16 columns the whole tiles leave over in one step of 2 vectors"]
    assert "affine.for %arg3 = 0 to 28 step 4" in out  # 7 blocks of 4 rows, then 2 rows
    assert out.count("iter_args") == 4  # whole tiles (4 x 3 vectors), then 2 vectors per row; twice
    assert "vector<8xf32>" in out and "vector.broadcast" in out and "math.fma" not in out
    assert "to 24 step 24" in out and "= 24 to 40 step 16" in out  # columns: a tile, then 2 vectors
    assert_same_results(src, out, seed=3)
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(out) is None


@has_runner
def test_native_results_are_bit_exact_with_remainders_in_both_loops():
    src = gemm(m="31", n="45", k="13")  # 31 = 7 x 4 + 3 rows, 45 = 24 + 21 columns (2 vectors, one masked)
    out, _ = tile(src)
    assert "step 4" in out and "affine.for %arg4 = 24 to 45 step 24" in out
    assert native_mismatch(src, out) is None


DYNAMIC = """func.func @k(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %kk = memref.dim %A, %c1 : memref<?x?xf32>
  %n = memref.dim %B, %c1 : memref<?x?xf32>
  affine.for %i = 0 to %m {
    affine.for %j = 1 to %n {
      %c = affine.load %C[%i, %j] : memref<?x?xf32>
      %r = affine.for %k = 0 to %kk iter_args(%acc = %c) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %j - 1] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
"""


@has_runner
@pytest.mark.parametrize("bits", [256, 512])
def test_symbolic_sizes_take_remainders_at_run_time(bits):
    out, remarks = tile(DYNAMIC, Options(target=TARGETS["cpu"], vector_bits=bits))
    assert len(remarks) == 1 and remarks[0].kind == "Passed"
    assert "floordiv" in out and f"vector<{bits // 32}xf32>" in out
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(out) is None
    for sizes in ([[37, 19], [19, 53], [37, 53]], [[5, 3], [3, 7], [5, 7]], [[1, 1], [1, 1], [1, 1]],
                  [[0, 4], [4, 9], [0, 9]], [[7, 0], [0, 70], [7, 70]]):
        assert native_mismatch(DYNAMIC, out, sizes) is None, sizes


def test_the_bound_of_whole_tiles():
    with mlir.new_context():
        lb = ir_map("()[s0] -> (s0 + 1)")
        ub = ir_map("()[s0] -> (s0 * 4)")
        m, ops = multiple_bound((lb, ["x"]), (ub, ["y"]), 8)
        assert str(m) == "()[s0, s1] -> (s0 + ((-s0 + s1 * 4 - 1) floordiv 8) * 8 + 1)" and ops == ["x", "y"]
        c, _ = multiple_bound((ir_map("() -> (3)"), []), (ir_map("() -> (40)"), []), 8)
        assert str(c) == "() -> (35)"


def ir_map(text: str):
    return mlir.ir.AffineMapAttr(mlir.ir.Attribute.parse(f"affine_map<{text}>")).value


def test_wider_vectors_and_more_registers_at_512_bits():
    src = gemm(m="48", n="128", k="16")
    out, remarks = tile(src, Options(target=TARGETS["cpu"], vector_bits=512))
    assert "6 x 64 tile" in remarks[0].message and "24 vector accumulators (vector<16xf32>)" in remarks[0].message
    assert_same_results(src, out, seed=1)


def test_choose_tile_follows_the_registers():
    assert choose_tile(16, 1, 8, 6, None, None) == (4, 3)  # 12 accumulators of 16 registers
    assert choose_tile(32, 1, 16, 6, None, None) == (6, 4)  # 24 of 32
    assert choose_tile(16, 1, 8, 1, None, None) == (1, 4)  # one row
    assert choose_tile(16, 2, 8, 6, None, None) == (3, 2)  # two sums each: 12 accumulators
    assert choose_tile(16, 1, 8, 6, 8, 2) == (2, 1)  # short loops


def test_a_transposed_a_and_a_batch_dimension():
    src = gemm(a="%A[%k, %i]", ta="memref<20x30xf32>")
    out, remarks = tile(src)
    assert remarks[0].kind == "Passed" and "vector<8xf32>" in out
    assert_same_results(src, out, seed=2)
    batched = """func.func @k(%A: memref<2x9x5xf32>, %B: memref<2x5x24xf32>, %C: memref<2x9x24xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %b = 0 to 2 {
    affine.for %i = 0 to 9 {
      affine.for %j = 0 to 24 {
        %r = affine.for %k = 0 to 5 iter_args(%acc = %z) -> (f32) {
          %x = affine.load %A[%b, %i, %k] : memref<2x9x5xf32>
          %y = affine.load %B[%b, %k, %j] : memref<2x5x24xf32>
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %acc, %p : f32
          affine.yield %s : f32
        }
        affine.store %r, %C[%b, %i, %j] : memref<2x9x24xf32>
      }
    }
  }
  return
}
"""
    out, remarks = tile(batched)
    assert "4 x 24 tile" in remarks[0].message  # 9 rows: two blocks of 4 and one row
    assert_same_results(batched, out, seed=4)


def test_a_transposed_b_is_jammed_in_scalar_copies():
    """B[j, k] moves by a row per lane: no vector lanes; the ordered sums still gain chains."""
    src = gemm(b="%B[%j, %k]", tb="memref<40x20xf32>")
    out, remarks = tile(src)
    assert "accumulators (scalar f32)" in remarks[0].message and "vector" not in out
    assert_same_results(src, out, seed=5)


@has_runner
def test_contract_makes_one_fma_per_lane_within_rounding():
    src = gemm(m="12", n="24", k="64")
    out, remarks = tile(src, Options(target=TARGETS["cpu"], contract=True))
    assert "fused multiply-add" in remarks[0].message
    assert "math.fma" in out and "arith.mulf" not in out
    assert native_mismatch(src, out, rtol=1e-5, normwise=True) is None
    plain, _ = tile(src)
    assert "math.fma" not in plain


def test_int_and_max_reductions_are_tiled_exactly():
    src = gemm(elem="i32", mul="arith.muli %a, %b", combine="arith.addi %acc, %p", init="zero")
    out, remarks = tile(src)
    assert "vector<8xi32>" in out
    assert_same_results(src, out, seed=6)
    src = gemm(combine="arith.maximumf %acc, %p")
    out, _ = tile(src)
    assert_same_results(src, out, seed=6)


def test_prologue_and_epilogue_ops_are_copied_per_lane():
    """mm2's second product: D = beta D0 stored, then D += tmp C: the init comes from ops
    before the reduction loop and a store precedes it."""
    src = """func.func @k(%T: memref<9x7xf32>, %B: memref<7x20xf32>, %D0: memref<9x20xf32>, %D: memref<9x20xf32>) {
  %beta = arith.constant 1.2 : f32
  affine.for %i = 0 to 9 {
    affine.for %j = 0 to 20 {
      %d0 = affine.load %D0[%i, %j] : memref<9x20xf32>
      %d = arith.mulf %d0, %beta : f32
      affine.store %d, %D[%i, %j] : memref<9x20xf32>
      %r = affine.for %k = 0 to 7 iter_args(%acc = %d) -> (f32) {
        %t = affine.load %T[%i, %k] : memref<9x7xf32>
        %c = affine.load %B[%k, %j] : memref<7x20xf32>
        %p = arith.mulf %t, %c : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      %h = arith.mulf %r, %beta : f32
      affine.store %h, %D[%i, %j] : memref<9x20xf32>
    }
  }
  return
}
"""
    out, remarks = tile(src)
    assert remarks[0].kind == "Passed"
    assert "arith.mulf %{{" not in out and out.count("affine.vector_store") >= 2
    assert_same_results(src, out, seed=7)


@has_runner
def test_the_default_cpu_pipeline_tiles_mm2_bit_exact():
    import pathlib

    src = (pathlib.Path(__file__).parent.parent / "benchmarks" / "programs" / "mm2.mlir").read_text()
    res = loopopt.optimize(src, target="cpu")
    tiled = [r for r in res.remarks if r.pass_name == "register-tile"]
    assert len(tiled) == 2 and all(r.kind == "Passed" for r in tiled)
    assert "vector<8xf32>" in res.text
    small = src.replace("400", "37")
    res = loopopt.optimize(small, target="cpu")
    assert native_mismatch(small, res.text, kernel="mm2") is None


def test_neuron_targets_are_not_tiled():
    """The step table runs register-tile on the cpu target only, also when --passes names it."""
    from loopopt import driver

    res = driver.optimize(gemm(), Options(target=TARGETS["trn1"]), "t.mlir", passes=["register-tile"])
    assert not [r for r in res.remarks.remarks if r.pass_name == "register-tile"] and "vector" not in res.text


# ----------------------------------------------------------------------------- refusals

REFUSALS = {
    # a later iteration of the loop to block reads what an earlier one wrote
    "carried": (gemm(jlo="1", extra_p="      %q = affine.load %C[%i, %j - 1] : memref<30x40xf32>\n"
                     "      affine.store %q, %A[%i, 0] : memref<30x20xf32>\n"), TileCode.CARRIED),
    "triangular": (gemm(k="40").replace("affine.for %k = 0 to 40", "affine.for %k = 0 to affine_map<(d0) -> (d0)>(%j)"),
                   TileCode.REDUCTION_LOOP),
    "store in reduction": (gemm().replace("        affine.yield %s", "        affine.store %s, %B[%k, %j] : memref<20x40xf32>\n"
                                          "        affine.yield %s"), TileCode.REDUCTION_LOOP),
    "not a reduction": (gemm(combine="arith.subf %p, %acc"), TileCode.REDUCTION_LOOP),
    "call": (gemm(extra_p="      func.call @g() : () -> ()\n").replace("  return\n}\n", "  return\n}\nfunc.func private @g()\n"),
             TileCode.UNSUPPORTED_OP),
    "strided and exact": (gemm(b="%B[%j, %k]", tb="memref<40x20xi32>", elem="i32", mul="arith.muli %a, %b",
                               combine="arith.addi %acc, %p", init="zero"), TileCode.NOT_PROFITABLE),
    "short": (gemm(n="3"), TileCode.SHORT),  # (a loop of 1 iteration is no loop: replaced by its body)
    "step": (gemm().replace("affine.for %j = 0 to 40", "affine.for %j = 0 to 40 step 2"), TileCode.SHAPE),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_each_refusal_has_its_code(name):
    src, code = REFUSALS[name]
    facts = plan_facts(src)
    assert facts and facts[0][0] is code, facts
    out, remarks = tile(src)
    assert [r.kind for r in remarks] == ["Missed"] and remarks[0].message.startswith(code.value)
    assert "vector" not in out


def refusal_failures() -> list[str]:
    return [name for name, (src, code) in REFUSALS.items() if (plan_facts(src) or [(None,)])[0][0] is not code]


def test_a_row_loop_that_carries_a_dependence_keeps_one_row():
    src = gemm(extra_p="      affine.store %r, %B[0, %j] : memref<20x40xf32>\n")  # every row writes B[0, j]
    assert plan_facts(src)[0][1:] == (1, 4, 8, False)
    out, remarks = tile(src)
    assert "one row: the loop around it carries a dependence" in remarks[0].message
    assert_same_results(src, out, seed=8)


def test_the_default_pipeline_reports_only_what_it_tiles():
    src, _ = REFUSALS["carried"]
    res = loopopt.optimize(src, target="cpu")
    assert not [r for r in res.remarks if r.pass_name == "register-tile"]
    res = loopopt.optimize(src, target="cpu", passes="register-tile")
    assert [r.kind for r in res.remarks if r.pass_name == "register-tile"] == ["Missed"]


# ----------------------------------------------------------------------------- legality fuzzing

FORMS_C = ["%i, %j", "%i, %j", "%i, %j + 1", "%i, %j - 1", "0, %j", "%i, 0", "%j, %i"]
FORMS_IN = ["%i, %k", "%k, %j", "%k, %i", "%j, %k", "%i, %j", "%k, %j + 1", "0, %k"]


def _random_nest(rng: random.Random) -> tuple[str, str, str]:
    """A random reduction nest over three 12 x 12 buffers %X, %Y, %C (j from 1 to 10, i below 7,
    k below 5): the init read from one of them at a random element, the products of two loads at
    random elements, the result stored at one or two random elements. Returns the program and
    the same program with the j loop, then the i loop, run backwards."""
    t = "memref<12x12xf32>"
    def pick(usual, forms):  # GEMM-like half of the time, anything otherwise
        return usual if rng.random() < 0.5 else (rng.choice(["%X", "%Y", "%C"]), rng.choice(forms))

    init_buf, init_at = pick(("%C", "%i, %j"), FORMS_C)
    loads = [pick(("%X", "%i, %k"), FORMS_IN), pick(("%Y", "%k, %j"), FORMS_IN)]
    stores = [pick(("%C", "%i, %j"), FORMS_C)] + ([pick(("%C", "%i, %j"), FORMS_C)] if rng.random() < 0.3 else [])
    pre_store = rng.random() < 0.2

    def render(rev_j: bool, rev_i: bool) -> str:
        lines = [f"func.func @k(%X: {t}, %Y: {t}, %C: {t}) {{", "  %c = arith.constant 0.5 : f32",
                 "  affine.for %i0 = 0 to 7 {"]
        lines.append("    %i = affine.apply affine_map<(d0) -> (6 - d0)>(%i0)" if rev_i else
                     "    %i = affine.apply affine_map<(d0) -> (d0)>(%i0)")
        lines.append("    affine.for %j0 = 1 to 11 {")
        lines.append("      %j = affine.apply affine_map<(d0) -> (11 - d0)>(%j0)" if rev_j else
                     "      %j = affine.apply affine_map<(d0) -> (d0)>(%j0)")
        lines.append(f"      %v = affine.load {init_buf}[{init_at}] : {t}")
        if pre_store:
            lines.append(f"      affine.store %v, %Y[%j, 11] : {t}")
        lines.append("      %r = affine.for %k = 0 to 5 iter_args(%acc = %v) -> (f32) {")
        for n, (buf, at) in enumerate(loads):
            lines.append(f"        %l{n} = affine.load {buf}[{at}] : {t}")
        lines += ["        %p = arith.mulf %l0, %l1 : f32", "        %q = arith.addf %p, %c : f32",
                  "        %s = arith.addf %acc, %q : f32", "        affine.yield %s : f32", "      }"]
        for buf, at in stores:
            lines.append(f"      affine.store %r, {buf}[{at}] : {t}")
        return "\n".join(lines + ["    }", "  }", "  return", "}", ""])

    return render(False, False), render(True, False), render(False, True)


def _results(src: str, seed: int) -> list:
    inputs = make_inputs(src, "k", seed)
    return [np.asarray(x) for x in run_on_inputs(src, "k", inputs)]


def _differ(a: str, b: str) -> bool:
    return any(not np.array_equal(x, y, equal_nan=True) for s in (1, 2) for x, y in zip(_results(a, s), _results(b, s)))


def legality_failures(n: int = 100, seed: int = 24) -> list[str]:
    """Random nests the plan tiles although reversing a loop it reorders changes their results,
    or whose tiled form computes other results; and a count of the cases seen."""
    rng = random.Random(seed)
    failures, sensitive, tiled = [], 0, 0
    for _ in range(n):
        fwd, rev_j, rev_i = _random_nest(rng)
        plan = plan_facts(fwd)[0]
        j_sensitive, i_sensitive = _differ(fwd, rev_j), _differ(fwd, rev_i)
        sensitive += j_sensitive
        if plan[0] is not None:
            continue
        tiled += 1
        if j_sensitive or (plan[4] and i_sensitive):
            failures.append(fwd)
            continue
        out, _ = tile(fwd)
        if _differ(fwd, out):
            failures.append(fwd)
    assert sensitive >= n // 4 and tiled >= n // 5, (sensitive, tiled)
    return failures


def test_random_nests_with_dependences_are_refused_and_the_rest_stay_exact():
    assert legality_failures() == []


# ----------------------------------------------------------------------------- mutation check

def _always_none(*a, **k):
    return None


MUTANTS = {
    "memory dependence": ("carried_dependence", _always_none, legality_failures),
    "lane strides": ("lane_width_refusal", _always_none, legality_failures),
    "ops": ("nest_op_refusal", _always_none, refusal_failures),
    "reductions": ("reductions_of", lambda loop: ([], None), refusal_failures),
    "bounds move": ("defined_inside", lambda v, op: False, refusal_failures),
    "shape": ("single_bounds", lambda loop: True, refusal_failures),
    "profit": ("EXACT_REDUCTIONS", frozenset(), refusal_failures),
    "trip count": ("constant_trip_count", lambda loop: None, refusal_failures),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_guard_is_needed(mutant, monkeypatch):
    """With one guard disabled, the check of this file that covers it fails (or the tiling
    breaks: an exception counts as noticed)."""
    name, replacement, check = MUTANTS[mutant]
    monkeypatch.setattr(cpu_plan, name, replacement)
    try:
        found = check()
    except Exception as e:  # noqa: BLE001 - a crash is a failure the suite sees
        found = [repr(e)]
    assert found != [], f"disabling {name} went unnoticed"


# ----------------------------------------------------------------------------- sums kept in memory

IN_MEMORY = """func.func @k(%A: memref<13x9xf32>, %B: memref<9x20xf32>, %C: memref<13x20xf32>) {
  affine.for %i = 0 to 13 {
    affine.for %j = 0 to 20 {
      affine.for %k = 0 to 9 {
        %a = affine.load %A[%i, %k] : memref<13x9xf32>
        %b = affine.load %B[%k, %j] : memref<9x20xf32>
        %c = affine.load %C[%i, %j] : memref<13x20xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<13x20xf32>
      }
    }
  }
  return
}
"""


@has_runner
def test_a_sum_kept_in_memory_is_tiled_in_registers_bit_exact():
    """The form before scalar replacement (the loop order step leaves products in it): C[i, j] is
    loaded before the tile's k loop and stored after it."""
    out, remarks = tile(IN_MEMORY)
    assert remarks[0].kind == "Passed"
    tiled = out[out.find("iter_args"):]
    body = tiled[:tiled.find("affine.yield")]
    assert "affine.store" not in body and out.count("affine.vector_store") >= 4
    assert_same_results(IN_MEMORY, out, seed=9)
    assert native_mismatch(IN_MEMORY, out) is None


MAYBE_EMPTY = IN_MEMORY.replace("affine.for %k = 0 to 9", "affine.for %k = 0 to %n").replace(
    "%C: memref<13x20xf32>) {", "%C: memref<13x20xf32>, %n: index) {")
STRAY = IN_MEMORY.replace("        affine.store %s, %C[%i, %j] : memref<13x20xf32>",
                          "        affine.store %s, %C[%i, %j] : memref<13x20xf32>\n"
                          "        %q = affine.load %C[%i, 0] : memref<13x20xf32>")


def memory_failures() -> list[str]:
    bad = []
    if plan_facts(MAYBE_EMPTY)[0][0] is not TileCode.REDUCTION_LOOP:
        bad.append("the loop may run zero times")
    if plan_facts(STRAY)[0][0] is not TileCode.REDUCTION_LOOP:
        bad.append("another access to the sum's buffer")
    return bad


def test_a_sum_in_memory_needs_a_loop_that_runs_and_no_other_access():
    assert memory_failures() == []


@pytest.mark.parametrize("mutant", ["stray", "zero trip"])
def test_each_memory_guard_is_needed(mutant, monkeypatch):
    from loopopt.analysis import loops

    if mutant == "stray":
        monkeypatch.setattr(cpu_plan, "_stray_access", lambda r, mem: None)
    else:
        monkeypatch.setattr(loops, "runs_at_least_once", lambda loop, scope: True)
    assert memory_failures() != []


@has_runner
def test_columns_come_in_blocks_when_b_does_not_fit_half_the_l2():
    """A 4 KiB L2 (cache_sizes: half of it for B's panel) for a 16 x 52 panel of B: blocks of 24
    columns (one 4 x 24 tile: a 3 x 32 one does not fit 16 registers, section 45) for every row
    block, then the columns left over as usual (a vector of 4); bit-exact."""
    src = gemm(m="14", n="52", k="16")
    small = Options(target=TARGETS["cpu"], cache_sizes=(1024, 4096, 4096))
    out, remarks = tile(src, small)
    assert "columns in blocks of 24" in remarks[0].message and remarks[0].args["column_block"] == 24
    assert "affine.for %arg3 = 0 to 48 step 24" in out and "affine.for %arg4 = 48 to 52 step 4" in out
    assert native_mismatch(src, out) is None
    assert "blocks of" not in tile(src)[1][0].message  # 3.3 KB fits the cpu target's L2
