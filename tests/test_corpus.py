"""The example corpus: every program parses, prints, re-verifies and re-runs unchanged.

Each example under examples/ is checked three ways: loopopt's printed text is accepted by stock
mlir-opt and is a fixed point of parse+print; running the original and the printed text gives the
same results; and examples/README.md indexes it. A few key kernels are also checked against an
independent numpy computation, so the interpreter and the corpus vouch for each other.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from loopopt.mlir import func_name, functions, parse_module, print_module, walk
from loopopt.toolchain import find_tool, verify_with_mlir_opt

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FILES = sorted(EXAMPLES.rglob("*.mlir"))
IDS = [str(p.relative_to(EXAMPLES)) for p in FILES]

ALLOWED_DIALECTS = {"builtin", "func", "affine", "memref", "arith", "math", "scf"}
BEHAVIOURS = {"fusion", "symbolic fusion", "illegal fusion", "LICM", "tiling", "interchange",
              "distribution", "contraction", "baseline"}


def _text(path: Path) -> str:
    return path.read_text()


def _rel(path: Path) -> str:
    return str(path.relative_to(EXAMPLES))


def _index() -> dict[str, dict]:
    """Rows of the README table: file -> {shows, exercises, sizes}."""
    rows = {}
    for line in (EXAMPLES / "README.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].endswith(".mlir"):
            continue
        name, shows, exercises, sizes = cells
        rows[name] = {"shows": shows, "exercises": [e.strip() for e in exercises.split(",")],
                      "sizes": _parse_sizes(sizes)}
    return rows


def _parse_sizes(cell: str) -> dict[str, int] | None:
    """`n=4, m=6` -> {"n": 4, "m": 6}; `-` -> None."""
    if cell.strip() == "-":
        return None
    out = {}
    for part in cell.split(","):
        key, _, value = part.strip().partition("=")
        out[key.strip()] = int(value)
    return out


INDEX = _index()


def _entry(path: Path) -> str:
    """The kernel function of an example is named after its file."""
    return path.stem


# ---------------------------------------------------------------- conventions and index

def test_corpus_is_big_enough():
    assert len(FILES) >= 30
    assert (EXAMPLES / "chain3.mlir").exists()
    for name in "ABCEFG":
        assert (EXAMPLES / "seed003" / f"exp_{name}.mlir").exists()


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_example_conventions(path):
    """One `//` line on top, a kernel named after the file, only the allowed dialects."""
    text = _text(path)
    first = text.splitlines()[0]
    assert first.startswith("// ") and len(first) > 10, f"{_rel(path)}: first line must be a // comment"
    module = parse_module(text, _rel(path))
    names = [func_name(f) for f in functions(module)]
    assert _entry(path) in names, f"{_rel(path)}: no @{_entry(path)} among {names}"
    dialects = {op.name.split(".")[0] for op in walk(module.operation)}
    assert dialects <= ALLOWED_DIALECTS, f"{_rel(path)}: uses {sorted(dialects - ALLOWED_DIALECTS)}"


def test_readme_indexes_every_example_and_nothing_else():
    on_disk = set(IDS)
    assert set(INDEX) == on_disk, (f"missing rows: {sorted(on_disk - set(INDEX))}; "
                                   f"rows without a file: {sorted(set(INDEX) - on_disk)}")


@pytest.mark.parametrize("name", sorted(INDEX))
def test_readme_row_uses_the_vocabulary(name):
    row = INDEX[name]
    assert row["shows"]
    unknown = [e for e in row["exercises"] if e not in BEHAVIOURS]
    assert not unknown, f"{name}: unknown behaviours {unknown}"


def _signature_args(path: Path) -> list[tuple[str, str]]:
    """(name, type) of the kernel's arguments as written in the file (the bindings rename them)."""
    text = _text(path)
    start = text.index(f"@{_entry(path)}(") + len(_entry(path)) + 2
    args, depth, cur = [], 0, ""
    for ch in text[start:]:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
    args.append(cur)
    pairs = [a.strip().split(":", 1) for a in args if a.strip()]
    return [(name.strip().lstrip("%"), typ.strip()) for name, typ in pairs]


def _index_args(path: Path) -> dict[str, int]:
    """Name -> position of the kernel's `index` arguments."""
    return {name: i for i, (name, typ) in enumerate(_signature_args(path)) if typ == "index"}


def _sizes(path: Path) -> dict[int, int] | None:
    """The README's run sizes for `path`, keyed by argument position as make_inputs expects."""
    named = INDEX[_rel(path)]["sizes"]
    if named is None:
        return None
    positions = _index_args(path)
    return {positions[name]: value for name, value in named.items()}


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_symbolic_examples_list_their_sizes(path):
    """An example with `index` arguments names a value for each in the README; static ones list none."""
    sizes = INDEX[_rel(path)]["sizes"] or {}
    assert sorted(sizes) == sorted(_index_args(path)), f"{_rel(path)}: README sizes {sizes}"


# ---------------------------------------------------------------- round trip

@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_round_trip_verifies_and_is_idempotent(path):
    text = _text(path)
    printed = print_module(parse_module(text, _rel(path)))
    assert print_module(parse_module(printed, _rel(path))) == printed
    if find_tool("mlir-opt") is None:
        pytest.skip("mlir-opt 22 not found (apt-get install -y mlir-22-tools)")
    assert verify_with_mlir_opt(printed) is None


SMALL_BUDGET = 200_000
"""Interpreter op budget every example must fit in (2mm, the largest, needs under 100k)."""


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_example_is_small_enough_for_the_interpreter(path):
    from loopopt.interpreter import InterpreterError
    from loopopt.testing import make_inputs, run_on_inputs

    text = _text(path)
    inputs = make_inputs(text, _entry(path), seed=0, sizes=_sizes(path))
    try:
        outputs = run_on_inputs(text, _entry(path), inputs, max_ops=SMALL_BUDGET)
    except InterpreterError as e:
        pytest.fail(f"{_rel(path)} does not run within {SMALL_BUDGET} interpreter ops: {e}")
    assert outputs, f"{_rel(path)}: no observable output"
    for i, out in enumerate(outputs):
        out = np.asarray(out)
        # fresh memory reads as NaN in the interpreter, so a NaN output means a read before a write
        assert not (out.dtype.kind == "f" and np.isnan(out).any()), f"{_rel(path)}: output {i} has NaN"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_round_trip_keeps_results(path):
    from loopopt.testing import assert_same_results

    text = _text(path)
    printed = print_module(parse_module(text, _rel(path)))
    assert_same_results(text, printed, seed=7, func=_entry(path), sizes=_sizes(path))


# ---------------------------------------------------------------- independent numpy references
# One kernel per family, run by the interpreter and recomputed here with numpy alone. Elementwise
# f32/f64 chains round each op exactly as numpy does, so they must match bit for bit; reductions
# and math functions are compared with a tolerance because summation order differs.

def _run(name: str, args: list) -> list:
    from loopopt.interpreter import run_function

    path = EXAMPLES / name
    return run_function(_text(path), _entry(path), args)


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_numpy_chain3():
    rng = np.random.default_rng(1)
    a, b, out = _f32(rng, 64), _f32(rng, 64), np.zeros(64, np.float32)
    _run("chain3.mlir", [a, b, out])
    s = a + b
    np.testing.assert_array_equal(out, s * s - a)


def test_numpy_chain5_2d_with_math_ops():
    rng = np.random.default_rng(2)
    a, b, out = _f32(rng, 16, 16), _f32(rng, 16, 16), np.zeros((16, 16), np.float32)
    _run("chain5_2d.mlir", [a, b, out])
    d = a - b
    want = d / np.sqrt(np.abs(d) + np.float32(1e-3)) + a
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_numpy_transpose_consumer():
    rng = np.random.default_rng(3)
    a, out = _f32(rng, 16, 32), np.zeros((32, 16), np.float32)
    _run("transpose_consumer.mlir", [a, out])
    np.testing.assert_array_equal(out, ((a + np.float32(1)) * np.float32(2)).T)


def test_numpy_sym_equal_tripcount_touches_exactly_n_elements():
    rng = np.random.default_rng(4)
    a, out = _f32(rng, 40), np.full(40, 7.0, np.float32)
    _run("sym_equal_tripcount.mlir", [a, out, 30])
    np.testing.assert_array_equal(out[:30], a[:30] * np.float32(3) - a[:30])
    np.testing.assert_array_equal(out[30:], np.float32(7.0))


def test_numpy_softmax_rows():
    rng = np.random.default_rng(5)
    x, out = _f32(rng, 16, 32) * np.float32(4), np.zeros((16, 32), np.float32)
    _run("softmax_rows.mlir", [x, out])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-5)


def test_numpy_layernorm():
    rng = np.random.default_rng(6)
    x, g, b = _f32(rng, 16, 32), _f32(rng, 32), _f32(rng, 32)
    out = np.zeros((16, 32), np.float32)
    _run("layernorm.mlir", [x, g, b, out])
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mu) ** 2).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(out, (x64 - mu) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4, atol=1e-5)


def test_numpy_reduce_scalar_memref_writes_a_0d_result():
    rng = np.random.default_rng(7)
    a, sq, out = _f32(rng, 64), np.zeros(64, np.float32), np.zeros((), np.float32)
    _run("reduce_scalar_memref.mlir", [a, sq, out])
    np.testing.assert_array_equal(sq, a * a)
    np.testing.assert_allclose(out, np.sum(a.astype(np.float64) ** 2), rtol=1e-5)


def test_numpy_stencil_shift_leaves_edges_alone():
    rng = np.random.default_rng(8)
    a, out = _f32(rng, 64), np.full(64, -1.0, np.float32)
    _run("stencil_shift.mlir", [a, out])
    t = a * np.float32(2)
    want = ((t[:-2] + t[1:-1]) + t[2:]) * np.float32(0.333333343)
    np.testing.assert_array_equal(out[1:63], want)
    assert out[0] == -1.0 and out[63] == -1.0


def test_numpy_atax():
    rng = np.random.default_rng(9)
    A, x = _f32(rng, 32, 16), _f32(rng, 16)
    y, tmp = np.zeros(16, np.float32), np.zeros(32, np.float32)
    _run("polybench_atax.mlir", [A, x, y, tmp])
    A64 = A.astype(np.float64)
    np.testing.assert_allclose(tmp, A64 @ x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y, A64.T @ (A64 @ x), rtol=1e-4, atol=1e-4)


def test_numpy_2mm():
    rng = np.random.default_rng(10)
    A, B, C, D = (_f32(rng, 16, 16) for _ in range(4))
    alpha, beta = np.float32(1.5), np.float32(-0.5)
    want = alpha * (A.astype(np.float64) @ B) @ C + beta * D.astype(np.float64)
    _run("polybench_2mm.mlir", [alpha, beta, A, B, C, D])
    np.testing.assert_allclose(D, want, rtol=1e-4, atol=1e-4)


def test_numpy_views_call_and_store_between():
    rng = np.random.default_rng(11)
    a, out = _f32(rng, 32, 16), np.zeros((32, 16), np.float32)
    _run("cast_subview_alias.mlir", [a, out])
    want = a * np.float32(2)
    want[8:24] += np.float32(1)
    np.testing.assert_array_equal(out, want)

    a, out = _f32(rng, 64), np.zeros(64, np.float32)
    _run("call_between.mlir", [a, out])
    t = (a + np.float32(1)) * np.float32(3)
    np.testing.assert_array_equal(out, t * t)

    out = np.zeros(64, np.float32)
    _run("store_between.mlir", [a, out])
    want = a * a + a
    want[0] = np.float32(100) + a[0]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("name,sizes", [("exp_C", []), ("exp_A", [4, 6]), ("exp_B", [4, 6]),
                                        ("exp_E", [4]), ("exp_F", [6]), ("exp_G", [6])])
def test_numpy_seed003_programs_return_the_transposed_sum(name, sizes):
    rng = np.random.default_rng(12)
    lhs, rhs = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    (res,) = _run(f"seed003/{name}.mlir", [lhs, rhs, *sizes])
    np.testing.assert_array_equal(res, (lhs + rhs).T)
