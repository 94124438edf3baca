"""Locality guard (cpu): the pass never leaves an innermost loop walking a non-last dimension of a
multi-dimensional buffer where the input did not (MLIR 22's fusion does on atax/bicg)."""
import pytest

from loopopt import mlir
from loopopt.codegen.cpu.plan.locality import strided_innermost_accesses

from fusion_util import optimize_checked
from test_corpus import FILES, _sizes


def strided_inner_accesses(text: str) -> int:
    module = mlir.parse_module(text)  # keep the module alive while its ops are read
    return sum(strided_innermost_accesses(f) for f in mlir.functions(module))


@pytest.mark.parametrize("path", [p for p in FILES if "polybench" in p.name or "transpose" in p.name
                                  or "chain" in p.name or "softmax" in p.name or "layernorm" in p.name],
                         ids=lambda p: p.stem)
def test_no_new_column_walks_on_cpu(path):
    src = path.read_text()
    res = optimize_checked(src, target="cpu", sizes=_sizes(path))
    assert strided_inner_accesses(res.text) <= strided_inner_accesses(src)


def test_the_metric_sees_a_column_walk():
    src = """func.func @f(%a: memref<8x8xf32>, %o: memref<8xf32>) {
  affine.for %j = 0 to 8 {
    affine.for %i = 0 to 8 {
      %x = affine.load %a[%i, %j] : memref<8x8xf32>
      affine.store %x, %o[%i] : memref<8xf32>
    }
  }
  return
}"""
    assert strided_inner_accesses(src) == 1


# ----------------------------------------------------------------------------- loop order (issue 24)

import random  # noqa: E402

import numpy as np  # noqa: E402

import loopopt  # noqa: E402
from loopopt import native  # noqa: E402
from loopopt.codegen.cpu.plan import locality  # noqa: E402
from loopopt.analysis.facts import Facts  # noqa: E402
from loopopt.options import TARGETS, Options  # noqa: E402
from loopopt.remarks import RemarkLog  # noqa: E402
from loopopt.testing import assert_same_results, make_inputs, run_on_inputs  # noqa: E402
from loopopt.toolchain import find_tool  # noqa: E402
from loopopt.transforms import interchange  # noqa: E402
from loopopt.codegen.cpu import loop_order  # noqa: E402

CPU = Options(target=TARGETS["cpu"])


def reorder(src: str, options: Options = CPU) -> tuple[str, list]:
    module = mlir.parse_module(src)
    log = RemarkLog()
    with module.context:
        for fn in mlir.functions(module):
            loop_order.loop_order_function(fn, options, log, "t.mlir")
        assert mlir.verify(module.operation) is None
        return mlir.print_module(module), list(log)


def costs(src: str) -> list:
    """(kept kind, chosen kind, order) of every band of the first function."""
    module = mlir.parse_module(src)
    with module.context:
        fn = mlir.functions(module)[0]
        facts = Facts()
        out = []
        for band in loop_order.bands(fn):
            p = locality.plan_loop_order(band, facts, CPU)
            out.append((p.kept_cost.kind, p.cost.kind, p.order, p.refusal is not None))
        return out


COLUMN_WALK = """func.func @f(%a: memref<16x24xf32>, %b: memref<16x24xf32>) {
  affine.for %j = 0 to 24 {
    affine.for %i = 0 to 16 {
      %x = affine.load %a[%i, %j] : memref<16x24xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %b[%i, %j] : memref<16x24xf32>
    }
  }
  return
}
"""

K_OUTER = """func.func @k(%A: memref<16x24xf32>, %B: memref<24x40xf32>, %C: memref<16x40xf32>) {
  affine.for %k = 0 to 24 {
    affine.for %i = 0 to 16 {
      affine.for %j = 0 to 40 {
        %a = affine.load %A[%i, %k] : memref<16x24xf32>
        %b = affine.load %B[%k, %j] : memref<24x40xf32>
        %c = affine.load %C[%i, %j] : memref<16x40xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<16x40xf32>
      }
    }
  }
  return
}
"""


def test_a_column_walk_is_turned_into_a_row_walk():
    out, remarks = reorder(COLUMN_WALK)
    assert [r.message for r in remarks] == ["[LOOP ORDER] 1:0: an innermost loop every access walks contiguously or "
                                            "not at all (was: 2 strided access(es) in the innermost loop)"]
    assert strided_inner_accesses(out) == 0 and strided_inner_accesses(COLUMN_WALK) == 2
    assert_same_results(COLUMN_WALK, out, seed=1)


def test_a_k_outer_product_gets_k_innermost_and_is_register_tiled():
    assert costs(K_OUTER) == [(1, 0, (1, 2, 0), False)]
    res = loopopt.optimize(K_OUTER, target="cpu")
    passes = [r.pass_name for r in res.remarks if r.kind == "Passed"]
    assert "loop-order" in passes and "register-tile" in passes
    assert "vector<8xf32>" in res.text
    assert_same_results(K_OUTER, res.text, seed=2)
    if find_tool("mlir-runner"):
        a = native.run_native(K_OUTER, "k", [None] * 3, reps=1)
        b = native.run_native(res.text, "k", [None] * 3, reps=1)
        assert native.compare_outputs(a.outputs, b.outputs) is None  # bit-exact


TRANSPOSE = """func.func @f(%a: memref<16x16xf32>, %b: memref<16x16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%j, %i] : memref<16x16xf32>
      affine.store %x, %b[%i, %j] : memref<16x16xf32>
    }
  }
  return
}
"""


def test_a_transpose_keeps_its_order_and_a_store_only_nest_is_no_reduction():
    out, remarks = reorder(TRANSPOSE)
    assert remarks == [] and costs(TRANSPOSE) == [(2, 2, (0, 1), False)]
    repeated = """func.func @f(%w: memref<8xf32>, %v: f32) {
  affine.for %i = 0 to 16 {
    affine.for %k = 0 to 8 {
      affine.store %v, %w[%k] : memref<8xf32>
    }
  }
  return
}
"""
    assert costs(repeated) == [(1, 1, (0, 1), False)]  # a write invariant in i is not a reduction


ILLEGAL = """func.func @f(%a: memref<17x17xf32>) {
  affine.for %j = 0 to 16 {
    affine.for %i = 1 to 17 {
      %x = affine.load %a[%i - 1, %j + 1] : memref<17x17xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %a[%i, %j] : memref<17x17xf32>
    }
  }
  return
}
"""


def test_a_cheaper_order_that_reverses_a_dependence_is_refused_with_its_reason():
    assert costs(ILLEGAL) == [(2, 2, (0, 1), True)]
    out, remarks = reorder(ILLEGAL)
    assert [r.kind for r in remarks] == ["Missed"]
    assert remarks[0].message == "[STOP LOOP ORDER] the cheaper order would reverse a dependence"
    assert remarks[0].args["detail"].startswith("it would reverse a WAR dependence")
    res = loopopt.optimize(ILLEGAL, target="cpu")  # the default pipeline stays quiet about it
    assert not [r for r in res.remarks if r.pass_name == "loop-order"]


CARRIED_LANES = """func.func @f(%x: memref<17xf32>, %a: memref<8x16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %k = 0 to 8 {
      %v = affine.load %x[%i] : memref<17xf32>
      %u = affine.load %x[%i + 1] : memref<17xf32>
      %w = affine.load %a[%k, %i] : memref<8x16xf32>
      %p = arith.mulf %w, %u : f32
      %s = arith.addf %v, %p : f32
      affine.store %s, %x[%i] : memref<17xf32>
    }
  }
  return
}
"""


def test_lanes_that_carry_a_dependence_are_not_priced_as_register_tiling():
    """x[i] += a[k, i] * x[i + 1]: i would be the lanes, but iteration i reads what i + 1 writes."""
    kept, chosen, order, refused = costs(CARRIED_LANES)[0]
    assert kept == 2 and order == (0, 1) and refused  # k outside i is cheaper, but illegal


def test_the_neuron_targets_keep_their_order():
    """The step table runs loop-order on the cpu target only, also when --passes names it."""
    from loopopt import driver

    res = driver.optimize(COLUMN_WALK, Options(target=TARGETS["trn1"]), passes=["loop-order"])
    assert not [r for r in res.remarks.remarks if r.pass_name == "loop-order"]
    assert strided_inner_accesses(res.text) == 2


def _random_band(rng: random.Random) -> str:
    """A random 2- or 3-deep band over 10 x 10 x 10 f32 buffers with 1-3 statements reading and
    writing at permutations (mostly one shared by the band) and offsets of the IVs."""
    depth = rng.choice([2, 2, 3])
    ivs = ["%a0", "%a1", "%a2"][:depth]
    t = "memref<10x10x10xf32>"

    shared = rng.sample(ivs, depth)  # most accesses walk the buffers in one (often column) order

    def index() -> str:
        dims = (shared if rng.random() < 0.7 else rng.sample(ivs, depth)) + ["%a0"] * (3 - depth)
        return ", ".join(f"{d} + {rng.choice([0, 0, 0, 1])}" for d in dims)

    body, total = [], "%c"
    for n in range(rng.randint(1, 3)):
        buf = rng.choice(["%X", "%Y"])
        body.append(f"{'  ' * depth}    %l{n} = affine.load {buf}[{index()}] : {t}")
        body.append(f"{'  ' * depth}    %s{n} = arith.addf %l{n}, {total} : f32")
        total = f"%s{n}"
        if rng.random() < 0.7:
            body.append(f"{'  ' * depth}    affine.store {total}, {rng.choice(['%X', '%Y'])}[{index()}] : {t}")
    lines = [f"func.func @f(%X: {t}, %Y: {t}) {{", "  %c = arith.constant 0.5 : f32"]
    for d in range(depth):
        lines.append(f"{'  ' * d}  affine.for {ivs[d]} = 0 to 9 {{")
    lines += body
    for d in reversed(range(depth)):
        lines.append(f"{'  ' * d}  }}")
    return "\n".join(lines + ["  return", "}", ""])


def order_failures(n: int = 100, seed: int = 24) -> list[str]:
    """Random bands whose chosen order computes other results than the input (interpreter)."""
    rng = random.Random(seed)
    failures, changed = [], 0
    for _ in range(n):
        src = _random_band(rng)
        out, remarks = reorder(src)
        if not any(r.kind == "Passed" for r in remarks):
            continue
        changed += 1
        for s in (1, 2):
            before = run_on_inputs(src, "f", make_inputs(src, "f", s))
            after = run_on_inputs(out, "f", make_inputs(out, "f", s))
            if any(not np.array_equal(x, y, equal_nan=True) for x, y in zip(before, after)):
                failures.append(src)
                break
    assert changed >= n // 10, changed
    return failures


def test_random_bands_keep_their_results_when_reordered():
    assert order_failures() == []


MUTANTS = {
    "dependences": (interchange, "check_loop_interchange", lambda *a, **k: None, order_failures),
    "reduction read back": (locality, "_read_back", lambda w, accesses: True,
                            lambda: [] if costs(TRANSPOSE.replace("%j, %i", "%i, %j")) else ["?"]),
    "lanes carried": (locality, "carries_at", lambda *a: False,
                      lambda: [] if costs(CARRIED_LANES)[0][0] == 2 else ["carried lanes priced as tiling"]),
}
MUTANTS["reduction read back"] = (locality, "_read_back", lambda w, accesses: True,
                                  lambda: [] if costs("""func.func @f(%w: memref<8xf32>, %v: f32) {
  affine.for %i = 0 to 16 {
    affine.for %k = 0 to 8 {
      affine.store %v, %w[%k] : memref<8xf32>
    }
  }
  return
}
""") == [(1, 1, (0, 1), False)] else ["a store-only nest priced as a reduction"])


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_loop_order_guard_is_needed(mutant, monkeypatch):
    module, name, replacement, check = MUTANTS[mutant]
    monkeypatch.setattr(module, name, replacement)
    assert check() != [], f"disabling {name} went unnoticed"


SINK = """func.func @f(%s: memref<8x16xf32>, %v: memref<16x32xf32>, %o: memref<8x32xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %p = affine.load %s[%i, %j] : memref<8x16xf32>
      affine.for %d = 0 to 32 {
        %x = affine.load %v[%j, %d] : memref<16x32xf32>
        %y = affine.load %o[%i, %d] : memref<8x32xf32>
        %m = arith.mulf %p, %x : f32
        %n = arith.addf %y, %m : f32
        affine.store %n, %o[%i, %d] : memref<8x32xf32>
      }
    }
  }
  return
}
"""


def test_a_load_beside_the_inner_loop_is_sunk_when_the_order_then_changes():
    out, remarks = reorder(SINK)
    assert [r.message.split(":")[0] for r in remarks] == ["[LOOP ORDER] 0"]
    assert_same_results(SINK, out, seed=3)
    # the same nest whose inner loop writes what the load reads keeps its shape
    aliased = SINK.replace("affine.store %n, %o[%i, %d] : memref<8x32xf32>",
                           "affine.store %n, %o[%i, %d] : memref<8x32xf32>\n"
                           "        affine.store %n, %s[%i, %j] : memref<8x16xf32>")
    out2, remarks2 = reorder(aliased)
    assert remarks2 == [] and out2.count("affine.load") == 3
    # and a nest whose order stays puts the load back
    kept = SINK.replace("affine.store %n, %o[%i, %d]", "affine.store %m, %o[%i, %d]").replace(
        "        %y = affine.load %o[%i, %d] : memref<8x32xf32>\n", "").replace(
        "        %n = arith.addf %y, %m : f32\n", "")  # no sum: d stays innermost
    out3, remarks3 = reorder(kept)
    assert not [r for r in remarks3 if r.kind == "Passed"]
    module = mlir.parse_module(out3)
    with module.context:
        fn = mlir.functions(module)[0]
        j = [o for o in mlir.walk(fn) if o.name == "affine.for"][1]
        assert mlir.block_ops(j.regions[0].blocks[0])[0].name == "affine.load"  # back beside the d loop
