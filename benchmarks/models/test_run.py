"""Self-test of the model-block benchmark on a small block: a wrong column is caught and kept out
of the times, weights travel through the native harness, the tables follow the results.

Run: python3 -m pytest -q -p no:cacheprovider benchmarks/models/test_run.py   (needs mlir-opt and
mlir-runner 22; ~15 s; the IREE test also needs iree-base-runtime 3.11)
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name: str, path: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


run = _load("models_run", os.path.join(HERE, "run.py"))
report = run.models_report

from loopopt import native  # noqa: E402
from loopopt.toolchain import find_tool  # noqa: E402

needs_runner = pytest.mark.skipif(find_tool("mlir-runner") is None, reason="mlir-runner 22 not installed")


def _quiet(*_args, **_kw):
    pass


# ----------------------------------------------------------------------------- pure parts

def test_relative_error_rules():
    want = np.array([1.0, -2.0, 4.0])
    assert run.relative_error(want, want) == 0.0
    assert run.relative_error(want + [0, 0, 0.4], want) == pytest.approx(0.1)  # 0.4 / max|want| = 4
    assert run.relative_error(np.array([1.0, np.nan, 4.0]), want) == float("inf")  # a NaN is never close
    assert run.relative_error(want[:2], want) == float("inf")
    assert run.relative_error(np.array([1, 2]), np.array([1, 3])) == float("inf")  # integers exactly


def test_fixture_error_from_checksums():
    x = np.linspace(-1.0, 1.0, 5000)
    record = {"numel": x.size, "checksum": list(run.checksums(x))}
    assert run.fixture_error(x, record) < 1e-12
    y = x.copy()
    y[17] += 0.5  # one element off: the sum moves by 0.5 against sum|x| ~ 2500
    assert 1e-4 < run.fixture_error(y, record) < 1e-3 and run.fixture_error(y, record) > run.RTOL
    assert run.fixture_error(np.full_like(x, np.nan), record) == float("inf")


def test_judge_takes_the_worst_reference():
    col = run.Column("c", "affine")
    run.judge(col, {"fixture": 1e-7, "plain": 0.3})
    assert col.correct is False and col.error == 0.3 and col.error_against == "plain"
    ok = run.Column("d", "affine")
    run.judge(ok, {"fixture": run.RTOL / 100, "torch": run.RTOL / 2})
    assert ok.correct is True and ok.error_against == "torch"


def test_inline_resources_keeps_the_bytes():
    text = ('module {\n  memref.global "private" constant @w : memref<2xf32> = dense_resource<torch_tensor_2_torch.float32>\n}\n'
            '\n{-#\n  dialect_resources: {\n    builtin: {\n      torch_tensor_2_torch.float32: "0x040000000000803F00000040"\n'
            '    }\n  }\n#-}\n')
    out = run.inline_resources(text)
    assert "{-#" not in out and 'dense<"0x0000803F00000040">' in out  # 1.0f, 2.0f after the alignment word
    assert run.constant_bytes(out) == 8


# ----------------------------------------------------------------------------- a small block end to end

def _corrupt(text: str) -> str:
    """softmax's normalisation divides by the row sum; multiplying instead is a miscompile."""
    assert "arith.divf" in text
    return text.replace("arith.divf", "arith.mulf", 1)


@needs_runner
def test_wrong_column_is_caught_and_left_out(tmp_path):
    variants = (run.Variant("plain", "plain", "none"),
                run.Variant("wrong", "plain", "python", fn=_corrupt),
                run.Variant("broken", "plain", "python", fn=lambda t: t.replace("func.func", "func.fun", 1)),
                run.Variant("mlir-fusion", "plain", "mlir-opt", tuple(run.MLIR_PIPELINES["mlir-fusion"])))
    block = run.bench_block("softmax_small", variants=variants, reps=2, warmup=1, rounds=1, regimes=("warm",),
                            flush_mib=1, log=_quiet, out_dir=str(tmp_path))
    cols = block["columns"]
    assert cols["plain"]["correct"] is True and cols["plain"]["errors"]["fixture"] < 1e-5
    assert cols["mlir-fusion"]["correct"] is True and cols["mlir-fusion"]["errors"]["plain"] == 0.0
    wrong = cols["wrong"]
    assert wrong["correct"] is False and wrong["error"] > 0.1 and "output 0" in wrong["mismatch"]
    assert wrong["times"] == {} and cols["plain"]["times"]["warm"]  # a WRONG column is not timed
    assert report.time_of(wrong, "warm") is None and report.time_of(cols["plain"], "warm") > 0
    assert cols["broken"]["status"].startswith("transform") or cols["broken"]["status"].startswith("verify")
    assert report.verdict(wrong).startswith("**WRONG**") and report.verdict(cols["broken"]).startswith("FAIL")
    data = {"blocks": [block], "regimes": ["warm"], "rtol": run.RTOL}
    table = "\n".join(report.summary_table(data, "warm"))
    assert "wrong (" in table  # listed among the miscompiles
    detail = "\n".join(report.block_table(block, data))
    assert "| wrong | **WRONG**" in detail


@needs_runner
def test_weights_cross_the_harness():
    """A block with a dense_resource weight blob runs natively and matches torch's saved outputs."""
    block = run.Block("mlp_relu_small", run.fixtures.load_fixture("mlp_relu_small"))
    text = run.inline_resources(run.lower(block, "plain"))
    res = native.run_native(text, block.kernel, block.sizes(), reps=1, warmup=1, full_limit=run.FULL)
    errs, mismatch = run.compare_run(run.output_arrays(res.outputs, block.n_inputs), block.runs[0], {})
    assert errs["fixture"] <= run.RTOL and not mismatch


def test_iree_worker_matches_fixture(tmp_path):
    pytest.importorskip("iree.runtime")
    compiler, note = run.find_iree()
    if compiler is None:
        pytest.skip(note)
    block = run.Block("softmax_small", run.fixtures.load_fixture("softmax_small"))
    fw = run.Framework(run.Column("iree", "framework"), python=sys.executable,
                       vmfb=run.compile_iree(compiler, block, str(tmp_path)))
    outs = run.check_framework(block, fw, {}, str(tmp_path))
    assert outs is not None and fw.column.correct is True, fw.column.status
    run.time_framework(block, fw, "flushed", 2, 1, 1)
    assert len(fw.column.times["flushed"]) == 2


# ----------------------------------------------------------------------------- the report

def _col(name, times, correct=True, status="ok"):
    return {"name": name, "status": status, "correct": correct, "times": {"flushed": times}, "error": 0.0,
            "error_against": "torch"}


def test_summary_picks_the_best_correct_mlir_pipeline(tmp_path):
    block = {"name": "b", "columns": {
        "plain": _col("plain", [0.010] * 4),
        "mlir-fusion": _col("mlir-fusion", [0.001] * 4, correct=False),  # fastest, but wrong
        "mlir-greedy": _col("mlir-greedy", [0.008] * 4),
        "mlir-scalrep": _col("mlir-scalrep", [0.009] * 4),
        "loopopt": _col("loopopt", [0.002] * 4),
        "torch": _col("torch", [0.004] * 4), "iree": _col("iree", [0.005] * 4)}}
    assert report.best_mlir(block, "flushed") == ("mlir-greedy", 0.008)
    data = {"blocks": [block], "regimes": ["flushed"]}
    row = report.summary_table(data, "flushed")[2]
    assert "8.00 (greedy)" in row and "5.00x" in row and "0.50x" in row  # loopopt: 10/2 over plain, 2/4 of torch
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\nbefore\n{report.README_BEGIN}\nold\n{report.README_END}\nafter\n")
    assert report.quote_in_readme(str(readme), data)
    text = readme.read_text()
    assert "old" not in text and "8.00 (greedy)" in text and text.startswith("# x\n\nbefore\n") and text.endswith("after\n")
    (tmp_path / "r.json").write_text(json.dumps(data))
    assert report.main([str(tmp_path / "r.json"), "--md", str(tmp_path / "r.md")]) == 0
    assert "## flushed" in (tmp_path / "r.md").read_text()


def test_run_line_names_the_code_and_the_blocks_measured_again():
    data = {"blocks": [{"name": "b", "columns": {}, "updated": True, "update_note": "lowering changed",
                        "measured": {"date": 0, "commit": "abc1234", "uptime": "up 1:00, load average: 1.0, 2.0, 3.0"}}],
            "code_start": {"commit": "1111111", "dirty_files": 2}, "code_end": {"commit": "2222222"}}
    line = report.run_line(data)
    assert "commit 1111111..2222222 (plus 2 files changed" in line
    assert "b measured again at 00:00 UTC (commit abc1234, load average 1.0, 2.0, 3.0): lowering changed." in line


def test_heldout_blocks_have_tables_of_their_own():
    main = {"name": "mainblock", "columns": {"plain": _col("plain", [0.010] * 4)}}
    held = {"name": "heldblock", "set": "heldout", "columns": {"plain": _col("plain", [0.020] * 4)}}
    data = {"blocks": [main, held], "regimes": ["flushed"]}
    for lines in (report.markdown(data), report.readme_lines(data)):
        text = "\n".join(lines)
        before, after = text.split(report.HELDOUT_TITLE, 1)
        after = after.split("## Per block")[0]
        assert "| mainblock |" in before and "| heldblock |" not in before
        assert "| heldblock |" in after and "| mainblock |" not in after
    only_held = "\n".join(report.markdown({"blocks": [held], "regimes": ["flushed"]}))
    assert "## flushed\n" not in only_held and f"## flushed: {report.HELDOUT_TITLE}" in only_held


def test_sets_select_their_blocks_and_each_has_its_fixture():
    assert run.select(None) == list(run.BLOCKS)
    assert run.select(None, "heldout") == list(run.HELDOUT)
    assert run.select(None, "all") == list(run.BLOCKS) + list(run.HELDOUT)
    assert run.select("nll_loss,softmax_small") == ["nll_loss", "softmax_small"]
    for name in run.SETS["all"]:
        fx = run.load_fixture(name)
        assert fx.path.exists() and fx.runs and fx.function == name
    # the held-out fixtures stay out of blocks/, which the default tests glob
    assert not set(run.HELDOUT) & set(run.fixtures.fixture_names())


def test_a_slow_column_gets_fewer_calls_within_the_budget():
    """A column of seconds per call (a BERT-size plain lowering) is timed within BUDGET_SECONDS over
    all rounds, at least once per round and without warm-up; a fast one keeps every call."""
    budgeted = run.budgeted
    assert budgeted(10, 2, 3, 0.001) == (10, 2)
    assert budgeted(10, 2, 3, None) == (10, 2)
    assert budgeted(10, 2, 3, 12.0) == (1, 0)
    reps, warmup = budgeted(10, 2, 3, 2.0)
    assert warmup == 0 and 1 <= reps < 10 and reps * 3 * 2.0 <= run.BUDGET_SECONDS


def test_goal_lines_geomean_worst_and_peak_share():
    """The issue 35 summary: loopopt / the faster framework per regime and set (geomean, the
    convolutions apart, the worst block, the blocks over 2x) and each block's share of the peak."""
    def col(ms):
        return {"status": "ok", "correct": True, "times": {"warm": [ms / 1e3] * 4}}

    blocks = [{"name": "c", "set": "main", "what": "conv3x3", "flops": 2e9,
               "columns": {"loopopt": col(40.0), "torch": col(10.0), "iree": col(20.0)}},
              {"name": "m", "set": "main", "what": "a product", "flops": 1e9,
               "columns": {"loopopt": col(10.0), "torch": col(40.0), "iree": col(20.0)}},
              {"name": "h", "set": "heldout", "what": "depthwise", "flops": None,
               "columns": {"loopopt": col(30.0), "torch": col(10.0), "iree": col(12.0)}}]
    data = {"regimes": ["warm"], "roofline": {"peak_flops": 100e9}, "blocks": blocks}
    lines = report.goal_lines(data)
    main = next(ln for ln in lines if ln.startswith("* warm, main"))
    assert "geomean **1.41x** over 2 blocks" in main  # 40 / 10 and 10 / 20
    assert "convolutions 4.00x (1), the others 0.50x (1)" in main and "worst c 4.00x; over 2x: c 4.00x" in main
    share = next(ln for ln in lines if "share of the measured peak (100 GFLOP/s)" in ln)
    assert share.endswith("m 100%, c 50% (conv)")
    held = next(ln for ln in lines if ln.startswith("* warm, held-out"))
    assert "geomean **3.00x** over 1 blocks" in held and "convolutions 3.00x (1)" in held


def test_summary_shows_only_the_columns_the_run_measured():
    """A run with --columns loopopt,torch,iree has no plain or MLIR columns: its table has none."""
    col = {"status": "ok", "correct": True, "times": {"warm": [0.002] * 4}}
    data = {"regimes": ["warm"], "blocks": [{"name": "b", "set": "main", "what": "x",
                                            "columns": {"loopopt": col, "torch": col, "iree": col}}]}
    head, _, row = report.summary_table(data, "warm")
    assert head == "| block | loopopt | torch | IREE | loopopt x fw | WRONG (error vs reference) |"
    assert row == "| b | 2.00 | 2.00 | 2.00 | 1.00x | none |"
