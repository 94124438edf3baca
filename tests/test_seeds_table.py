"""docs/seeds.md against the code: every seed string the table marks "same" appears in the code of
the function the row names, and every seed log line it marks "log: yes" appears in `--trace`.

A row's *where* column names `loopopt/<file>.py: <function>` (`Class.method` for methods); the
seed string's fixed parts (the text between `{...}` placeholders) must each appear in that
function's string constants, or in the constants it refers to by name (a module-level constant,
a `Code.NAME` member of analysis/refusal.py): the string is written where its decision is taken.
"""
from __future__ import annotations

import ast
import importlib
import os
import re

import pytest

import loopopt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "docs", "seeds.md")
PLACEHOLDER = re.compile(r"\{[^}]*\}")
WHERE = re.compile(r"`(loopopt/[\w/]+\.py): ([\w.]+)`")


def table_rows() -> list[dict]:
    """The rows of the seed tables that have a seed-string column: number, string, where, verdict."""
    rows = []
    for line in open(TABLE, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or not re.fullmatch(r"\d+\.\d+", cells[0]):
            continue
        number, _rule, string, where, verdict, _why = cells
        m = re.fullmatch(r"`(.+)`", string)
        rows.append({"number": number, "string": m.group(1) if m else "", "where": where, "verdict": verdict})
    return rows


ROWS = table_rows()
SAME_WITH_STRING = [r for r in ROWS if r["verdict"].startswith("same") and r["string"]]
LOGGED = [r for r in SAME_WITH_STRING if "(log: yes)" in r["where"]]


def test_the_table_covers_every_section_and_names_real_places():
    numbers = {r["number"].split(".")[0] for r in ROWS}
    assert numbers == {"0", "1", "2", "3", "4"}, numbers
    assert len(SAME_WITH_STRING) >= 8
    for r in ROWS:
        for path, _fn in WHERE.findall(r["where"]):
            assert os.path.exists(os.path.join(ROOT, path)), (r["number"], path)


def fixed_parts(seed_string: str) -> list[str]:
    """The text of a seed string between its placeholders, without the seed's elisions (`...`)."""
    parts = []
    for piece in PLACEHOLDER.split(seed_string):
        for p in piece.split("..."):
            if p.strip():
                parts.append(p)
    return parts


def _function_node(tree: ast.Module, dotted: str):
    nodes = tree.body
    node = None
    for name in dotted.split("."):
        node = next((n for n in nodes if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                     and n.name == name), None)
        if node is None:
            return None
        nodes = node.body
    return node


def _constants_of(module, node) -> str:
    """Every string constant in `node`, and the values of the names and `Code.X` members it uses."""
    from loopopt.analysis.refusal import Code

    texts = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            texts.append(sub.value)
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            if sub.value.id == "Code" and sub.attr in Code.__members__:
                texts.append(Code[sub.attr].value)
            target = getattr(module, sub.value.id, None)
            value = getattr(target, sub.attr, None) if target is not None else None
            if isinstance(value, str):
                texts.append(value)
        elif isinstance(sub, ast.Name):
            value = getattr(module, sub.id, None)
            if isinstance(value, str):
                texts.append(value)
    return "\n".join(texts)


@pytest.mark.parametrize("row", SAME_WITH_STRING, ids=[r["number"] for r in SAME_WITH_STRING])
def test_a_seed_string_marked_same_is_written_where_its_decision_is_taken(row):
    places = WHERE.findall(row["where"])
    assert places, f"row {row['number']}: no `loopopt/<file>.py: <function>` in {row['where']!r}"
    found = []
    for path, dotted in places:
        modname = path[:-3].replace("/", ".")
        module = importlib.import_module(modname)
        tree = ast.parse(open(os.path.join(ROOT, path), encoding="utf-8").read())
        node = _function_node(tree, dotted)
        assert node is not None, f"row {row['number']}: {dotted} not found in {path}"
        found.append(_constants_of(module, node))
    text = "\n".join(found)
    missing = [p for p in fixed_parts(row["string"]) if p not in text]
    assert not missing, f"row {row['number']}: {missing} not in the code of {places}"


def _traces() -> str:
    """`--trace` of the examples that reach every logged decision, on the targets (and, for the
    standalone interchange pass, the pipeline) where each is taken."""
    runs = [("examples/chain3.mlir", "trn1", None), ("examples/refused_pair.mlir", "trn1", None),
            ("examples/licm_invariant.mlir", "trn1", None), ("examples/partition_extents.mlir", "trn1", None),
            ("examples/chain2_2d.mlir", "trn1", "interchange=1:0")]
    out = []
    for path, target, passes in runs:
        text = open(os.path.join(ROOT, path)).read()
        out += loopopt.optimize(text, target=target, filename=path, explain=True, passes=passes).trace
    return "\n".join(out)


def test_every_seed_log_line_marked_as_logged_appears_in_the_examples_traces():
    trace = _traces()
    missing = [(r["number"], r["string"]) for r in LOGGED
               if not all(p in trace for p in fixed_parts(r["string"]))]
    assert not missing, missing


def test_the_classic_path_prints_no_update_fpg_line():
    text = open(os.path.join(ROOT, "examples", "chain3.mlir")).read()
    classic = loopopt.optimize(text, explain=True, enable_profitable_loop_fusion=False).trace
    greedy = loopopt.optimize(text, explain=True).trace
    assert any("(LoopOpt::updateFPG)" in line for line in greedy)
    assert not any("(LoopOpt::updateFPG)" in line for line in classic)
    assert any(line.startswith("[LOOP FUSION] , level = ") for line in classic)
