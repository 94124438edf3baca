"""LOOPOPT_PHASE_TIMES (loopopt.runtime.phases): off, nothing is measured or written; on, each
outermost phase reports its nested phases' wall, CPU and subprocess CPU time, parents first; the
library loopopt.compile builds is the same bytes either way.
"""
from __future__ import annotations

import json
import subprocess

import pytest

import loopopt
from loopopt.runtime import build, cache as cachemod, phases
from loopopt.runtime.phases import phase, record


def test_off_by_default_measures_nothing(monkeypatch, capsys):
    monkeypatch.delenv(phases.ENV, raising=False)
    with phase("outer"):
        with phase("inner"):
            record("optimizer step", 1.0)
    assert not phases.enabled()
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(phases.ENV, "0")
    assert not phases.enabled()


def test_stderr_table_lists_parents_before_children(monkeypatch, capsys):
    monkeypatch.setenv(phases.ENV, "1")
    with phase("outer"):
        with phase("first"):
            with phase("leaf"):
                pass
        with phase("second"):
            record("optimizer step", 0.25)
    err = capsys.readouterr().err
    names = [ln.split("  ")[-1].strip() for ln in err.splitlines()[2:]]
    assert names == ["outer", "first", "leaf", "second", "optimizer step"], err
    assert "    leaf" in err  # indented by depth
    row = next(ln for ln in err.splitlines() if ln.endswith("optimizer step"))
    assert row.split()[0] == "0.250" and len(row.split()) == 3  # wall only: the optimizer's own timer


def test_file_gets_one_json_line_per_phase_with_subprocess_cpu(monkeypatch, tmp_path):
    out = tmp_path / "phases.jsonl"
    monkeypatch.setenv(phases.ENV, str(out))
    with phase("outer"):
        with phase("child process"):
            subprocess.run(["sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"], check=True)
    rows = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["outer", "outer/child process"]
    child = rows[1]
    assert child["children"] > 0 and child["wall"] >= child["children"] * 0.5
    assert rows[0]["wall"] >= child["wall"]
    assert phases.table([]).startswith("  wall s")


MISSING = build.missing_tools()

SOURCE = """
func.func @scale(%a: memref<64xf32>, %b: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %b[%i] : memref<64xf32>
  }
  return
}
"""


@pytest.mark.toolchain
@pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
def test_compile_reports_every_build_step_and_builds_the_same_library(monkeypatch, tmp_path):
    monkeypatch.setenv(cachemod.CACHE_ENV, str(tmp_path / "off"))
    monkeypatch.delenv(phases.ENV, raising=False)
    plain = loopopt.compile(SOURCE)
    out = tmp_path / "phases.jsonl"
    monkeypatch.setenv(phases.ENV, str(out))
    monkeypatch.setenv(cachemod.CACHE_ENV, str(tmp_path / "on"))
    timed = loopopt.compile(SOURCE)
    names = [json.loads(ln)["phase"] for ln in out.read_text().splitlines()]
    assert names[0] == "loopopt.compile"
    for step in ("cache key", "cache/optimize", "cache/optimize/vectorize", "cache/build/mlir-opt",
                 "cache/build/mlir-translate", "cache/build/opt", "cache/build/llc", "cache/build/cc -shared", "load"):
        assert f"loopopt.compile/{step}" in names, (step, names)
    with open(plain.library, "rb") as f, open(timed.library, "rb") as g:
        assert f.read() == g.read()
