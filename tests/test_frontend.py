"""The front end (loopopt/frontend/): recognising input, the pipeline as text, the lowering of
every committed fixture to ops loopopt models, the calling convention, one-line errors, and the
results of small lowered programs against numpy (reference interpreter).

Native runs of the fixtures against the frameworks' saved outputs: tests/test_frontend_native.py.
Golden IR of each step: tests/lit/frontend/.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from loopopt import frontend, mlir
from loopopt.errors import LoopOptError
from loopopt.frontend import fixtures, rewrites
from loopopt.frontend.pipeline import check_pipeline, split_pipeline
from loopopt.toolchain import find_tool, mlir_opt, verify_with_mlir_opt

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "tests" / "lit" / "frontend"
NAMES = fixtures.fixture_names()
MODELLED = set(rewrites.OUTPUT_DIALECTS)


def lower_text(text: str, **kw) -> frontend.Lowered:
    return frontend.lower(text, frontend.LoweringOptions(**kw), filename="t.mlir")


def ops_of(module) -> list[str]:
    return [op.name for op in mlir.walk(module.operation)]


# ----------------------------------------------------------------------------- recognising input

def test_fixtures_are_committed():
    assert len(NAMES) >= 20, NAMES
    for name in ("mlp_relu", "mlp_gelu", "mlp_dynamic", "layernorm", "softmax", "attention", "sdpa",
                 "elementwise", "encoder", "jax_mlp_small", "onnx_mlp_small"):
        assert name in NAMES


@pytest.mark.parametrize("name,kind", [("mlp_relu_small", "linalg"), ("jax_softmax_small", "stablehlo"),
                                       ("onnx_mlp_small", "onnx")])
def test_input_kind_of_fixtures(name, kind):
    module = mlir.parse_module(fixtures.load_fixture(name).text)
    assert frontend.input_kind(module) == kind
    assert frontend.needs_lowering(module)


def test_affine_input_needs_no_lowering():
    text = (ROOT / "examples" / "chain3.mlir").read_text()
    module = mlir.parse_module(text)
    assert frontend.input_kind(module) == "affine" and not frontend.needs_lowering(module)
    low = frontend.lower(text)
    assert low.kind == "affine" and low.steps == [] and low.pipeline == ""
    assert low.text == mlir.print_module(mlir.parse_module(text))


def test_torch_dialect_input_is_recognised():
    module = mlir.parse_module((LIT / "torch-dialect-input.mlir").read_text())
    assert frontend.input_kind(module) == "torch"


# ----------------------------------------------------------------------------- the pipeline as text

def test_pipeline_text_round_trips():
    for kind in ("linalg", "stablehlo", "torch", "onnx"):
        text = frontend.lowering_pipeline(kind=kind)
        steps = split_pipeline(text)
        assert text == f"builtin.module({','.join(steps)})"
        assert split_pipeline(frontend.format_pipeline(text)) == steps
        assert check_pipeline(text, mlir.new_context()) == steps  # every step parses or is ours
        assert steps[-1] == "loopopt-check-lowered"


def test_split_keeps_nested_options_and_pipelines():
    text = "builtin.module(func.func(a,b{x=1,y=2}),c{d=[1,2]}, loopopt-x )"
    assert split_pipeline(text) == ["func.func(a,b{x=1,y=2})", "c{d=[1,2]}", "loopopt-x"]
    with pytest.raises(LoopOptError, match="unbalanced"):
        split_pipeline("builtin.module(a))")


def test_options_change_the_pipeline():
    plain = split_pipeline(frontend.lowering_pipeline())
    fused = split_pipeline(frontend.lowering_pipeline(frontend.LoweringOptions(elementwise_fusion=True)))
    after = plain.index("func.func(linalg-fold-unit-extent-dims,canonicalize,cse)") + 1  # the fusion runs on folded dims
    assert fused == plain[:after] + ["func.func(linalg-fuse-elementwise-ops,canonicalize,cse)"] + plain[after:]
    assert split_pipeline(frontend.lowering_pipeline(kind="stablehlo"))[0] == "iree-stablehlo-input-transformation-pipeline"
    with pytest.raises(ValueError, match="unknown input kind"):
        frontend.LoweringOptions(input_kind="tosa")


@pytest.mark.skipif(find_tool("mlir-opt") is None, reason="mlir-opt 22 not found")
def test_mlir_only_pipeline_runs_in_mlir_opt():
    """The MLIR steps alone run in stock mlir-opt 22 on a torch export; what they leave is what
    loopopt's own steps fix (here the copy of the result into its out-parameter)."""
    text = fixtures.load_fixture("softmax_small").text
    p = mlir_opt(text, [f"--pass-pipeline={frontend.mlir_only(frontend.lowering_pipeline())}"])
    assert p.returncode == 0, p.stderr
    assert "affine.for" in p.stdout and "linalg." not in p.stdout
    assert "memref.copy" in p.stdout
    assert "memref.copy" not in frontend.lower(text).text


def test_custom_pipeline_replaces_the_built_one():
    text = fixtures.load_fixture("softmax_small").text
    low = lower_text(text, pipeline=frontend.mlir_only(frontend.lowering_pipeline()))
    assert [s.kind for s in low.steps] == ["mlir"] * len(low.steps)
    assert "memref.copy" in ops_of(low.module)


# ----------------------------------------------------------------------------- every fixture

def _signature(fn) -> tuple[list, list]:
    ftype = mlir.ir.FunctionType(mlir.ir.TypeAttr(fn.attributes["function_type"]).value)
    return list(ftype.inputs), list(ftype.results)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_lowers_to_modelled_ops(name):
    """Only ops loopopt models (plus the entry checks), no copy of a result, no view the
    analysis cannot map, verified; the kernel keeps its name and takes the inputs then one
    identity-layout out-parameter per result, shaped as the framework's outputs."""
    fx = fixtures.load_fixture(name)
    low = frontend.lower(fx.text, filename=f"{name}.mlir")
    names = ops_of(low.module)
    assert {n.split(".")[0] for n in names if n not in rewrites.OUTPUT_EXTRA_OPS} <= MODELLED
    assert "memref.copy" not in names
    assert not set(names) & set(rewrites.UNMAPPED_VIEWS) and "memref.subview" not in names
    assert mlir.verify(low.module.operation) is None
    fn = next(f for f in mlir.functions(low.module) if mlir.func_name(f) == fx.function)
    inputs, results = _signature(fn)
    run = fx.runs[0]
    assert results == []
    assert len(inputs) == len(run["inputs"]) + len(run["outputs"])
    for t, rec in zip(inputs, run["inputs"] + run["outputs"]):
        t = mlir.ir.MemRefType(t)
        assert "strided" not in str(t) and "affine_map" not in str(t)
        assert [d if d != mlir.DYNAMIC else None for d in t.shape] == \
            [d if (fx.name not in ("mlp_dynamic", "mlp_dynamic_small") or k != 0) else None
             for k, d in enumerate(rec["shape"])]
    assert [s.name for s in low.steps] == split_pipeline(low.pipeline)


@pytest.mark.skipif(find_tool("mlir-opt") is None, reason="mlir-opt 22 not found")
@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith("_small")])
def test_lowered_fixture_verifies_in_mlir_opt(name):
    assert verify_with_mlir_opt(frontend.lower(fixtures.load_fixture(name).text).text) is None


def test_dynamic_batch_has_one_checked_size():
    low = frontend.lower(fixtures.load_fixture("mlp_dynamic").text)
    assert low.checks == ["mlp_dynamic: dim 0 of output argument 1 must equal dim 0 of argument 0"]
    fn = mlir.functions(low.module)[0]
    body = mlir.block_ops(mlir.func_body(fn))
    dims = [op for op in mlir.walk(fn) if op.name == "memref.dim"]
    assert len(dims) == 2  # the input's batch, and the out-parameter's (read by the check only)
    first_loop = next(k for k, op in enumerate(body) if op.name == "affine.for")
    check = next(k for k, op in enumerate(body) if op.name == "cf.assert")
    assert check < first_loop
    bounds = {str(op.operands[0]) for op in mlir.walk(fn) if op.name == "affine.for" and len(op.operands)}
    assert len(bounds) == 1  # every batch loop bounded by the same value


def test_entry_check_does_not_block_fusion():
    """The cf.assert at entry is before every loop: loopopt fuses the dynamic MLP's nests as it
    does without it (its message names no symbol: `@name` in an attribute reads as the
    function's address being taken, which makes its arguments untraced)."""
    import re

    import loopopt

    text = frontend.lower(fixtures.load_fixture("mlp_dynamic_small").text).text
    assert "cf.assert" in text and "@mlp_dynamic_small:" not in text
    without = re.sub(r"\n\s*cf.assert[^\n]*", "", text)
    fused = loopopt.optimize(text, target="cpu").num_loops_fused
    assert fused == loopopt.optimize(without, target="cpu").num_loops_fused and fused >= 4


def test_step_records():
    low = frontend.lower(fixtures.load_fixture("mlp_relu_small").text)
    by_name = {s.name: s for s in low.steps}
    bufferize = by_name[[n for n in by_name if n.startswith("one-shot-bufferize")][0]]
    assert bufferize.changes()["memref.alloc"] > 0 and bufferize.kind == "mlir"
    results = by_name["loopopt-results-into-out-params"]
    assert results.kind == "loopopt" and results.changes()["memref.copy"] == -1
    assert results.note == "1 result(s) written straight into their out-parameter"
    assert low.report().count("\n") == len(low.steps) and low.seconds > 0


def test_elementwise_fusion_gives_fewer_nests():
    text = fixtures.load_fixture("elementwise_small").text
    plain, fused = frontend.lower(text), lower_text(text, elementwise_fusion=True)
    count = lambda low: sum(1 for op in mlir.block_ops(mlir.func_body(mlir.functions(low.module)[0]))
                            if op.name == "affine.for")
    assert count(fused) < count(plain)


# ----------------------------------------------------------------------------- errors

def test_unlowerable_op_is_one_line_naming_it():
    text = ("func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
            "  %e = tensor.empty() : tensor<4x8xf32>\n"
            "  %0 = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>\n"
            "  return %0 : tensor<4x8xf32>\n}\n")
    with pytest.raises(LoopOptError) as e:
        frontend.lower(text, filename="s.mlir")
    assert str(e.value) == ("s.mlir:3:8: error: cannot lower 'linalg.softmax': an aggregate op with no loop "
                            "form in convert-linalg-to-affine-loops")


def test_a_failing_pass_is_one_line_naming_the_op():
    text = ("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c3 = arith.constant 3 : index\n"
            "  %0 = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %x) -> tensor<4xf32> {\n"
            "    %e = tensor.empty() : tensor<4xf32>\n"
            "    %g = linalg.map { math.exp } ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>)\n"
            "    scf.yield %g : tensor<4xf32>\n  }\n  return %0 : tensor<4xf32>\n}\n")
    with pytest.raises(LoopOptError) as e:
        frontend.lower(text, filename="loop.mlir")
    msg = str(e.value)
    assert msg.startswith("loop.mlir:8:5: error: cannot lower 'scf.yield': one-shot-bufferize")
    assert "\n" not in msg


def test_a_view_that_cannot_be_reindexed_is_an_error():
    """A reshape with a dynamic inner size has no affine index map; it is refused, not left for
    the analysis (and MLIR's fusion) to misread."""
    text = ("#map = affine_map<(d0, d1) -> (d0, d1)>\n"
            "func.func @f(%x: tensor<?xf32>, %n: index) -> tensor<4x?xf32> {\n"
            "  %r = tensor.expand_shape %x [[0, 1]] output_shape [4, %n] : tensor<?xf32> into tensor<4x?xf32>\n"
            "  %e = tensor.empty(%n) : tensor<4x?xf32>\n"
            "  %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = [\"parallel\", \"parallel\"]}"
            " ins(%r : tensor<4x?xf32>) outs(%e : tensor<4x?xf32>) {\n"
            "  ^bb0(%a: f32, %o: f32):\n    %s = arith.addf %a, %a : f32\n    linalg.yield %s : f32\n"
            "  } -> tensor<4x?xf32>\n  return %0 : tensor<4x?xf32>\n}\n")
    with pytest.raises(LoopOptError, match=r"^v.mlir:3:8: error: cannot lower 'memref.expand_shape': a reshape view"):
        frontend.lower(text, filename="v.mlir")


def test_bytecode_is_refused_in_one_line():
    data = (LIT / "Inputs" / "softmax_torch_mlir24.mlirbc").read_bytes()
    with pytest.raises(LoopOptError) as e:
        frontend.lower(data, filename="b.mlirbc")
    assert str(e.value).startswith("b.mlirbc: error: input is MLIR bytecode") and "text" in str(e.value)


def test_unknown_step_in_a_custom_pipeline():
    with pytest.raises(LoopOptError, match="unknown lowering step 'loopopt-nope'"):
        lower_text(fixtures.load_fixture("softmax_small").text, pipeline="builtin.module(loopopt-nope)")


def test_cli_errors_are_one_line():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "loopopt.frontend", *args], capture_output=True, text=True,
                              cwd=ROOT)

    p = run(str(LIT / "error-unknown-dialect.mlir"))
    assert p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1
    assert "cannot lower 'mydialect.gelu'" in p.stderr
    p = run()
    assert p.returncode == 1 and p.stderr.count("\n") == 1


# ----------------------------------------------------------------------------- results (interpreter)

def _run(low: frontend.Lowered, name: str, args: list) -> list:
    from loopopt.interpreter import run_function

    run_function(low.text, name, args)
    return args


def _fill(shape, k):
    n = int(np.prod(shape))
    return (((7 * np.arange(n) + 131 * k + 3) % 251) * (2 / 251) - 1).astype(np.float32).reshape(shape)


def test_views_are_reindexed_exactly():
    """split_heads (tests/lit/frontend/reshape-views.mlir): a slice, a split into heads, a merge,
    each folded into the accesses; the results equal numpy's."""
    low = frontend.lower((LIT / "reshape-views.mlir").read_text())
    x = _fill((8, 48), 0)
    t, r = np.zeros((2, 8, 8), np.float32), np.zeros((8, 16), np.float32)
    _run(low, "split_heads", [x, t, r])
    want_t = x[:, 16:32].reshape(8, 2, 8).transpose(1, 0, 2)
    np.testing.assert_array_equal(t, want_t)
    np.testing.assert_array_equal(r, 2 * want_t.reshape(16, 8).T)


def test_named_ops_results():
    """The interpreter does not read dense_resource blobs: the weights (all 1.0) inline here;
    tests/test_frontend_native.py runs the resource form natively."""
    text = (LIT / "named-ops-and-weights.mlir").read_text().replace("dense_resource<weights>", "dense<1.0>")
    low = frontend.lower(text)
    a, b, w = _fill((2, 4, 8), 0), _fill((2, 8, 4), 1), _fill((6, 4), 2)
    out = np.zeros((2, 4, 6), np.float32)
    _run(low, "named", [a, b, w, out])
    c = np.matmul(a.astype(np.float64), b).reshape(8, 4)
    want = (c @ w.T + c @ np.ones((4, 6))).reshape(2, 4, 6)  # the dense_resource weights are all 1.0
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_dynamic_batch_results_for_two_sizes():
    low = frontend.lower((LIT / "dynamic-batch.mlir").read_text())
    b = _fill((16,), 1)
    for n in (3, 5):
        x, out = _fill((n, 16), 0), np.zeros((n, 16), np.float32)
        _run(low, "bias_relu", [x, b, out])
        np.testing.assert_array_equal(out, np.maximum(x + b, 0))


def test_shared_fill_results():
    low = frontend.lower((LIT / "shared-fill.mlir").read_text())
    x = _fill((4, 8), 0)
    s, q = np.full(4, np.nan, np.float32), np.full(4, np.nan, np.float32)
    _run(low, "sum_and_sumsq", [x, s, q])
    np.testing.assert_allclose(s, x.sum(1), rtol=1e-6)
    np.testing.assert_allclose(q, (x * x).sum(1), rtol=1e-6)


def test_result_that_is_an_input_keeps_a_copy_as_a_loop_nest():
    """Returning an input: nothing is computed into the out-parameter, so the copy stays, as an
    affine nest (loopopt-copies-to-loops), and the note says why."""
    text = "func.func @ident(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {\n  return %x : tensor<4x?xf32>\n}\n"
    low = frontend.lower(text)
    assert "memref.copy" not in ops_of(low.module)
    step = next(s for s in low.steps if s.name == "loopopt-results-into-out-params")
    assert "copy kept for argument 1 of @ident (its value is not a buffer the function allocates)" in step.note
    x, out = _fill((4, 3), 0), np.zeros((4, 3), np.float32)
    _run(low, "ident", [x, out])
    np.testing.assert_array_equal(out, x)


def test_view_index_map_composition_of_collapse_then_expand():
    """A collapse 2x3x4 -> 6x4 then an expand 6x4 -> 6x2x2 folds into one access whose indices
    are floordiv/mod of the view's: checked on every element against numpy's reshape."""
    text = ("func.func @f(%x: tensor<2x3x4xf32>) -> tensor<6x2x2xf32> {\n"
            "  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>\n"
            "  %e = tensor.expand_shape %c [[0], [1, 2]] output_shape [6, 2, 2] : tensor<6x4xf32> into tensor<6x2x2xf32>\n"
            "  %z = tensor.empty() : tensor<6x2x2xf32>\n"
            "  %0 = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>],"
            " iterator_types = [\"parallel\", \"parallel\", \"parallel\"]} ins(%e : tensor<6x2x2xf32>) outs(%z : tensor<6x2x2xf32>) {\n"
            "  ^bb0(%a: f32, %o: f32):\n    %s = arith.negf %a : f32\n    linalg.yield %s : f32\n"
            "  } -> tensor<6x2x2xf32>\n  return %0 : tensor<6x2x2xf32>\n}\n")
    low = frontend.lower(text)
    assert not set(ops_of(low.module)) & set(rewrites.UNMAPPED_VIEWS)
    x, out = _fill((2, 3, 4), 0), np.zeros((6, 2, 2), np.float32)
    _run(low, "f", [x, out])
    np.testing.assert_array_equal(out, -x.reshape(6, 2, 2))


HEAD_BIAS = """func.func @head(%h: tensor<8x16xf32>, %w: tensor<16x1xf32>, %b: tensor<1xf32>) -> tensor<8x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1xf32>) -> tensor<8x1xf32>
  %m = linalg.matmul ins(%h, %w : tensor<8x16xf32>, tensor<16x1xf32>) outs(%f : tensor<8x1xf32>) -> tensor<8x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<8x1xf32>, tensor<1xf32>) outs(%e : tensor<8x1xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
}
"""


def test_a_collapse_to_rank_0_indexes_its_unit_dims_by_0():
    """Linear(n, 1) with its bias as an argument (torch-mlir's scoring head): the bias's
    tensor<1xf32> read at (0) lowers through a collapse to memref<f32> whose reassociation has no
    group; its one source dim is indexed by 0 (the fold crashed on it). Results equal numpy's, and
    the cpu pipeline's output equals the lowering's natively."""
    from loopopt import driver
    from loopopt.options import TARGETS, Options
    from loopopt.testing import native_mismatch

    low = frontend.lower(HEAD_BIAS)
    assert not set(ops_of(low.module)) & set(rewrites.UNMAPPED_VIEWS)
    h, w, b = _fill((8, 16), 0), _fill((16, 1), 1), np.array([0.25], np.float32)
    out = np.zeros((8, 1), np.float32)
    _run(low, "head", [h, w, b, out])
    np.testing.assert_allclose(out, h @ w + b, rtol=1e-5)
    res = driver.optimize(HEAD_BIAS, Options(target=TARGETS["cpu"]))
    if find_tool("mlir-runner") is not None:
        assert native_mismatch(low.text, res.text, kernel="head", rtol=1e-6, normwise=True) is None


# ----------------------------------------------------------------------------- fixtures' comparison

def test_expected_comparison_catches_a_wrong_value():
    from loopopt.native import Output

    fx = fixtures.load_fixture("softmax_small")
    run = fx.runs[0]
    inputs = [Output("arg0", r["numel"], checksum=tuple(r["checksum"])) for r in run["inputs"]]
    good = [Output("arg1", r["numel"], values=tuple(r["values"])) for r in run["outputs"]]
    assert fixtures.compare_with_expected(inputs + good, run) is None
    bad_values = list(good[0].values)
    bad_values[17] += 1e-3
    bad = [Output("arg1", good[0].numel, values=tuple(bad_values))]
    assert fixtures.compare_with_expected(inputs + bad, run).startswith("output 0[17] = ")
    wrong_fill = [Output("arg0", inputs[0].numel, checksum=(0.0, 0.0, 0.0))]
    assert fixtures.compare_with_expected(wrong_fill + good, run).startswith("input 0 sum")


def test_split_resources():
    from loopopt.native import split_resources

    text = fixtures.load_fixture("mlp_relu_small").text
    module, resources = split_resources(text)
    assert resources.lstrip().startswith("{-#") and module.rstrip().endswith("}")
    assert module + resources.lstrip("\n") == text or module.rstrip() + "\n" + resources.lstrip("\n") == text


# ----------------------------------------------------------------------------- from_torch without torch

def test_from_torch_names_and_messages():
    from loopopt.frontend import torch as ft

    class EncoderLayer:
        pass

    class main:  # noqa: N801
        pass

    assert ft.default_func_name(EncoderLayer()) == "encoder_layer"
    assert ft.default_func_name(main()) == "forward"
    assert "pip install torch-mlir==20261001" in ft._child_error("ModuleNotFoundError: No module named 'torch_mlir'")
    assert ft._child_error("Traceback:\n  File x\nRuntimeError: boom\n") == "torch-mlir failed: RuntimeError: boom"
