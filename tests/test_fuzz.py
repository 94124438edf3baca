"""Differential fuzzing: the generator makes valid programs with every feature (issue 10's
classes included), the check catches miscompiles and `[INTERNAL]` rollbacks, the fuzz command
saves shrunk failures by class, and loopopt passes the property on a fixed-seed sample
(LOOPOPT_FUZZ_COUNT programs, 300 by default)."""
from __future__ import annotations

import glob
import collections
import io
import math
import os
import random
import re
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from loopopt import driver
from loopopt.fuzz import FEATURES, GeneratorConfig, generate_program, programs
from loopopt.fuzz import __main__ as fuzz_main
from loopopt.fuzz.differential import (CRASH, INTERNAL, INVALID, MISMATCH, IsolatedChecker, Regression,
                                       check_program, check_regression, failure_signature, options_flags,
                                       parse_options_flags, parse_regression, random_options, regression_text)
from loopopt.fuzz.generator import _FEATURE_KNOB, BIG_PANEL, CLASS_RATES, ISSUE33_CLASSES, ISSUE35_CLASSES, Nest
from loopopt.fuzz.generator import CODEGEN_CLASSES, CONTRACTION_ITERATIONS
from loopopt.fuzz.model import (CARRIED_REGIONS, AllocOp, Contraction, Probe, Product, Region, RowLoss, TransposeCopy, View,
                                ViewOp, walk_stmts)
from loopopt.remarks import MISSED, Remark
from loopopt.fuzz.shrink import shrink
from loopopt.mlir import parse_module
from loopopt.options import TARGETS, Options
from loopopt.testing import make_inputs, run_on_inputs
from loopopt.toolchain import find_tool, verify_with_mlir_opt

HERE = os.path.dirname(os.path.abspath(__file__))
REGRESSIONS = sorted(glob.glob(os.path.join(HERE, "regressions", "*.mlir")))


def _open_regression(path: str) -> bool:
    with open(path) as f:
        return parse_regression(f.read()).open


# A saved failure not fixed yet (`// status: open`) must still fail; when it passes, the fix
# removes the line (strict xfail turns the pass into a failure that says so).
REGRESSION_CASES = [pytest.param(p, id=os.path.basename(p), marks=pytest.mark.xfail(
    strict=True, reason="open: remove `// status: open` from the file once fixed")) if _open_regression(p)
    else pytest.param(p, id=os.path.basename(p)) for p in REGRESSIONS]
PROPERTY_SEED = 20250601
PROPERTY_COUNT = int(os.environ.get("LOOPOPT_FUZZ_COUNT", "160"))  # the default suite stays under 10 minutes; `python3 -m loopopt.fuzz` runs thousands

needs_mlir_opt = pytest.mark.skipif(find_tool("mlir-opt") is None, reason="mlir-opt 22 not installed")

# What a feature looks like in the text (None: only visible in the model, see MODEL_CHECKS).
TEXT_MARKERS = {
    "placed": r"memref\.(alloc|alloca)\(\) : memref<[^>]*x(f32|i32)>",
    "alloca": r"memref\.alloca\(\) : memref<[^>]*x(f32|i32)>",
    "dealloc": r"memref\.dealloc %",
    "shift": r"%(?!r\d)\w+(?: \* 2)? [+-] \d+[\],]",
    "negative_shift": r"%(?!r\d)\w+(?: \* 2)? - \d+[\],]",
    "stride": r"%\w+ \* 2",
    "reduction_iter": r"iter_args\(%acc",
    "symbolic": r"to %n\d",
    "tiled": r"step \d+ \{\n\s*affine\.for %\w+ = affine_map<\(d0\) -> \(d0\)>\(%\w+\) to min affine_map",
    "scalar_ops": r"%s\d+ = affine\.load %[\w#]+\[\d+(, \d+)*\][^\n]*\n\s*%s\d+ = arith\.\w+ %s\d+, %cst\d+[^\n]*\n"
                  r"(.*\n)*?\s*memref\.store %s\d+, %[\w#]+\[%c\d+_idx",
    "invariant": r"%inv\d+ = arith\.\w+ %\w+, %cst\d+",
    "cast": r"%cv\d+ = memref\.cast %\w+ : memref<[^>]*> to memref<[^>]*\?",
    "subview": r"memref\.subview %\w+\[",
    "call": r"func\.call @(rewrite|poke)\d+\(%(?!u\d)[\w#]+\)",
    "alias_select": r"= arith\.select %\w+, %[\w#]+, %[\w#]+ : memref<",
    "alias_if": r"= scf\.if %\w+ -> \(memref<",
    "alias_call": r"= func\.call @pass_\w+\([^)]*\) : \([^)]*\) -> memref<",
    "alias_iter": r"= (scf|affine)\.for [^\n]*iter_args\([^)]*\) -> \(memref<",
    "call_global": r"func\.call @\w+\(\) : \(\) -> \(\)",
    "unranked": r"to memref<\*x(f32|i32)>\n\s*func\.call @\w+\(%u\d+\) : \(memref<\*x",
    "vector": r"affine\.for [^\n]* step [48] \{\n(.*\n)*?\s*(%\w+ = affine\.vector_load|affine\.vector_store)",
    "max_lb": r"= max affine_map<[^\n]* step [23] \{",
    "reshape": r"memref\.reshape %\w+\(%rs\d+_shp\)",
    "reshape_in_loop": r"affine\.store %c\d+_idx, %rl\d+_shp\[0\][^\n]*\n\s*%rl\d+ = memref\.reshape",
    "multi_block": r"cf\.(br|cond_br) ",
    "band": r"= affine_map<\(d0\) -> \(d0( \+ \d+)?\)>\(%\w+\) to affine_map<\(d0\) -> \(d0 \+ \d+\)>",
    "triangular": r"= \d+ to affine_map<\(d0\) -> \(d0( \+ 1)?\)>\(%\w+\)",
    "outer_loop": r"scf\.while \(%r|scf\.for %r\d+ =|cf\.br \^r\d+_h|affine\.for %r\d+(_iv)? = 0 to \d+",
    "semi_affine": r"\d+\) (mod|floordiv) s0|\d+ (mod|floordiv) s0",
    "carried_index": r"memref\.(load|store) [^\n]*%r\d+(_k\d+)?[\],]",
    "forward_select": r"%fw\d+ = arith\.select %\w+, %[\w#]+, %[\w#]+ : memref<",
    "forward_if": r"%fw\d+ = scf\.if %\w+ -> \(memref<",
    "forward_callee": r"func\.call @fwd\d+\(%fw\d+, %out\d+\)",
    "forward_in_loop": r"affine\.for %fk\d+ = 0 to \d+ \{\n\s*affine\.store %\w+, %\w+\[",
    "iv_data": r"arith\.index_cast %(i\d+_\d+|mm\d+_j) : index to i32|affine\.store %i\d+_\d+, %t\d+\[[^\n]*xindex>",
    "row_init": r"%mm\d+_r0 = affine\.load %\w+\[%mm\d+_i\][^\n]*\n\s*%mm\d+_row = affine\.for [^\n]*"
                r"iter_args\(%mm\d+_acc = %mm\d+_r0\)",
    "big_panel": r"affine\.for %mm\d+_j = 0 to 4160 [^\n]*\{\n\s*%mm\d+_s = affine\.for %mm\d+_k = 0 to 64 ",
    "transpose_copy": r"%tp\d+_v = affine\.load %\w+\[%tp\d+_i, %tp\d+_j\][^\n]*\n\s*"
                      r"affine\.store %tp\d+_v, %\w+\[%tp\d+_j, %tp\d+_i\]",
    "row_loss": r"%rl\d+_e\d+ = (math\.exp|arith\.muli) %rl\d+_d\d+",
    "generated_names": r'memref\.global "private" constant @(\w+_panels\d+|\w+_folded0|loopopt_expf_table) ',
    "around_product": r"%mm\d+_pc = affine\.load %\w+\[%mm\d+_i, \d\][^\n]*\n(.*\n)*?\s*"
                      r"affine\.store %mm\d+_d\d+, %\w+\[%mm\d+_i\]",
}


def _nests(model, stmts=None):
    return [st.what for st in walk_stmts(model.stmts if stmts is None else stmts) if isinstance(st.what, Nest)]


def _accesses(model, stmts=None):
    for w in _nests(model, stmts):
        for dst, _ in w.statements():
            yield w, dst
        for t in w.loads():
            yield w, t


def _get_global_twice(model) -> bool:
    views = [st.what.view.of.name for st in walk_stmts(model.stmts)
             if isinstance(st.what, ViewOp) and st.what.view.kind == "get_global"]
    return any(views.count(g) >= 2 for g in views)


def _calls_body_with_one_buffer_twice(prog) -> bool:
    calls = re.findall(r"func\.call @kernel_body\(([^)]*)\)", prog.text)
    return any(len(set(c.split(", "))) < len(c.split(", ")) for c in calls)


def _alloc_outside(model) -> bool:
    top = {st.what.buf.name for st in model.stmts if isinstance(st.what, AllocOp)}
    return any(isinstance(st.what, Region) and st.what.kind in ("scf_while", "cf_loop") and any(
        r.name in top for _, a in _accesses(model, st.what.body) for r in a.ref.roots)
        for st in model.stmts)


def _diagonal(acc) -> bool:
    vs = [s.var for s in acc.idx if s.var is not None and not s.semi]
    return len(vs) != len(set(vs))


def _vector_overlap(model) -> bool:
    return any(n.width > 1 and any((t.idx[-1].const - n.dst.idx[-1].const) % n.width for t in n.loads())
               for n in _nests(model))


def _transposed(acc) -> bool:
    vs = [s.var for s in acc.idx if s.var is not None]
    return vs != sorted(vs)


def _partition_dim(acc) -> bool:
    if len(acc.idx) < 2:
        return False
    vs = [s.var for s in acc.idx[1:] if s.var is not None]
    return bool(vs) and (acc.idx[0].var is None or acc.idx[0].var > min(vs))


MODEL_CHECKS = {
    "transpose": lambda p: any(_transposed(a) for _, a in _accesses(p.model)),
    "partition_dim": lambda p: any(_partition_dim(a) for _, a in _accesses(p.model)),
    "reduction_acc": lambda p: any(n.kind == "reduce_acc" for n in _nests(p.model)),
    "inplace": lambda p: any(w.kind == "map" and any(k == "load" and t.ref is w.dst.ref and t.idx == w.dst.idx
                                                    for k, t in w.compute.terms)
                             for w, _ in _accesses(p.model)),
    "zero_trip": lambda p: 0 in p.sizes.values() and re.search(r"to %n\d", p.text) is not None,
    "multi_store": lambda p: any(n.extra for n in _nests(p.model)),
    "global_twice": lambda p: _get_global_twice(p.model),
    "vector_overlap": lambda p: _vector_overlap(p.model),
    "alias_args": _calls_body_with_one_buffer_twice,
    "diagonal": lambda p: any(_diagonal(a) for _, a in _accesses(p.model)),
    "alloc_outside": lambda p: _alloc_outside(p.model),
    "forward_traced": lambda p: any(isinstance(st.what, Probe) and st.what.traced for st in walk_stmts(p.model.stmts)),
    "contraction": lambda p: any(isinstance(st.what, Contraction) for st in walk_stmts(p.model.stmts))
    and re.search(r"affine\.for %cv\d+_l\d+ = 0 to \d+", p.text) is not None,
}


def _shows(feature: str, prog) -> bool:
    if feature in TEXT_MARKERS:
        return re.search(TEXT_MARKERS[feature], prog.text) is not None
    return MODEL_CHECKS[feature](prog)


def _run(prog, sizes):
    inputs = make_inputs(prog.text, prog.func_name, 0, sizes)
    return run_on_inputs(prog.text, prog.func_name, inputs)


# ---------------------------------------------------------------- the generator


def test_generation_is_deterministic_per_seed():
    a = generate_program(random.Random(7))
    b = generate_program(random.Random(7))
    c = generate_program(random.Random(8))
    assert a.text == b.text and a.sizes == b.sizes
    assert a.text != c.text


@pytest.mark.parametrize("feature", FEATURES)
def test_forced_feature_appears(feature):
    """With a feature forced on, each program shows it (text marker or model fact)."""
    cfg = GeneratorConfig(force=frozenset({feature}))
    for seed in range(4):
        prog = generate_program(random.Random(seed), cfg)
        assert feature in prog.features, (seed, sorted(prog.features))
        assert _shows(feature, prog), f"seed {seed}: {feature} not visible in\n{prog.text}"
        parse_module(prog.text)


ALL_KNOBS_OFF = {knob: False for knob in set(_FEATURE_KNOB.values())}


def test_all_knobs_off_gives_plain_identity_maps():
    cfg = GeneratorConfig(**ALL_KNOBS_OFF)
    for seed in range(20):
        prog = generate_program(random.Random(seed), cfg)
        assert not prog.features, prog.features
        shown = [f for f in FEATURES if _shows(f, prog)]
        assert not shown, f"seed {seed}: {shown} in\n{prog.text}"
        assert "affine.for" in prog.text and "index" not in prog.text


def test_call_and_view_knobs_off_keep_calls_and_casts_out():
    cfg = GeneratorConfig(calls=False, aliases=False, value_aliases=False, unranked=False, globals=False,
                          alias_args=False, adversarial_rate=1.0)
    for seed in range(20):
        prog = generate_program(random.Random(seed), cfg)
        assert "func.call" not in prog.text and "memref.cast" not in prog.text and "subview" not in prog.text


@pytest.mark.parametrize("knob", sorted(set(_FEATURE_KNOB.values())))
def test_one_knob_off_keeps_its_features_out(knob):
    """Every knob, turned off, keeps its features out of the model and of the text."""
    features = [f for f, k in _FEATURE_KNOB.items() if k == knob]
    for seed in range(8):
        prog = generate_program(random.Random(seed), GeneratorConfig(adversarial_rate=1.0, **{knob: False}))
        for f in features:
            assert f not in prog.features, (seed, f)
            if f in TEXT_MARKERS:
                assert not _shows(f, prog), f"seed {seed}: {f} in\n{prog.text}"


def test_default_config_makes_plain_programs():
    """`GeneratorConfig()` keeps issue 10's classes out unless forced (other suites use it for
    plain affine programs); the fuzz command turns them on."""
    for seed in range(30):
        prog = generate_program(random.Random(seed))
        assert not set(prog.features) & set(CLASS_RATES), sorted(prog.features)


def test_default_programs_contain_each_issue10_class():
    """The fuzz command's programs: each class of issue 10 appears, most programs have one, and
    plain programs remain (the rates are `CLASS_RATES` plus what appears incidentally)."""
    progs = [fuzz_main.program_case(4242, k)[0] for k in range(300)]
    counts = {f: sum(f in p.features for p in progs) for f in CLASS_RATES}
    missing = [f for f, n in counts.items() if n == 0]
    assert not missing, counts
    with_class = sum(bool(set(p.features) & set(CLASS_RATES)) for p in progs)
    assert 0.5 * len(progs) < with_class < 0.97 * len(progs), with_class


def _products(model) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, Product)]


def test_issue33_counters_as_data_are_read_by_one_later_nest():
    """(a) A placed buffer's init nest stores a loop counter (itself into an index buffer, or
    through index_cast); one later nest reads it, reversed or transposed (the recompute rescue's
    case), into an output of its own."""
    seen = set()
    for seed in range(12):
        prog = generate_program(random.Random(seed), GeneratorConfig(force=frozenset({"iv_data"})))
        nests = _nests(prog.model)
        producers = [n for n in nests if n.kind == "init" and any(k == "iv" for k, _ in n.compute.terms)]
        if not producers:  # the counter went into a product's stored value instead
            assert any(p.iv for p in _products(prog.model)) and "arith.index_cast %mm" in prog.text
            continue
        t = producers[0].creates
        readers = [n for n in nests if any(a.ref is t for a in n.loads())]
        assert len(readers) == 1 and [lp.hi for lp in readers[0].loops] == list(t.min_shape)
        (read,) = [a for a in readers[0].loads() if a.ref is t]
        seen.add("index" if t.elem == "index" else "cast")
        seen.add("reversed" if any(x.coef == -1 for x in read.idx) else "transposed" if read.idx[0].var == 1 else "plain")
    assert {"index", "cast", "reversed", "transposed"} <= seen, seen


def test_issue33_products_have_the_named_shapes():
    """(b) a row reduction whose init R[i] is loaded in the row loop; (c) a B panel over half the
    cpu target's L2 with few rows; (e) a read of C before the column loop and a store after it
    that uses it and what the loop wrote."""
    half_l2 = Options(target=TARGETS["cpu"]).sb_budget // 2
    for feature, check in (
            ("row_init", lambda p: p.row_init in ("max", "sum") and p.r is not None),
            ("big_panel", lambda p: (p.k, p.n) == BIG_PANEL and p.k * p.n * 4 > half_l2 and 2 <= p.m <= 3),
            ("around_product", lambda p: "read_c" in p.before and "write_d" in p.after)):
        for seed in range(3):
            prog = generate_program(random.Random(seed), GeneratorConfig(force=frozenset({feature})))
            assert any(check(p) for p in _products(prog.model)), (feature, seed)


def test_generated_names_are_the_names_the_cpu_steps_create():
    """(d) The decoy globals are named as constant panels names what it creates: each
    `[PACK CONSTANT]` remark's source global and panel width (256- and 512-bit plans) name one
    of the program's decoys, which holds other values."""
    hits = 0
    for seed in range(6):
        prog = generate_program(random.Random(seed), GeneratorConfig(force=frozenset({"generated_names"})))
        decoys = {d[0] for p in _products(prog.model) for d in p.decoys}
        assert "loopopt_expf_table" in decoys and re.search(TEXT_MARKERS["generated_names"], prog.text)
        for bits in (256, 512):
            res = driver.optimize(prog.text, Options(target=TARGETS["cpu"], vector_bits=bits))
            for r in res.remarks:
                if r.message.startswith("[PACK CONSTANT]"):
                    src = re.search(r"load\(s\) of @(\w+)", r.message).group(1)
                    assert f"{src}_panels{r.args['panel']}" in decoys, (seed, bits, r.message)
                    hits += 1
    assert hits >= 4


def test_issue33_programs_run_on_cpu_mostly_and_keep_other_programs_unchanged():
    """Programs with an issue 33 class run on cpu three times in four; the classes draw from a
    side stream, so a program without one is what the generator made before them."""
    cases = [fuzz_main.program_case(4242, k) for k in range(200)]
    with33 = [o for p, o, _ in cases if p.features & ISSUE33_CLASSES]
    assert len(with33) > 20 and sum(o.target.name == "cpu" for o in with33) > 0.6 * len(with33)
    cfg = GeneratorConfig(adversarial_rate=1.0, iv_data=False, products=False)
    for k in range(40):
        a = generate_program(random.Random(f"7/{k}"), cfg)
        b = generate_program(random.Random(f"7/{k}"), GeneratorConfig(adversarial_rate=1.0))
        if not b.features & ISSUE33_CLASSES:
            assert a.text == b.text


def _contractions(model) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, Contraction)]


def test_issue35_contractions_have_several_reductions_unit_loops_and_each_form():
    """Over 60 forced programs: every kind (conv, depthwise, pool, batched), nests with 2-3
    reduction loops, unit-trip loops among the parallel and the reduction loops, strides 2 and
    3, both forms, a permuted loop order, a fill before the nest; each within its iteration cap."""
    seen = collections.Counter()
    for seed in range(60):
        prog = generate_program(random.Random(seed), GeneratorConfig(force=frozenset({"contraction"})))
        for c in _contractions(prog.model):
            assert math.prod(c.trips) <= CONTRACTION_ITERATIONS
            seen["kind:" + c.family] += 1
            seen["reductions>=2"] += len(c.red) >= 2
            seen["unit parallel"] += 1 in c.par
            seen["unit reduction"] += 1 in c.red
            seen["stride>1"] += any(coef > 1 for sub in c.xsub for _, coef in sub)
            seen["form:" + c.form] += 1
            seen["permuted"] += c.order != tuple(sorted(c.order))
            seen["fill"] += c.fill is not None
    for key in ("kind:conv", "kind:depthwise", "kind:pool", "kind:batched", "reductions>=2", "unit parallel", "unit reduction",
                "stride>1", "form:memory", "form:carried", "permuted", "fill"):
        assert seen[key] >= 3, (key, seen)


def test_issue35_contractions_keep_their_results_on_cpu():
    """Forced contraction programs, f32 and i32, at 256- and 512-bit vectors: loopopt's cpu
    pipeline keeps each result (the differential check) and register-tiles some of them."""
    tiled = 0
    for seed in range(8):
        for elem in ("f32", "i32") if seed % 4 == 0 else ("f32",):
            cfg = GeneratorConfig(force=frozenset({"contraction"}), element_type=elem, min_nests=1, max_nests=3)
            prog = generate_program(random.Random(seed), cfg)
            for bits in (256, 512):
                opts = Options(target=TARGETS["cpu"], vector_bits=bits)
                assert check_program(prog, opts, seed=seed) is None, (seed, elem, bits)
                res = driver.optimize(prog.text, opts)
                tiled += any(r.pass_name == "register-tile" and r.kind != MISSED for r in res.remarks)
    assert tiled >= 4


def test_issue35_class_runs_on_cpu_mostly_and_keeps_other_programs_unchanged():
    """Programs with the contraction class run on cpu three times in four; its draws come from a
    side stream, so a program without it is what the generator made before it existed."""
    cases = [fuzz_main.program_case(4242, k) for k in range(600)]  # 35 with the class: the cpu share is a draw each
    with35 = [o for p, o, _ in cases if p.features & ISSUE35_CLASSES]
    assert len(with35) > 8 and sum(o.target.name == "cpu" for o in with35) > 0.6 * len(with35)
    cfg = GeneratorConfig(adversarial_rate=1.0, contractions=False)
    for k in range(40):
        a = generate_program(random.Random(f"7/{k}"), cfg)
        b = generate_program(random.Random(f"7/{k}"), GeneratorConfig(adversarial_rate=1.0))
        if not b.features & ISSUE35_CLASSES:
            assert a.text == b.text


def _codegen_stmts(model, kind) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, kind)]


def test_codegen_classes_have_each_shape():
    """Over 40 forced programs each: transposing copies in whole 16 x 16 tiles (and 8-lane ones,
    and extents that are neither), both loop orders, into a placed buffer read back, into an
    output, and in place; losses over rows of odd and even lengths with a sum (log of it for
    floats) or a maximum, as the lowering's nests and in one row loop, into an output or a
    placed buffer, with exp between the reductions for floats."""
    seen = collections.Counter()
    for seed in range(40):
        elem = "i32" if seed % 4 == 0 else "f32"
        cfg = GeneratorConfig(force=frozenset({"transpose_copy", "row_loss"}), element_type=elem)
        prog = generate_program(random.Random(seed), cfg)
        for c in _codegen_stmts(prog.model, TransposeCopy):
            seen["tiles of 16"] += c.rows % 16 == 0 and c.cols % 16 == 0
            seen["tiles of 8 only"] += c.rows % 8 == 0 and c.cols % 8 == 0 and bool(c.rows % 16 or c.cols % 16)
            seen["no whole tiles"] += bool(c.rows % 8 or c.cols % 8)
            seen["j outer"] += c.j_outer
            seen["in place"] += c.src is c.dst
            seen["placed copy"] += c.dst.placed and c.out is not None
            seen["into an output"] += c.dst.kind == "output" and c.src is not c.dst
        for c in _codegen_stmts(prog.model, RowLoss):
            seen["odd row"] += c.cols % 2
            seen["sum" if c.sum else "max"] += 1
            seen["fused" if c.fused else "nests"] += 1
            seen["placed o" if c.o.placed else "output o"] += 1
            if elem == "f32":
                seen["exp"] += "math.exp" in prog.text
                seen["log"] += c.sum and "math.log" in prog.text
    for key in ("tiles of 16", "tiles of 8 only", "no whole tiles", "j outer", "in place", "placed copy",
                "into an output", "odd row", "sum", "max", "fused", "nests", "placed o", "output o", "exp", "log"):
        assert seen[key] >= 2, (key, seen)


def test_codegen_classes_reach_their_steps_and_keep_results_on_cpu(monkeypatch):
    """Forced programs through the cpu pipeline at 512 and 256 bits keep their results, and the
    steps the classes aim at run: transposing copies tiled in vector registers (and refused),
    the exp loop joining the sum that reads it, stores overwritten before they are read
    (in one body, by a later nest, into an argument)."""
    from loopopt.codegen.cpu import dead_stores, hooks

    hits = collections.Counter()
    for mod, name in ((hooks, "consumes_produced_elements"), (dead_stores, "overwritten_before_read"),
                      (dead_stores, "overwritten_by_later_nest")):
        def counted(*a, _f=getattr(mod, name), _n=name, **kw):
            out = _f(*a, **kw)
            hits[_n] += bool(out)
            return out
        monkeypatch.setattr(mod, name, counted)
    for seed in range(6):
        elem = "i32" if seed % 3 == 0 else "f32"
        cfg = GeneratorConfig(force=frozenset({"transpose_copy", "row_loss"}), element_type=elem,
                              min_nests=1, max_nests=2)
        prog = generate_program(random.Random(seed), cfg)
        for bits in (512, 256):
            opts = Options(target=TARGETS["cpu"], vector_bits=bits)
            assert check_program(prog, opts, seed=seed) is None, (seed, elem, bits)
            for r in driver.optimize(prog.text, opts).remarks:
                for tag in ("[TRANSPOSE TILE]", "[STOP TRANSPOSE TILE]", "[DEAD STORE] store into an argument"):
                    hits[tag] += r.message.startswith(tag)
    for key in ("[TRANSPOSE TILE]", "[STOP TRANSPOSE TILE]", "[DEAD STORE] store into an argument",
                "consumes_produced_elements", "overwritten_before_read", "overwritten_by_later_nest"):
        assert hits[key] >= 1, (key, hits)


def test_codegen_classes_run_on_cpu_mostly_and_keep_other_programs_unchanged():
    """The codegen classes draw from a side stream of their own: a program without one is what the
    generator made before they existed; with one, it runs on cpu three times in four."""
    cases = [fuzz_main.program_case(4242, k) for k in range(300)]
    withc = [o for p, o, _ in cases if p.features & CODEGEN_CLASSES]
    assert len(withc) > 8 and sum(o.target.name == "cpu" for o in withc) > 0.6 * len(withc)
    for k in range(40):
        a = generate_program(random.Random(f"7/{k}"), GeneratorConfig(adversarial_rate=1.0, codegen_rows=False))
        b = generate_program(random.Random(f"7/{k}"), GeneratorConfig(adversarial_rate=1.0))
        if not b.features & CODEGEN_CLASSES:
            assert a.text == b.text


def test_carried_regions_index_memory_with_loop_carried_values():
    """In scf.while / cf / scf.for / iter_args regions, memref.load/store use the counter (not a
    valid affine dim); regions hold nests, and what they define is not used after them."""
    prog = generate_program(random.Random(11), GeneratorConfig(force=frozenset({"carried_index"})))
    regions = [st.what for st in prog.model.stmts if isinstance(st.what, Region)]
    assert any(r.kind in CARRIED_REGIONS and _nests(prog.model, r.body) for r in regions)
    assert re.search(TEXT_MARKERS["carried_index"], prog.text)
    parse_module(prog.text)


def test_aliases_of_two_buffers_have_the_dynamic_type():
    prog = generate_program(random.Random(2), GeneratorConfig(force=frozenset({"alias_select"})))
    views = [st.what.view for st in walk_stmts(prog.model.stmts)
             if isinstance(st.what, ViewOp) and isinstance(st.what.view, View) and st.what.view.kind == "select"]
    assert views
    two = [v for v in views if v.dynamic_alias]
    for v in two:
        assert re.search(rf"%{v.name} = arith\.select %\w+, %\w+, %\w+ : memref<\?(x\?)*x", prog.text), prog.text


def test_programs_have_2_to_8_nests_of_depth_1_to_3_and_write_outputs():
    for seed in range(40):
        prog = generate_program(random.Random(seed))
        nests = _nests(prog.model)
        assert 2 <= len(nests)
        assert all(1 <= len(n.loops) <= 3 for n in nests)
        written = {d.ref.base.name for n in nests for d, _ in n.statements()} | {
            s.what.ref.base.name for s in prog.model.stmts if getattr(s.what, "kind", "") == "store"}
        assert {b.name for b in prog.model.outputs} <= written


def _overflowed(outs) -> bool:
    """Repeated in-place updates inside loop regions can overflow to inf (and inf - inf = NaN)."""
    with np.errstate(invalid="ignore"):
        return any(o.dtype.kind == "f" and (np.isinf(o).any() or np.nanmax(np.abs(o), initial=0) > 1e30)
                   for o in outs)


def test_generated_programs_run_in_bounds_at_chosen_and_largest_sizes():
    """The interpreter bounds-checks every access; NaN in an output (without overflow) would mean
    a read of uninitialized (NaN-filled) placed memory."""
    configs = [GeneratorConfig(), GeneratorConfig(element_type="i32"), GeneratorConfig(adversarial_rate=1.0),
               GeneratorConfig(element_type="i32", adversarial_rate=1.0)] + [
        GeneratorConfig(force=frozenset({f})) for f in FEATURES]
    for k in range(2 * len(configs)):
        prog = generate_program(random.Random(1000 + k), configs[k % len(configs)])
        for sizes in (prog.sizes, prog.size_bounds):
            outs = _run(prog, sizes)
            nan = any(o.dtype.kind == "f" and np.isnan(o).any() for o in outs)
            assert not nan or _overflowed(outs), prog.text


def test_zero_trip_sizes_run():
    prog = generate_program(random.Random(3), GeneratorConfig(force=frozenset({"zero_trip"})))
    assert 0 in prog.sizes.values()
    _run(prog, prog.sizes)


@needs_mlir_opt
@pytest.mark.toolchain
def test_sample_of_generated_programs_pass_mlir_opt():
    """Every feature forced (each construct of issue 10 included), and the fuzz command's own mix:
    the programs verify with stock mlir-opt 22."""
    cases = [(seed, GeneratorConfig(force=frozenset({f}))) for seed, f in enumerate(FEATURES)]
    cases += [(seed, GeneratorConfig(element_type="i32", force=frozenset({f})))
              for seed, f in enumerate(CLASS_RATES)]
    for seed, cfg in cases:
        prog = generate_program(random.Random(seed), cfg)
        err = verify_with_mlir_opt(prog.text)
        assert err is None, f"seed {seed} {sorted(cfg.force)}: {err}\n{prog.text}"
    for k in range(40):
        prog = fuzz_main.program_case(99, k)[0]
        err = verify_with_mlir_opt(prog.text)
        assert err is None, f"case {k}: {err}\n{prog.text}"


@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(programs())
def test_hypothesis_strategy_gives_valid_programs(prog):
    parse_module(prog.text)
    assert prog.func_name == "kernel"


@pytest.mark.long
def test_hypothesis_shrinks_generator_choices():
    """Shrinking a 'has a subview' search ends at a small program: the draws shrink toward no features.
    Long (about 90 s alone: Hypothesis replays the generator's thousands of draws per shrink step)."""
    from hypothesis import find

    prog = find(programs(GeneratorConfig(max_nests=3, max_depth=2)), lambda p: "memref.subview" in p.text,
                settings=settings(max_examples=300, database=None, derandomize=True,
                                  suppress_health_check=list(HealthCheck)))
    assert "memref.subview" in prog.text
    assert prog.text.count("affine.for") <= 4, prog.text


# ---------------------------------------------------------------- the differential check


def _fake_optimize(rewrite, remarks=lambda text: []):
    def optimize(source, options=None, filename="<input>", passes=None):
        text = source if isinstance(source, str) else source.decode()
        return SimpleNamespace(text=rewrite(text), remarks=remarks(text), num_loops_fused=0)
    return optimize


def _internal(step: str, why: str) -> Remark:
    return Remark("internal", MISSED, f"[INTERNAL] {step} rolled back: {why}", function="kernel")


def _first_with(needle: str):
    for seed in range(200):
        prog = generate_program(random.Random(seed))
        if needle in prog.text:
            return prog
    raise AssertionError(f"no program with {needle}")


def test_check_passes_identity_and_catches_each_failure_kind(monkeypatch):
    prog = _first_with("arith.addf")
    opts = Options()
    monkeypatch.setattr(driver, "optimize", _fake_optimize(lambda t: t))
    assert check_program(prog, opts) is None
    monkeypatch.setattr(driver, "optimize", _fake_optimize(lambda t: t.replace("arith.addf", "arith.subf")))
    f = check_program(prog, opts)
    assert f is not None and f.kind == MISMATCH and "differs" in f.message
    monkeypatch.setattr(driver, "optimize", _fake_optimize(lambda t: t.replace("return", "retur", 1)))
    assert check_program(prog, opts).kind == INVALID

    def boom(*a, **k):
        raise KeyError("lost a loop")
    monkeypatch.setattr(driver, "optimize", boom)
    f = check_program(prog, opts)
    assert f.kind == CRASH and "KeyError" in f.message


def test_time_limit_and_bad_input_are_reported(monkeypatch):
    import time as _time

    from loopopt.fuzz.differential import BAD_INPUT, TIMEOUT, check_text

    prog = generate_program(random.Random(2))
    monkeypatch.setattr(driver, "optimize", lambda *a, **k: _time.sleep(5))
    assert check_program(prog, Options(), timeout=0.5).kind == TIMEOUT
    monkeypatch.setattr(driver, "optimize", _fake_optimize(lambda t: t))
    out_of_bounds = ("func.func @kernel(%A: memref<4xf32>) {\n  %c = arith.constant 1.0 : f32\n"
                     "  affine.for %i = 0 to 9 {\n    affine.store %c, %A[%i] : memref<4xf32>\n  }\n  return\n}\n")
    assert check_text(out_of_bounds, "kernel", {}, Options()).kind == BAD_INPUT


def test_fuzz_cases_mix_element_types():
    elems = {"i32" if "xi32>" in fuzz_main.program_case(0, k)[0].text else "f32" for k in range(30)}
    assert elems == {"i32", "f32"}


def test_random_options_cover_the_knobs():
    rng = random.Random(0)
    seen = [random_options(rng) for _ in range(200)]
    assert {o.target.name for o in seen} == set(TARGETS)
    assert {o.distance_threshold for o in seen} == set(range(11))
    assert {o.enable_loop_distribution for o in seen} == {True, False}
    assert {o.enable_profitable_loop_fusion for o in seen} == {True, False}


def test_options_and_regression_header_round_trip():
    o = Options(target=TARGETS["inf2"], distance_threshold=3, enable_loop_distribution=False,
                enable_profitable_loop_fusion=False)
    assert parse_options_flags(options_flags(o)) == o
    prog = generate_program(random.Random(1), GeneratorConfig(force=frozenset({"symbolic"})))
    reg = Regression(prog.text, prog.func_name, prog.sizes, o, seed=42, note="mismatch: x")
    back = parse_regression(regression_text(reg))
    assert (back.func_name, back.sizes, back.options, back.seed, back.note, back.open) == (
        reg.func_name, reg.sizes, reg.options, 42, "mismatch: x", False)
    assert parse_regression(regression_text(replace(reg, open=True))).open
    parse_module(regression_text(reg))  # the header is made of MLIR comments


def test_shrink_keeps_the_failure_and_removes_the_rest():
    prog = generate_program(random.Random(5), GeneratorConfig(force=frozenset({"subview", "call"})))

    def still_fails(p):
        parse_module(p.text)
        return "memref.subview" in p.text and "func.call" in p.text

    small = shrink(prog, still_fails)
    assert still_fails(small)
    assert len(small.text) < len(prog.text) / 2
    assert small.text.count("affine.for") <= 2


def _planted_contraction_failure(p) -> bool:
    """A planted miscompile: any contraction that multiplies X by W under a reduction loop
    "fails". Each candidate must parse and verify."""
    parse_module(p.text)
    return any(c.w is not None and c.red for c in _contractions(p.model))


@pytest.mark.parametrize("seed", [28, 16])  # a conv with 3 reduction loops; a batched product in the carried form
def test_shrink_reduces_a_contraction_keeping_it_valid(seed, monkeypatch):
    """The shrinker's contraction edits take a failing convolution / batched product down to one
    unit reduction loop, unit parallel loops, no fill, the memory form and X and W of one
    element per subscript's reach; the result runs in the interpreter. Without those edits (only
    statements dropped) the contraction stays as generated."""
    prog = generate_program(random.Random(seed), GeneratorConfig(force=frozenset({"contraction"})))
    (before,) = [c for c in _contractions(prog.model) if len(c.red) >= 2]
    small = shrink(prog, _planted_contraction_failure)
    assert _planted_contraction_failure(small)
    (c,) = _contractions(small.model)
    assert len(c.red) == 1 and set(c.trips) == {1} and c.fill is None and c.form == "memory"
    assert c.x.min_shape == (1,) * len(c.x.min_shape) and c.w.min_shape == (1,) * len(c.w.min_shape)
    assert small.text.count("affine.for") == len(c.trips)
    run_on_inputs(small.text, small.func_name, make_inputs(small.text, small.func_name, 0, sizes=small.sizes))
    if find_tool("mlir-opt") is not None:
        assert verify_with_mlir_opt(small.text) is None

    import loopopt.fuzz.shrink as shrink_mod

    monkeypatch.setattr(shrink_mod, "_simplify_contractions", lambda p, still_fails, budget: p)
    old = shrink(prog, _planted_contraction_failure)
    (o,) = _contractions(old.model)
    assert (o.par, o.red) == (before.par, before.red) and len(old.text) > len(small.text)


def test_shrink_reduces_the_codegen_classes_keeping_them_valid():
    """A planted failure on a loss and a transposing copy shrinks the loss to one row and the
    columns up to its gathered one, the copy to smaller extents without its read-back, and the
    rest of the program away; the result runs in the interpreter."""
    cfg = GeneratorConfig(force=frozenset({"transpose_copy", "row_loss"}))
    prog = generate_program(random.Random(3), cfg)

    def planted(p):
        parse_module(p.text)
        return bool(_codegen_stmts(p.model, RowLoss)) and bool(_codegen_stmts(p.model, TransposeCopy))

    small = shrink(prog, planted)
    (loss,) = _codegen_stmts(small.model, RowLoss)
    (copy,) = _codegen_stmts(small.model, TransposeCopy)
    (before,) = _codegen_stmts(prog.model, TransposeCopy)
    assert loss.rows == 1 and loss.cols // 2 <= loss.t
    assert copy.rows * copy.cols < before.rows * before.cols and copy.out is None
    assert len(small.text) < len(prog.text) / 2
    run_on_inputs(small.text, small.func_name, make_inputs(small.text, small.func_name, 0, sizes=small.sizes))


def test_shrink_drops_a_loop_of_a_nest_fixing_its_variable():
    """A nest's loop (a reduction loop of a 3-deep reduce_acc nest) is dropped with its variable
    fixed at the lower bound: subscripts that used it become constants, inner loops renumbered."""
    prog = _first_with_model(lambda m: any(n.kind == "reduce_acc" and len(n.loops) == 3 for n in _all_nests(m)))

    def deep(p):
        parse_module(p.text)
        return any(n.kind == "reduce_acc" for n in _all_nests(p.model))

    small = shrink(prog, deep)
    (nest,) = [n for n in _all_nests(small.model) if n.kind == "reduce_acc"]
    assert len(nest.loops) == 1
    run_on_inputs(small.text, small.func_name, make_inputs(small.text, small.func_name, 0, sizes=small.sizes))


def _all_nests(model) -> list:
    return [st.what for st in walk_stmts(model.stmts) if isinstance(st.what, Nest)]


def _first_with_model(pred, config=None):
    for seed in range(400):
        prog = generate_program(random.Random(seed), config or GeneratorConfig())
        if pred(prog.model):
            return prog
    raise AssertionError("no generated program has it")


def test_fuzz_command_saves_a_shrunk_failure(monkeypatch, tmp_path):
    """A miscompile (here: subtraction for addition whenever a subview exists) is found,
    shrunk, and saved with the failing options in its header."""
    def bad(t):
        return t.replace("arith.addf", "arith.subf") if "memref.subview" in t else t
    monkeypatch.setattr(driver, "optimize", _fake_optimize(bad))
    args = fuzz_main.build_parser().parse_args(
        ["--minutes", "1", "--seed", "3", "--out", str(tmp_path), "--max-programs", "25", "--mlir-opt-every", "0",
         "--in-process"])
    out = io.StringIO()
    code = fuzz_main.run(args, out)
    log = out.getvalue()
    assert code == 1 and "[mismatch]" in log and "FAIL case" in log and "25 programs" in log
    assert re.search(r"fuzz: class mismatch: \d+", log)
    saved = sorted(tmp_path.glob("*.mlir"))
    assert saved
    reg = parse_regression(saved[0].read_text())
    assert reg.note.startswith("mismatch") and "--target=" in saved[0].read_text() and reg.open
    assert check_regression(reg, use_mlir_opt=False).kind == MISMATCH
    originals = [fuzz_main.program_case(3, k)[0] for k in range(25)]
    biggest = max(len(p.text) for p in originals if "memref.subview" in p.text)
    assert len(reg.text) < biggest


def test_internal_remark_is_a_failure_with_its_own_class(monkeypatch):
    """A step rolled back (results kept, work lost) fails the property; its class names the step
    and the exception, without the parts that vary from program to program."""
    prog = _first_with("arith.addf")
    why = "AttributeError: 'AffineForOp' object has no attribute 'block'"
    monkeypatch.setattr(driver, "optimize", _fake_optimize(lambda t: t, lambda t: [_internal("fusion", why)]))
    f = check_program(prog, Options())
    assert f is not None and f.kind == INTERNAL and "fusion rolled back" in f.message
    assert f.signature == "internal:fusion:AttributeError"
    a = failure_signature(INTERNAL, "[INTERNAL] licm rolled back: error: 'affine.load' op operand #0 at 3:4 bad")
    b = failure_signature(INTERNAL, "[INTERNAL] licm rolled back: error: 'affine.store' op operand #2 at 9:1 bad")
    assert a == b and a.startswith("internal:licm:")
    assert failure_signature(MISMATCH, "output 0 differs at [3]") == MISMATCH
    monkeypatch.setattr(driver, "optimize", _fake_optimize(lambda t: t))
    assert check_program(prog, Options()) is None


def test_fuzz_command_shrinks_internal_failures_keeping_their_class(monkeypatch, tmp_path):
    """A rollback whenever the program has a subview: found, counted by class, shrunk while the
    same class persists, saved once per class (--max-per-class 1)."""
    def remarks(text):
        return [_internal("contraction", "KeyError: 'x'")] if "memref.subview" in text else []
    monkeypatch.setattr(driver, "optimize", _fake_optimize(lambda t: t, remarks))
    args = fuzz_main.build_parser().parse_args(
        ["--minutes", "1", "--seed", "3", "--out", str(tmp_path), "--max-programs", "25", "--mlir-opt-every", "0",
         "--max-per-class", "1", "--in-process"])
    out = io.StringIO()
    assert fuzz_main.run(args, out) == 1
    log = out.getvalue()
    found = int(re.search(r"fuzz: class internal:contraction:KeyError: (\d+)", log).group(1))
    assert found >= 2 and "not saved" in log
    saved = sorted(tmp_path.glob("*.mlir"))
    assert len(saved) == 1
    reg = parse_regression(saved[0].read_text())
    assert reg.note.startswith("internal") and "memref.subview" in reg.text
    assert check_regression(reg, use_mlir_opt=False).signature == "internal:contraction:KeyError"
    assert reg.text.count("affine.for") <= 3


def crash_on_second_request() -> None:
    """A checking child (IsolatedChecker's `serve`) that answers its first request and dies of
    SIGSEGV on its second."""
    import pickle
    import signal as _signal
    import sys

    pickle.load(sys.stdin.buffer)
    pickle.dump(None, sys.stdout.buffer)
    sys.stdout.buffer.flush()
    pickle.load(sys.stdin.buffer)
    os.kill(os.getpid(), _signal.SIGSEGV)


def test_a_crash_of_the_checking_process_is_a_failure_and_the_next_check_runs():
    """A step reading an erased op kills the process (SIGSEGV): the fuzz command checks in a child
    process, counts that as class crash:SegmentationFault, and starts a new child for the next."""
    prog = _first_with("arith.addf")
    checker = IsolatedChecker(serve=f"{__name__}:crash_on_second_request")
    try:
        assert checker.check(prog.text, prog.func_name, prog.sizes, Options()) is None
        f = checker.check(prog.text, prog.func_name, prog.sizes, Options())
        assert f.kind == CRASH and f.signature == "crash:SegmentationFault" and "SIGSEGV (exit 139)" in f.message
        assert checker.check(prog.text, prog.func_name, prog.sizes, Options()) is None  # a new child
    finally:
        checker.close()
    real = IsolatedChecker()
    try:
        assert real.check(prog.text, prog.func_name, prog.sizes, Options(), seed=1) is None
    finally:
        real.close()


def test_fuzz_command_reports_clean_runs(tmp_path):
    args = fuzz_main.build_parser().parse_args(
        ["--minutes", "1", "--seed", "1", "--out", str(tmp_path), "--max-programs", "3"])
    out = io.StringIO()
    assert fuzz_main.run(args, out) == 0
    assert "3 programs" in out.getvalue() and "0 failures" in out.getvalue()


# ---------------------------------------------------------------- loopopt itself


def _open_classes() -> set:
    """Failure classes that saved open regressions already report (fixed by someone else)."""
    out = set()
    for path in REGRESSIONS:
        with open(path) as f:
            reg = parse_regression(f.read())
        if reg.open and ":" in reg.note:
            kind, message = reg.note.split(":", 1)
            out.add(failure_signature(kind.strip(), message.strip()))
    return out


def test_differential_property_fixed_seed():
    """LOOPOPT_FUZZ_COUNT generated programs under random knobs, checked in a child process:
    output verifies (every 10th also with mlir-opt), the interpreter gives bit-identical results,
    no step is rolled back, the process does not crash.
    Failures of a class an open regression file already reports make the test xfail instead."""
    use_opt = find_tool("mlir-opt") is not None
    failures = []
    checker = IsolatedChecker()  # a crash (SIGSEGV) is a failure class, not the end of the test run
    try:
        for k in range(PROPERTY_COUNT):
            prog, options, seed = fuzz_main.program_case(PROPERTY_SEED, k)
            f = checker.check(prog.text, prog.func_name, prog.sizes, options, seed=seed,
                              use_mlir_opt=use_opt and k % 10 == 0)
            if f is not None:
                failures.append((k, f))
    finally:
        checker.close()
    if not failures:
        return
    summary = "\n".join(f"  case {k}: [{f.signature}] {f.message} ({options_flags(f.options)})" for k, f in failures)
    known = _open_classes()
    new = [(k, f) for k, f in failures if f.signature not in known]
    if not new:
        pytest.xfail(f"{len(failures)} of {PROPERTY_COUNT} programs fail, all of open classes:\n{summary}")
    k, f = new[0]
    prog, options, _ = fuzz_main.program_case(PROPERTY_SEED, k)
    pytest.fail(f"{len(failures)} of {PROPERTY_COUNT} programs fail:\n{summary}\nfirst new-class program:\n{prog.text}")


@pytest.mark.parametrize("path", REGRESSION_CASES)
def test_saved_regression_keeps_its_results(path):
    with open(path) as f:
        reg = parse_regression(f.read())
    failure = check_regression(reg, use_mlir_opt=find_tool("mlir-opt") is not None)
    assert failure is None, f"{os.path.basename(path)}: [{failure.kind}] {failure.message}"


@needs_mlir_opt
@pytest.mark.toolchain
def test_bug_pattern_regressions_catch_stock_mlir_fusion():
    """The saved MLIR bug patterns are sharp: stock `mlir-opt --affine-loop-fusion` (default or
    maximal) miscompiles the three the issue measured, and the same check reports it."""
    from loopopt.fuzz.differential import compare_results
    from loopopt.toolchain import mlir_opt

    caught = set()
    for path in REGRESSIONS:
        with open(path) as f:
            reg = parse_regression(f.read())
        if not reg.note.startswith("MLIR bug pattern"):
            continue
        for flags in (["--affine-loop-fusion"], ["--affine-loop-fusion=maximal"]):
            stock = mlir_opt(reg.text, flags)
            assert stock.returncode == 0, stock.stderr
            verdict = compare_results(reg.text, stock.stdout, reg.func_name, reg.sizes, reg.seed)
            if verdict is not None and verdict[0] == MISMATCH:
                caught.add(reg.note.split(":", 1)[1].strip())
    for pattern in ("a call rewrites", "memref.cast alias", "T[i+1]"):
        assert any(pattern in c for c in caught), (pattern, caught)
