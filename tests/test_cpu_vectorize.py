"""Issue 24, the cpu code generation phase: vector plans (codegen/cpu/plan/cpu_plan.py) and their rewrites
(codegen/cpu/vectorize.py, math_approx.py).

One test per refusal code and per rewrite; the rewrites are checked on the output IR, in the
reference interpreter (within the stated tolerance when a switch is on, bit for bit when off) and
natively (mlir-runner, and LLVM's own vectorizer remarks: the loop we leave is the one LLVM
vectorizes). The legality is fuzzed against an oracle that does not share its code (a loop our
plan accepts must give the same results with its iterations reversed), and each guard of the plan
is disabled in turn to show that these tests notice (the mutation check).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from fusion_util import optimize_checked
from loopopt import driver, mlir, native
from loopopt.codegen.cpu.plan import cpu_plan
from loopopt.codegen.cpu.host import host_vector_bits
from loopopt.codegen.cpu.plan.cpu_plan import Code, plan_function
from loopopt.analysis.facts import Facts
from loopopt.options import TARGETS, Options
from loopopt.testing import make_inputs, run_on_inputs
from loopopt.toolchain import find_tool, verify_with_mlir_opt

CPU = Options(target=TARGETS["cpu"])
FAST = Options(target=TARGETS["cpu"], approximate_math=True, reassociate=True)
PLAN_LANES = 256 // 32  # f32 lanes of the 256-bit plan affine input gets in-process (tests/conftest.py)
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def plans(src: str, options: Options = CPU) -> list:
    """The VectorPlan of every innermost loop of the module's first function, in program order."""
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        out = [vp for nest in plan_function(fn, Facts(), options) for vp in nest.vectors]
        # plans name ops of this module; keep it alive with them
        out_ = [(vp.refusal.code if vp.refusal else None, vp.width, [o.name for o in vp.approximate],
                 [r.kind for r in vp.reassociate], [(r.kind, r.exact) for r in vp.reductions]) for vp in out]
    return out_


def code_of(src: str, options: Options = CPU):
    """The refusal code of the first innermost loop's plan (None: vectorizable)."""
    return plans(src, options)[0][0]


def loop(body: str, header: str = "affine.for %i = 0 to 64", args: str = "%a: memref<64xf32>, %b: memref<64xf32>",
         result: str = "") -> str:
    return f"func.func @f({args}){result} {{\n  %c = arith.constant 1.5 : f32\n  %z = arith.constant 0.0 : f32\n" \
           f"  {header} {{\n{body}\n  }}\n  return\n}}\n"


ELEMENTWISE = loop("""    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %c : f32
    affine.store %y, %b[%i] : memref<64xf32>""")


# ----------------------------------------------------------------------------- one test per rule

def test_elementwise_loop_is_vectorizable_at_eight_f32_lanes():
    assert plans(ELEMENTWISE) == [(None, 8, [], [], [])]


def test_width_is_the_vector_bits_over_the_widest_element():
    f64 = ELEMENTWISE.replace("f32", "f64")
    assert plans(f64)[0][:2] == (None, 4)
    assert plans(ELEMENTWISE, Options(target=TARGETS["cpu"], vector_bits=512))[0][:2] == (None, 16)


@pytest.mark.parametrize("body, header, code", [
    ("    %x = affine.load %a[%i] : memref<64xf32>\n    affine.store %x, %b[%i] : memref<64xf32>",
     "affine.for %i = 0 to 64 step 2", Code.NOT_UNIT_STEP),
    ("    %x = affine.load %a[%i] : memref<64xf32>\n    func.call @g(%x) : (f32) -> ()", None, Code.UNSUPPORTED_OP),
    ("    %x = affine.load %a[%i] : memref<64xf32>\n    %p = arith.cmpf olt, %x, %c : f32\n"
     "    scf.if %p {\n      affine.store %x, %b[%i] : memref<64xf32>\n    }", None, Code.UNSUPPORTED_OP),
    ("    %x = affine.vector_load %a[0] : memref<64xf32>, vector<8xf32>\n"
     "    affine.vector_store %x, %b[0] : memref<64xf32>, vector<8xf32>", "affine.for %i = 0 to 8",
     Code.ALREADY_VECTOR),
    ("    %x = affine.load %a[%i] : memref<64xf32>\n    affine.store %x, %a[%i + 1] : memref<64xf32>",
     "affine.for %i = 0 to 63", Code.CARRIED),
    ("    %x = affine.load %a[%i] : memref<64xf32>\n    %s = affine.load %b[0] : memref<64xf32>\n"
     "    %t = arith.addf %s, %x : f32\n    affine.store %t, %b[0] : memref<64xf32>", None, Code.CARRIED),
    ("    %x = affine.load %a[2 * %i] : memref<64xf32>\n    affine.store %x, %b[%i] : memref<64xf32>",
     "affine.for %i = 0 to 32", Code.STRIDED),
    ("    %x = math.sin %c : f32\n    affine.store %x, %b[%i] : memref<64xf32>", None, Code.NO_APPROXIMATION),
    ("    %x = affine.load %a[%i] : memref<64xf32>\n    %e = math.exp %x : f32\n"
     "    affine.store %e, %b[%i] : memref<64xf32>", None, Code.LIBM_CALL),
    ("    %x = affine.load %a[%i] : memref<64xf32>\n    affine.store %x, %b[%i] : memref<64xf32>",
     "affine.for %i = 0 to 4", Code.SHORT),
])
def test_each_refusal_has_its_code(body, header, code):
    src = loop(body, header or "affine.for %i = 0 to 64")
    if "@g" in src:
        src = "func.func private @g(f32)\n" + src
        module = mlir.parse_module(src)
        with module.context:
            fn = mlir.functions(module)[1]
            (vp,) = [v for n in plan_function(fn, Facts(), CPU) for v in n.vectors]
            assert vp.refusal.code is code
        return
    assert code_of(src) is code, plans(src)


def test_column_walk_of_a_matrix_is_strided():
    src = """
func.func @f(%m: memref<64x64xf32>, %out: memref<64xf32>) {
  affine.for %j = 0 to 64 {
    affine.for %i = 0 to 64 {
      %x = affine.load %m[%i, %j] : memref<64x64xf32>
      affine.store %x, %out[%i] : memref<64xf32>
    }
  }
  return
}
"""
    assert code_of(src) is Code.STRIDED


def test_f64_math_has_no_approximation_and_exp_needs_the_switch():
    exp = loop("    %x = affine.load %a[%i] : memref<64xf32>\n    %e = math.exp %x : f32\n"
               "    affine.store %e, %b[%i] : memref<64xf32>")
    assert plans(exp, FAST) == [(None, 8, ["math.exp"], [], [])]
    assert code_of(exp.replace("f32", "f64").replace("1.5 : f64", "1.5 : f64"), FAST) is Code.NO_APPROXIMATION


SUM = loop("""    %x = affine.load %a[%i] : memref<64xf32>
    %t = arith.addf %s, %x : f32
    affine.yield %t : f32""", header="%r = affine.for %i = 0 to 64 iter_args(%s = %z) -> (f32)",
           result=" -> f32").replace("  return\n", "  return %r : f32\n")


def test_sum_reduction_needs_reassociate_and_max_does_not():
    assert code_of(SUM) is Code.ORDERED_REDUCTION
    assert plans(SUM, FAST) == [(None, 8, [], ["arith.addf"], [("arith.addf", False)])]
    mx = SUM.replace("arith.addf", "arith.maximumf")
    assert plans(mx) == [(None, 8, [], [], [("arith.maximumf", True)])]
    mn = SUM.replace("arith.addf", "arith.minnumf")  # LLVM vectorizes it as written (its remarks say so)
    assert plans(mn) == [(None, 8, [], [], [("arith.minnumf", True)])]
    prod = SUM.replace("arith.addf", "arith.mulf")
    assert code_of(prod) is Code.ORDERED_REDUCTION and plans(prod, FAST)[0][3] == ["arith.mulf"]
    ints = SUM.replace("f32", "i32").replace("arith.addf", "arith.addi").replace("1.5 : i32", "1 : i32") \
        .replace("0.0 : i32", "0 : i32").replace("memref<64xi32>", "memref<64xi32>")
    assert plans(ints)[0][0] is None  # integer sums: exact in any order


@pytest.mark.parametrize("body, why", [
    # a prefix sum: the partial sum is stored every iteration
    ("""    %x = affine.load %a[%i] : memref<64xf32>
    %t = arith.addf %s, %x : f32
    affine.store %t, %b[%i] : memref<64xf32>
    affine.yield %t : f32""", "outside the yield"),
    # the carried value used twice
    ("""    %x = affine.load %a[%i] : memref<64xf32>
    %u = arith.mulf %s, %s : f32
    %t = arith.addf %u, %x : f32
    affine.yield %t : f32""", "used 2 times"),
    # a recurrence through a multiplication by the carried value (not one combining op)
    ("""    %x = affine.load %a[%i] : memref<64xf32>
    %u = arith.subf %s, %x : f32
    affine.yield %u : f32""", "not a reduction"),
])
def test_values_in_iter_args_that_are_not_reductions_are_refused(body, why):
    src = loop(body, header="%r = affine.for %i = 0 to 64 iter_args(%s = %z) -> (f32)", result=" -> f32") \
        .replace("  return\n", "  return %r : f32\n")
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        (vp,) = [v for n in plan_function(fn, Facts(), FAST) for v in n.vectors]
        assert vp.refusal.code is Code.NOT_A_REDUCTION and why in vp.refusal.detail


def test_two_coupled_accumulators_are_not_reductions():
    src = """
func.func @f(%a: memref<64xf32>) -> (f32, f32) {
  %z = arith.constant 0.0 : f32
  %r:2 = affine.for %i = 0 to 64 iter_args(%s = %z, %t = %z) -> (f32, f32) {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %t : f32
    %s2 = arith.addf %s, %y : f32
    %t2 = arith.addf %t, %x : f32
    affine.yield %s2, %t2 : f32, f32
  }
  return %r#0, %r#1 : f32, f32
}
"""
    assert code_of(src, FAST) is Code.NOT_A_REDUCTION


# ----------------------------------------------------------------------------- the rewrites

SOFTMAX_ROWS = """
func.func @softmax(%x: memref<16x100xf32>, %out: memref<16x100xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    %m = affine.for %j = 0 to 100 iter_args(%acc = %ninf) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<16x100xf32>
      %m2 = arith.maximumf %acc, %v : f32
      affine.yield %m2 : f32
    }
    affine.for %j = 0 to 100 {
      %v = affine.load %x[%i, %j] : memref<16x100xf32>
      %d = arith.subf %v, %m : f32
      %e = math.exp %d : f32
      affine.store %e, %out[%i, %j] : memref<16x100xf32>
    }
    %s = affine.for %j = 0 to 100 iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %out[%i, %j] : memref<16x100xf32>
      %s2 = arith.addf %acc, %v : f32
      affine.yield %s2 : f32
    }
    affine.for %j = 0 to 100 {
      %v = affine.load %out[%i, %j] : memref<16x100xf32>
      %r = arith.divf %v, %s : f32
      affine.store %r, %out[%i, %j] : memref<16x100xf32>
    }
  }
  return
}
"""
# Softmax's outputs are within 1e-6 of each other (in [0, 1], a sum of 100 terms): the tolerance
# of exp (MAX_ULP) plus a reassociated sum of 100 positive terms (< 100 * 2^-24 relative).
SOFTMAX_RTOL = 1e-5


def _optimize(src: str, options: Options, passes=None):
    res = driver.optimize(src, options, "t.mlir", passes=passes)
    assert not [r for r in res.remarks if r.message.startswith("[INTERNAL]")]
    assert mlir.verify(mlir.parse_module(res.text).operation) is None
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(res.text) is None
    return res


def _close(before: str, after: str, rtol: float, seed: int = 3) -> None:
    inputs = make_inputs(before, None, seed)
    for a, b in zip(run_on_inputs(before, None, inputs), run_on_inputs(after, None, inputs)):
        np.testing.assert_allclose(np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64), rtol=rtol,
                                   atol=0)


def test_default_cpu_pipeline_is_unchanged_and_bit_exact():
    """Both switches off and exact_math off: the phase is not in the default pipeline and
    `--passes vectorize` only explains (the IR is the input's, every loop has one remark)."""
    default = optimize_checked(SOFTMAX_ROWS, "cpu", exact_math=False)
    assert "math.exp" in default.text and "reassoc" not in default.text
    assert not [r for r in default.remarks if r.pass_name == "vectorize"]
    res = optimize_checked(SOFTMAX_ROWS, "cpu", passes=["vectorize"], exact_math=False)
    assert res.text == mlir.print_module(mlir.parse_module(SOFTMAX_ROWS))
    msgs = [r.message for r in res.remarks if r.pass_name == "vectorize"]
    assert msgs == [f"{cpu_plan_vectorizable()} at width 8", Code.LIBM_CALL.message, Code.ORDERED_REDUCTION.message,
                    f"{cpu_plan_vectorizable()} at width 8"]


def test_default_cpu_pipeline_with_exact_math_changes_only_the_exp_loop():
    """exact_math alone (the numeric switches off): only the loop that calls exp is planned and
    reported; the results are checked bit for bit (the interpreter's exp is libm's expf)."""
    res = optimize_checked(SOFTMAX_ROWS, "cpu", exact_math=True)
    assert "math.exp" not in res.text and "reassoc" not in res.text and "loopopt_expf_table" in res.text
    msgs = [r.message for r in res.remarks if r.pass_name == "vectorize"]
    assert msgs[0] == f"{cpu_plan_vectorizable()} at width 8" and msgs[1].startswith("[EXACT MATH]")
    assert len(msgs) == 2


def cpu_plan_vectorizable() -> str:
    from loopopt.codegen.cpu.vectorize import VECTORIZABLE

    return VECTORIZABLE


def test_switches_approximate_exp_and_reassociate_the_sum():
    res = _optimize(SOFTMAX_ROWS, FAST)
    assert "math.exp" not in res.text and "math.fma" in res.text
    assert res.text.count("fastmath<reassoc>") == 1  # the sum; the max is exact as written
    assert "arith.maximumf %arg4, %" in res.text or "maximumf" in res.text
    passed = [r.message for r in res.remarks if r.pass_name == "vectorize" and r.kind == "Passed"]
    assert sum(m.startswith("[VECTORIZE]") for m in passed) == 4
    assert any(m.startswith("[MATH APPROX]") and "math.exp" in m for m in passed)
    assert any(m.startswith("[VECTOR REDUCTION]") and "arith.addf" in m for m in passed)
    _close(SOFTMAX_ROWS, res.text, SOFTMAX_RTOL)
    # the constants of the polynomial are placed before the nest, once
    module = mlir.parse_module(res.text)
    with module.context:
        fn = mlir.functions(module)[0]
        body = [op for op in mlir.walk(fn) if op.name == "arith.constant" and op.parent is not None
                and mlir.operation(op.parent).name != "func.func"]
        assert not body


def test_each_switch_alone_and_through_passes():
    only_math = _optimize(SOFTMAX_ROWS, Options(target=TARGETS["cpu"], approximate_math=True))
    assert "math.exp" not in only_math.text and "reassoc" not in only_math.text
    only_red = _optimize(SOFTMAX_ROWS, Options(target=TARGETS["cpu"], exact_math=False), passes=["vector-reductions"])
    assert "math.exp" in only_red.text and only_red.text.count("fastmath<reassoc>") == 1
    # the default pipeline also runs the rows in vector lanes (the sums keep their order: issue 35)
    via_pass = _optimize(SOFTMAX_ROWS, CPU, passes=["rows-in-lanes", "math-approx"])
    assert via_pass.text == only_math.text


def test_neuron_targets_keep_the_seed_rules():
    res = driver.optimize(SOFTMAX_ROWS, Options(target=TARGETS["trn1"], approximate_math=True, reassociate=True),
                          "t.mlir", passes=["vectorize"])
    assert "math.exp" in res.text and "reassoc" not in res.text


def test_existing_fastmath_flags_are_kept():
    from loopopt.codegen.cpu.vectorize import with_reassoc

    with mlir.new_context():
        from loopopt.mlir import ir

        assert str(with_reassoc(ir.Attribute.parse("#arith.fastmath<contract>"))) == "#arith.fastmath<reassoc,contract>"
        assert str(with_reassoc(ir.Attribute.parse("#arith.fastmath<none>"))) == "#arith.fastmath<reassoc>"
        assert str(with_reassoc(ir.Attribute.parse("#arith.fastmath<fast>"))) == "#arith.fastmath<fast>"


@pytest.mark.toolchain
@has_runner
def test_native_results_and_what_llvm_vectorizes():
    """Natively: the outputs agree within the tolerance, and LLVM's loop vectorizer now
    vectorizes the exp loop without libm calls and the sum it kept in order before."""
    src = SOFTMAX_ROWS
    fast = _optimize(src, FAST).text
    before = native.run_native(src, "softmax", [None, None], reps=1)
    after = native.run_native(fast, "softmax", [None, None], reps=1)
    assert native.compare_outputs(before.outputs, after.outputs, rtol=SOFTMAX_RTOL) is None
    assert native.compare_outputs(before.outputs, after.outputs) is not None  # not bit-exact: the switches are on

    def verdicts(text: str) -> dict:
        out = {}
        for r in native.llvm_vectorizer_remarks(text, "softmax", [None, None]):
            if r.in_kernel and "affine.for" in r.source_line:
                out.setdefault(r.line, []).append(r)
        return out

    lines = mlir.print_module(mlir.parse_module(src)).splitlines()
    loops_before = [k + 1 for k, ln in enumerate(lines) if "affine.for %arg3" in ln]
    v0 = verdicts(src)
    sum_line = loops_before[2]
    assert not any(r.vectorized for r in v0.get(sum_line, []))
    fast_lines = fast.splitlines()
    loops_after = [k + 1 for k, ln in enumerate(fast_lines) if "affine.for %arg3" in ln]
    v1 = verdicts(fast)
    # Host property (docs/reliability.md, "Tests that look at the host"): mlir-runner compiles for
    # the host core, and LLVM's cost model picks the width for it: 8 f32 lanes where the core
    # prefers 256-bit vectors (Intel's server cores), 16 where it takes 512-bit ones (AMD Zen 4).
    # Every loop is vectorized, at least at the plan's 256-bit width, at most at the host's widest.
    lanes = range(PLAN_LANES, max(PLAN_LANES, host_vector_bits() // 32) + 1)
    assert all(any(r.vectorized and r.width in lanes for r in v1.get(ln, [])) for ln in loops_after), v1


# tanh, a sigmoid and an exp of a product, as the elementwise block chains them (section 25)
CHAIN = """func.func @chain(%x: memref<4x200xf32>, %y: memref<4x200xf32>) {
  %one = arith.constant 1.0 : f32
  %k = arith.constant -3.7 : f32
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 200 {
      %v = affine.load %x[%i, %j] : memref<4x200xf32>
      %w = arith.mulf %v, %k : f32
      %t = math.tanh %w : f32
      %n = arith.negf %w : f32
      %e = math.exp %n : f32
      %d = arith.addf %e, %one : f32
      %s = arith.divf %one, %d : f32
      %p = arith.mulf %w, %w : f32
      %q = arith.negf %p : f32
      %g = math.exp %q : f32
      %a = arith.mulf %t, %s : f32
      %b = arith.subf %a, %g : f32
      affine.store %b, %y[%i, %j] : memref<4x200xf32>
    }
  }
  return
}
"""


@has_runner
def test_ldexp_scaling_keeps_the_bits_of_the_two_halves():
    """The 512-bit plan scales exp by llvm.intr.ldexp, the 256-bit plan by exponent bits in two
    halves: natively, on a chain of tanh, sigmoid and exp, the same bits, and both close to the
    libm calls of the plain lowering (1 ulp per approximation)."""
    wide = _optimize(CHAIN, Options(target=TARGETS["cpu"], approximate_math=True, vector_bits=512)).text
    narrow = _optimize(CHAIN, Options(target=TARGETS["cpu"], approximate_math=True, vector_bits=256)).text
    # the chain of 800 elements (flat-loops' one loop) is interleaved by sweep-vectors: its 2^n by
    # LLVM's ldexp on vectors of 16 (section 83); the 256-bit plan's by the two halves
    assert 'llvm.call_intrinsic "llvm.ldexp.v16f32.v16i32"' in wide and "llvm.intr.ldexp" not in narrow
    assert "llvm.call_intrinsic" not in narrow
    assert "arith.shrsi" in narrow and "arith.shrsi" not in wide
    runs = [native.run_native(t, "chain", [None, None], reps=1) for t in (CHAIN, narrow, wide)]
    assert native.compare_outputs(runs[1].outputs, runs[2].outputs) is None  # bit for bit
    assert native.compare_outputs(runs[0].outputs, runs[2].outputs, rtol=1e-6) is None
    # the reference interpreter's ldexp (numpy's) gives the same bits as the two halves
    inputs = make_inputs(CHAIN, None, 3)
    for a, b in zip(run_on_inputs(narrow, None, inputs), run_on_inputs(wide, None, inputs)):
        assert np.array_equal(np.asarray(a).view(np.int32), np.asarray(b).view(np.int32))


# ----------------------------------------------------------------------------- legality fuzzing

def _random_loop(rng: random.Random) -> tuple[str, str]:
    """A random innermost loop over %i in [2, 30) with loads and stores of two 64-element
    buffers at indices %i + c, c, 2 %i and %i floordiv 2; returns (program, the same program
    with the iterations in reverse order)."""
    stmts = []
    total = "%c"  # every store writes the sum of everything loaded before it (plus 1.5)
    for k in range(rng.randint(1, 5)):
        buf = rng.choice(["%a", "%b"])
        form = rng.choice(["{j} + {c}", "{j} + {c}", "{j} + {c}", "{c4}", "2 * {j}", "{j} floordiv 2"])
        index = form.format(j="{j}", c=rng.randint(-2, 2), c4=rng.randint(0, 3))
        if rng.random() < 0.5:
            stmts.append(("load", buf, index, f"%v{k}", total))
            total = f"%v{k}"
        else:
            stmts.append(("store", buf, index, total, None))

    def render(reverse: bool) -> str:
        lines = ["func.func @f(%a: memref<64xf32>, %b: memref<64xf32>) {", "  %c = arith.constant 1.5 : f32",
                 "  affine.for %i = 2 to 30 {"]
        j = "%i"
        if reverse:
            lines.append("    %r = affine.apply affine_map<(d0) -> (31 - d0)>(%i)")
            j = "%r"
        for kind, buf, index, val, before in stmts:
            idx = index.format(j=j)
            if kind == "load":
                lines.append(f"    {val}0 = affine.load {buf}[{idx}] : memref<64xf32>")
                lines.append(f"    {val} = arith.addf {val}0, {before} : f32")
            else:
                lines.append(f"    affine.store {val}, {buf}[{idx}] : memref<64xf32>")
        return "\n".join(lines + ["  }", "  return", "}", ""])

    return render(False), render(True)


def _results(src: str, seed: int) -> list:
    inputs = make_inputs(src, "f", seed)
    return [np.asarray(x) for x in run_on_inputs(src, "f", inputs)]


def legality_failures(n: int = 120, seed: int = 24) -> list[str]:
    """Random loops the plan accepts although running them backwards changes their results
    (so their iterations cannot run in vector lanes), and a count of the cases seen."""
    rng = random.Random(seed)
    failures, order_sensitive = [], 0
    for _ in range(n):
        fwd, bwd = _random_loop(rng)
        sensitive = any(not np.array_equal(x, y, equal_nan=True)
                        for s in (1, 2) for x, y in zip(_results(fwd, s), _results(bwd, s)))
        order_sensitive += sensitive
        accepted = plans(fwd)[0][0] is None
        if accepted and sensitive:
            failures.append(fwd)
    assert order_sensitive >= n // 5, "the generator must make loops with carried dependences"
    return failures


def test_random_loops_with_carried_dependences_are_refused():
    assert legality_failures() == []


def reduction_failures() -> list[str]:
    """Loops whose iter_args value is not a reduction (a partial result observed, a value used
    twice, a coupled recurrence) that the plan would still reassociate."""
    bad = []
    shapes = {
        "prefix": ("%t = arith.addf %s, %x : f32\n    affine.store %t, %b[%i] : memref<64xf32>", "%t"),
        "square": ("%u = arith.mulf %s, %s : f32\n    %t = arith.addf %u, %x : f32", "%t"),
        "sub": ("%t = arith.subf %x, %s : f32", "%t"),
        "nested": ("%u = arith.addf %s, %x : f32\n    %t = arith.mulf %u, %c : f32", "%t"),
    }
    for name, (body, yielded) in shapes.items():
        src = loop(f"    %x = affine.load %a[%i] : memref<64xf32>\n    {body}\n    affine.yield {yielded} : f32",
                   header="%r = affine.for %i = 0 to 64 iter_args(%s = %z) -> (f32)", result=" -> f32") \
            .replace("  return\n", "  return %r : f32\n")
        if plans(src, FAST)[0][0] is None:
            bad.append(name)
    return bad


def test_values_that_are_not_reductions_are_never_reassociated():
    assert reduction_failures() == []


def refusal_failures() -> list[str]:
    """The hand-written refusals above, as one check (for the mutation test)."""
    bad = []
    cases = {
        "strided": (loop("    %x = affine.load %a[2 * %i] : memref<64xf32>\n    affine.store %x, %b[%i] : memref<64xf32>",
                         "affine.for %i = 0 to 32"), Code.STRIDED),
        "libm": (loop("    %x = affine.load %a[%i] : memref<64xf32>\n    %e = math.exp %x : f32\n"
                      "    affine.store %e, %b[%i] : memref<64xf32>"), Code.LIBM_CALL),
        "ordered": (SUM, Code.ORDERED_REDUCTION),
        "region": (loop("    %x = affine.load %a[%i] : memref<64xf32>\n    %p = arith.cmpf olt, %x, %c : f32\n"
                        "    scf.if %p {\n      affine.store %x, %b[%i] : memref<64xf32>\n    }"), Code.UNSUPPORTED_OP),
        "short": (loop("    %x = affine.load %a[%i] : memref<64xf32>\n    affine.store %x, %b[%i] : memref<64xf32>",
                       "affine.for %i = 0 to 4"), Code.SHORT),
    }
    for name, (src, code) in cases.items():
        if code_of(src) is not code:
            bad.append(name)
    return bad


# Each guard of the plan, disabled: (what to patch, a replacement that lets everything through).
MUTANTS = {
    "memory dependence": ("carried_dependence", lambda *a, **k: None, legality_failures),
    "strides": ("access_refusal", lambda *a, **k: None, refusal_failures),
    "reductions": ("reductions_of", lambda loop: ([], None), reduction_failures),
    "body ops": ("body_refusal", lambda loop: None, refusal_failures),
    "math switch": ("LIBM_MATH_APPROXIMATED", frozenset(), refusal_failures),
    "reduction order": ("REASSOCIABLE_REDUCTIONS", frozenset(), refusal_failures),
    "trip count": ("constant_trip_count", lambda loop: None, refusal_failures),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_guard_is_needed(mutant, monkeypatch):
    """With one guard disabled, the check of this file that covers it fails."""
    name, replacement, check = MUTANTS[mutant]
    monkeypatch.setattr(cpu_plan, name, replacement)
    assert check() != [], f"disabling {name} went unnoticed"


def test_only_innermost_loops_are_planned():
    """plan_function only plans innermost loops (one VectorPlan per innermost loop)."""
    src = """
func.func @f(%m: memref<8x64xf32>) {
  %c = arith.constant 1.5 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 64 {
      %x = affine.load %m[%i, %j] : memref<8x64xf32>
      %y = arith.mulf %x, %c : f32
      affine.store %y, %m[%i, %j] : memref<8x64xf32>
    }
    affine.for %j = 0 to 64 {
      %x = affine.load %m[%i, %j] : memref<8x64xf32>
      affine.store %x, %m[%i, %j] : memref<8x64xf32>
    }
  }
  return
}
"""
    assert [p[:2] for p in plans(src)] == [(None, 8), (None, 8)]
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        (nest,) = plan_function(fn, Facts(), CPU)
        assert nest.root.name == "affine.for" and nest.order is None and nest.tiles == ()


def test_a_nest_inside_an_scf_loop_is_planned():
    src = """
func.func @f(%m: memref<8x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c = arith.constant 1.5 : f32
  scf.for %t = %c0 to %n step %c1 {
    affine.for %j = 0 to 64 {
      %x = affine.load %m[0, %j] : memref<8x64xf32>
      %y = arith.mulf %x, %c : f32
      affine.store %y, %m[1, %j] : memref<8x64xf32>
    }
  }
  return
}
"""
    assert [p[:2] for p in plans(src)] == [(None, 8)]


def test_a_loop_over_a_cast_of_an_unranked_argument_is_planned():
    """The root of the access is unranked (memref<*xf32>): the layout comes from the cast."""
    src = """
func.func @f(%u: memref<*xf32>) {
  %three = arith.constant 3.0 : f32
  %m = memref.cast %u : memref<*xf32> to memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %m[%i] : memref<64xf32>
    %w = arith.mulf %v, %three : f32
    affine.store %w, %m[%i] : memref<64xf32>
  }
  return
}
"""
    res = _optimize(src, FAST, passes=["vectorize"])
    assert [r.message for r in res.remarks if r.pass_name == "vectorize"] == [
        f"{cpu_plan_vectorizable()} at width 8"]


# ----------------------------------------------------------------------------- the width hint

EXP_LOOP = loop("""    %x = affine.load %a[%i] : memref<64xf32>
    %y = math.exp %x : f32
    affine.store %y, %b[%i] : memref<64xf32>""")


def _hint(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "prefer-vector-width" in line]


def test_a_plan_wider_than_256_bits_asks_llvm_for_its_width():
    wide = Options(target=TARGETS["cpu"], approximate_math=True, vector_bits=512)
    out = driver.optimize(EXP_LOOP, wide, explain=True)
    assert _hint(out.text) == ['func.func @f(%arg0: memref<64xf32>, %arg1: memref<64xf32>) attributes '
                               '{passthrough = [["prefer-vector-width", "512"]]} {']
    assert any(m.startswith("[VECTOR WIDTH] prefer-vector-width=512") for m in out.remarks.messages())
    assert verify_with_mlir_opt(out.text) is None
    for options in (Options(target=TARGETS["cpu"], approximate_math=True, vector_bits=256),
                    Options(target=TARGETS["trn1"], approximate_math=True, vector_bits=512)):
        assert _hint(driver.optimize(EXP_LOOP, options).text) == [], options


@has_runner
def test_the_width_hint_makes_llvm_vectorize_at_the_hosts_widest_lanes_with_the_same_results():
    src = EXP_LOOP.replace("64", "4096")
    # the loop left to LLVM's vectorizer: sweep-vectors would interleave exp's chain itself (section 83)
    wide = Options(target=TARGETS["cpu"], approximate_math=True, vector_bits=512, sweep_interleave=1)
    hinted = driver.optimize(src, wide).text
    plain = hinted.replace(' attributes {passthrough = [["prefer-vector-width", "512"]]}', "")
    assert hinted != plain
    widths = [r.message for r in native.llvm_vectorizer_remarks(hinted, "f", [None, None]) if r.in_kernel]
    # Host property: LLVM honours the hint up to the host's widest registers (16 lanes with
    # AVX-512, 8 on an AVX2 core, where the hint cannot widen the vectors)
    lanes = min(512, host_vector_bits()) // 32
    assert any(f"vectorization width: {lanes}," in m or f"vectorization width: {lanes})" in m for m in widths), widths
    a = native.run_native(hinted, "f", [None, None], reps=1).outputs
    b = native.run_native(plain, "f", [None, None], reps=1).outputs
    assert native.compare_outputs(a, b) is None


# ----------------------------------------------------------------------------- math on tiles

GEMM_ERF = """func.func @g(%A: memref<24x32xf32>, %B: memref<32x64xf32>, %C: memref<24x64xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 24 {
    affine.for %j = 0 to 64 {
      %r = affine.for %k = 0 to 32 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<24x32xf32>
        %b = affine.load %B[%k, %j] : memref<32x64xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      %e = math.erf %r : f32
      affine.store %e, %C[%i, %j] : memref<24x64xf32>
    }
  }
  return
}
"""


def test_math_in_a_register_tile_epilogue_becomes_a_polynomial():
    """A GELU-like epilogue the register tiling puts on vectors: with approximate_math its erf is
    replaced on every tile vector (no libm call per lane is left), within the stated tolerance;
    without it the vector erf stays and results are bit-exact."""
    on = Options(target=TARGETS["cpu"], approximate_math=True, vector_bits=512)
    res = driver.optimize(GEMM_ERF, on, explain=True)
    assert "math.erf" not in res.text and "vector<16xf32>" in res.text
    assert [m for m in res.remarks.messages() if "on 24 vectors" in m] == [
        "[MATH APPROX] replaced by a polynomial: math.erf on 24 vectors of the register tiling (max error 1 ulp)"]
    assert verify_with_mlir_opt(res.text) is None
    from loopopt.testing import assert_same_results

    assert_same_results(GEMM_ERF, res.text, seed=4, rtol=1e-5, atol=1e-6)
    off = driver.optimize(GEMM_ERF, Options(target=TARGETS["cpu"], vector_bits=512)).text
    assert "math.erf %" in off and "vector<16xf32>" in off
    assert_same_results(GEMM_ERF, off, seed=4)


@has_runner
def test_math_in_a_register_tile_epilogue_runs_natively_within_tolerance():
    on = Options(target=TARGETS["cpu"], approximate_math=True, vector_bits=512)
    out = driver.optimize(GEMM_ERF, on).text
    want = native.run_native(GEMM_ERF, "g", [None] * 3, reps=1).outputs
    got = native.run_native(out, "g", [None] * 3, reps=1).outputs
    assert native.compare_outputs(want, got, rtol=1e-5) is None
