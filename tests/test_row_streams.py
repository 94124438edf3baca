"""docs/cpu_codegen.md section 23: a row reduction chain over long rows streams each row at most
twice. Two pieces: fusion on cpu lets a parallel innermost loop join the reduction that reads what
it has just written when the reduction stays vector (codegen/cpu/hooks.py: innermost_refusal,
vector_reductions), and the lowering recomputes a gathered element from its elementwise producer
instead of materialising the producer (frontend/gather_recompute.py). Each transform test checks
the IR and that results are unchanged (the reference interpreter; natively with mlir-runner)."""
from __future__ import annotations

import pytest

from fusion_util import optimize_checked
from loopopt import driver, frontend, mlir
from loopopt.analysis.vectorization import is_innermost, is_parallel
from loopopt.frontend import fixtures
from loopopt.frontend import gather_recompute as gr
from loopopt.options import TARGETS, Options
from loopopt.toolchain import find_tool

has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

# log-sum-exp of each row: max, exp(x - max) into a buffer, the sum of that buffer, log + max.
LOGSUMEXP = """
func.func @lse(%x: memref<8x100xf32>, %out: memref<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %mx = memref.alloc() : memref<8xf32>
  %e = memref.alloc() : memref<8x100xf32>
  %sum = memref.alloc() : memref<8xf32>
  affine.for %i = 0 to 8 {
    affine.store %ninf, %mx[%i] : memref<8xf32>
    affine.for %j = 0 to 100 {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %m = affine.load %mx[%i] : memref<8xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %mx[%i] : memref<8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 100 {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %m = affine.load %mx[%i] : memref<8xf32>
      %d = arith.subf %v, %m : f32
      %ex = math.exp %d : f32
      affine.store %ex, %e[%i, %j] : memref<8x100xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.store %zero, %sum[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 100 {
      %v = affine.load %e[%i, %j] : memref<8x100xf32>
      %s = affine.load %sum[%i] : memref<8xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%i] : memref<8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    %s = affine.load %sum[%i] : memref<8xf32>
    %m = affine.load %mx[%i] : memref<8xf32>
    %l = math.log %s : f32
    %r = arith.addf %l, %m : f32
    affine.store %r, %out[%i] : memref<8xf32>
  }
  memref.dealloc %mx : memref<8xf32>
  memref.dealloc %e : memref<8x100xf32>
  memref.dealloc %sum : memref<8xf32>
  return
}
"""

# the largest of 2 x over each row: a maximum reduction, the same in any order
ROWMAX_OF_DOUBLED = """
func.func @m(%x: memref<8x100xf32>, %out: memref<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %two = arith.constant 2.0 : f32
  %d = memref.alloc() : memref<8x100xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 100 {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %d[%i, %j] : memref<8x100xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.store %ninf, %out[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 100 {
      %v = affine.load %d[%i, %j] : memref<8x100xf32>
      %m = affine.load %out[%i] : memref<8xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %out[%i] : memref<8xf32>
    }
  }
  memref.dealloc %d : memref<8x100xf32>
  return
}
"""


def _innermost_kinds(text: str) -> list[str]:
    """'par' or 'seq' for every innermost loop of the text's first function, in order."""
    from loopopt.analysis.facts import Facts

    module = mlir.parse_module(text)
    facts = Facts()
    fn = mlir.functions(module)[0]
    out = ["par" if is_parallel(o, facts) else "seq" for o in mlir.walk(fn)
           if o.name == "affine.for" and is_innermost(o, facts)]
    del module
    return out


def _guard_refusals(res) -> list:
    return [r for r in res.remarks if isinstance(r.args, dict) and r.args.get("code") == "LOSES_VECTORIZATION"]


def _native_close(before: str, after: str, kernel: str, rtol: float = 0.0) -> None:
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, kernel_signature, run_native

    sizes = (None,) * len(kernel_signature(before, kernel).args)
    a = run_native(before, kernel, sizes, reps=1, warmup=0)
    b = run_native(after, kernel, sizes, reps=1, warmup=0)
    assert a.outputs and compare_outputs(a.outputs, b.outputs, rtol=rtol) is None


# ----------------------------------------------------------------- fusion: exp joins its sum

def test_exp_joins_the_sum_that_reads_it_when_the_sum_may_be_reassociated():
    res = optimize_checked(LOGSUMEXP, "cpu", reassociate=True)
    # one row loop: the maximum, then exp and its sum in one loop; the buffer of exponentials gone
    assert _innermost_kinds(res.text) == ["seq", "seq"]
    assert not [ln for ln in res.text.splitlines() if "memref.alloc" in ln and "100xf32" in ln]
    assert not _guard_refusals(res)
    assert "fastmath<reassoc>" in res.text
    _native_close(LOGSUMEXP, res.text, "lse", rtol=1e-6)


def test_exp_stays_out_of_a_sum_that_keeps_its_order():
    """Affine input without --reassociate: the sum stays scalar, so the exp loop stays apart
    (fused, the exponentials would run one at a time)."""
    res = optimize_checked(LOGSUMEXP, "cpu")
    refused = _guard_refusals(res)
    assert refused and "is parallel" in refused[0].args["reason"]
    _native_close(LOGSUMEXP, res.text, "lse")


def test_a_maximum_joins_its_producer_without_reassociation():
    """A maximum is the same in any order: it stays vector fused, bit-exact, with no switch."""
    res = optimize_checked(ROWMAX_OF_DOUBLED, "cpu")
    assert _innermost_kinds(res.text) == ["seq"]
    assert not _guard_refusals(res)
    _native_close(ROWMAX_OF_DOUBLED, res.text, "m")


def test_neuron_targets_are_unchanged():
    for target in ("trn1", "inf2"):
        res = driver.optimize(LOGSUMEXP, Options(target=TARGETS[target], reassociate=True), "t.mlir")
        assert not _guard_refusals(res)


# ------------------------------------------------------------ lowering: gathers recompute

def _lowered(text: str, with_step: bool = True) -> str:
    if with_step:
        return frontend.lower(text, filename="t.mlir").text
    steps = [s for s in frontend.linalg.steps() if s != gr.STEP]
    return frontend.lower(text, frontend.LoweringOptions(pipeline="builtin.module(" + ",".join(steps) + ")"),
                          filename="t.mlir").text


def _note(text: str, first: bool = False) -> str:
    """The step's note; with `first` the step runs on the input as written (before MLIR's
    canonicalization, which turns a read of an output's initial value into a read of an input)."""
    options = None
    if first:
        steps = [s for s in frontend.linalg.steps() if s != gr.STEP]
        options = frontend.LoweringOptions(pipeline="builtin.module(" + ",".join([gr.STEP, *steps]) + ")")
    low = frontend.lower(text, options, filename="t.mlir")
    return next(s.note for s in low.steps if s.name == gr.STEP)


def _same_natively(text: str, kernel: str) -> None:
    """The lowering with and without the step computes the same outputs, bit for bit."""
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not installed")
    from loopopt.native import compare_outputs, kernel_signature, run_native

    a, b = _lowered(text, False), _lowered(text, True)
    sizes = (None,) * len(kernel_signature(a, kernel).args)
    ra = run_native(a, kernel, sizes, reps=1, warmup=0)
    rb = run_native(b, kernel, sizes, reps=1, warmup=0)
    assert ra.outputs and compare_outputs(ra.outputs, rb.outputs) is None


@pytest.mark.parametrize("name", ["lm_loss_small", "cross_entropy_small"])
def test_the_log_softmax_a_loss_gathers_from_is_not_materialised(name):
    fx = fixtures.load_fixture(name)
    rows, cols = fx.expected["runs"][0]["inputs"][0]["shape"]
    full = f"memref<{rows}x{cols}xf32>"
    before, after = _lowered(fx.text, False), _lowered(fx.text, True)
    # without the step the log-softmax is a rows x cols buffer beside the exponentials'; with it,
    # only the exponentials' (which fusion shrinks to registers)
    assert before.count(f"memref.alloc() {{alignment = 64 : i64}} : {full}") == 2
    assert after.count(f"memref.alloc() {{alignment = 64 : i64}} : {full}") == 1
    assert "math.log" in after.split("memref.load %arg0")[1]  # the gather computes x - max - log(sum)
    note = _note(fx.text)
    assert note.count("recomputed:") == 3 and "kept:" not in note
    _same_natively(fx.text, name)


def test_a_returned_log_softmax_is_still_written_and_its_gather_recomputed():
    fx = fixtures.load_fixture("lm_logprobs_small")
    after = _lowered(fx.text)
    assert after.count("math.log") == 2  # once per row for the output, once per gathered element
    _same_natively(fx.text, "lm_logprobs_small")


def test_the_driver_says_each_decision():
    fx = fixtures.load_fixture("lm_loss_small")
    res = driver.optimize(fx.text, Options(target=TARGETS["cpu"]), "lm_loss_small.mlir")
    passed = [r for r in res.remarks if r.message.startswith(gr.PASSED_REMARK)]
    assert len(passed) == 3 and all(r.kind == "Passed" for r in passed)


GATHER = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#v = affine_map<(d0) -> (d0)>
func.func @g(%x: tensor<4x8xf32>, %c: tensor<4x1xf32>, %t: tensor<4xi64>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    PRODUCER_BODY
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%t : tensor<4xi64>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%ti: i64, %o: f32):
    %i = linalg.index 0 : index
    %k = arith.index_cast %ti : i64 to index
    %c8 = arith.constant 8 : index
    %km = arith.remui %k, %c8 : index
    %g = tensor.extract %p[%i, %km] : tensor<4x8xf32>
    linalg.yield %g : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def _gather(body: str) -> str:
    return GATHER.replace("PRODUCER_BODY", body)


def test_a_producer_using_its_loop_indices_is_recomputed_at_the_gathered_point():
    text = _gather("""%j = linalg.index 1 : index
    %jf = arith.index_cast %j : index to i64
    %f = arith.sitofp %jf : i64 to f32
    %s = arith.subf %a, %b : f32
    %y = arith.mulf %s, %f : f32
    linalg.yield %y : f32""")
    assert _note(text).startswith("recomputed:")
    assert "memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>" in _lowered(text, False)
    assert "memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>" not in _lowered(text)
    _same_natively(text, "g")


def test_a_producer_reading_its_output_init_is_kept():
    text = _gather("%y = arith.addf %a, %o : f32\n    linalg.yield %y : f32").replace(
        "outs(%e : tensor<4x8xf32>)", "outs(%y0 : tensor<4x8xf32>)").replace(
        "func.func @g(%x: tensor<4x8xf32>,", "func.func @g(%x: tensor<4x8xf32>, %y0: tensor<4x8xf32>,")
    note = _note(text, first=True)
    assert note.startswith("kept:") and "reads its output's initial value" in note
    _same_natively(text, "g")


def test_a_producer_with_a_gather_of_its_own_is_kept():
    text = _gather("""%i0 = linalg.index 0 : index
    %z0 = arith.constant 0 : index
    %z = tensor.extract %c[%i0, %z0] : tensor<4x1xf32>
    %y = arith.addf %a, %z : f32
    linalg.yield %y : f32""")
    note = _note(text)
    assert note.startswith("kept:") and "holds tensor.extract" in note
    _same_natively(text, "g")


def test_an_extract_that_runs_more_often_than_the_producer_has_points_is_kept():
    text = """
#v = affine_map<(d0) -> (d0)>
#vv = affine_map<(d0, d1) -> (d0)>
#o = affine_map<(d0, d1) -> (d0, d1)>
func.func @g(%x: tensor<4xf32>, %t: tensor<64xi64>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#vv, #o], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<64xi64>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%ti: i64, %o: f32):
    %k = arith.index_cast %ti : i64 to index
    %c4 = arith.constant 4 : index
    %km = arith.remui %k, %c4 : index
    %g = tensor.extract %p[%km] : tensor<4xf32>
    linalg.yield %g : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
"""
    note = _note(text)
    assert note.startswith("kept:") and "runs 4096 times, more than the producer's 4 points" in note


def test_a_gather_of_a_reduction_is_kept_and_said():
    text = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @g(%x: tensor<4x8xf32>, %k: index) -> f32 {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %a, %o : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %g = tensor.extract %s[%k] : tensor<4xf32>
  return %g : f32
}
"""
    note = _note(text)
    assert note.startswith("kept:") and "reduction loop" in note


# ------------------------------------------- dead stores: a value overwritten before it is read

# the row maximum and its first index (torch's aten.max.dim); the index is stored into a buffer
# that the same row iteration then overwrites with the target (as bufferization reuses an i64
# buffer), and only the target is read back
ARGMAX_OVERWRITTEN = """
func.func @rows(%x: memref<8x100xf32>, %t: memref<8xi64>, %m: memref<8xf32>, %out: memref<8xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %idx = memref.alloc() : memref<8xi64>
  affine.for %i = 0 to 8 {
    affine.store %c0, %idx[%i] : memref<8xi64>
  }
  affine.for %i = 0 to 8 {
    %r:2 = affine.for %j = 0 to 100 iter_args(%mx = %ninf, %ix = %c0) -> (f32, i64) {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %jj = arith.index_cast %j : index to i64
      %nm = arith.maximumf %v, %mx : f32
      %gt = arith.cmpf ogt, %v, %mx : f32
      %ni = arith.select %gt, %jj, %ix : i64
      affine.yield %nm, %ni : f32, i64
    }
    affine.store %r#0, %m[%i] : memref<8xf32>
    affine.store %r#1, %idx[%i] : memref<8xi64>
    READ_BETWEEN
    %tv = affine.load %t[%i] : memref<8xi64>
    affine.store %tv, %idx[%i] : memref<8xi64>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %idx[%i] : memref<8xi64>
    %o = affine.load %out[%i] : memref<8xi64>
    %v1 = arith.addi %v, %one : i64
    %w = arith.addi %v1, %o : i64
    affine.store %w, %out[%i] : memref<8xi64>
  }
  memref.dealloc %idx : memref<8xi64>
  return
}
"""


def test_an_index_overwritten_before_it_is_read_is_dropped_and_the_maximum_vectorizes():
    src = ARGMAX_OVERWRITTEN.replace("READ_BETWEEN", "")
    res = optimize_checked(src, "cpu")
    assert "arith.select" not in res.text and "arith.cmpf ogt" not in res.text  # the argmax is gone
    msgs = res.remarks.messages()
    assert any(m.startswith("[DEAD VALUE]") for m in msgs)
    assert not any(m.startswith("[STOP VECTORIZE] a value carried in iter_args is not a reduction") for m in msgs)
    _native_close(src, res.text, "rows")


def test_a_read_between_the_two_stores_keeps_the_first():
    # read at an element known only at run time (no store-to-load forwarding takes it away)
    src = ARGMAX_OVERWRITTEN.replace("READ_BETWEEN", """%t0 = affine.load %t[%i] : memref<8xi64>
    %k = arith.index_cast %t0 : i64 to index
    %c8 = arith.constant 8 : index
    %km = arith.remui %k, %c8 : index
    %seen = memref.load %idx[%km] : memref<8xi64>
    affine.store %seen, %out[%i] : memref<8xi64>""")
    res = optimize_checked(src, "cpu")
    assert "arith.select" in res.text  # the index is read before it is overwritten: kept
    _native_close(src, res.text, "rows")


def test_a_later_store_of_another_element_keeps_the_first():
    src = ARGMAX_OVERWRITTEN.replace("READ_BETWEEN", "").replace(
        "affine.store %tv, %idx[%i] : memref<8xi64>", "affine.store %tv, %idx[(%i + 1) mod 8] : memref<8xi64>")
    res = optimize_checked(src, "cpu")
    assert "arith.select" in res.text  # idx[i] keeps row i's index until the next row: read
    _native_close(src, res.text, "rows")


# ---------------------- dead stores: an argument's elements written again before they are read

# each row of %out first gets exp(x), summed, then x - log(sum): the first writes are dead
OUT_WRITTEN_TWICE = """
func.func @lsm(%x: memref<8x100xf32>, %out: memref<8x100xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %s = affine.for %j = 0 to 100 iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %e = math.exp %v : f32
      affine.store %e, %out[%i, %j] : memref<8x100xf32>
      %n = arith.addf %acc, %e : f32
      affine.yield %n : f32
    }
    %l = math.log %s : f32
    BETWEEN
    affine.for %j = LOWER to 100 {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %r = arith.subf %v, %l : f32
      affine.store %r, %out[%i, %j] : memref<8x100xf32>
    }
  }
  return
}
"""


def _argument_stores_removed(res) -> int:
    from loopopt.codegen.cpu.dead_stores import OVERWRITTEN

    return sum(1 for m in res.remarks.messages() if m.startswith(OVERWRITTEN))


def _variant(between: str = "", lower: str = "0") -> str:
    return OUT_WRITTEN_TWICE.replace("BETWEEN", between).replace("LOWER", lower)


def test_an_output_row_written_again_before_any_read_loses_its_first_write():
    src = _variant()
    res = optimize_checked(src, "cpu", passes=["dead-stores"])
    assert _argument_stores_removed(res) == 1
    assert res.text.count("affine.store") == 1 and "math.exp" in res.text  # the exp still feeds the sum
    _native_close(src, res.text, "lsm")


@pytest.mark.parametrize("between, lower, why", [
    ("%peek = affine.load %out[%i, 0] : memref<8x100xf32>\n    affine.store %peek, %x[%i, 0] : memref<8x100xf32>", "0",
     "a read between the nests"),
    ("", "1", "the later nest skips column 0"),
    ("%ok = arith.cmpf one, %l, %zero : f32\n    cf.assert %ok, \"zero log\"", "0",
     "a run-time check between the nests may abort and show the first writes"),
])
def test_a_first_write_someone_may_see_is_kept(between, lower, why):
    src = _variant(between, lower)
    res = optimize_checked(src, "cpu", passes=["dead-stores"])
    assert _argument_stores_removed(res) == 0, why
    assert res.text.count("affine.store") >= 2
    _native_close(src, res.text, "lsm")


def test_a_later_write_under_a_condition_does_not_cover():
    src = _variant().replace("""      affine.store %r, %out[%i, %j] : memref<8x100xf32>
    }
  }""", """      affine.if affine_set<(d0) : (d0 - 50 >= 0)>(%j) {
        affine.store %r, %out[%i, %j] : memref<8x100xf32>
      }
    }
  }""")
    res = optimize_checked(src, "cpu", passes=["dead-stores"])
    assert _argument_stores_removed(res) == 0
    _native_close(src, res.text, "lsm")


def test_an_argument_that_may_share_memory_with_another_keeps_its_writes():
    """A private function called with one buffer for both arguments: a store into %out may be
    read through %x (the exp's load of the next row), so none is removed."""
    src = _variant().replace("func.func @lsm(", "func.func private @lsm(") + """
func.func @main(%b: memref<8x100xf32>) {
  func.call @lsm(%b, %b) : (memref<8x100xf32>, memref<8x100xf32>) -> ()
  return
}
"""
    res = driver.optimize(src, Options(target=TARGETS["cpu"]), "t.mlir", passes=["dead-stores"])
    assert _argument_stores_removed(res) == 0
