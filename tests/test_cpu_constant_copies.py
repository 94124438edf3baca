"""Issue 24: copies of constants evaluated at compile time (codegen/cpu/plan/constant_copies.py,
codegen/cpu/fold_constant_copies.py, step fold-constant-copies).

Each fold is checked on its IR and for its results (reference interpreter, and natively with
mlir-runner: the interpreter reads the `dense_resource` blobs through the same helper as the
transform, mlir-runner through MLIR's own parser). Each refusal leaves the IR as it was, and the
guard that the buffer is only read after the nest is shown to be needed: without it the fold
drops a later write.
"""
from __future__ import annotations

import struct

import pytest

import loopopt
from loopopt import mlir
from loopopt.codegen.cpu.plan import constant_copies
from loopopt.options import TARGETS, Options
from loopopt.remarks import RemarkLog
from loopopt.testing import assert_same_results, optimize_and_compare
from loopopt.toolchain import find_tool
from loopopt.codegen.cpu.fold_constant_copies import evaluate_copy, fold_constant_copies_function

CPU = Options(target=TARGETS["cpu"])
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def blob(values, fmt="f") -> str:
    """A dense_resource blob's hex: the 4-byte alignment header, then the little-endian elements."""
    size = struct.calcsize(fmt)
    return "0x" + struct.pack("<I", size).hex().upper() + struct.pack(f"<{len(values)}{fmt}", *values).hex().upper()


def program(body: str, globals_: str, blobs: dict[str, str], args: str = "%out: memref<8x6xf32>") -> str:
    trailer = ""
    if blobs:
        entries = ",\n".join(f'      {k}: "{v}"' for k, v in blobs.items())
        trailer = "\n{-#\n  dialect_resources: {\n    builtin: {\n" + entries + "\n    }\n  }\n#-}\n"
    return f"""module {{
{globals_}
  func.func @f({args}) {{
{body}
    return
  }}
}}
{trailer}"""


W = [float(k) * 0.5 - 3.0 for k in range(48)]
GLOBAL_W = '  memref.global "private" constant @w : memref<6x8xf32> = dense_resource<w_blob> {alignment = 64 : i64}'
TRANSPOSE = """    %w = memref.get_global @w : memref<6x8xf32>
    %t = memref.alloc() : memref<8x6xf32>
    affine.for %i = 0 to 6 {
      affine.for %j = 0 to 8 {
        %v = affine.load %w[%i, %j] : memref<6x8xf32>
        affine.store %v, %t[%j, %i] : memref<8x6xf32>
      }
    }
    affine.for %a = 0 to 8 {
      affine.for %b = 0 to 6 {
        %x = affine.load %t[%a, %b] : memref<8x6xf32>
        %y = arith.mulf %x, %x : f32
        affine.store %y, %out[%a, %b] : memref<8x6xf32>
      }
    }
    memref.dealloc %t : memref<8x6xf32>"""


def fold(src: str, until_done: bool = False) -> tuple[str, list[str]]:
    """The step on every function once, or with until_done as the step runs it: again until a
    round folds nothing (a refilled buffer's second fill)."""
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            while fold_constant_copies_function(fn, CPU, log, "t.mlir") and until_done:
                pass
        assert mlir.verify(module.operation) is None
        return module.operation.get_asm(large_resource_limit=None), log.messages()


def fold_until_done(src: str) -> tuple[str, list[str]]:
    return fold(src, until_done=True)


def loop_count(text: str) -> int:
    return text.count("affine.for")


def test_evaluate_copy_is_the_permutation_the_nest_runs():
    data = struct.pack("<6I", *range(6))  # src 2 x 3
    copy = constant_copies.ConstantCopy((), None, None, None, trips=(2, 3), load_ivs=(0, 1), store_ivs=(1, 0), deallocs=())
    out = struct.unpack("<6I", evaluate_copy(copy, data, [2, 3], [3, 2], 4))
    assert out == (0, 3, 1, 4, 2, 5)  # dst[j, i] = src[i, j]
    bcast = constant_copies.ConstantCopy((), None, None, None, trips=(2, 3), load_ivs=(1,), store_ivs=(0, 1), deallocs=())
    assert struct.unpack("<6I", evaluate_copy(bcast, struct.pack("<3I", 7, 8, 9), [3], [2, 3], 4)) == (7, 8, 9, 7, 8, 9)


def test_a_transposed_constant_is_evaluated_and_keeps_its_results():
    src = program(TRANSPOSE, GLOBAL_W, {"w_blob": blob(W)})
    c = optimize_and_compare(src, "f", transform=fold, natively=False)  # natively: the next test
    out, remarks = c.text, c.messages
    assert loop_count(out) == 2, out
    assert "memref.alloc" not in out and "memref.dealloc" not in out, out
    assert 'memref.global "private" constant @w_folded0 : memref<8x6xf32> = dense_resource<w_blob_folded>' in out, out
    assert 'constant @w :' in out, "the source global stays until every function is done"
    assert any("[FOLD CONSTANT COPY] the copy of @w into the buffer it fills is evaluated at compile time" in r
               and "@w_folded0 (192 bytes)" in r for r in remarks), remarks


@has_runner
def test_the_folded_constant_runs_natively_as_the_copy_did():
    src = program(TRANSPOSE, GLOBAL_W, {"w_blob": blob(W)})
    assert optimize_and_compare(src, "f", transform=fold, interpret=False, natively=True).native


def test_three_dimensional_permutation_and_broadcast_fold():
    globals_ = ('  memref.global "private" constant @k : memref<2x3x4xf32> = dense_resource<k_blob>\n'
                '  memref.global "private" constant @b : memref<6xf32> = dense_resource<b_blob>')
    body = """    %k = memref.get_global @k : memref<2x3x4xf32>
    %b = memref.get_global @b : memref<6xf32>
    %t = memref.alloc() : memref<3x2x4xf32>
    %r = memref.alloc() : memref<8x6xf32>
    affine.for %i = 0 to 2 {
      affine.for %j = 0 to 3 {
        affine.for %l = 0 to 4 {
          %v = affine.load %k[%i, %j, %l] : memref<2x3x4xf32>
          affine.store %v, %t[%j, %i, %l] : memref<3x2x4xf32>
        }
      }
    }
    affine.for %p = 0 to 8 {
      affine.for %q = 0 to 6 {
        %v = affine.load %b[%q] : memref<6xf32>
        affine.store %v, %r[%p, %q] : memref<8x6xf32>
      }
    }
    affine.for %a = 0 to 8 {
      affine.for %c = 0 to 6 {
        %x = affine.load %t[%c floordiv 2, %c mod 2, %a floordiv 2] : memref<3x2x4xf32>
        %y = affine.load %r[%a, %c] : memref<8x6xf32>
        %z = arith.addf %x, %y : f32
        affine.store %z, %out[%a, %c] : memref<8x6xf32>
      }
    }"""
    src = program(body, globals_, {"k_blob": blob([k * 1.25 for k in range(24)]),
                                   "b_blob": blob([-1.0, 2.5, 3.0, 0.25, 7.0, -8.0])})
    c = optimize_and_compare(src, "f", transform=fold)
    out, remarks = c.text, c.messages
    assert loop_count(out) == 2 and "memref.alloc" not in out, out
    assert sum("[FOLD CONSTANT COPY]" in r for r in remarks) == 2


def test_a_splat_constant_folds_to_a_splat():
    globals_ = '  memref.global "private" constant @s : memref<6x8xf32> = dense<1.500000e+00>'
    src = program(TRANSPOSE.replace("@w", "@s"), globals_, {})
    out = optimize_and_compare(src, "f", transform=fold, natively=False).text
    assert 'memref.global "private" constant @s_folded0 : memref<8x6xf32> = dense<1.500000e+00>' in out, out


def test_the_driver_erases_a_source_global_nothing_reads():
    src = program(TRANSPOSE, GLOBAL_W, {"w_blob": blob(W)})
    out = optimize_and_compare(src, "f", passes=["fold-constant-copies"], natively=False).text
    assert "@w_folded0" in out and "constant @w :" not in out, out


def test_a_source_global_still_read_elsewhere_stays():
    body = TRANSPOSE + """
    affine.for %a = 0 to 6 {
      %x = affine.load %w[%a, 0] : memref<6x8xf32>
      affine.store %x, %out[0, %a] : memref<8x6xf32>
    }"""
    src = program(body, GLOBAL_W, {"w_blob": blob(W)})
    out = optimize_and_compare(src, "f", passes=["fold-constant-copies"], natively=False).text
    assert "@w_folded0" in out and 'constant @w :' in out, out


REFUSED = {
    "written again after the copy": (TRANSPOSE.replace("    memref.dealloc", """    %c = arith.constant 9.0 : f32
    affine.store %c, %t[0, 0] : memref<8x6xf32>
    memref.dealloc""")),
    "read before the copy": TRANSPOSE.replace("    affine.for %i = 0 to 6 {", """    %early = affine.load %t[0, 0] : memref<8x6xf32>
    affine.store %early, %out[1, 1] : memref<8x6xf32>
    affine.for %i = 0 to 6 {""", 1),
    "passed to a call": TRANSPOSE.replace("    memref.dealloc", "    func.call @g(%t) : (memref<8x6xf32>) -> ()\n    memref.dealloc"),
    "part of the buffer written": TRANSPOSE.replace("affine.for %i = 0 to 6", "affine.for %i = 0 to 5"),
    "arithmetic in the copy": TRANSPOSE.replace("        affine.store %v, %t[%j, %i]",
                                                "        %v2 = arith.negf %v : f32\n        affine.store %v2, %t[%j, %i]"),
    "an index that is not an IV": TRANSPOSE.replace("affine.load %w[%i, %j]", "affine.load %w[%i, 7 - %j]"),
    "a loop not from 0": TRANSPOSE.replace("affine.for %j = 0 to 8", "affine.for %j = 1 to 8"),
    "a view of the buffer": TRANSPOSE.replace("    memref.dealloc", """    %view = memref.subview %t[0, 0] [4, 6] [1, 1] : memref<8x6xf32> to memref<4x6xf32, strided<[6, 1]>>
    %c = arith.constant 9.0 : f32
    affine.store %c, %view[0, 0] : memref<4x6xf32, strided<[6, 1]>>
    memref.dealloc"""),
    "a vector store after the copy": TRANSPOSE.replace("    memref.dealloc", """    %vc = arith.constant dense<9.0> : vector<4xf32>
    affine.vector_store %vc, %t[0, 0] : memref<8x6xf32>, vector<4xf32>
    memref.dealloc"""),
    "a bound of two results": TRANSPOSE.replace("affine.for %j = 0 to 8 {", "affine.for %j = 0 to min affine_map<() -> (8, 9)>() {"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_leave_the_nest(name):
    decl = "\n  func.func private @g(memref<8x6xf32>)" if "call" in name else ""
    src = program(REFUSED[name], GLOBAL_W + decl, {"w_blob": blob(W)})
    out, remarks = fold(src)
    assert "folded" not in out and not remarks, (name, remarks)
    assert loop_count(out) == loop_count(src)


def test_a_global_that_is_not_constant_is_not_folded():
    src = program(TRANSPOSE, GLOBAL_W.replace(" constant", ""), {"w_blob": blob(W)})
    out, remarks = fold(src)
    assert "folded" not in out and not remarks


def test_i1_elements_are_not_folded():
    body = TRANSPOSE.replace("f32>", "i1>").replace("%y = arith.mulf %x, %x : f32", "%y = arith.xori %x, %x : i1")
    body = body.replace("%out[%a, %b] : memref<8x6xi1>", "%out[%a, %b] : memref<8x6xi1>")
    src = program(body, GLOBAL_W.replace("f32", "i1"), {"w_blob": "0x01000000" + "01" * 48},
                  args="%out: memref<8x6xi1>")
    out, remarks = fold(src)
    assert "folded" not in out and not remarks


def test_the_later_reads_guard_is_needed(monkeypatch):
    """Without the rule that the buffer is only read after the nest, a later write to it is lost."""
    src = program(REFUSED["written again after the copy"], GLOBAL_W, {"w_blob": blob(W)})
    monkeypatch.setattr(constant_copies, "later_uses",
                        lambda store, loop: ([u for u in (mlir.operation(x.owner) for x in store.operands[1].uses)
                                              if u.name == "memref.dealloc"], None))
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        assert fold_constant_copies_function(fn, CPU, RemarkLog(), "t.mlir") == 1
        assert mlir.verify(module.operation) is None
        mutated = module.operation.get_asm(large_resource_limit=None)
    with pytest.raises(AssertionError, match="read-only"):  # the later store now writes the constant
        assert_same_results(src, mutated)


GLOBAL_W2 = GLOBAL_W + '\n  memref.global "private" constant @w2 : memref<6x8xf32> = dense_resource<w2_blob> {alignment = 64 : i64}'
W2 = [float(k) * -0.25 + 1.0 for k in range(48)]
REFILL = TRANSPOSE.replace("    memref.dealloc %t : memref<8x6xf32>", """    %w2 = memref.get_global @w2 : memref<6x8xf32>
    affine.for %i = 0 to 6 {
      affine.for %j = 0 to 8 {
        %v = affine.load %w2[%i, %j] : memref<6x8xf32>
        affine.store %v, %t[%j, %i] : memref<8x6xf32>
      }
    }
    affine.for %a = 0 to 8 {
      affine.for %b = 0 to 6 {
        %x = affine.load %t[%a, %b] : memref<8x6xf32>
        %y = arith.addf %x, %x : f32
        affine.store %y, %out2[%a, %b] : memref<8x6xf32>
      }
    }
    memref.dealloc %t : memref<8x6xf32>""")
TWO_OUTS = "%out: memref<8x6xf32>, %out2: memref<8x6xf32>"


def test_a_buffer_filled_twice_folds_both_fills():
    """One-shot bufferization gives two transposes of one shape one buffer (a GRU cell's weights):
    the reads before the second fill read the first constant, the rest the second."""
    src = program(REFILL, GLOBAL_W2, {"w_blob": blob(W), "w2_blob": blob(W2)}, args=TWO_OUTS)
    c = optimize_and_compare(src, "f", transform=fold_until_done, natively=False)  # natively: the next test
    out, remarks = c.text, c.messages
    assert sum("[FOLD CONSTANT COPY]" in r for r in remarks) == 2, remarks
    assert loop_count(out) == 4 and "memref.alloc" not in out, out
    assert "@w_folded0" in out and "@w2_folded0" in out


@has_runner
def test_a_buffer_filled_twice_runs_natively_as_before():
    src = program(REFILL, GLOBAL_W2, {"w_blob": blob(W), "w2_blob": blob(W2)}, args=TWO_OUTS)
    assert optimize_and_compare(src, "f", transform=fold_until_done, interpret=False, natively=True).native


def test_a_partial_refill_is_not_a_refill(monkeypatch):
    """A later nest that writes part of the buffer leaves the rest to the first fill: the first
    fill stays. Taking any later writer as a refill loses those elements."""
    partial = REFILL.replace("affine.load %w2[%i, %j]", "affine.load %w2[%i, %j]", 1)
    partial = partial.replace("    %w2 = memref.get_global @w2 : memref<6x8xf32>\n    affine.for %i = 0 to 6 {",
                              "    %w2 = memref.get_global @w2 : memref<6x8xf32>\n    affine.for %i = 0 to 3 {")
    src = program(partial, GLOBAL_W2, {"w_blob": blob(W), "w2_blob": blob(W2)}, args=TWO_OUTS)
    remarks = optimize_and_compare(src, "f", transform=fold_until_done, natively=False).messages
    assert not any("@w into" in r for r in remarks), remarks
    monkeypatch.setattr(constant_copies, "refill", lambda top, store: top)
    mutated, remarks = fold(src, until_done=True)
    assert any("@w into" in r for r in remarks), remarks
    with pytest.raises(AssertionError):
        assert_same_results(src, mutated)


def test_the_cpu_pipeline_folds_the_weights_of_a_lowered_linear_layer():
    from loopopt.frontend import fixtures

    fx = fixtures.load_fixture("mlp_relu_small")
    result = loopopt.optimize(fx.text, target="cpu", filename="mlp_relu_small.mlir")
    folded = [r.message for r in result.remarks if "[FOLD CONSTANT COPY]" in r.message]
    assert len(folded) == 2, folded
    assert "_folded0" in result.text


def test_other_targets_keep_the_copy():
    """The step table runs fold-constant-copies on the cpu target only, also when --passes names it."""
    from loopopt import driver

    src = program(TRANSPOSE, GLOBAL_W, {"w_blob": blob(W)})
    res = driver.optimize(src, Options(target=TARGETS["trn1"]), passes=["fold-constant-copies"])
    assert "_folded" not in res.text and not [r for r in res.remarks.remarks if r.pass_name == "fold-constant-copies"]


# torch-mlir's transpose of a weight with a trailing unit dimension (moe's 8 x 256 x 512 x 1 expert
# weights, section 75): a loop `0 to 1` inside, its IV added to the index it stands beside.
UNIT = TRANSPOSE.replace("""      affine.for %j = 0 to 8 {
        %v = affine.load %w[%i, %j] : memref<6x8xf32>
        affine.store %v, %t[%j, %i] : memref<8x6xf32>
      }""", """      affine.for %j = 0 to 8 {
        affine.for %u = 0 to 1 {
          %v = affine.load %w[%i, %j + %u] : memref<6x8xf32>
          affine.store %v, %t[%j, %i] : memref<8x6xf32>
        }
      }""")


def test_a_loop_of_one_iteration_added_to_an_index_folds():
    """Before, `%j + %u` was not an IV: the 4 MB transposed expert weights were copied every call."""
    src = program(UNIT, GLOBAL_W, {"w_blob": blob(W)})
    c = optimize_and_compare(src, "f", transform=fold)
    assert loop_count(c.text) == 2 and "memref.alloc" not in c.text, c.text
    assert any("[FOLD CONSTANT COPY]" in r and "@w_folded0 (192 bytes)" in r for r in c.messages), c.messages


WINDOWS = """    %w = memref.get_global @w : memref<6x8xf32>
    %t = memref.alloc() : memref<7x6x2xf32>
    affine.for %i = 0 to 6 {
      affine.for %j = 0 to 7 {
        affine.for %u = 0 to 2 {
          %v = affine.load %w[%i, %j + %u] : memref<6x8xf32>
          affine.store %v, %t[%j, %i, %u] : memref<7x6x2xf32>
        }
      }
    }
    affine.for %a = 0 to 7 {
      affine.for %b = 0 to 6 {
        %x = affine.load %t[%a, %b, 1] : memref<7x6x2xf32>
        affine.store %x, %out[%a, %b] : memref<8x6xf32>
      }
    }
    memref.dealloc %t : memref<7x6x2xf32>"""


def test_an_index_plus_a_longer_loop_is_not_an_iv():
    """t[j, i, u] = w[i, j + u] over u < 2 reads a window, not a permutation: it stays a copy (read
    as w[i, j] it would give t[j, i, 1] the wrong element)."""
    src = program(WINDOWS, GLOBAL_W, {"w_blob": blob(W)})
    out, remarks = fold(src)
    assert "memref.alloc" in out and not any("[FOLD CONSTANT COPY]" in r for r in remarks), out
    assert_same_results(src, out, func="f")
