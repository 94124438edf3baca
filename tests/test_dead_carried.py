"""The step `dead-carried` (transforms/dead_carried.py): a value a loop carries that nothing uses but
its own update (and stores into a buffer nobody reads) is dropped, on every target.

Each program runs through the whole pipeline (cpu and trn1) and is compared with its input in the
reference interpreter, and on cpu natively (mlir-runner 22). Adversarial cases keep the value: a
result stored into a buffer that is read later, a carried value stored inside the loop, a slice
with a load. The cross-entropy block's unused argmax goes, and its row maximum's loop vectorizes.
"""
from __future__ import annotations

import pytest

from loopopt import frontend, native
from loopopt.driver import optimize
from loopopt.frontend import fixtures
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool

needs_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def options(target: str) -> Options:
    return Options(target=TARGETS[target], **({"vector_bits": 256} if target == "cpu" else {}))


def rowmax(after: str = "", extra_args: str = "", in_loop: str = "") -> str:
    return f"""
func.func @k(%X: memref<8x64xf32>, %M: memref<8xf32>{extra_args}) {{
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %idx = memref.alloc() : memref<8xi64>
  affine.for %i = 0 to 8 {{
    %m:2 = affine.for %j = 0 to 64 iter_args(%mx = %ninf, %ix = %c0) -> (f32, i64) {{
      %x = affine.load %X[%i, %j] : memref<8x64xf32>
      %jj = arith.index_cast %j : index to i64
      %nm = arith.maximumf %x, %mx : f32
      %gt = arith.cmpf ogt, %x, %mx : f32
      %ni = arith.select %gt, %jj, %ix : i64
{in_loop}      affine.yield %nm, %ni : f32, i64
    }}
    affine.store %m#0, %M[%i] : memref<8xf32>
    affine.store %m#1, %idx[%i] : memref<8xi64>
  }}
{after}  memref.dealloc %idx : memref<8xi64>
  return
}}
"""


UNREAD = rowmax()
READ_LATER = rowmax(after="  %r = affine.load %idx[5] : memref<8xi64>\n  affine.store %r, %O[0] : memref<1xi64>\n",
                    extra_args=", %O: memref<1xi64>")
OUTPUT = rowmax().replace("affine.store %m#1, %idx[%i]", "affine.store %m#1, %I[%i]").replace(
    "%M: memref<8xf32>)", "%M: memref<8xf32>, %I: memref<8xi64>)")
STORED_INSIDE = rowmax(in_loop="      affine.store %ix, %O[0] : memref<1xi64>\n", extra_args=", %O: memref<1xi64>")

CHAIN = """
func.func @k(%A: memref<64xf32>, %O: memref<1xf32>) {
  %z = arith.constant 0.0 : f32
  %r:3 = affine.for %j = 0 to 64 iter_args(%s = %z, %a = %z, %b = %z) -> (f32, f32, f32) {
    %x = affine.load %A[%j] : memref<64xf32>
    %ns = arith.addf %s, %x : f32
    %na = arith.mulf %a, %x : f32
    %nb = arith.addf %b, %a : f32
    affine.yield %ns, %na, %nb : f32, f32, f32
  }
  affine.store %r#0, %O[0] : memref<1xf32>
  return
}
"""


def dropped(res) -> int:
    return sum(r.args.get("values", 0) for r in res.remarks if r.pass_name == "dead-carried")


@pytest.mark.parametrize("target", ["cpu", "trn1"])
def test_an_index_nobody_reads_is_dropped_with_its_store(target):
    res = optimize(UNREAD, options(target), filename="t.mlir")
    assert dropped(res) == 1 and "index_cast" not in res.text and "memref<8xi64>" not in res.text.split("affine.for")[2]
    assert_same_results(UNREAD, res.text, seed=2)


@pytest.mark.parametrize("src", [READ_LATER, OUTPUT, STORED_INSIDE], ids=["read later", "an output", "stored inside"])
def test_an_index_something_reads_is_kept(src):
    for target in ("cpu", "trn1"):
        res = optimize(src, options(target), filename="t.mlir")
        assert dropped(res) == 0 and "arith.select" in res.text
        assert_same_results(src, res.text, seed=4)


def test_a_value_used_only_by_a_dropped_one_goes_next():
    res = optimize(CHAIN, options("cpu"), filename="t.mlir", passes=["dead-carried"])
    assert dropped(res) == 2 and "arith.mulf" not in res.text
    assert_same_results(CHAIN, res.text, seed=1)


@needs_runner
@pytest.mark.parametrize("src", [UNREAD, READ_LATER, CHAIN], ids=["unread", "read later", "chain"])
def test_natively_the_results_stay(src):
    res = optimize(src, options("cpu"), filename="t.mlir")
    sizes = [None] * len(native.kernel_signature(src, "k").args)
    a = native.run_native(src, "k", sizes, reps=1, full_limit=1000).outputs
    b = native.run_native(res.text, "k", sizes, reps=1, full_limit=1000).outputs
    assert native.compare_outputs(a, b) is None


def test_cross_entropys_argmax_goes_and_its_row_maximum_vectorizes():
    fx = fixtures.load_fixture("cross_entropy_small")
    lowered = frontend.lower(fx.text, filename="cross_entropy_small.mlir").text
    res = optimize(lowered, Options(target=TARGETS["cpu"], vector_bits=256, approximate_math=True, reassociate=True,
                                    contract=True), filename="cross_entropy_small.mlir")
    dead = [r for r in res.remarks if r.pass_name == "dead-carried"]
    assert len(dead) == 1
    vectorized = [r for r in res.remarks if r.message.startswith("[VECTORIZE]") and r.location == dead[0].location]
    assert vectorized, [r.render() for r in res.remarks if r.location == dead[0].location]


# ----------------------------------------------------------------------------- a dead buffer
# A max over a middle dimension keeps its index in a buffer, updated in place inside the loop over
# the reduced dimension (transforms/dead_carried.py `dead_buffer`). Only the maximum is returned.

def maxmid(after: str = "", extra_args: str = "", in_loop: str = "", ret: str = "", call: str = "") -> str:
    return f"""
func.func @k(%X: memref<4x16x24xf32>, %M: memref<4x24xf32>{extra_args}){ret} {{
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %idx = memref.alloc() : memref<4x24xi64>
  affine.for %b = 0 to 4 {{
    affine.for %d = 0 to 24 {{
      affine.store %ninf, %M[%b, %d] : memref<4x24xf32>
      affine.store %c0, %idx[%b, %d] : memref<4x24xi64>
    }}
  }}
  affine.for %b = 0 to 4 {{
    affine.for %r = 0 to 16 {{
      affine.for %d = 0 to 24 {{
        %x = affine.load %X[%b, %r, %d] : memref<4x16x24xf32>
        %m = affine.load %M[%b, %d] : memref<4x24xf32>
        %i = affine.load %idx[%b, %d] : memref<4x24xi64>
        %rr = arith.index_cast %r : index to i64
        %nm = arith.maximumf %x, %m : f32
        %gt = arith.cmpf ogt, %x, %m : f32
        %ni = arith.select %gt, %rr, %i : i64
{in_loop}        affine.store %nm, %M[%b, %d] : memref<4x24xf32>
        affine.store %ni, %idx[%b, %d] : memref<4x24xi64>
      }}
    }}
  }}
{after}{call}{'' if ret else '  memref.dealloc %idx : memref<4x24xi64>' + chr(10)}  return{' %idx : memref<4x24xi64>' if ret else ''}
}}
"""


MAXMID = maxmid()
MID_READ_AFTER = maxmid(after="  %r = affine.load %idx[1, 5] : memref<4x24xi64>\n  affine.store %r, %O[0] : memref<1xi64>\n",
                        extra_args=", %O: memref<1xi64>")
MID_FEEDS_OUTPUT = maxmid(in_loop="        affine.store %i, %O[%b, %d] : memref<4x24xi64>\n",
                          extra_args=", %O: memref<4x24xi64>")
MID_FEEDS_VALUE = maxmid(in_loop="        %f = arith.sitofp %i : i64 to f32\n        %g = arith.addf %nm, %f : f32\n"
                                 "        affine.store %g, %O[%b, %d] : memref<4x24xf32>\n",
                         extra_args=", %O: memref<4x24xf32>")
MID_RETURNED = maxmid(ret=" -> memref<4x24xi64>")
MID_CALLED = maxmid(call="  func.call @g(%idx) : (memref<4x24xi64>) -> ()\n") + \
    "func.func private @g(memref<4x24xi64>)\n"


def buffers_dropped(res) -> list[str]:
    """The dead-buffer remarks, and any rollback (a slice erased wrongly shows there)."""
    return [r.message for r in res.remarks if (r.pass_name == "dead-carried" and "buffer" in r.message)
            or "[INTERNAL]" in r.message]


def test_an_index_kept_in_a_buffer_only_its_update_reads_goes():
    res = optimize(MAXMID, options("cpu"), filename="t.mlir", passes=["dead-carried"])
    assert buffers_dropped(res) == ["[DEAD VALUE] a buffer read only by its own update is never used: removed "
                                    "(memref.alloc@5:10, 4 ops)"]
    assert "i64" not in res.text and "arith.cmpf" not in res.text and "arith.maximumf" in res.text
    assert_same_results(MAXMID, res.text, seed=3)


def test_the_max_over_a_middle_dimension_then_register_tiles():
    res = optimize(MAXMID, options("cpu"), filename="t.mlir")
    assert buffers_dropped(res) and "i64" not in res.text and "vector<8xf32>" in res.text
    assert_same_results(MAXMID, res.text, seed=3)


@pytest.mark.parametrize("src", [MID_READ_AFTER, MID_FEEDS_OUTPUT, MID_FEEDS_VALUE],
                         ids=["read after the loop", "a load stored elsewhere", "a load feeds the value"])
def test_a_buffer_something_else_reads_is_kept(src):
    for passes in (["dead-carried"], None):
        res = optimize(src, options("cpu"), filename="t.mlir", **({"passes": passes} if passes else {}))
        assert not buffers_dropped(res) and "xi64>" in res.text.split("affine.for")[0]
        assert_same_results(src, res.text, seed=4)


@pytest.mark.parametrize("src", [MID_RETURNED, MID_CALLED], ids=["returned", "passed to a call"])
def test_a_buffer_that_escapes_is_kept(src):
    res = optimize(src, options("cpu"), filename="t.mlir", passes=["dead-carried"])
    assert not buffers_dropped(res) and "arith.select" in res.text and "memref.alloc" in res.text


@needs_runner
@pytest.mark.parametrize("src", [MAXMID, MID_READ_AFTER, MID_FEEDS_VALUE], ids=["dead", "read after", "feeds value"])
def test_natively_a_dead_buffers_results_stay(src):
    from loopopt.testing import native_mismatch
    res = optimize(src, options("cpu"), filename="t.mlir")
    assert native_mismatch(src, res.text) is None
