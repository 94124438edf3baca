"""Issue 10, classes 2/6/8/10/11 in the transforms: buffer shrinking and contraction, vectorized
chains, LICM of ops that divide by a symbol, dead-iteration elimination.

Each adversarial program is one a naive transform gets wrong (results change); each positive
program shows that the legal case still transforms. Every test checks the output IR and the
results before/after (reference interpreter); `test_native_before_and_after` runs a sample with
mlir-runner too.
"""
from __future__ import annotations

import re

import pytest

from loopopt import driver, mlir
from loopopt.analysis.affine import Scope
from loopopt.options import TARGETS, Options
from loopopt.testing import assert_same_results
from loopopt.toolchain import find_tool, verify_with_mlir_opt
from loopopt.transforms import pair_restructuring as pr
from loopopt.transforms.licm import may_trap


def optimize(src: str, target: str = "cpu", sizes=None, seed: int = 3):
    """Run loopopt; the output must verify, leave no [INTERNAL] remark and compute what `src` does."""
    res = driver.optimize(src, Options(target=TARGETS[target]), "t.mlir")
    internal = [r.message for r in res.remarks if r.message.startswith("[INTERNAL]")]
    assert not internal, internal
    module = mlir.parse_module(res.text)  # kept alive while verified
    assert mlir.verify(module.operation) is None
    if find_tool("mlir-opt"):
        assert verify_with_mlir_opt(res.text) is None
    assert_same_results(src, res.text, seed=seed, sizes=sizes)
    return res


def allocs(text: str) -> list[str]:
    """The memref types of every memref.alloc in the output."""
    return re.findall(r"memref\.alloc\(\) : (memref<[^>]*>)", text)


def kept(res) -> list[str]:
    return [m for m in res.remarks.messages("contraction") if m.startswith("[CONTRACTION] kept")]


# ----------------------------------------------------------------- class 11: LICM and traps

TRAPS = {
    "mod": "    %v = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%x)[%m]\n",
    "floordiv": "    %v = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%x)[%m]\n",
    "ceildiv": "    %v = affine.apply affine_map<(d0)[s0] -> (d0 ceildiv s0)>(%x)[%m]\n",
    "min": "    %v = affine.min affine_map<(d0)[s0] -> (d0 floordiv s0, 5)>(%x)[%m]\n",
    "if": ("    %v = affine.if affine_set<(d0)[s0] : (d0 floordiv s0 - 1 >= 0)>(%x)[%m] -> index {\n"
           "      affine.yield %x : index\n    } else {\n      affine.yield %m : index\n    }\n"),
    "inner-for": ("    %v = affine.for %j = 0 to affine_map<()[s0, s1] -> (s0 floordiv s1)>()[%x, %m]"
                  " iter_args(%acc = %m) -> (index) {\n"
                  "      %s = arith.addi %acc, %x : index\n      affine.yield %s : index\n    }\n"),
}


def trap_program(trap: str, upper: str) -> str:
    return f"""
func.func @f(%n: index, %m: index, %x: index, %out: memref<16xindex>) {{
  affine.for %i = 0 to {upper} {{
{TRAPS[trap]}    affine.store %v, %out[%i] : memref<16xindex>
  }}
  return
}}
"""


def _in_loop(text: str, op: str) -> bool:
    """True iff the op that defines the first result made by `op` sits inside the outer loop
    (by brace depth relative to the first `affine.for` statement)."""
    depth, loop_depth = 0, None
    for line in text.splitlines():
        if loop_depth is None and line.strip().startswith("affine.for"):
            loop_depth = depth
        if re.search(rf"= {re.escape(op)}\b", line) and "%" in line.split("=")[0]:
            return loop_depth is not None and depth > loop_depth
        depth += line.count("{") - line.count("}")
    raise AssertionError(f"{op} not found in {text}")


OP_OF = {"mod": "affine.apply", "floordiv": "affine.apply", "ceildiv": "affine.apply", "min": "affine.min",
         "if": "affine.if", "inner-for": "affine.for"}


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_division_by_a_symbol_stays_in_a_loop_that_may_not_run(trap):
    # With %n = 0 the loop never runs and %m = 0 is never a divisor; hoisted, it divides by 0.
    src = trap_program(trap, "%n")
    res = optimize(src, sizes={0: 0, 1: 0, 2: 7})
    assert _in_loop(src, OP_OF[trap]) and _in_loop(res.text, OP_OF[trap])
    assert any("may divide by zero" in m for m in res.remarks.messages("licm")), res.remarks.messages("licm")
    assert_same_results(src, res.text, seed=5, sizes={1: 3})


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_division_by_a_symbol_leaves_a_loop_that_runs(trap):
    src = trap_program(trap, "16")
    res = optimize(src, sizes={1: 3})
    assert _in_loop(src, OP_OF[trap]) and not _in_loop(res.text, OP_OF[trap])


def test_division_by_a_constant_leaves_a_loop_that_may_not_run():
    src = trap_program("mod", "%n").replace("(d0)[s0] -> (d0 mod s0)>(%x)[%m]", "(d0) -> (d0 mod 4)>(%x)")
    res = optimize(src, sizes={0: 0, 1: 0})
    assert not _in_loop(res.text, "affine.apply")


def test_may_trap_reads_maps_and_sets():
    module = mlir.parse_module(trap_program("if", "%n") + trap_program("mod", "%n").replace("@f", "@g").replace(
        "(d0)[s0] -> (d0 mod s0)>(%x)[%m]", "(d0) -> (d0 mod 4)>(%x)"))
    ops = {(mlir.func_name(f), o.name): o for f in mlir.functions(module) for o in mlir.walk(f)}
    assert may_trap(ops[("f", "affine.if")])
    assert not may_trap(ops[("g", "affine.apply")])
    assert not may_trap(ops[("f", "affine.for")])  # `0 to %n` divides by nothing
