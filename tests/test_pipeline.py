"""Issue 34: the step table (loopopt/pipeline.py) is the one list of steps. The driver's order,
`--passes` (names, aliases, arguments, its error text), `--print-pipeline`, the remarks' pass
names, the `--timing` rows and docs/pipeline.md all agree with it."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import loopopt
from loopopt import pipeline
from loopopt.errors import UsageError
from loopopt.options import TARGETS, Options
from loopopt.pipeline import STEPS, default_pipeline, find_step, parse_passes, pipeline_text, resolve_options

ROOT = Path(__file__).parents[1]
EXAMPLES = ROOT / "examples"
BLOCK = ROOT / "benchmarks/models/blocks/mlp_relu_small.mlir"


def test_every_name_and_alias_names_one_step():
    names = [n for s in STEPS for n in (s.name, *s.aliases)]
    assert len(names) == len(set(names)), names
    for s in STEPS:
        for n in (s.name, *s.aliases):
            assert find_step(n) is s


def test_the_docs_table_is_the_tables():
    text = (ROOT / "docs/pipeline.md").read_text()
    block = re.search(r"<!-- step-table:[^\n]*-->\n(.*?)<!-- end of step-table -->", text, re.S)
    assert block is not None and block.group(1) == pipeline.markdown_table()


def test_the_unknown_pass_error_lists_every_step():
    with pytest.raises(UsageError) as e:
        parse_passes("frobnicate")
    message = str(e.value)
    assert len(message.splitlines()) == 1
    for s in STEPS:
        assert s.name in message and all(a in message for a in s.aliases)


@pytest.mark.parametrize("spec, needle", [("tile", "the tile size must be an integer >= 2"),
                                          ("tiling=1", "the tile size must be an integer >= 2"),
                                          ("interchange=0:0", "must list each level"),
                                          ("licm=3", "pass 'licm' takes no argument"),
                                          ("none,licm", "unknown pass 'none'")])
def test_arguments_follow_the_row(spec, needle):
    with pytest.raises(UsageError, match=re.escape(needle)):
        parse_passes(spec)


def test_a_switch_that_turns_a_step_off_conflicts_with_naming_it():
    for step in STEPS:
        if step.switch is None:
            continue
        off = Options(**{step.switch: False})
        assert pipeline.pipeline_conflict(off, [step.name]) is not None
        assert pipeline.pipeline_conflict(Options(), [step.name]) is None


@pytest.mark.parametrize("target", ["cpu", "trn1"])
def test_print_pipeline_prints_the_default_pipeline(target):
    want = pipeline_text(default_pipeline(resolve_options(Options(target=TARGETS[target]), framework_input=False)))
    p = subprocess.run([sys.executable, "-m", "loopopt", "--print-pipeline", "--target", target],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and p.stdout == want + "\n", p.stderr
    off = subprocess.run([sys.executable, "-m", "loopopt", "--print-pipeline", "--target", target,
                          "--enable-licm", "false"], capture_output=True, text=True, cwd=ROOT)
    assert off.stdout == want.replace(",licm", "") + "\n"


def test_print_pipeline_follows_the_inputs_kind_and_spells_aliases_out():
    run = lambda *a: subprocess.run([sys.executable, "-m", "loopopt", "--print-pipeline", *a],
                                    capture_output=True, text=True, cwd=ROOT).stdout.strip()
    framework = run("--target", "cpu", str(BLOCK))
    assert framework.split(",") == [s.name for s in default_pipeline(
        resolve_options(Options(target=TARGETS["cpu"]), framework_input=True))]
    assert "vectorize" in framework.split(",")
    assert "vectorize" not in run("--target", "cpu", "--exact-math", "false", str(EXAMPLES / "chain3.mlir")).split(",")
    assert run("--passes", "fuse,tile=4,scalrep") == "fusion,tiling=4,scalar-replacement"


def test_a_default_run_takes_the_tables_steps_in_order():
    """The --timing rows of a run (the steps that ran, in first-run order) are the default
    pipeline's, and every remark's pass is a step's name (or the driver's own)."""
    src = (EXAMPLES / "polybench_2mm.mlir").read_text()
    res = loopopt.optimize(src, "cpu", explain=True)
    steps = [k for k in res.stats["time"] if k not in ("parse", "analysis", "verify", "print")]
    assert steps == [s.name for s in default_pipeline(resolve_options(res.options, framework_input=False))]
    passes = {r.pass_name for r in res.remarks}
    assert passes <= {s.name for s in STEPS} | {"driver", "internal", "lowering"}, passes


@pytest.mark.parametrize("example, target", [("chain3.mlir", "trn1"), ("polybench_2mm.mlir", "cpu"),
                                             ("transpose_consumer.mlir", "cpu"), ("softmax_rows.mlir", "cpu")])
def test_the_printed_pipeline_given_to_passes_gives_the_default_output(example, target):
    """What --print-pipeline prints is a pipeline --passes runs to the same IR (the explained
    forms add remarks only; exact math off, so vectorize does not plan every loop)."""
    src = (EXAMPLES / example).read_text()
    default = loopopt.optimize(src, target, exact_math=False)
    printed = pipeline_text(default_pipeline(default.options))
    explicit = loopopt.optimize(src, target, exact_math=False, passes=printed)
    assert explicit.text == default.text


def test_a_step_named_for_another_target_does_nothing():
    src = (EXAMPLES / "chain3.mlir").read_text()
    res = loopopt.optimize(src, "trn1", passes="register-tile,vectorize")
    assert res.text == loopopt.optimize(src, "trn1", passes="none").text
    assert not [k for k in res.stats["time"] if k in ("register-tile", "vectorize")]
