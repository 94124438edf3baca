"""Issue 15: every decision explained — one remark per popped pair, the seed's trace, LLVM
optimization records (parsed with a YAML parser), the FPG as DOT (parsed), the checkpoint file,
--timing, --print-ir-after-all, --version, and the Python API."""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import pytest
import yaml

import loopopt
from loopopt import cli, mlir, pipeline
from loopopt.analysis.facts import Facts
from loopopt.options import TARGETS, Options
from loopopt.analysis.liveness import live_between
from loopopt.analysis.loops import loops_in_block
from loopopt.errors import LoopOptError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# L0 writes t; L1 reads t[i + 1] (refused: negative distance); L2 reads t[i] (fuses with L0).
EXPLAIN = """\
func.func @explain(%a: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<65xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i + 1] : memref<65xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<65xf32>
    affine.store %x, %out2[%i] : memref<64xf32>
  }
  return
}
"""


@pytest.fixture
def explain_file(tmp_path):
    path = tmp_path / "explain.mlir"
    path.write_text(EXPLAIN)
    return str(path)


def run_cli(args, capsys):
    assert cli.run(args) == 0
    return capsys.readouterr()


# ---------------------------------------------------------------------------------------
# One remark per popped pair.

def test_refused_pair_names_both_loops_and_level():
    res = loopopt.optimize(EXPLAIN, "cpu", filename="e.mlir", explain=True)
    fusion = [r for r in res.remarks if r.pass_name == "fusion"]
    assert [r.message for r in fusion] == [
        "[STOP FUSION] negative distance dep in def-use: e.mlir:3:3 and e.mlir:7:3, level = 0, profit = 512",
        "[LOOP FUSION] , level = 0 fused e.mlir:3:3 and e.mlir:11:3 profit = 512",
        # re-scored after the fuse: L2's reads of t now run before L1, so 63 elements stay live
        "[STOP FUSION] negative distance dep in def-use: e.mlir:3:3 and e.mlir:7:3, level = 0, profit = 504",
    ]
    first = fusion[0]
    assert first.location == "e.mlir:3:3"
    assert {k: first.args[k] for k in ("loop1", "loop2", "level", "profit", "code")} == \
        {"loop1": "e.mlir:3:3", "loop2": "e.mlir:7:3", "level": 0, "profit": 512.0, "code": "NEGATIVE_DISTANCE"}
    assert fusion[1].args["code"] == "LOOP_FUSION"


def _popped(trace):
    return [line for line in trace if line.startswith("[LOOP FUSION] , level = ")]


PROGRAMS = sorted(glob.glob(os.path.join(ROOT, "tests/lit/fusion/*.mlir")))[:10] + [
    os.path.join(ROOT, p) for p in ("examples/chain3.mlir", "examples/partition_extents.mlir",
                                    "examples/distribute_two_groups.mlir", "examples/fanout_two_consumers.mlir",
                                    "benchmarks/programs/softmax_rows.mlir", "benchmarks/programs/atax.mlir",
                                    "tests/lit/restructuring/gcd-tiling-384-256-trn1.mlir")]


@pytest.mark.parametrize("target", ["trn1", "cpu"])
def test_one_remark_per_popped_pair(target):
    checked = 0
    for path in PROGRAMS:
        res = loopopt.optimize(open(path).read(), target, filename=path, explain=True)
        popped = _popped(res.trace)
        pair_remarks = [r for r in res.remarks if r.pass_name == "fusion" and "loop1" in r.args]
        assert len(pair_remarks) == len(popped), path
        for line, r in zip(popped, pair_remarks):
            # the same pair, in the same order, with both loops and the level in the message
            assert f"loops {r.args['loop1']} and {r.args['loop2']} " in line, (path, line, r.message)
            assert f"level = {r.args['level']}" in line and f"level = {r.args['level']}" in r.message
            assert r.args["loop1"] in r.message and r.args["loop2"] in r.message
            assert r.location == r.args["loop1"]
        fused = sum(1 for r in pair_remarks if r.kind == "Passed")
        assert fused == res.num_loops_fused, path
        # every valid pop is counted on its FPG edge
        assert sum(e.pops for g in res.fpg for e in g.edges.values()) == len(pair_remarks), path
        checked += bool(popped)
    assert checked >= 10


def test_classic_fusion_also_one_remark_per_tried_pair():
    path = os.path.join(ROOT, "tests/lit/fusion/classic-fallback-program-order.mlir")
    res = loopopt.optimize(open(path).read(), "cpu", filename=path, explain=True,
                           enable_profitable_loop_fusion=False)
    pair_remarks = [r for r in res.remarks if r.pass_name == "fusion" and "loop1" in r.args]
    assert len(pair_remarks) == len(_popped(res.trace)) == 2


# ---------------------------------------------------------------------------------------
# --trace

def test_trace_lines_in_the_seeds_format(explain_file, capsys):
    err = run_cli([explain_file, "--target", "cpu", "--trace", "-o", os.devnull], capsys).err.splitlines()
    f = explain_file
    assert err[0] == ("distanceThreshold = 8 SBSize = 2097152 PSUMSize = 0 enableLoopDistribution = 1 "
                      "enableProfitableLoopFusion = 1")
    assert f"(LoopOpt::updateFPG) e -> {f}:3:3 : weight = 512 and loop {f}:7:3, weight = 512, distance = 1" in err
    assert f"(LoopOpt::updateFPG) e -> {f}:3:3 : weight = 512 and loop {f}:11:3, weight = 512, distance = 2" in err
    k = err.index(f"[LOOP FUSION] , level = 0 loops {f}:3:3 and {f}:7:3 profit = 512")
    assert err[k + 1] == (f"memref.alloc@2:8 : use -> def : (iteration groups: {{ [d = -1] }}) RAW "
                          f"{f}:5:5 -> {f}:8:10")
    assert err[k + 2] == "[STOP FUSION] negative distance dep in def-use"
    assert err[-1] == "numLoopsFused = 1"
    assert len(_popped(err)) == 3


# ---------------------------------------------------------------------------------------
# --remarks-yaml: parsed by a YAML parser, field by field.

class _RecordLoader(yaml.SafeLoader):
    pass


def _tagged(loader, suffix, node):
    data = loader.construct_mapping(node, deep=True)
    data["__kind__"] = suffix
    return data


_RecordLoader.add_multi_constructor("!", _tagged)


def _message(doc) -> str:
    """The message LLVM's tools show: every Args value, concatenated (optrecord.Remark.message)."""
    return "".join(v for a in doc["Args"] for k, v in a.items() if k != "DebugLoc")


def test_remarks_yaml_is_llvm_optimization_records(explain_file, tmp_path, capsys):
    out = tmp_path / "r.yaml"
    run_cli([explain_file, "--target", "cpu", "--remarks-yaml", str(out), "-o", os.devnull], capsys)
    text = out.read_text()
    assert text.startswith("--- !Analysis\n") and text.endswith("\n...\n")
    docs = [d for d in yaml.load_all(text, Loader=_RecordLoader) if d is not None]
    expected = loopopt.optimize(EXPLAIN, "cpu", filename=explain_file).remarks
    assert len(docs) == len(expected)
    for doc, r in zip(docs, expected):
        assert doc["__kind__"] == r.kind
        assert doc["Pass"] == r.pass_name
        assert doc["Function"] == (r.function or "<module>")
        assert isinstance(doc["Args"], list)
        for a in doc["Args"]:  # one value each, a string; a located value also has a DebugLoc
            assert isinstance(a, dict) and len(a) - ("DebugLoc" in a) == 1, a
            assert all(isinstance(v, str) for k, v in a.items() if k != "DebugLoc"), a
        assert _message(doc) == r.text
        if r.location:
            line, col = map(int, r.location.rsplit(":", 2)[1:])
            assert doc["DebugLoc"] == {"File": explain_file, "Line": line, "Column": col}
        else:
            assert "DebugLoc" not in doc
    refused = next(d for d in docs if d["__kind__"] == "Missed")
    assert (refused["__kind__"], refused["Name"], refused["Function"]) == ("Missed", "NegativeDistance", "explain")
    args = {k: v for a in refused["Args"] for k, v in a.items() if k not in ("String", "DebugLoc")}
    assert args["Loop1"] == f"{explain_file}:3:3" and args["Loop2"] == f"{explain_file}:7:3"
    assert (args["Level"], args["Profit"]) == ("0", "512") and "Code" not in args  # the code is the Name
    assert args["Detail"].startswith("RAW on memref.alloc")
    loop2 = next(a for a in refused["Args"] if "Loop2" in a)
    assert loop2["DebugLoc"] == {"File": explain_file, "Line": 7, "Column": 3}
    assert _message(refused) == (f"[STOP FUSION] negative distance dep in def-use: {explain_file}:3:3 and "
                                 f"{explain_file}:7:3, level = 0, profit = 512 [{args['Detail']}]")
    fused = docs[docs.index(refused) + 1]
    assert (fused["__kind__"], fused["Name"]) == ("Passed", "LoopFusion")
    assert docs[-1]["Args"] == [{"String": "numLoopsFused = 1"}]


def test_yaml_scalars_survive_quotes_and_odd_text():
    from loopopt.remarks import Remark, remarks_yaml

    r = Remark("fusion", "Missed", "it's: [odd] {text} # not a comment", "f", "a b.mlir:1:2",
               {"detail": "line1\nline2", "count": 3, "yes": "no"})
    (doc,) = [d for d in yaml.load_all(remarks_yaml([r]), Loader=_RecordLoader) if d]
    # count and yes are not in the message: left out (concatenated, they would change it)
    assert doc["Args"] == [{"String": "it's: [odd] {text} # not a comment"}, {"String": " ["},
                           {"Detail": "line1\nline2"}, {"String": "]"}]
    assert _message(doc) == r.text
    assert doc["DebugLoc"] == {"File": "a b.mlir", "Line": 1, "Column": 2}


def test_yaml_arguments_are_the_words_the_message_shows():
    """An argument is keyed only where the message shows it standing alone: `1` is not found in
    `f.mlir:11:5`, `0` not inside `10`; the pieces always concatenate to the message."""
    from loopopt.remarks import Remark, message_args

    r = Remark("fusion", "Passed", "[LOOP FUSION] , level = 1 fused f.mlir:11:5 and f.mlir:1:10 profit = 1.34218e+08",
               "f", "f.mlir:11:5", {"loop1": "f.mlir:11:5", "loop2": "f.mlir:1:10", "level": 1,
                                    "profit": 134217728.0, "code": "LOOP_FUSION", "hoisted": []})
    args = message_args(r)
    assert "".join(t for _, t in args) == r.text
    assert [k for k, _ in args] == ["String", "Level", "String", "Loop1", "String", "Loop2", "String", "Profit"]
    assert dict(args)["Profit"] == "1.34218e+08" and dict(args)["Level"] == "1"


# ---------------------------------------------------------------------------------------
# --fpg-dot: parsed (a small DOT reader: one statement per line, as fpg_dot writes it).

_ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^,\]\s]+)')


def parse_dot(text: str):
    assert text.startswith("digraph fpg {") and text.rstrip().endswith("}")
    assert text.count("{") == text.count("}")
    clusters, nodes, edges = [], {}, {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("subgraph cluster_"):
            clusters.append(line.split()[1])
        m = re.match(r"(\w+) -> (\w+) \[(.*)\];$", line)
        if m:
            edges[(m.group(1), m.group(2))] = {k: v.strip('"') for k, v in _ATTR.findall(m.group(3))}
            continue
        m = re.match(r"(b\d+_L\d+) \[(.*)\];$", line)
        if m:
            nodes[m.group(1)] = {k: v.strip('"') for k, v in _ATTR.findall(m.group(2))}
    return clusters, nodes, edges


def test_fpg_dot_nodes_edges_outcomes(explain_file, tmp_path, capsys):
    out = tmp_path / "fpg.dot"
    run_cli([explain_file, "--target", "cpu", "--fpg-dot", str(out), "-o", os.devnull], capsys)
    clusters, nodes, edges = parse_dot(out.read_text())
    f = explain_file
    assert clusters == ["cluster_0"]
    assert {n: a["location"] for n, a in nodes.items()} == {"b1_L0": f"{f}:3:3", "b1_L1": f"{f}:7:3",
                                                            "b1_L2": f"{f}:11:3"}
    assert nodes["b1_L2"]["style"] == "dashed" and "fused into L0" in nodes["b1_L2"]["label"]
    assert set(edges) == {("b1_L0", "b1_L1"), ("b1_L0", "b1_L2"), ("b1_L1", "b1_L2")}
    assert edges[("b1_L0", "b1_L2")]["outcome"] == "fused" and edges[("b1_L0", "b1_L2")]["profit"] == "512"
    assert edges[("b1_L0", "b1_L1")]["outcome"] == "refused:NEGATIVE_DISTANCE"
    assert edges[("b1_L0", "b1_L1")]["pops"] == "2" and edges[("b1_L0", "b1_L1")]["profit"] == "504"
    assert edges[("b1_L1", "b1_L2")]["outcome"] == "stale"


def test_fpg_dot_one_cluster_per_block_with_candidates():
    path = os.path.join(ROOT, "tests/lit/restructuring/gcd-tiling-384-256-trn1.mlir")
    res = loopopt.optimize(open(path).read(), "trn1", filename=path, explain=True)
    clusters, nodes, edges = parse_dot(res.fpg_dot())
    assert len(clusters) == len(res.fpg) == 2  # the function body, then the fused loop's body
    assert [g.level for g in res.fpg] == [0, 1]
    outcomes = sorted(a["outcome"] for a in edges.values())
    assert outcomes == ["fused", "refused:UNMATCHED_TRIP_COUNT"]
    for (a, b) in edges:
        assert a in nodes and b in nodes


def test_graphviz_renders_the_fpg_and_the_docs_examples_are_current(tmp_path, capsys, monkeypatch):
    """Graphviz accepts what --fpg-dot writes, and the DOT files rendered in docs/img are what
    loopopt writes today for the bundled examples."""
    import shutil
    import subprocess

    dot = shutil.which("dot")
    if dot is None:
        pytest.skip("Graphviz not installed (scripts/setup.sh installs it)")
    monkeypatch.chdir(ROOT)  # the DOT labels carry the input's path as given
    for name in ("chain3", "refused_pair"):
        out = tmp_path / f"{name}.dot"
        run_cli([f"examples/{name}.mlir", "--target", "cpu", "--fpg-dot", str(out), "-o", os.devnull], capsys)
        svg = subprocess.run([dot, "-Tsvg", str(out)], capture_output=True, text=True, timeout=60)
        assert svg.returncode == 0 and "<svg" in svg.stdout, svg.stderr
        assert out.read_text() == open(os.path.join(ROOT, "docs", "img", f"fpg_{name}.dot")).read()


# ---------------------------------------------------------------------------------------
# --checkpoint, --timing, --print-ir-after-all, --version

def test_checkpoint_written_in_cwd(explain_file, tmp_path, monkeypatch, capsys):
    """Every step of the default cpu pipeline dumps the IR after it; `vectorize` is in it, with
    the numeric switches off, where exact_math is on (the host's expf is glibc's)."""
    from loopopt.codegen.cpu.host import default_exact_math

    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    run_cli([explain_file, "--target", "cpu", "--checkpoint", "-o", os.devnull], capsys)
    text = (work / "__loop_opt_chkpt.txt").read_text()
    assert "// params: distanceThreshold = 8 SBSize = 2097152 PSUMSize = 0" in text
    heads = re.findall(r"^// -----// (.*) //----- //$", text, re.M)
    # the step table's default cpu pipeline, in its order (a step whose switch is off is left out)
    steps = pipeline.default_pipeline(pipeline.resolve_options(Options(target=TARGETS["cpu"]), False))
    assert heads == (["the input module"] + [f"IR Dump After {s.name} ('func.func' operation: @explain)" for s in steps]
                     + ["the output module"])
    assert ("IR Dump After vectorize ('func.func' operation: @explain)" in heads) == default_exact_math()
    for name in ("fusion", "contraction", "licm", "register-tile", "cleanup"):
        assert f"IR Dump After {name} ('func.func' operation: @explain)" in heads
    after_fusion = text.split("IR Dump After fusion ('func.func' operation: @explain)")[1].split("// -----//")[0]
    assert after_fusion.count("affine.for") == 2
    mlir.parse_module(text.split("// -----// the output module //----- //")[1])


def test_timing_reports_each_phase(explain_file, capsys):
    err = run_cli([explain_file, "--timing", "-o", os.devnull], capsys).err
    assert "Total Execution Time:" in err
    names = re.findall(r"^\s+\d+\.\d+ \(\s*[\d.]+%\)\s+(\w+)$", err, re.M)
    assert names == ["parse", "analysis", "fusion", "contraction", "licm", "cleanup", "verify", "print", "Total"]


def test_print_ir_after_all(explain_file, capsys):
    err = run_cli([explain_file, "--passes", "fuse,licm", "--print-ir-after-all", "-o", os.devnull], capsys).err
    heads = re.findall(r"^// -----// IR Dump After (\w+) \('func.func' operation: @(\w+)\) //----- //$", err, re.M)
    assert heads == [("fusion", "explain"), ("licm", "explain")]
    assert err.count("func.func @explain") == 2


def test_version_without_input():
    p = subprocess.run([sys.executable, "-m", "loopopt", "--version"], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == f"loopopt {loopopt.__version__}" and re.match(r"\d+\.\d+", loopopt.__version__)
    assert re.match(r"MLIR Python bindings: iree-base-compiler \d+\.\d+\.\d+ \(MLIR/LLVM \d+\.", lines[1])


# ---------------------------------------------------------------------------------------
# The Python API

def test_api_result_and_knobs():
    res = loopopt.optimize(EXPLAIN, target="cpu", filename="e.mlir")
    assert isinstance(res, loopopt.Result)
    assert res.stats["numLoopsFused"] == res.num_loops_fused == 1
    assert set(res.stats["time"]) >= {"parse", "fusion", "licm"} and res.stats["total_time"] > 0
    assert mlir.parse_module(res.text) is not None and res.text.count("affine.for") == 2
    assert res.remarks[0].message.startswith("distanceThreshold = 8 ")
    assert res.trace == [] and res.fpg == []  # only with explain=True
    # knobs are Options fields: a threshold of 1 leaves no candidate pair
    assert loopopt.optimize(EXPLAIN, "cpu", distance_threshold=1).num_loops_fused == 0
    assert loopopt.optimize(EXPLAIN, "cpu", passes="licm").num_loops_fused == 0


def test_api_accepts_a_module():
    m = mlir.parse_module(EXPLAIN, "m.mlir")
    res = loopopt.optimize(m, "trn1")
    assert res.num_loops_fused == 1 and "memref.alloc" in res.text


def test_api_errors_are_clear():
    with pytest.raises(TypeError, match="unknown knob 'distance'.*distance_threshold"):
        loopopt.optimize(EXPLAIN, distance=3)
    with pytest.raises(TypeError, match="knob 'enable_licm' must be bool"):
        loopopt.optimize(EXPLAIN, enable_licm=1)
    with pytest.raises(ValueError, match="must be an integer from 0 to 2147483647, got -1"):
        loopopt.optimize(EXPLAIN, sb_size=-1)
    with pytest.raises(ValueError, match="unknown target 'gpu'"):
        loopopt.optimize(EXPLAIN, "gpu")
    with pytest.raises(LoopOptError, match=r"^bad.mlir:1:\d+: error:"):
        loopopt.optimize("func.func @f( {", filename="bad.mlir")


# ---------------------------------------------------------------------------------------
# liveN from liveness

def _live(text: str, a: int = 0, b: int = 1, buffer: int = 0):
    m = mlir.parse_module(text, "l.mlir")
    fn = mlir.functions(m)[0]
    loops = loops_in_block(mlir.func_body(fn))
    allocs = [o for o in mlir.walk(fn) if o.name == "memref.alloc"]
    return live_between(allocs[buffer].results[0], loops[a], loops[b], Facts()), m


def test_live_n_counts_written_then_read_elements():
    # t[0..63] written by L0; read at or after L1: t[1..64] (L1) and t[0..63] (L2)
    live, _ = _live(EXPLAIN, 0, 1)
    assert (live.elements, live.static, live.exact) == (64, 65, True)
    # once L2's reads run before L1 (fused into L0), only L1's t[1..63] of what L0 wrote is live
    fused = EXPLAIN.replace("    affine.store %x, %t[%i] : memref<65xf32>\n",
                            "    affine.store %x, %t[%i] : memref<65xf32>\n"
                            "    %y = affine.load %t[%i] : memref<65xf32>\n    affine.store %y, %out2[%i] : memref<64xf32>\n", 1)
    fused = fused.replace("  affine.for %i = 0 to 64 {\n    %x = affine.load %t[%i] : memref<65xf32>\n"
                          "    affine.store %x, %out2[%i] : memref<64xf32>\n  }\n", "")
    live, _ = _live(fused, 0, 1)
    assert (live.elements, live.exact) == (63, True)


def test_live_n_is_zero_without_a_later_read_and_whole_when_returned():
    dead = EXPLAIN.replace("    %x = affine.load %t[%i] : memref<65xf32>\n    affine.store %x, %out2[%i]",
                           "    %x = affine.load %a[%i] : memref<64xf32>\n    affine.store %x, %out2[%i]")
    live, _ = _live(dead, 1, 2)
    assert live.elements == 0 and live.exact
    returned = """
    func.func @r(%a: memref<8xf32>) -> memref<8xf32> {
      %t = memref.alloc() : memref<8xf32>
      affine.for %i = 0 to 4 {
        %x = affine.load %a[%i] : memref<8xf32>
        affine.store %x, %t[%i] : memref<8xf32>
      }
      affine.for %i = 0 to 4 {
        %x = affine.load %a[%i] : memref<8xf32>
        affine.store %x, %t[%i + 4] : memref<8xf32>
      }
      return %t : memref<8xf32>
    }"""
    live, _ = _live(returned)  # the return reads the whole buffer: the 4 elements written by L0
    assert live.elements == 4


def test_live_n_keeps_the_static_count_outside_the_block():
    nested = """
    func.func @n(%a: memref<4x8xf32>, %o: memref<4x8xf32>) {
      %t = memref.alloc() : memref<4x8xf32>
      affine.for %i = 0 to 4 {
        affine.for %j = 0 to 8 {
          %x = affine.load %a[%i, %j] : memref<4x8xf32>
          affine.store %x, %t[%i, %j] : memref<4x8xf32>
        }
        affine.for %j = 0 to 8 {
          %x = affine.load %t[%i, %j] : memref<4x8xf32>
          affine.store %x, %o[%i, %j] : memref<4x8xf32>
        }
      }
      affine.for %i = 0 to 4 {
        %x = affine.load %t[%i, 0] : memref<4x8xf32>
        affine.store %x, %o[%i, 0] : memref<4x8xf32>
      }
      return
    }"""
    m = mlir.parse_module(nested, "n.mlir")
    fn = mlir.functions(m)[0]
    outer = loops_in_block(mlir.func_body(fn))[0]
    inner = loops_in_block(outer.regions[0].blocks[0])
    t = [o for o in mlir.walk(fn) if o.name == "memref.alloc"][0].results[0]
    live = live_between(t, inner[0], inner[1], Facts())
    assert (live.elements, live.exact) == (32, False) and "outside the loops' block" in live.why


def test_print_analysis_shows_live_n(explain_file, capsys):
    err = run_cli([explain_file, "--print-analysis", "-o", os.devnull], capsys).err
    lines = err.split("liveN between sibling loops")[1].splitlines()[1:]
    f = explain_file
    assert lines == [f"    {f}:3:3 -> {f}:7:3  memref.alloc@2:8  liveN 64 of 65 (isl)",
                     f"    {f}:3:3 -> {f}:11:3  memref.alloc@2:8  liveN 64 of 65 (isl)",
                     f"    {f}:7:3 -> {f}:11:3  memref.alloc@2:8  liveN 64 of 65 (isl)"]
