"""Issue 12, the cpu cost model: the vectorization guard of fusion (analysis/vectorization.py,
codegen/cpu/hooks.py: CpuHooks.vectorization_refusal). Each transform test checks the IR, that it verifies, and
that results are unchanged in the reference interpreter and natively (mlir-runner)."""
from __future__ import annotations

import pytest

from fusion_util import optimize_checked
from loopopt import driver, mlir
from loopopt.analysis.facts import Facts
from loopopt.analysis.loops import loops_in_block
from loopopt.analysis.refusal import Code
from loopopt.analysis.vectorization import carried_dependence, is_innermost, is_parallel
from loopopt.options import TARGETS, Options
from loopopt.toolchain import find_tool

GUARD = Code.LOSES_VECTORIZATION.message


def guard_remarks(res) -> list:
    """The vectorization guard's refusals among a run's remarks (by code: the message may carry
    the loops after the guard's text)."""
    return [r for r in res.remarks if isinstance(r.args, dict) and r.args.get("code") == "LOSES_VECTORIZATION"]

SOFTMAX = """
func.func @softmax(%x: memref<16x64xf32>, %out: memref<16x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %mx = memref.alloc() : memref<16xf32>
  %e = memref.alloc() : memref<16x64xf32>
  %sum = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    affine.store %ninf, %mx[%i] : memref<16xf32>
    affine.for %j = 0 to 64 {
      %v = affine.load %x[%i, %j] : memref<16x64xf32>
      %m = affine.load %mx[%i] : memref<16xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %mx[%i] : memref<16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 64 {
      %v = affine.load %x[%i, %j] : memref<16x64xf32>
      %m = affine.load %mx[%i] : memref<16xf32>
      %d = arith.subf %v, %m : f32
      %ex = math.exp %d : f32
      affine.store %ex, %e[%i, %j] : memref<16x64xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.store %zero, %sum[%i] : memref<16xf32>
    affine.for %j = 0 to 64 {
      %v = affine.load %e[%i, %j] : memref<16x64xf32>
      %s = affine.load %sum[%i] : memref<16xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%i] : memref<16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 64 {
      %v = affine.load %e[%i, %j] : memref<16x64xf32>
      %s = affine.load %sum[%i] : memref<16xf32>
      %r = arith.divf %v, %s : f32
      affine.store %r, %out[%i, %j] : memref<16x64xf32>
    }
  }
  memref.dealloc %mx : memref<16xf32>
  memref.dealloc %e : memref<16x64xf32>
  memref.dealloc %sum : memref<16xf32>
  return
}
"""


def _loops_of(text: str):
    """(module, facts, top-level loops of the only function): the module must stay alive."""
    module = mlir.parse_module(text)
    fn = mlir.functions(module)[0]
    return module, Facts(), loops_in_block(mlir.func_body(fn))


def _native_same(before: str, after: str, kernel: str) -> None:
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, kernel_signature, run_native

    sizes = (None,) * len(kernel_signature(before, kernel).args)
    a = run_native(before, kernel, sizes, reps=1, warmup=0)
    b = run_native(after, kernel, sizes, reps=1, warmup=0)
    assert a.outputs and compare_outputs(a.outputs, b.outputs) is None


def _inner_loops(text: str) -> list[list[str]]:
    """Per top-level loop, the kinds of innermost loops: 'par' or 'seq' (fresh analysis)."""
    module, facts, loops = _loops_of(text)
    out = []
    for lp in loops:
        inner = [o for o in [lp, *mlir.walk(lp)] if o.name == "affine.for" and is_innermost(o)]
        out.append(["par" if is_parallel(o, facts) else "seq" for o in inner])
    del module
    return out


# ------------------------------------------------------------------------ the guard on softmax

def test_softmax_rows_fuse_but_exp_stays_out_of_the_sum_on_cpu():
    res = optimize_checked(SOFTMAX, "cpu")
    _native_same(SOFTMAX, res.text, "softmax")
    # One row loop holds four inner loops: max (seq), exp (par), sum (seq), divide (par).
    assert _inner_loops(res.text) == [["seq", "par", "seq", "par"]]
    assert res.num_loops_fused == 3
    refused = guard_remarks(res)
    assert len(refused) == 1 and refused[0].kind == "Missed" and refused[0].pass_name == "fusion"
    assert refused[0].args["code"] == "LOSES_VECTORIZATION"
    assert "is parallel" in refused[0].args["reason"] and "reduction into" in refused[0].args["reason"]
    assert refused[0].message.startswith(GUARD) and GUARD.startswith("[STOP FUSION]")


def test_softmax_on_trn1_keeps_the_seed_profit():
    """The Neuron targets are unchanged: no vectorization refusal is ever emitted there."""
    for target in ("trn1", "inf2", "trn2"):
        res = driver.optimize(SOFTMAX, Options(target=TARGETS[target]), "t.mlir")
        assert not guard_remarks(res)


def test_guard_decides_on_innermost_loops_on_cpu_only():
    """The exp loop is parallel, the sum loop a reduction: refused on cpu, not on trn1, and
    the row loops around them are never refused by the guard."""
    module, facts, loops = _loops_of(SOFTMAX)
    from loopopt.pipeline import hooks_for

    exp_inner = [o for o in mlir.walk(loops[1]) if o.name == "affine.for"][0]
    sum_inner = [o for o in mlir.walk(loops[2]) if o.name == "affine.for"][0]
    assert is_parallel(exp_inner, facts) and not is_parallel(sum_inner, facts)
    cpu = hooks_for(TARGETS["cpu"])
    r = cpu.vectorization_refusal(exp_inner, sum_inner, facts)
    assert r is not None and r.code is Code.LOSES_VECTORIZATION
    assert hooks_for(TARGETS["trn1"]).vectorization_refusal(exp_inner, sum_inner, facts) is None
    # outer (non-innermost) loops are never refused by the guard
    assert cpu.vectorization_refusal(loops[1], loops[2], facts) is None
    del module


# ------------------------------------------------------------------ what the guard lets through

TWO_REDUCTIONS = """
func.func @two(%a: memref<64xf32>, %b: memref<64xf32>, %s: memref<1xf32>, %t: memref<1xf32>) {
  affine.for %j = 0 to 64 {
    %v = affine.load %a[%j] : memref<64xf32>
    %acc = affine.load %s[0] : memref<1xf32>
    %n = arith.addf %acc, %v : f32
    affine.store %n, %s[0] : memref<1xf32>
  }
  affine.for %j = 0 to 64 {
    %v = affine.load %a[%j] : memref<64xf32>
    %w = affine.load %b[%j] : memref<64xf32>
    %p = arith.mulf %v, %w : f32
    %acc = affine.load %t[0] : memref<1xf32>
    %n = arith.addf %acc, %p : f32
    affine.store %n, %t[0] : memref<1xf32>
  }
  return
}
"""


def test_two_sequential_reductions_still_fuse():
    res = optimize_checked(TWO_REDUCTIONS, "cpu")
    _native_same(TWO_REDUCTIONS, res.text, "two")
    assert not guard_remarks(res)
    assert res.num_loops_fused == 1 and _inner_loops(res.text) == [["seq"]]


PARALLEL_CHAIN = """
func.func @chain(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %e = math.exp %v : f32
    affine.store %e, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %t[%i] : memref<64xf32>
    %w = arith.mulf %v, %v : f32
    affine.store %w, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
"""


def test_two_parallel_loops_still_fuse():
    res = optimize_checked(PARALLEL_CHAIN, "cpu")
    assert not guard_remarks(res)
    assert res.num_loops_fused == 1 and _inner_loops(res.text) == [["par"]]


# A parallel map at the top level and a reduction over its result (level 0, both innermost).
MAP_THEN_SUM = """
func.func @map_sum(%a: memref<64xf32>, %s: memref<1xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %e = math.exp %v : f32
    affine.store %e, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %t[%i] : memref<64xf32>
    %acc = affine.load %s[0] : memref<1xf32>
    %n = arith.addf %acc, %v : f32
    affine.store %n, %s[0] : memref<1xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
"""


def test_top_level_map_is_not_fused_into_a_reduction_on_cpu_only():
    res = optimize_checked(MAP_THEN_SUM, "cpu")
    _native_same(MAP_THEN_SUM, res.text, "map_sum")
    assert guard_remarks(res) and res.num_loops_fused == 0
    assert mlir.print_module(mlir.parse_module(res.text)).count("affine.for") == 2
    other = driver.optimize(MAP_THEN_SUM, Options(target=TARGETS["trn1"]), "t.mlir")
    assert not guard_remarks(other)


# ------------------------------------------------------------ the analysis on adversarial loops

def _one_loop(body: str, args: str = "%a: memref<64xf32>, %b: memref<64xf32>") -> bool | None:
    """Carried-dependence verdict of the only loop of a small function."""
    text = f"func.func @f({args}) {{\n{body}\n  return\n}}"
    module, facts, loops = _loops_of(text)
    r = carried_dependence(loops[0], facts)
    del module
    return r


def test_parallel_map_is_parallel():
    assert _one_loop("""
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %b[%i] : memref<64xf32>
  }""") is None


def test_recurrence_through_a_shifted_index_is_carried():
    r = _one_loop("""
  affine.for %i = 1 to 64 {
    %v = affine.load %a[%i - 1] : memref<64xf32>
    affine.store %v, %a[%i] : memref<64xf32>
  }""")
    assert r is not None and "dependence on" in r.reason


def test_accumulator_read_through_another_index_is_carried():
    """The accumulator b[0] is also read as b[i]: iteration 0's read meets later writes."""
    r = _one_loop("""
  affine.for %i = 0 to 64 {
    %v = affine.load %b[%i] : memref<64xf32>
    %acc = affine.load %b[0] : memref<64xf32>
    %n = arith.addf %acc, %v : f32
    affine.store %n, %b[0] : memref<64xf32>
  }""")
    assert r is not None


def test_write_through_an_offset_view_of_the_read_buffer_is_carried():
    """A subview offset by one aliases the buffer read in the loop: a recurrence in disguise."""
    r = _one_loop("""
  %v1 = memref.subview %a[1] [63] [1] : memref<64xf32> to memref<63xf32, strided<[1], offset: 1>>
  affine.for %i = 0 to 63 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %v1[%i] : memref<63xf32, strided<[1], offset: 1>>
  }""")
    assert r is not None


def test_iter_args_loop_is_carried():
    r = _one_loop("""
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 64 iter_args(%acc = %z) -> (f32) {
    %v = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %acc, %v : f32
    affine.yield %n : f32
  }
  affine.store %r, %b[0] : memref<64xf32>""")
    assert r is not None and "iter_args" in r.reason


def test_call_in_loop_counts_as_carried():
    text = """
func.func private @g(memref<64xf32>)
func.func @f(%a: memref<64xf32>, %b: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %b[%i] : memref<64xf32>
    func.call @g(%b) : (memref<64xf32>) -> ()
  }
  return
}"""
    module = mlir.parse_module(text)
    fn = [f for f in mlir.functions(module) if mlir.func_body(f) is not None][0]
    (lp,) = loops_in_block(mlir.func_body(fn))
    r = carried_dependence(lp, Facts())
    assert r is not None and "@g" in r.reason


def test_overlapping_vector_stores_are_carried():
    r = _one_loop("""
  %z = arith.constant dense<0.0> : vector<4xf32>
  affine.for %i = 0 to 60 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<4xf32>
    affine.vector_store %v, %a[%i + 1] : memref<64xf32>, vector<4xf32>
  }""")
    assert r is not None


def test_stores_at_distinct_elements_per_iteration_are_parallel_even_with_a_step():
    assert _one_loop("""
  affine.for %i = 0 to 64 step 2 {
    %v = affine.load %a[%i + 1] : memref<64xf32>
    affine.store %v, %a[%i] : memref<64xf32>
  }""") is None


def test_innermost_sees_nested_loops():
    module, facts, loops = _loops_of(SOFTMAX)
    assert not is_innermost(loops[0])
    assert all(is_innermost(o) for o in mlir.walk(loops[0]) if o.name == "affine.for" and o != loops[0])
    del module


# --------------------------------------------------- numLoopsFused counts loops actually removed

def _count_loops(text: str) -> int:
    import re

    return len(re.findall(r"\baffine\.for\b", re.sub(r"//[^\n]*", "", text)))


def _distribution_growth(res) -> int:
    """Loops added by distributions (a split `into n loops` adds n - 1), by loop splits (the
    tail nest's loops, `loops_added`) and by the cpu code generation steps after fusion
    (product isolation, operand packing, transpose blocking and register tiling, their
    `loops_added`), less the empty loops the cleanup step erased, the copy nests of constants
    evaluated at compile time (`loops_removed`) and the rows joined with their columns
    (flat-loops, flat-reductions: two loops become one)."""
    import re

    return sum(int(re.search(r"into (\d+) loops", r.message).group(1)) - 1
               for r in res.remarks if r.pass_name == "distribution" and r.kind == "Passed") + \
        sum(r.args["loops_added"] for r in res.remarks if r.message.startswith("[LOOP SPLIT]")) + \
        sum(r.args.get("loops_added", 0) for r in res.remarks
            if r.pass_name in ("isolate-products", "pack-operands", "pack-strided", "block-transposes", "register-tile")
            and r.kind == "Passed") - \
        sum(1 for r in res.remarks if r.pass_name == "cleanup" and r.kind == "Passed") - \
        sum(r.args.get("loops_removed", 0) for r in res.remarks
            if r.pass_name == "fold-constant-copies" and r.kind == "Passed") - \
        sum(1 for r in res.remarks if r.pass_name in ("flat-loops", "flat-reductions") and r.kind == "Passed")


# A producer with two statements; t feeds B and u feeds C, which reads u reversed (a negative
# distance with A: refused, and the distribution rescue may not split the fused A+B). Fusing A and B first must not be
# undone by splitting the fused loop for C.
HIGHER_PROFIT_FIRST = """
func.func @f(%a: memref<64xf32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  %u = memref.alloc() : memref<64xf32>
  %c = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %c : f32
    affine.store %w, %t[%i] : memref<64xf32>
    affine.store %v, %u[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    %y = arith.addf %x, %c : f32
    affine.store %y, %out1[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %u[63 - %i] : memref<64xf32>
    %y = arith.addf %x, %c : f32
    affine.store %y, %out2[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  memref.dealloc %u : memref<64xf32>
  return
}
"""


def test_fused_loop_is_never_split_for_a_lower_profit_partner():
    res = optimize_checked(HIGHER_PROFIT_FIRST, "cpu")
    fused = [r for r in res.remarks if r.pass_name == "fusion" and r.kind == "Passed"]
    assert len(fused) == 1 and res.num_loops_fused == 1  # A and B; C refused (negative distance)
    refused = [r for r in res.remarks if r.pass_name == "fusion" and r.kind == "Missed"]
    assert refused and all(r.args["code"] == "NEGATIVE_DISTANCE" for r in refused)
    assert _distribution_growth(res) == 0 and res.text.count("memref.alloc") == 1  # t is gone
    assert _count_loops(HIGHER_PROFIT_FIRST) - _count_loops(res.text) == res.num_loops_fused


def test_num_loops_fused_is_loops_removed_on_cpu():
    """On cpu (no tiling) every counted fuse removes one loop for good: loops before - loops
    after fusion = numLoopsFused - loops added by distribution, on every golden input and
    benchmark. Fusion alone: later cpu steps add loops by design (checks-first's check loop,
    time tiles, cache blocks' remainders)."""
    import glob
    import os
    import re

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sorted(f for f in glob.glob(os.path.join(root, "tests", "lit", "*", "*.mlir"))
                   if os.sep + "frontend" + os.sep not in f)  # framework input: its loops come from lowering
    files += sorted(glob.glob(os.path.join(root, "benchmarks", "programs", "chain*_1d.mlir")))
    checked = 0
    for path in files:
        src = open(path).read()
        if re.search(r"\blinalg\.", src):  # framework input outside tests/lit/frontend: loops from lowering too
            continue
        try:
            res = driver.optimize(src, Options(target=TARGETS["cpu"]), path, passes=["fusion"])
        except Exception:  # inputs that are meant to be rejected (bad IR) have nothing to count
            continue
        removed = _count_loops(src) - _count_loops(res.text)
        assert removed == res.num_loops_fused - _distribution_growth(res), path
        checked += res.num_loops_fused > 0
    assert checked >= 10


# ------------------------------------------- sibling reuse: nests that walk one matrix alike

def _two_nests(second_index: str, second_bound: str = "32") -> str:
    return f"""
func.func @f(%A: memref<16x32xf32>, %s: memref<32xf32>, %q: memref<16xf32>) {{
  affine.for %i = 0 to 16 {{
    affine.for %j = 0 to 32 {{
      %a = affine.load %A[%i, %j] : memref<16x32xf32>
      %sj = affine.load %s[%j] : memref<32xf32>
      %n = arith.addf %sj, %a : f32
      affine.store %n, %s[%j] : memref<32xf32>
    }}
  }}
  affine.for %i = 0 to 16 {{
    affine.for %j = 0 to {second_bound} {{
      %a = affine.load %A[{second_index}] : memref<16x32xf32>
      %qi = affine.load %q[%i] : memref<16xf32>
      %n = arith.addf %qi, %a : f32
      affine.store %n, %q[%i] : memref<16xf32>
    }}
  }}
  return
}}
"""


@pytest.mark.parametrize("index, bound, same", [
    ("%i, %j", "32", True),  # bicg as two nests: both walk A row by row
    ("%i, 31 - %j", "32", False),  # the row reversed: other elements at each inner step
    ("%i, %j", "16", False),  # the inner loops differ: no one-to-one inner iteration
    ("%j floordiv 2, %j", "32", False),  # not indexed by the row loop
])
def test_reads_same_elements_matches_the_loops_inside_the_pair(index, bound, same):
    from loopopt.codegen.cpu.plan.sibling_reuse import reads_same_elements

    module, facts, loops = _loops_of(_two_nests(index, bound))
    root = mlir.func_body(mlir.functions(module)[0]).arguments[0]
    assert reads_same_elements(loops[0], loops[1], root, facts) is same
    del module


# ------------------------------------------------------------ the guard's cost stays linear

def _chain(n: int) -> str:
    lines = ["func.func @chain(%a: memref<64xf32>, %out: memref<64xf32>) {", "  %c = arith.constant 2.0 : f32"]
    src = "%a"
    for k in range(n):
        dst = "%out" if k == n - 1 else f"%t{k}"
        if k < n - 1:
            lines.append(f"  {dst} = memref.alloc() : memref<64xf32>")
        lines += ["  affine.for %i = 0 to 64 {", f"    %x = affine.load {src}[%i] : memref<64xf32>",
                  "    %y = arith.mulf %x, %c : f32", f"    affine.store %y, {dst}[%i] : memref<64xf32>", "  }"]
        src = dst
    return "\n".join(lines + ["  return", "}"])


def test_guard_work_grows_linearly_along_a_fused_chain(monkeypatch):
    """A chain of N innermost loops fuses into one; each fuse re-checks only the appended
    accesses (pair checks and body walks stay proportional to N, not N^2)."""
    import loopopt.analysis.vectorization as vec

    calls = {"pairs": 0, "walks": 0}
    pair, walk = vec._pair_carried, vec._no_nested_loop

    def counted_pair(*a):
        calls["pairs"] += 1
        return pair(*a)

    def counted_walk(*a):
        calls["walks"] += 1
        return walk(*a)

    monkeypatch.setattr(vec, "_pair_carried", counted_pair)
    monkeypatch.setattr(vec, "_no_nested_loop", counted_walk)
    n = 120
    res = driver.optimize(_chain(n), Options(target=TARGETS["cpu"]), "t.mlir")
    assert res.num_loops_fused == n - 1
    assert calls["pairs"] <= 4 * n and calls["walks"] <= 2 * n, calls


def test_innermost_memo_sees_a_nest_appended_by_a_fuse():
    from loopopt.loop_optimization.fusion import loop_fusion
    from loopopt.transforms.rewriter import Rewriter

    text = """
func.func @f(%a: memref<8xf32>, %b: memref<8x4xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 8 {
    affine.store %c, %a[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %x = affine.load %a[%i] : memref<8xf32>
      affine.store %x, %b[%i, %j] : memref<8x4xf32>
    }
  }
  return
}"""
    module, facts, loops = _loops_of(text)
    assert is_innermost(loops[0], facts) and not is_innermost(loops[1], facts)
    assert is_parallel(loops[0], facts)
    Rewriter(facts).fuse(loops[0], loops[1], loop_fusion)
    assert not is_innermost(loops[0], facts)
    assert is_innermost(loops[0]) is False  # the uncached walk agrees
    del module


def test_carried_memo_checks_appended_accesses_against_the_old_ones():
    """Parallel before the fuse; the appended read of a[i + 1] meets the old write of a[i]."""
    from loopopt.loop_optimization.fusion import loop_fusion
    from loopopt.transforms.rewriter import Rewriter

    text = """
func.func @f(%a: memref<9xf32>, %b: memref<8xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 8 {
    affine.store %c, %a[%i] : memref<9xf32>
  }
  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i + 1] : memref<9xf32>
    affine.store %x, %b[%i] : memref<8xf32>
  }
  return
}"""
    module, facts, loops = _loops_of(text)
    assert is_parallel(loops[0], facts) and is_parallel(loops[1], facts)
    Rewriter(facts).fuse(loops[0], loops[1], loop_fusion)
    r = carried_dependence(loops[0], facts)
    assert r is not None and "dependence on" in r.reason
    assert carried_dependence(loops[0], Facts()) is not None  # a fresh analysis agrees
    del module


# -- producer and consumer through an argument (cpu profit) ---------------------------------------

THROUGH_ARGUMENT = """
func.func @through_arg(%a: memref<32x32xf32>, %b: memref<32x32xf32>, %c: memref<32x32xf32>) {
  %k = arith.constant 2.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<32x32xf32>
      %y = arith.mulf %x, %k : f32
      affine.store %y, %b[%i, %j] : memref<32x32xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %x = affine.load %b[%INDEX] : memref<32x32xf32>
      %y = arith.addf %x, %k : f32
      affine.store %y, %c[%i, %j] : memref<32x32xf32>
    }
  }
  return
}
"""


@pytest.mark.parametrize("index, fused", [("%i, %j", True), ("%j, %i", False)])
def test_consumer_of_an_argument_fuses_on_cpu_only(index, fused):
    # %b is an argument: the seed's profit is 0 (nothing placed). On cpu the consumer reading
    # b[i, j] just written earns b's bytes (the read-back hits the cache); a transposed read
    # reuses nothing and earns nothing.
    src = THROUGH_ARGUMENT.replace("%INDEX", index)
    cpu = optimize_checked(src, "cpu")
    # (the transposed consumer left alone is then tiled for its column walk: transpose blocking's loops)
    assert cpu.text.count("affine.for") - _distribution_growth(cpu) == (2 if fused else 4)
    if fused:
        assert any("[LOOP FUSION]" in m and "level = 0" in m and "profit = 4096" in m
                   for m in cpu.remarks.messages("fusion"))
        _native_same(src, cpu.text, "through_arg")  # and natively, not only in our interpreter
    else:
        assert any("no fusion benefit" in m for m in cpu.remarks.messages("fusion"))
    trn1 = optimize_checked(src, "trn1")
    assert trn1.text.count("affine.for") == 4
    assert any("no fusion benefit" in m for m in trn1.remarks.messages("fusion"))


def test_accumulator_cell_in_an_argument_earns_nothing():
    # tmp[i] is written by every %j of the first inner loop and read by every %j of the second:
    # the cell is in the cache either way, so the pair earns nothing (reads_produced_elements)
    from loopopt.codegen.cpu.plan.sibling_reuse import reads_produced_elements
    from test_fusion import ACCUMULATE_THEN_READ

    module, facts, loops = _loops_of(ACCUMULATE_THEN_READ)
    inner = [o for o in mlir.walk(loops[0]) if o.name == "affine.for" and o != loops[0]]
    tmp = [a.root for a in facts.accesses(inner[0]) if a.is_write][0]
    assert reads_produced_elements(inner[0], inner[1], tmp, facts) is False
    del module
