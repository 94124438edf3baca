"""Issue 22: memrefs of untraced origin in the transforms that keep per-buffer state across ops.

A memref made by `arith.select`, `scf.if`, a call, a loop-carried value, or a private
function's argument that receives one may be any buffer. Each transform that remembers
something about a buffer from one op to a later one (scalar replacement's forwarding, dead
stores, contraction, LICM, liveness, the recompute planner) must treat such a memref as
aliasing every buffer; docs/soundness.md says how each one does. Here:

* the class 13 programs (tests/soundness/scalrep_*.mlir, one file per kind of write between
  the store and the reload): on cpu no reload through an alias is forwarded, the interpreter
  agrees with mlir-runner on every kernel (it models these ops exactly), and traced buffers
  with the same writes still forward;
* `Effects.may_write`, the one predicate forwarding asks;
* a sample of the fuzzer's forwarding classes, run natively before and after loopopt on cpu;
* adversarial programs for dead stores, contraction, LICM, liveness and the recompute planner.
"""
from __future__ import annotations

import random
import re

import pytest

from fusion_util import optimize_checked
from loopopt import driver, mlir
from loopopt.analysis.affine import Scope
from loopopt.analysis.effects import op_effects
from loopopt.analysis.facts import Facts
from loopopt.analysis.liveness import Liveness
from loopopt.analysis.memory import UNTRACED, alias_root, buffer_key
from loopopt.fuzz import GeneratorConfig, generate_program
from loopopt.fuzz.generator import probe_classes
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool
from loopopt.loop_optimization.contraction import contraction_decision
from loopopt.codegen.cpu.dead_stores import dead_stores_function
from loopopt.loop_optimization.licm import licm_function
from loopopt.codegen.cpu.scalar_replacement import FORWARDED, scalar_replacement_function
from test_soundness import FILES, Run, native_outputs, optimized, program, run_natively

CPU = Options(target=TARGETS["cpu"])
CLASS13 = [n for n in FILES if n.startswith("scalrep_")]
WRITE_KINDS = ("loop", "scf_if", "memref_store", "vector_store", "memref_copy", "call")


def _needs_runner() -> None:
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")


def interpreter_matches_native(text: str, kernel: str, sizes: list) -> None:
    """The interpreter prints what the native harness prints. The harness calls the kernel twice
    in one process, so the interpreter's second call keeps the globals the first one left
    (test_interpreter_constructs.check_same starts both calls afresh: fine without globals)."""
    from loopopt import native
    from loopopt.interpreter import compile_module
    from test_interpreter_constructs import CALLS, _values, harness_inputs

    sig = native.kernel_signature(text, kernel)
    args = harness_inputs(text, kernel, sizes)
    compiled = compile_module(text)
    for k in range(CALLS):
        results = compiled.run(kernel, args, keep_globals=k > 0)
    ours = [native.Output(s.name, a.size, values=_values(a)) for s, a in zip(sig.args, args) if s.kind == "memref"]
    ours += [native.Output(s.name, len(_values(r)), values=_values(r)) for s, r in zip(sig.results, results)]
    theirs = native_outputs(text, Run(kernel, tuple(tuple(x) if isinstance(x, list) else x for x in sizes)))
    diff = native.compare_outputs(tuple(ours), theirs)
    assert diff is None, diff


def _function(module, name: str):
    return next(f for f in mlir.functions(module) if mlir.func_name(f) == name)


def _kernel_text(text: str, name: str) -> str:
    """The printed body of function @name."""
    m = re.search(rf"func\.func (?:private )?@{name}\(.*?\n  }}\n", text, re.S)
    assert m, name
    return m.group(0)


# ----------------------------------------------------------- scalar replacement (forwarding)

def test_class13_has_one_program_per_write_kind():
    assert {f"scalrep_{k}.mlir" for k in WRITE_KINDS} <= set(CLASS13)


@pytest.mark.parametrize("name", CLASS13)
def test_no_reload_through_an_alias_is_forwarded_on_cpu(name):
    """Every kernel stores through an alias (or a traced buffer the alias may be), writes, and
    reloads: the reload stays in the cpu output (same affine.load count in every function) and
    no forwarding remark is given. Results: tests/test_soundness.py runs them natively."""
    res = optimized(name, "cpu")
    assert not [r for r in res.remarks if r.message == FORWARDED], [r.render() for r in res.remarks]
    module = mlir.parse_module(program(name).text)
    for fn in mlir.functions(module):
        name_ = mlir.func_name(fn)
        before = sum(1 for op in mlir.walk(fn) if op.name == "affine.load")
        after = _kernel_text(res.text, name_).count("affine.load")
        assert after == before, name_


@pytest.mark.toolchain
@pytest.mark.parametrize("name", CLASS13)
def test_interpreter_matches_mlir_runner_on_class13(name):
    """The reference interpreter runs select / scf.if aliases, private-callee arguments, globals,
    memref.copy, vector stores and calls exactly as the native toolchain does (so its verdicts
    on the fuzzer's forwarding classes can be trusted)."""
    _needs_runner()
    prog = program(name)
    for run in prog.runs:
        interpreter_matches_native(prog.text, run.kernel, list(run.sizes))


TRACED_WRITES = """
memref.global "private" constant @nines : memref<8xf32> = dense<9.0>
func.func private @fill(%m: memref<8xf32>) {
  %nine = arith.constant 9.0 : f32
  affine.store %nine, %m[0] : memref<8xf32>
  return
}
func.func @traced(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %nine = arith.constant 9.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  affine.for %i = 0 to 4 {
    affine.store %one, %a[%i] : memref<8xf32>
    affine.for %j = 0 to 8 {
      affine.store %nine, %b[%j] : memref<8xf32>
    }
    scf.if %cond {
      affine.store %nine, %b[%i] : memref<8xf32>
    }
    memref.store %nine, %b[%i] : memref<8xf32>
    %v9 = vector.broadcast %nine : f32 to vector<4xf32>
    affine.vector_store %v9, %b[%i] : memref<8xf32>, vector<4xf32>
    %src = memref.get_global @nines : memref<8xf32>
    memref.copy %src, %b : memref<8xf32> to memref<8xf32>
    %r = affine.load %a[%i] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }
  return
}
"""


def test_writes_to_another_traced_buffer_keep_forwarding():
    """The same kinds of write, to %b, between a store to %a and its reload (distinct public
    arguments, traced): the reload is forwarded; the stricter rule costs nothing here."""
    module = mlir.parse_module(TRACED_WRITES)
    log = RemarkLog()
    scalar_replacement_function(_function(module, "traced"), CPU, log)
    out = mlir.print_module(module)
    assert [r.message for r in log].count(FORWARDED) == 1
    assert "affine.load" not in _kernel_text(out, "traced")
    assert_same_results(TRACED_WRITES, out, seed=2, func="traced", sizes={3: 1})


EFFECT_CASES = """
func.func @f(%a: memref<8xf32>, %b: memref<8xf32>, %c: i1) {
  %v = arith.constant 1.0 : f32
  %x = arith.select %c, %a, %b : memref<8xf32>
  affine.store %v, %a[0] : memref<8xf32>
  affine.store %v, %x[0] : memref<8xf32>
  %r = affine.load %x[0] : memref<8xf32>
  %y = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    affine.store %v, %b[%i] : memref<8xf32>
  }
  return
}
"""


def test_may_write_is_one_rule_for_traced_and_untraced_keys():
    module = mlir.parse_module(EFFECT_CASES)
    ops = mlir.block_ops(mlir.func_body(_function(module, "f")))
    store_a, store_x, load_x, alloc, loop = ops[2], ops[3], ops[4], ops[5], ops[6]
    ka, kb = (buffer_key(alias_root(v)) for v in mlir.func_body(_function(module, "f")).arguments[:2])
    ea, ex, el, eal, eloop = (op_effects(o) for o in (store_a, store_x, load_x, alloc, loop))
    assert ea.may_write(ka) and not ea.may_write(kb) and ea.may_write(UNTRACED)
    assert ex.may_write(ka) and ex.may_write(kb) and ex.may_write(UNTRACED)  # a write through an alias
    assert el.may_write(ka)  # a load through an alias is unknown: a barrier, conservatively
    assert not eal.may_write(ka) and not eal.may_write(UNTRACED)  # a fresh allocation writes nothing
    assert eloop.may_write(kb) and eloop.may_write(UNTRACED) and not eloop.may_write(ka)  # region: its body


# ------------------------------------------------------------------ the fuzzer's classes

FUZZ_SAMPLE = 6


def _forced_probe(case: int):
    force = [{"forward_select"}, {"forward_if", "forward_in_loop"}, {"forward_callee"},
             {"forward_select", "forward_traced", "forward_in_loop"}, {"forward_callee", "forward_in_loop"}][case % 5]
    return generate_program(random.Random(7702 + case), GeneratorConfig(force=frozenset(force), adversarial_rate=1.0))


def test_forced_forwarding_classes_cover_every_write_kind():
    seen = set().union(*(probe_classes(_forced_probe(k).model) for k in range(FUZZ_SAMPLE)))
    assert {f"write:{k}" for k in ("loop", "scf_if", "memref_store", "vector_store", "copy", "call")} <= seen, seen
    assert {"forward_select", "forward_if", "forward_callee", "forward_in_loop", "forward_traced"} <= seen


@pytest.mark.toolchain
@pytest.mark.parametrize("case", range(FUZZ_SAMPLE))
def test_fuzz_forwarding_programs_natively_on_cpu(case):
    """Ground truth for the fuzzer's forwarding classes: natively (mlir-runner) the cpu output
    prints what the input prints, and the interpreter agrees with the native run of the input."""
    _needs_runner()
    from loopopt.native import compare_outputs
    from test_native_crosscheck import native_sizes

    prog = _forced_probe(case)
    res = driver.optimize(prog.text, CPU, "fuzz.mlir")
    sizes = native_sizes(prog.text, prog.func_name, prog.sizes, case)
    run = Run(prog.func_name, tuple(tuple(x) if isinstance(x, list) else x for x in sizes))
    before, after = native_outputs(prog.text, run), run_natively(res.text, run)
    assert before and compare_outputs(before, after) is None, (prog.text, res.text)
    interpreter_matches_native(prog.text, prog.func_name, sizes)


# ------------------------------------------------------------------------- dead stores

DEAD_STORE_ALIAS = """
func.func @f(%a: memref<8xf32>, %out: memref<8xf32>, %c: i1) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8xf32>
  %x = arith.select %c, %t, %a : memref<8xf32>
  affine.for %i = 0 to 8 {
    affine.store %one, %t[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    affine.store %v, %out[%i] : memref<8xf32>
  }
  memref.dealloc %t : memref<8xf32>
  return
}
"""


def test_dead_stores_keep_a_store_read_through_an_alias():
    """Rule: only buffers whose every use is a modelled access or their dealloc are looked at, so
    an untraced memref can never be one of them (making it is a use). The store to %t is read
    through %x and stays."""
    module = mlir.parse_module(DEAD_STORE_ALIAS)
    assert dead_stores_function(_function(module, "f"), CPU, RemarkLog()) == 0
    out = mlir.print_module(module)
    assert "affine.store %cst, %alloc[%arg3]" in out
    assert_same_results(DEAD_STORE_ALIAS, out, seed=1, func="f", sizes={2: 1})


# ------------------------------------------------------------------------- contraction

CONTRACT_ALIAS = """
func.func @f(%a: memref<8xf32>, %out: memref<8xf32>, %c: i1) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8xf32>
  %x = scf.if %c -> (memref<8xf32>) {
    scf.yield %t : memref<8xf32>
  } else {
    scf.yield %a : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %a[%i] : memref<8xf32>
    affine.store %v, %t[%i] : memref<8xf32>
    affine.store %one, %x[%i] : memref<8xf32>
    %w = affine.load %t[%i] : memref<8xf32>
    affine.store %w, %out[%i] : memref<8xf32>
  }
  return
}
"""


def test_contraction_keeps_a_buffer_an_alias_may_write():
    """Rule: a buffer is contracted only when no use lets it escape; the scf.if yielding it is
    such a use, so the store through %x between the store to %t and its load is respected."""
    module = mlir.parse_module(CONTRACT_ALIAS)
    alloc = next(op for op in mlir.walk(_function(module, "f")) if op.name == "memref.alloc")
    plan, why = contraction_decision(alloc, Scope())
    assert plan is None and "scf.yield" in why.detail
    res = optimize_checked(CONTRACT_ALIAS, "cpu", sizes={2: 1})
    assert "memref.alloc" in res.text


# ------------------------------------------------------------------------------- LICM

LICM_WRITES = {
    "loop": "affine.for %j = 0 to 8 {\n      affine.store %nine, %W[%j] : memref<8xf32>\n    }",
    "scf_if": "scf.if %c {\n      affine.store %nine, %W[%i] : memref<8xf32>\n    }",
    "memref_store": "memref.store %nine, %W[%i] : memref<8xf32>",
    "vector_store": "%v9 = vector.broadcast %nine : f32 to vector<4xf32>\n"
                    "    affine.vector_store %v9, %W[%i] : memref<8xf32>, vector<4xf32>",
    "memref_copy": "%src = memref.get_global @nines : memref<8xf32>\n"
                   "    memref.copy %src, %W : memref<8xf32> to memref<8xf32>",
    "call": "func.call @fill(%W) : (memref<8xf32>) -> ()",
}


def _licm_program(kind: str, read: str, written: str) -> str:
    body = LICM_WRITES[kind].replace("%W", written)
    return f"""
memref.global "private" constant @nines : memref<8xf32> = dense<9.0>
func.func private @fill(%m: memref<8xf32>) {{
  %nine = arith.constant 9.0 : f32
  affine.store %nine, %m[0] : memref<8xf32>
  return
}}
func.func @f(%a: memref<8xf32>, %b: memref<8xf32>, %out: memref<8xf32>, %c: i1) {{
  %nine = arith.constant 9.0 : f32
  %x = arith.select %c, %a, %b : memref<8xf32>
  affine.for %i = 0 to 4 {{
    {body}
    %r = affine.load {read}[0] : memref<8xf32>
    affine.store %r, %out[%i] : memref<8xf32>
  }}
  return
}}
"""


@pytest.mark.parametrize("read,written", [("%x", "%a"), ("%a", "%x")], ids=["load-untraced", "write-untraced"])
@pytest.mark.parametrize("kind", sorted(LICM_WRITES))
def test_licm_keeps_an_invariant_load_the_loop_may_write_through_an_alias(kind, read, written):
    """Rule (licm.written_culprit): a load through an untraced memref may be changed by any write
    in the loop, and a write through one may change any load. The load of element 0 stays."""
    text = _licm_program(kind, read, written)
    module = mlir.parse_module(text)
    log = RemarkLog()
    licm_function(_function(module, "f"), log)
    out = mlir.print_module(module)
    loop = re.search(r"affine\.for %arg4 = 0 to 4 \{.*", out, re.S).group(0)
    assert "affine.load" in loop, out
    assert any(r.message.startswith("[LICM] not hoisted") and "affine.load" in str(r.args) for r in log)
    assert_same_results(text, out, seed=3, func="f", sizes={3: 1})


# --------------------------------------------------------------------------- liveness

LIVE_ALIAS = """
func.func @f(%a: memref<16xf32>, %b: memref<16xf32>, %out: memref<16xf32>, %c: i1) {
  %t = memref.alloc() : memref<16xf32>
  %x = arith.select %c, %t, %b : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<16xf32>
    affine.store %v, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 4 {
    %v = affine.load %t[%i] : memref<16xf32>
    affine.store %v, %out[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %v = affine.load %x[%i] : memref<16xf32>
    affine.store %v, %b[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
"""


def _live_between_first_two_loops(text: str):
    module = mlir.parse_module(text)
    fn = _function(module, "f")
    loops = [op for op in mlir.block_ops(mlir.func_body(fn)) if op.name == "affine.for"]
    alloc = next(op for op in mlir.walk(fn) if op.name == "memref.alloc")
    return Liveness(Facts()).between(alloc.results[0], loops[0], loops[1])


def test_liveness_counts_direct_reads_after_the_pair():
    """Without the alias's read, 4 of %t's 16 elements are live between the first two loops."""
    text = LIVE_ALIAS.replace("%v = affine.load %x[%i]", "%v = affine.load %b[%i]")
    live = _live_between_first_two_loops(text)
    assert live.exact and live.elements == 4


def test_liveness_counts_reads_through_an_alias_after_the_pair():
    live = _live_between_first_two_loops(LIVE_ALIAS)
    assert live.elements == 16, live


# ------------------------------------------------------------------ the recompute planner

RECOMPUTE_ALIAS = """
func.func @f(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %out: memref<8x8xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %a, %b : memref<8x8xf32>
  %t = memref.alloc() : memref<8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %v = affine.load %x[%i, %j] : memref<8x8xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %t[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %v = affine.load %t[%j, %i] : memref<8x8xf32>
      affine.store %v, %out[%i, %j] : memref<8x8xf32>
      affine.store %v, %a[%i, %j] : memref<8x8xf32>
    }
  }
  memref.dealloc %t : memref<8x8xf32>
  return
}
"""


@pytest.mark.toolchain
def test_recompute_pair_with_an_untraced_producer_read_keeps_its_results_natively():
    """End to end on cpu: the producer reads through %x, so fusion refuses the pair as
    unmodelled before any rescue (fusion_legality.check_modelled) and no recompute happens."""
    _needs_runner()
    from loopopt.native import compare_outputs

    res = driver.optimize(RECOMPUTE_ALIAS, CPU, "recompute.mlir")
    assert not [r for r in res.remarks if r.message.startswith("[RECOMPUTE]")]
    assert any("unmodelled effects" in r.message for r in res.remarks)
    run = Run("f", (None, None, None, 1))
    assert compare_outputs(run_natively(RECOMPUTE_ALIAS, run), run_natively(res.text, run)) is None


def test_recompute_planner_refuses_a_producer_that_reads_through_an_alias():
    from loopopt.loop_optimization import pair_restructuring as pr

    module = mlir.parse_module(RECOMPUTE_ALIAS)
    fn = _function(module, "f")
    loops = [op for op in mlir.block_ops(mlir.func_body(fn)) if op.name == "affine.for"]
    plan, why = pr.plan_recompute(loops[0], loops[1], Scope())
    assert plan is None, "a plan for a producer that reads through an untraced memref"


def test_applying_that_recompute_plan_changes_the_results():
    """What the finding above costs if a caller trusted the planner alone."""
    from loopopt.loop_optimization import pair_restructuring as pr

    module = mlir.parse_module(RECOMPUTE_ALIAS)
    fn = _function(module, "f")
    loops = [op for op in mlir.block_ops(mlir.func_body(fn)) if op.name == "affine.for"]
    plan, _ = pr.plan_recompute(loops[0], loops[1], Scope())
    if plan is None:
        pytest.skip("the planner refuses it (the finding is fixed)")
    pr.recompute_into_consumer(plan)
    with pytest.raises(AssertionError, match="differs"):
        assert_same_results(RECOMPUTE_ALIAS, mlir.print_module(module), seed=1, func="f", sizes={3: 1})


BUMP = """
memref.global "private" @G : memref<1xf32> = dense<0.0>
func.func @bump(%out: memref<1xf32>) {
  %one = arith.constant 1.0 : f32
  %g = memref.get_global @G : memref<1xf32>
  %v = affine.load %g[0] : memref<1xf32>
  %w = arith.addf %v, %one : f32
  affine.store %w, %g[0] : memref<1xf32>
  affine.store %w, %out[0] : memref<1xf32>
  return
}
"""


def test_interpreter_keeps_globals_across_runs_only_when_asked():
    """A run starts from the globals' initial values; `keep_globals` continues from what the
    previous run left, as the native harness's second call in one process does."""
    import numpy as np
    from loopopt.interpreter import compile_module

    compiled = compile_module(BUMP)
    out = np.zeros(1, np.float32)
    compiled.run("bump", [out])
    compiled.run("bump", [out])
    assert out[0] == 1.0
    compiled.run("bump", [out], keep_globals=True)
    assert out[0] == 2.0
