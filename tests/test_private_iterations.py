"""Contraction's privacy check (`dependence.iterations_share_elements`, one relation per residue
class) gives the verdict of the pair-by-pair instance sets, on random nests and by hand."""
import random

import pytest

from loopopt import mlir
from loopopt.analysis.accesses import access_pattern
from loopopt.analysis.dependence import instance_pair, iterations_share_elements, pair_set
from loopopt.analysis.facts import Facts
from loopopt.loop_optimization.contraction import shrink_plan


def pairwise_share(accesses, fixed: int, depth: int, scope) -> bool:
    """Reference: one isl set per ordered pair of accesses."""
    names = [lp.name for lp in accesses[0].loops[fixed:depth]]
    differ = " or ".join(f"{n}_s != {n}_t" for n in names)
    for i, a in enumerate(accesses):
        for b in accesses[i:]:
            p = instance_pair(a, b, scope, fixed=fixed)
            if p is not None and not pair_set(p, [f"({differ})"]).is_empty():
                return True
    return False


def _random_func(rng: random.Random) -> str:
    t = "memref<16x64xf32>"
    lines = ["func.func @f(%a: memref<16x64xf32>, %n: index) {", "  %c = arith.constant 1.0 : f32",
             f"  %b = memref.alloc() : {t}", "  affine.for %o = 0 to 4 {"]
    stride = rng.choice([1, 2, 4])
    lines.append(f"    affine.for %i = 0 to {rng.choice([4, 8, 16])} {{")
    inner = rng.random() < 0.3
    if inner:
        lines.append(f"      affine.for %j = 0 to {rng.choice([2, 3])} {{")
    pad = "        " if inner else "      "
    for k in range(rng.randint(2, 6)):
        mul = rng.choices([stride, 2 * stride, 1, 0], weights=[6, 2, 1, 1])[0]
        off = rng.randint(0, 7)
        extra = " + %j" if inner and rng.random() < 0.5 else ""
        row = rng.choice(["%o", "%o * 2", "0", "%o + 1"])
        col = rng.choices([f"%i * {mul} + {off}{extra}", f"%i floordiv 2 + {off}", f"{off}"], weights=[10, 1, 1])[0]
        if rng.random() < 0.1:
            lines.append(f"{pad}%v{k} = affine.vector_load %b[{row}, {col}] : {t}, vector<2xf32>")
        elif rng.random() < 0.5:
            lines.append(f"{pad}affine.store %c, %b[{row}, {col}] : {t}")
        else:
            lines.append(f"{pad}%x{k} = affine.load %b[{row}, {col}] : {t}")
    if inner:
        lines.append("      }")
    lines += ["    }", "  }", "  return", "}"]
    return "\n".join(lines) + "\n"


def _accesses(text: str):
    module = mlir.parse_module(text)
    fn = mlir.functions(module)[0]
    facts = Facts()
    ops = [o for o in mlir.walk(fn) if o.name in ("affine.load", "affine.store", "affine.vector_load")]
    return module, facts.scope, [access_pattern(o, facts.scope) for o in ops]


@pytest.mark.parametrize("seed", range(80))
def test_relation_matches_pairs(seed):
    module, scope, accs = _accesses(_random_func(random.Random(seed)))
    for fixed, depth in ((0, 1), (0, 2), (1, 2)):
        assert iterations_share_elements(accs, fixed, depth, scope) == pairwise_share(accs, fixed, depth, scope)
    del module


def test_random_nests_cover_both_verdicts():
    verdicts = set()
    for seed in range(80):
        module, scope, accs = _accesses(_random_func(random.Random(seed)))
        verdicts.add(iterations_share_elements(accs, 1, 2, scope))
        del module
    assert verdicts == {True, False}


UNROLLED = """func.func @f(%a: memref<1024xf32>, %out: memref<1024xf32>) {
  %b = memref.alloc() : memref<1024xf32>
  affine.for %i = 0 to 4 {
""" + "".join(f"""    %x{j} = affine.load %a[%i * 64 + {j}] : memref<1024xf32>
    affine.store %x{j}, %b[%i * 64 + {j}] : memref<1024xf32>
""" for j in range(64)) + "".join(f"""    %y{j} = affine.load %b[%i * 64 + {63 - j}] : memref<1024xf32>
    affine.store %y{j}, %out[%i * 64 + {j}] : memref<1024xf32>
""" for j in range(64)) + """  }
  return
}
"""


def test_unrolled_private_buffer_shrinks():
    """An unrolled loop's private temporary: each iteration owns 64 elements."""
    module = mlir.parse_module(UNROLLED)
    alloc = next(o for o in mlir.walk(mlir.functions(module)[0]) if o.name == "memref.alloc")
    plan = shrink_plan(alloc, Facts().scope)
    assert plan is not None and plan.shape == (64,)
    del module


def test_unrolled_buffer_shared_across_iterations_is_kept():
    """One load reaches into the next iteration's slice: not private."""
    text = UNROLLED.replace("%y0 = affine.load %b[%i * 64 + 63]", "%y0 = affine.load %b[%i * 64 + 64]")
    module = mlir.parse_module(text)
    alloc = next(o for o in mlir.walk(mlir.functions(module)[0]) if o.name == "memref.alloc")
    assert shrink_plan(alloc, Facts().scope) is None
    del module
