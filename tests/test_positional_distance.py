"""dependence.may_be_negative_between asks distance_set's question with the loops named by
position: its text is distance_set's text with the loops renamed, and its answer is the same."""
import random

import pytest

from loopopt import mlir
from loopopt.analysis import dependence
from loopopt.analysis.affine import Scope
from loopopt.analysis.accesses import collect_accesses
from loopopt.analysis.loops import loop_dims, loops_in_block, substitute


def nests(rng: random.Random) -> str:
    """Two sibling nests (1-3 deep, steps, offsets, a symbolic bound, an enclosing loop)."""
    def nest(tag: str) -> list[str]:
        depth = rng.randint(1, 3)
        ivs = [f"%{tag}{k}" for k in range(depth)]
        lines = []
        for k, iv in enumerate(ivs):
            lo = rng.choice(["0", "1", ivs[k - 1] if k else "0"]) if k else rng.choice(["0", "2"])
            hi = rng.choice(["16", "%n"]) if k == 0 else rng.choice(["8", f"{ivs[k - 1]} + 4" if lo != "0" else "8"])
            step = rng.choice([1, 1, 2])
            lo_txt = f"affine_map<(d0) -> (d0)>({lo})" if lo.startswith("%") else lo
            hi_txt = hi if not hi.startswith("%") or hi == "%n" else f"affine_map<(d0) -> (d0 + 4)>({ivs[k - 1]})"
            lines.append("  " * (k + 2) + f"affine.for {iv} = {lo_txt} to {hi_txt} step {step} {{")
        i = ivs[0]
        j = ivs[-1]
        pad = "  " * (depth + 2)
        idx = rng.choice([f"{i}, {j}", f"{j}, {i}", f"{i} + 1, {j}", f"{i} * 2, {j} + %m"])
        if rng.random() < 0.5:
            lines.append(f"{pad}%x = affine.load %t[{idx}] : memref<64x64xf32>")
            lines.append(f"{pad}affine.store %x, %o[{i}, {j}] : memref<64x64xf32>")
        else:
            lines.append(f"{pad}%x = affine.load %a[{i}, {j}] : memref<64x64xf32>")
            lines.append(f"{pad}affine.store %x, %t[{idx}] : memref<64x64xf32>")
        lines += ["  " * (k + 2) + "}" for k in reversed(range(depth))]
        return lines

    outer = rng.random() < 0.3
    body = nest("i") + nest("j")
    if outer:
        body = ["    affine.for %r = 0 to 3 {", *("  " + b for b in body), "    }"]
    return "\n".join(["func.func @f(%a: memref<64x64xf32>, %o: memref<64x64xf32>, %n: index, %m: index) {",
                      "  %t = memref.alloc() : memref<64x64xf32>", *body, "  return", "}"])


@pytest.mark.parametrize("seed", range(40))
def test_positional_text_is_the_renamed_text_with_the_same_answer(seed):
    rng = random.Random(seed)
    m = mlir.parse_module(nests(rng), "p.mlir")
    fn = mlir.functions(m)[0]
    block = mlir.func_body(fn)
    top = loops_in_block(block)
    l1, l2 = (top if len(top) == 2 else loops_in_block(top[0].regions[0].blocks[0]))
    scope = Scope()
    (ax1,), (ax2,) = loop_dims(l1, scope), loop_dims(l2, scope)
    pairs = 0
    for a in collect_accesses(l1, scope):
        for b in collect_accesses(l2, scope):
            if not dependence.conflicts(a, b):
                continue
            own = dependence._distance_text(a, b, ax1, ax2, scope, positional=False)
            pos = dependence._distance_text(a, b, ax1, ax2, scope, positional=True)
            p = dependence.instance_pair(a, b, scope, fixed=dependence._fixed_above(a, ax1))
            canon = {n: f"{tag}{k}_" for tag, names in (("c", p.fixed), ("s", p.src), ("t", p.dst))
                     for k, n in enumerate(names)}
            assert pos == substitute(own, canon)
            assert dependence.may_be_negative_between(a, b, ax1, ax2, scope) == \
                dependence.may_be_negative(dependence.distance_set(a, b, ax1, ax2, scope))
            pairs += 1
    assert pairs >= 1
