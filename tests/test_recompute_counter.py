"""Issue 33: the recompute rescue with a producer that stores its own induction variable.

A producer that stores its loop counter (`T[i] = i`, an index buffer; `T[i, j] = j` at depth),
directly, through `arith.index_cast` or through arithmetic, is recomputed at each read of its
consumer with the counter remapped: the read's index names the producer iteration that wrote the
element, and the recomputed value is that iteration's counter. Before the fix the counter was
passed through unchanged and the producer erased: the consumer used a value of a freed loop, and
the per-step verification crashed the process (SIGSEGV, exit 139; with the erase check of
tests/conftest.py, ErasedOpInUse naming the step). Each program runs through the CLI in a child
process (a crash shows as its exit code), then natively (mlir-runner) against the input.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from loopopt import mlir, native
from loopopt.analysis.affine import Scope
from loopopt.analysis.loops import loops_in_block
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.loop_optimization import pair_restructuring as pr
from fusion_util import optimize_checked

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
has_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")

# 1-D: the producer writes T[i] = f(i), the consumer reads T[15 - i] (a negative distance:
# recomputed). f: the counter itself, its cast, or arithmetic on it.
ONE_D = """func.func @f(%out: memref<16x{T}>) {{
  %c3 = arith.constant 3 : index
  %t = memref.alloc() : memref<16x{T}>
  affine.for %i = 0 to 16 {{
{VALUE}
    affine.store %v, %t[%i] : memref<16x{T}>
  }}
  affine.for %i = 0 to 16 {{
    %x = affine.load %t[15 - %i] : memref<16x{T}>
    affine.store %x, %out[%i] : memref<16x{T}>
  }}
  memref.dealloc %t : memref<16x{T}>
  return
}}
"""
VALUES = {
    "stored": ("index", "", True),
    "index_cast": ("i32", "    %v = arith.index_cast %i : index to i32", False),
    "arithmetic": ("i64", "    %m = arith.muli %i, %c3 : index\n    %n = arith.subi %m, %c3 : index\n"
                          "    %v = arith.index_cast %n : index to i64", False),
    "float": ("f32", "    %k = arith.index_cast %i : index to i32\n    %v = arith.sitofp %k : i32 to f32", False),
}


def one_d(kind: str) -> str:
    elem, value, direct = VALUES[kind]
    text = ONE_D.format(T=elem, VALUE=value)
    if direct:  # the counter itself is the stored value
        text = text.replace("\n\n", "\n").replace("affine.store %v, %t[%i]", "affine.store %i, %t[%i]")
    return text


# 2-D, the whole nest recomputed: T[i, j] = j (or i), read transposed and reversed.
TWO_D = """func.func @f(%out: memref<8x8xindex>) {
  %t = memref.alloc() : memref<8x8xindex>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %COUNTER, %t[%i, %j] : memref<8x8xindex>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %t[7 - %j, 7 - %i] : memref<8x8xindex>
      affine.store %x, %out[%i, %j] : memref<8x8xindex>
    }
  }
  memref.dealloc %t : memref<8x8xindex>
  return
}
"""

# 2-D at depth: the outer loops fuse, the inner j loops (8 and 4 trips) do not; each consumer
# iteration recomputes the producer iteration it reads. %i is an IV of the fused loop (shared).
AT_DEPTH = """func.func @f(%out: memref<8x4xi64>) {
  %t = memref.alloc() : memref<8x8xi64>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %s = arith.addi %i, %COUNTER : index
      %v = arith.index_cast %s : index to i64
      affine.store %v, %t[%i, %j] : memref<8x8xi64>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %x = affine.load %t[%i, 7 - %j] : memref<8x8xi64>
      affine.store %x, %out[%i, %j] : memref<8x4xi64>
    }
  }
  memref.dealloc %t : memref<8x8xi64>
  return
}
"""

PROGRAMS = {
    **{f"1d-{kind}": one_d(kind) for kind in VALUES},
    "2d-inner": TWO_D.replace("%COUNTER", "%j"),
    "2d-outer": TWO_D.replace("%COUNTER", "%i"),
    "at-depth-inner": AT_DEPTH.replace("%COUNTER", "%j"),
    "at-depth-direct": AT_DEPTH.replace("      %s = arith.addi %i, %COUNTER : index\n", "")
                               .replace("arith.index_cast %s", "arith.index_cast %j"),
}


def run_cli(src: str, tmp_path, *flags: str) -> tuple[subprocess.CompletedProcess, str | None]:
    path = tmp_path / "in.mlir"
    path.write_text(src)
    out = tmp_path / "out.mlir"
    env = dict(os.environ, PYTHONPATH=ROOT, MALLOC_PERTURB_="165")
    p = subprocess.run([sys.executable, "-m", "loopopt", str(path), "--target", "cpu", "--remarks", "-o", str(out),
                        *flags], env=env, capture_output=True, text=True, timeout=300)
    return p, out.read_text() if out.exists() else None


@has_runner
@pytest.mark.parametrize("name", list(PROGRAMS))
@pytest.mark.parametrize("flags", [("--passes", "fuse"), ()], ids=["fuse", "default"])
def test_a_stored_counter_is_recomputed_as_the_read_iteration_s_counter(name, flags, tmp_path):
    src = PROGRAMS[name]
    p, text = run_cli(src, tmp_path, *flags)
    assert p.returncode == 0, (p.returncode, p.stderr[-3000:])  # 139 before the fix
    assert "[INTERNAL]" not in p.stderr, p.stderr
    assert "[RECOMPUTE] producer" in p.stderr, p.stderr
    assert text is not None and "memref.alloc" not in text, text
    assert verify_with_mlir_opt(text) is None
    assert_same_results(src, text)
    want = native.run_native(src, "f", [None], reps=1, warmup=0).outputs
    got = native.run_native(text, "f", [None], reps=1, warmup=0).outputs
    assert native.compare_outputs(want, got) is None


def test_the_recomputed_counter_is_the_apply_of_the_read_index():
    res = optimize_checked(PROGRAMS["1d-stored"], passes=["fuse"])
    text = res.text
    assert "affine.apply #map(%arg1)" in text and "affine.store %0, %arg0[%arg1] : memref<16xindex>" in text, text
    assert "#map = affine_map<(d0) -> (-d0 + 15)>" in text


def _plan(text: str):
    module = mlir.parse_module(text)
    loops = loops_in_block(mlir.func_body(mlir.functions(module)[0]))
    return module, pr.plan_recompute(loops[0], loops[-1], Scope())


TRIANGULAR = """func.func @f(%out: memref<8x8xf32>) {
  %c = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %c, %t[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %x = affine.load %t[7 - %i, %j] : memref<8x8xf32>
      affine.store %x, %out[%i, %j] : memref<8x8xf32>
    }
  }
  memref.dealloc %t : memref<8x8xf32>
  return
}
"""


def test_a_counter_used_where_nothing_is_recomputed_refuses_with_a_remark():
    """An inner loop bounded by the outer counter: no read stands for that use of it."""
    src = TRIANGULAR.replace("    affine.for %j = 0 to 8 {\n      affine.store %c",
                             "    affine.for %j = 0 to affine_map<(d0) -> (d0 + 1)>(%i) {\n      affine.store %c", 1)
    _, (plan, why) = _plan(src)
    assert plan is None and why.startswith(pr.UNMAPPED) and "used by affine.for" in why, why
    res = optimize_checked(src, passes=["fuse"])
    refused = [r for r in res.remarks if r.message.startswith("[RECOMPUTE] not recomputed")]
    assert refused and "the induction variable %i" in refused[0].message, [r.message for r in res.remarks]
    assert res.text.count("affine.for") == 4  # nothing recomputed


def test_remap_refusal_names_a_value_of_the_producer_s_loops_that_is_not_recomputed():
    """What a read cannot stand for: a value the producer's loops define outside the ops that are
    recomputed (here the body is given without its first op)."""
    module = mlir.parse_module(PROGRAMS["1d-arithmetic"])
    producer = loops_in_block(mlir.func_body(mlir.functions(module)[0]))[0]
    ivs = (producer.regions[0].blocks[0].arguments[0],)
    inner = mlir.block_ops(producer.regions[0].blocks[0])[:-1]
    store = inner[-1]
    assert pr.remap_refusal(producer, ivs, tuple(inner[:-1]), store) is None
    why = pr.remap_refusal(producer, ivs, tuple(inner[1:-1]), store)
    assert why is not None and why.startswith(pr.UNMAPPED) and "defined by arith.muli" in why, why
