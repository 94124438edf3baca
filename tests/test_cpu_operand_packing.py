"""Issue 24, GEMMs: a product's operand walked across rows along the lanes loop is packed into
rows first (codegen/cpu/plan/packing.py, codegen/cpu/pack_operands.py), so the register tiling takes
the product (torch's Linear weights, W[j, k], once fusion reads them in place of torch-mlir's
transposed copy; attention's K[b, j, d]).

Each rewrite is checked on its IR, bit for bit in the reference interpreter and natively; each
refusal leaves the program as it was; the write guard is shown to be needed (mutation check).
"""
from __future__ import annotations

import pytest

from loopopt import driver, mlir, native
from loopopt.codegen.cpu.plan import packing
from loopopt.codegen.cpu.plan.packing import plan_operand_packs
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.codegen.cpu.pack_operands import pack_operands_function

CPU = Options(target=TARGETS["cpu"])
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def linear(order: str = "ijk", m: int = 12, n: int = 48, k: int = 32, w_type: str = "", extra: str = "",
           outer: str = "") -> str:
    """C[i, j] += A[i, k] * W[j, k] with the loops in `order` (a Linear layer, x @ W^T)."""
    w_type = w_type or f"memref<{n}x{k}xf32>"
    bounds = {"i": m, "j": n, "k": k}
    head = "".join(f"{'  ' * d}  affine.for %{v} = 0 to {bounds[v]} {{\n" for d, v in enumerate(order))
    pad = "  " * (len(order) + 1)
    body = (f"{pad}%a = affine.load %A[%i, %k] : memref<{m}x{k}xf32>\n"
            f"{pad}%w = affine.load %W[%j, %k] : {w_type}\n"
            f"{pad}%c = affine.load %C[%i, %j] : memref<{m}x{n}xf32>\n"
            f"{pad}%p = arith.mulf %a, %w : f32\n{pad}%s = arith.addf %c, %p : f32\n"
            f"{pad}affine.store %s, %C[%i, %j] : memref<{m}x{n}xf32>\n{extra}")
    tail = "".join(f"{'  ' * d}  }}\n" for d in reversed(range(len(order))))
    return (f"func.func @f(%A: memref<{m}x{k}xf32>, %W: {w_type}, %C: memref<{m}x{n}xf32>{outer}) {{\n"
            + head + body + tail + "  return\n}\n")


def pack(src: str) -> tuple[str, list[str]]:
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            pack_operands_function(fn, CPU, log, "t.mlir")
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), log.messages()


def planned(src: str) -> int:
    module = mlir.parse_module(src)
    with module.context:
        return len(plan_operand_packs(mlir.functions(module)[0]))


@pytest.mark.parametrize("order", ["ijk", "kij", "jik"])
def test_a_transposed_weight_is_packed_into_rows_with_the_same_results(order):
    src = linear(order)
    out, remarks = pack(src)
    assert remarks == ["[PACK] operand %arg1 copied before the product into a 32x48 buffer whose rows run along the "
                       "lanes loop"], remarks
    assert "memref.alloc() {alignment = 64 : i64} : memref<32x48xf32>" in out and "memref.dealloc" in out
    assert "affine.load %arg1[%arg4, %arg3]" in out or "affine.load %arg1[" in out
    assert_same_results(src, out, seed=1)


def test_the_packed_product_is_register_tiled_by_the_driver_and_stays_bit_exact():
    src = linear("ijk")
    res = driver.optimize(src, CPU, explain=True)
    msgs = res.remarks.messages()
    assert any(m.startswith("[PACK]") for m in msgs) and any(m.startswith("[REGISTER TILING]") for m in msgs), msgs
    assert verify_with_mlir_opt(res.text) is None
    assert_same_results(src, res.text, seed=2)


def test_a_batch_loop_the_index_uses_keeps_the_copy_inside_it():
    src = """func.func @qk(%Q: memref<2x12x32xf32>, %K: memref<2x48x32xf32>, %S: memref<2x12x48xf32>) {
  affine.for %b = 0 to 2 {
    affine.for %i = 0 to 12 {
      affine.for %j = 0 to 48 {
        affine.for %d = 0 to 32 {
          %q = affine.load %Q[%b, %i, %d] : memref<2x12x32xf32>
          %k = affine.load %K[%b, %j, %d] : memref<2x48x32xf32>
          %s = affine.load %S[%b, %i, %j] : memref<2x12x48xf32>
          %p = arith.mulf %q, %k : f32
          %t = arith.addf %s, %p : f32
          affine.store %t, %S[%b, %i, %j] : memref<2x12x48xf32>
        }
      }
    }
  }
  return
}
"""
    out, remarks = pack(src)
    assert len(remarks) == 1
    lines = [ln.strip() for ln in out.splitlines()]
    outer = lines.index(next(ln for ln in lines if ln.startswith("affine.for %arg3 = 0 to 2")))
    alloc = lines.index(next(ln for ln in lines if "memref.alloc()" in ln))
    assert alloc > outer  # the copy runs once per batch, inside the batch loop
    assert_same_results(src, out, seed=3)


NO_ROW_LOOP = """func.func @f(%a: memref<32xf32>, %W: memref<48x32xf32>, %c: memref<48xf32>) {
  affine.for %j = 0 to 48 {
    affine.for %k = 0 to 32 {
      %x = affine.load %a[%k] : memref<32xf32>
      %w = affine.load %W[%j, %k] : memref<48x32xf32>
      %s = affine.load %c[%j] : memref<48xf32>
      %p = arith.mulf %x, %w : f32
      %t = arith.addf %s, %p : f32
      affine.store %t, %c[%j] : memref<48xf32>
    }
  }
  return
}
"""


@pytest.mark.parametrize("src, why", [
    (NO_ROW_LOOP, "a matrix-vector product: no row loop to reuse the copy over"),
    (linear("ijk", w_type="memref<?x?xf32>"), "a dynamic shape: the copy's reads cannot be shown in bounds"),
    (linear("ijk", n=4), "J shorter than MIN_PACK_TRIPS"),
])
def test_refusals_leave_the_product_as_it_is(src, why):
    out, remarks = pack(src)
    assert remarks == [], why
    assert planned(src) == 0, why


def test_a_row_operand_is_not_packed():
    """A[i, k] walks i across rows too, but the product's store does not walk i contiguously:
    i is not the lanes loop, so A stays."""
    out, remarks = pack(linear("ijk"))
    assert len(remarks) == 1 and "%arg1" in remarks[0]  # W, not A (%arg0)


# The nest also updates W (after reading it for the product): the copy, taken before the nest,
# would miss the updates of earlier rows.
WRITES_W = linear("ijk", extra="""      %w2 = affine.load %W[%j, %k] : memref<48x32xf32>
      %w3 = arith.addf %w2, %a : f32
      affine.store %w3, %W[%j, %k] : memref<48x32xf32>
""")


def test_a_nest_that_writes_the_operand_is_not_packed():
    assert planned(WRITES_W) == 0
    out, remarks = pack(WRITES_W)
    assert remarks == []


def test_the_write_guard_is_needed(monkeypatch):
    """Mutation check: without the write check the nest above is packed and computes other results."""
    class NoWrites:
        unknown = False

        def may_write(self, key):
            return False

    monkeypatch.setattr(packing, "op_effects", lambda op: NoWrites())
    out, remarks = pack(WRITES_W)
    assert remarks, "the mutant packs"
    with pytest.raises(AssertionError):
        assert_same_results(WRITES_W, out, seed=5)


@has_runner
def test_packed_products_compute_the_same_results_natively():
    for src in (linear("ijk", m=30, n=64, k=40), linear("kij", m=30, n=64, k=40)):
        out = driver.optimize(src, CPU).text
        assert "memref<40x64xf32>" in out
        want = native.run_native(src, "f", [None] * 3, reps=1).outputs
        got = native.run_native(out, "f", [None] * 3, reps=1).outputs
        assert native.compare_outputs(want, got) is None


def random_product(rng) -> str:
    """A product nest in a random loop order with a random operand index (transposed, shifted,
    batch-free), sometimes updating the operand or reading it at a second place in the nest."""
    m, n, k = rng.choice([3, 5]), rng.choice([8, 16]), rng.choice([8, 12])
    order = rng.choice(["ijk", "ikj", "kij", "jik", "jki", "kji"])
    w_index = rng.choice(["%j, %k", "%j, %k", "%j + 1, %k", "%k, %j", "%j, %k + 2", "%j floordiv 2, %k"])
    w_rows, w_cols = n + 2, k + 3
    if w_index == "%k, %j":
        w_rows, w_cols = k + 3, n + 2
    extra = ""
    roll = rng.random()
    if roll < 0.2:
        extra = (f"{'  ' * 4}%u = affine.load %W[{w_index}] : memref<{w_rows}x{w_cols}xf32>\n"
                 f"{'  ' * 4}%u2 = arith.addf %u, %a : f32\n"
                 f"{'  ' * 4}affine.store %u2, %W[{w_index}] : memref<{w_rows}x{w_cols}xf32>\n")
    elif roll < 0.35:
        at = "%k, %i" if w_index == "%k, %j" else "%i, %k"
        extra = f"{'  ' * 4}affine.store %a, %W[{at}] : memref<{w_rows}x{w_cols}xf32>\n"
    src = linear(order, m=m, n=n, k=k, w_type=f"memref<{w_rows}x{w_cols}xf32>", extra=extra)
    return src.replace("affine.load %W[%j, %k]", f"affine.load %W[{w_index}]", 1)


def test_random_products_keep_their_results_through_the_driver():
    """Legality fuzzing: 30 random product nests (loop orders, operand layouts, writes to the
    operand inside the nest) through the whole cpu pipeline against the reference interpreter.
    With the write guard disabled (op_effects answering "writes nothing") this test fails; with
    the bounds guard disabled, test_refusals_leave_the_product_as_it_is does."""
    import random

    rng = random.Random(2424)
    packed = 0
    for case in range(30):
        src = random_product(rng)
        res = driver.optimize(src, CPU, explain=True)
        packed += any(m.startswith("[PACK]") for m in res.remarks.messages())
        assert_same_results(src, res.text, seed=case)
    assert packed >= 5, packed


def test_a_call_in_the_nest_keeps_the_operand_in_place():
    """The callee may write W (its effects are not modelled): the copy taken before the nest
    could then be stale, so nothing is packed."""
    src = linear("ijk", extra="      func.call @touch(%W) : (memref<48x32xf32>) -> ()\n").replace(
        "func.func @f(", "func.func private @touch(memref<48x32xf32>)\nfunc.func @f(")
    assert planned(src) == 0
    out, remarks = pack(src)
    assert remarks == [] and "memref.alloc" not in out
