"""Residue classes of one buffer's accesses (`dependence.disjoint_classes`): accesses of different
classes never touch a common element, so `legality.conflict_relation` may compose within classes
only. Checked on hand-written cases and, on random loops, against the relation composed over
the whole buffer."""
import random

import pytest

from loopopt import mlir
from loopopt.analysis import legality
from loopopt.analysis.dependence import disjoint_classes, index_residue
from loopopt.analysis.facts import Facts
from loopopt.analysis.loops import loop_dims, loops_in_block
from loopopt.analysis.vectorization import buffer_carries


def _func(body: str) -> str:
    args = "%a: memref<256xf32>, %m: memref<16x16xf32>, %n: index"
    return f"func.func @f({args}) {{\n  %c = arith.constant 1.0 : f32\n{body}\n  return\n}}\n"


def _loop_accesses(text: str):
    module = mlir.parse_module(text)
    (lp,) = loops_in_block(mlir.func_body(mlir.functions(module)[0]))
    facts = Facts()
    return module, lp, facts, facts.accesses(lp)


def _class_sizes(body: str) -> list[int]:
    module, _, facts, accs = _loop_accesses(_func(body))
    sizes = sorted(len(c) for c in disjoint_classes(accs, facts.scope))
    del module
    return sizes


@pytest.mark.parametrize("body, sizes", [
    # an unrolled loop: one class per lane
    ("""  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i * 4] : memref<256xf32>
    affine.store %x, %a[%i * 4 + 1] : memref<256xf32>
    affine.store %x, %a[%i * 4 + 2] : memref<256xf32>
    affine.store %x, %a[%i * 4 + 5] : memref<256xf32>
  }""", [1, 1, 2]),
    # strides 4 and 2: modulo 2, [4i] and [2i+2] share residue 0
    ("""  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i * 4] : memref<256xf32>
    affine.store %x, %a[%i * 2 + 2] : memref<256xf32>
    affine.store %x, %a[%i * 2 + 1] : memref<256xf32>
  }""", [1, 2]),
    # a symbol's coefficient counts like an IV's: [2i + n] may meet [2i]
    ("""  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i * 2] : memref<256xf32>
    affine.store %x, %a[%i * 2 + %n] : memref<256xf32>
  }""", [2]),
    # a floordiv index may take any value: no split
    ("""  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i * 2] : memref<256xf32>
    affine.store %x, %a[%i floordiv 2 + 1] : memref<256xf32>
  }""", [2]),
    # constant cells: one class per cell
    ("""  affine.for %i = 0 to 8 {
    %x = affine.load %a[3] : memref<256xf32>
    affine.store %x, %a[4] : memref<256xf32>
    affine.store %x, %a[3] : memref<256xf32>
  }""", [1, 2]),
    # a vector covers several residues: no split in that dimension
    ("""  affine.for %i = 0 to 8 {
    %v = affine.vector_load %a[%i * 8] : memref<256xf32>, vector<4xf32>
    affine.vector_store %v, %a[%i * 8 + 4] : memref<256xf32>, vector<4xf32>
  }""", [2]),
    # two dimensions: rows split by the first, columns by the second
    ("""  affine.for %i = 0 to 8 {
    %x = affine.load %m[%i * 2, %i] : memref<16x16xf32>
    affine.store %x, %m[%i * 2 + 1, %i] : memref<16x16xf32>
    affine.store %x, %m[%i * 2, 3] : memref<16x16xf32>
  }""", [1, 2]),
])
def test_class_sizes(body, sizes):
    assert _class_sizes(body) == sizes


def test_index_residue():
    assert index_residue("((4 * i) + 3)", ("i",), ()) == (4, 3)
    assert index_residue("((6 * i) + (4 * n) + 1)", ("i",), ("n",)) == (2, 1)
    assert index_residue("7", ("i",), ()) == (0, 7)
    assert index_residue("floor(i/2)", ("i",), ()) is None
    assert index_residue("(i mod 4)", ("i",), ()) is None
    assert index_residue("(i + q)", ("i",), ()) is None  # a name isl does not know


def _random_body(rng: random.Random) -> str:
    lines = ["  affine.for %i = 0 to 12 {"]
    inner = rng.random() < 0.3
    if inner:
        lines.append("    affine.for %j = 0 to 3 {")
    pad = "      " if inner else "    "
    stride = rng.choice([2, 3, 4, 6])  # mostly one stride per body (lanes), sometimes a multiple or 1
    for k in range(rng.randint(2, 7)):
        mul = rng.choices([stride, 2 * stride, 1], weights=[6, 2, 1])[0]
        off = rng.randint(0, 9)
        extra = " + %j" if inner and rng.random() < 0.4 else ""
        sym = " + %n" if rng.random() < 0.1 else ""
        if rng.random() < 0.25:
            idx = f"%i * {mul} + {off}{extra}, {rng.choice(['%i', '2', '%i * 2 + 1'])}"
            t = "memref<16x16xf32>"
            buf = "%m"
        else:
            idx = rng.choices([f"%i * {mul} + {off}{extra}{sym}", f"%i floordiv 2 + {off}", f"{off + 150}"],
                              weights=[12, 1, 2])[0]
            t, buf = "memref<256xf32>", "%a"
        if rng.random() < 0.1 and buf == "%a":
            lines.append(f"{pad}%v{k} = affine.vector_load %a[{idx}] : {t}, vector<2xf32>")
        elif rng.random() < 0.5:
            lines.append(f"{pad}affine.store %c, {buf}[{idx}] : {t}")
        else:
            lines.append(f"{pad}%x{k} = affine.load {buf}[{idx}] : {t}")
    if inner:
        lines.append("    }")
    lines.append("  }")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(80))
def test_relation_by_classes_equals_whole_buffer(seed, monkeypatch):
    """Composing within classes gives exactly the relation composed over the whole buffer."""
    module, lp, facts, accs = _loop_accesses(_func(_random_body(random.Random(seed))))
    by_classes = legality.conflict_relation([lp], facts.scope, accs)
    monkeypatch.setattr(legality, "disjoint_classes", lambda accesses, scope: [list(accesses)])
    whole = legality.conflict_relation([lp], facts.scope, accs)
    assert by_classes.is_equal(whole)
    del module


def test_random_bodies_do_split():
    """The random loops above exercise the split (not only the one-class case)."""
    split = 0
    for seed in range(80):
        module, _, facts, accs = _loop_accesses(_func(_random_body(random.Random(seed))))
        keys = {}
        for a in accs:
            keys.setdefault(a.key, []).append(a)
        split += any(len(disjoint_classes(g, facts.scope)) > 1 for g in keys.values())
        del module
    assert split >= 20


def test_relation_refuses_accesses_outside_the_band():
    """Accesses whose loops at the band's depth are not the band: no relation (None), never a
    relation over the wrong loop."""
    text = _func("""  affine.for %i = 0 to 8 {
    affine.store %c, %a[%i] : memref<256xf32>
  }
  affine.for %k = 0 to 8 {
    %x = affine.load %a[%k + 1] : memref<256xf32>
    affine.store %x, %a[%k] : memref<256xf32>
  }""")
    module = mlir.parse_module(text)
    first, second = loops_in_block(mlir.func_body(mlir.functions(module)[0]))
    facts = Facts()
    assert legality.conflict_relation([first], facts.scope, facts.accesses(second)) is None
    assert legality.conflict_relation([second], facts.scope, facts.accesses(second)) is not None
    del module


def test_vectorization_relation_only_for_an_ops_first_dim():
    """The guard's relation is over the op's first dim: for the second dim of an affine.parallel
    it answers None (the caller checks pair by pair)."""
    text = _func("""  affine.parallel (%i, %j) = (0, 0) to (8, 8) {
    %x = affine.load %m[%i, %j + 1] : memref<16x16xf32>
    affine.store %x, %m[%i, %j] : memref<16x16xf32>
  }""")
    module = mlir.parse_module(text)
    par = next(o for o in mlir.walk(mlir.functions(module)[0]) if o.name == "affine.parallel")
    facts = Facts()
    dims = loop_dims(par, facts.scope)
    accs = facts.accesses(par)
    assert buffer_carries(accs, dims[0], facts.scope) is False  # rows: no carried dependence
    assert buffer_carries(accs, dims[1], facts.scope) is None
    del module
