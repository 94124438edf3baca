"""LLVM's record tools read our `--remarks-yaml` (issue 23): `opt-viewer.py` renders the records of
every benchmark program to HTML with each message as `--remarks` prints it, and `opt-stats.py`
counts them. Both come with Debian's llvm-22-tools (scripts/setup.sh installs it), in the
package's share/opt-viewer folder; they build a remark's message by concatenating the values of
all its Args (optrecord.py), which is what remarks.message_args writes."""
from __future__ import annotations

import glob
import html
import os
import re
import subprocess
from collections import defaultdict

import pytest

import loopopt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = sorted(glob.glob(os.path.join(ROOT, "benchmarks", "programs", "*.mlir")))
TARGETS = ("trn1", "cpu")


def _tool_dir() -> str:
    for d in sorted(glob.glob("/usr/lib/llvm-*/share/opt-viewer"), reverse=True):
        if os.path.exists(os.path.join(d, "opt-viewer.py")):
            return d
    pytest.skip("opt-viewer not installed (scripts/setup.sh installs llvm-22-tools)")


def _run_tool(name: str, *args: str) -> subprocess.CompletedProcess:
    tool = os.path.join(_tool_dir(), name)
    p = subprocess.run([tool, "-j", "1", "-n", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr[-2000:]
    return p


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """(directory of *.opt.yaml, {source file: set of (message, function) --remarks shows})."""
    d = tmp_path_factory.mktemp("records")
    expected = defaultdict(set)
    for path in PROGRAMS + [os.path.join(ROOT, "examples", "refused_pair.mlir")]:
        rel = os.path.relpath(path, ROOT)
        for target in TARGETS:
            res = loopopt.optimize(open(path).read(), target, filename=rel)
            (d / f"{os.path.basename(path)}.{target}.opt.yaml").write_text(res.remarks_yaml())
            for line, r in zip(res.remarks_text().splitlines(), res.remarks):
                if not r.location:
                    continue  # LLVM's tools show only records with a DebugLoc
                # the --remarks line: "<location>: <kind>: <message> (in @<function>)[ [<detail>]]"
                head = f"{r.location}: {r.kind.lower()}: "
                assert line.startswith(head)
                shown = line[len(head):].replace(f" (in @{r.function})", "", 1) if r.function else line[len(head):]
                expected[rel].add((shown, r.function or "<module>"))  # the records' Function
    return d, expected


_ROW = re.compile(r'<td class="column-entry-(?:green|red|white)">(?P<pass>[^<]*)</td>\s*'
                  r'<td><pre style="display:inline">[^<]*</pre><span class="column-entry-yellow">'
                  r'(?P<message>.*?)&nbsp;</span>\s*</td>\s*<td class="column-entry-yellow">(?P<function>.*?)</td>', re.S)
_LINK = re.compile(r'<a href="(?P<href>[^"]*)">(?P<text>.*?)</a>')


def rendered(html_text: str) -> list[tuple[str, str, str]]:
    """(message without its links, function, the message with them) of each remark on a page.
    opt-viewer escapes neither (a `<module>` function stays as it is)."""
    out = []
    for m in _ROW.finditer(html_text):
        message = m.group("message").strip()
        out.append((_LINK.sub(lambda a: a.group("text"), message), html.unescape(m.group("function")), message))
    return out


@pytest.fixture(scope="module")
def html_dir(records, tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    _run_tool("opt-viewer.py", str(records[0]), "-o", str(out), "--source-dir", ROOT)
    return out


def test_opt_viewer_renders_every_benchmark_program_as_remarks_prints_it(records, html_dir):
    d, expected = records
    pages = {f: (html_dir / (f.replace("/", "_") + ".html")) for f in expected}
    assert set(os.path.relpath(p, ROOT) for p in PROGRAMS) <= set(pages)
    for source, page in pages.items():
        got = {(msg, fn) for msg, fn, _ in rendered(page.read_text())}
        assert got == expected[source], (source, got ^ expected[source])
    index = (html_dir / "index.html").read_text()
    assert index.count("<tr>") > 1 and "benchmarks/programs/atax.mlir:" in index


def test_fused_and_refused_pair_messages_and_links(html_dir):
    page = (html_dir / "examples_refused_pair.mlir.html").read_text()
    rows = rendered(page)
    f = "examples/refused_pair.mlir"
    fused = (f"[LOOP FUSION] , level = 0 fused {f}:6:3 and {f}:14:3 profit = 512", "refused_pair")
    refused = (f"[STOP FUSION] negative distance dep in def-use: {f}:6:3 and {f}:10:3, level = 0, profit = 520 "
               f"[RAW on memref.alloc ({f}:3:8), distances {{ [d = -1] }}]", "refused_pair")
    assert fused in {(m, fn) for m, fn, _ in rows} and refused in {(m, fn) for m, fn, _ in rows}
    # each loop of a pair is a link to its line (the argument's DebugLoc)
    with_links = next(raw for m, _, raw in rows if m == refused[0])
    assert [a.group("href") for a in _LINK.finditer(with_links)] == [
        "examples_refused_pair.mlir.html#L6", "examples_refused_pair.mlir.html#L10"]


def test_opt_stats_counts_the_records(records):
    d, expected = records
    out = _run_tool("opt-stats.py", str(d)).stdout
    total = int(re.search(r"Total number of remarks\s+(\d+)", out).group(1))
    assert total >= sum(len(v) for v in expected.values()) // 2 and total > 100
    assert re.search(r"^\s+fusion\s+\d+%$", out, re.M) and re.search(r"^\s+fusion/LoopFusion\s+\d+%$", out, re.M)
