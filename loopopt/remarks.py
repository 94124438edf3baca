"""Structured optimization remarks, in the spirit of LLVM's -pass-remarks, and their renderings.

Each decision is a record (pass, kind, message, function, location, args); the human
text is a rendering of it. The message carries the seed's verbatim string. A `RemarkLog`
also keeps the seed's log lines (`trace`, shown by `--trace`) and what the fusion driver did
with each Fusion Profit Graph (`fpg`, shown by `--fpg-dot`). Renderings: `Remark.render`
(text), `Remark.to_json` (JSON lines), `remarks_yaml` (LLVM optimization records) and
`fpg_dot` (Graphviz). docs/explain.md describes the formats.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

PASSED = "Passed"
MISSED = "Missed"
ANALYSIS = "Analysis"


@dataclass(frozen=True)
class Remark:
    pass_name: str  # fusion, distribution, tiling, interchange, licm, contraction, driver, internal
    kind: str  # Passed | Missed | Analysis
    message: str  # the seed's verbatim text first, e.g. "[STOP FUSION] unmatched trip count"
    function: str = ""
    location: str = ""
    args: dict[str, Any] = field(default_factory=dict)

    @property
    def detail(self) -> str:
        """Our detail after the seed's text (`--remarks` shows it in brackets), or ''."""
        detail = self.args.get("detail") if isinstance(self.args, dict) else None
        return str(detail) if detail else ""

    @property
    def text(self) -> str:
        """The message as `--remarks` prints it, without the location, kind and function: what
        LLVM's tools show as the record's message (the concatenation of its YAML Args)."""
        return f"{self.message} [{self.detail}]" if self.detail else self.message

    def render(self) -> str:
        where = f"{self.location}: " if self.location else ""
        fn = f" (in @{self.function})" if self.function else ""
        extra = f" [{self.detail}]" if self.detail else ""
        return f"{where}{self.kind.lower()}: {self.message}{fn}{extra}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, default=str)

    @property
    def name(self) -> str:
        """The record's name (LLVM's `Name`): the refusal code in CamelCase when there is one,
        else the message's bracketed tag (`[LOOP FUSION]` -> LoopFusion), else its first word."""
        code = self.args.get("code") if isinstance(self.args, dict) else None
        if code:
            return camel_case(str(code))
        m = re.match(r"\[([A-Z ]+)\]", self.message)
        if m:
            return camel_case(m.group(1))
        m = re.match(r"[A-Za-z_]\w*", self.message)
        return m.group(0) if m else self.pass_name


def camel_case(text: str) -> str:
    """UNMATCHED_TRIP_COUNT / "LOOP FUSION" / kept_iterations -> UnmatchedTripCount / LoopFusion /
    KeptIterations."""
    return "".join(w[:1].upper() + w[1:].lower() for w in re.split(r"[\s_]+", text) if w)


# ---------------------------------------------------------------------------------------
# What the fusion driver did with one block's Fusion Profit Graph (for --fpg-dot).


@dataclass
class FPGNode:
    """A loop of the block (fusion driver id `k`), its source location and what became of it."""

    k: int
    location: str
    fate: str = ""  # "" (still there), "fused into L<k>", "distributed"


@dataclass
class FPGEdge:
    """A candidate pair (l1 before l2) that entered the FPG: its latest profit and outcome."""

    l1: int
    l2: int
    profit: float
    pushes: int = 1
    pops: int = 0  # times it was popped valid (each one ends in exactly one remark)
    outcome: str = "not popped"  # fused | refused:<CODE> | stale | not popped


@dataclass
class FPGGraph:
    """One block that had candidate pairs: its loops and its FPG edges."""

    function: str
    block: int  # the driver's block serial (1 = the function body)
    level: int
    nodes: dict = field(default_factory=dict)  # k -> FPGNode
    edges: dict = field(default_factory=dict)  # (k1, k2) -> FPGEdge

    def node(self, k: int, location: str) -> FPGNode:
        n = self.nodes.get(k)
        if n is None:
            n = self.nodes[k] = FPGNode(k, location)
        return n

    def pushed(self, k1: int, k2: int, profit: float) -> None:
        e = self.edges.get((k1, k2))
        if e is None:
            self.edges[(k1, k2)] = FPGEdge(k1, k2, profit)
        else:
            e.profit = profit
            e.pushes += 1

    def outcome(self, k1: int, k2: int, outcome: str) -> None:
        """Record a pop: a valid pop's outcome replaces anything; `stale` never replaces one."""
        e = self.edges.get((k1, k2))
        if e is None:
            return
        if outcome == "stale":
            if e.outcome == "not popped":
                e.outcome = "stale"
            return
        e.pops += 1
        e.outcome = outcome


class RemarkLog:
    """Collects remarks in decision order, the seed's log lines, and the fusion graphs."""

    def __init__(self, explain: bool = False) -> None:
        self.remarks: list[Remark] = []
        self.explain = explain  # also collect `trace` and `fpg` (they cost time on big inputs)
        self.trace: list[str] = []  # the seed's log lines (printParams, updateFPG, ...)
        self.fpg: list[FPGGraph] = []

    def add(self, pass_name: str, kind: str, message: str, trace: bool = False, **kw: Any) -> Remark:
        """Record a remark; `trace`: the message is also one of the seed's log lines (`--trace`)."""
        r = Remark(pass_name, kind, message, **kw)
        self.remarks.append(r)
        if trace:
            self.log(message)
        return r

    def refused(self, pass_name: str, refusal, args: dict | None = None, message: str | None = None,
                **kw: Any) -> Remark:
        """The one place a Refusal becomes a Missed remark: its message (or `message`, which must
        start with it), and its code and detail among the args."""
        full = {**(args or {}), "code": refusal.code.name, "reason": refusal.detail}
        if refusal.detail and refusal.detail not in refusal.message:
            full.setdefault("detail", refusal.detail)
        return self.add(pass_name, MISSED, message or refusal.message, args=full, **kw)

    def log(self, line: str) -> None:
        """One line of the seed's log (`--trace`); kept by explaining logs only."""
        if self.explain:
            self.trace.append(line)

    def extend(self, other: "RemarkLog") -> None:
        """Append what another log collected (a step's staged log, once the step is kept)."""
        self.remarks.extend(other.remarks)
        self.trace.extend(other.trace)
        self.fpg.extend(other.fpg)

    def messages(self, pass_name: str | None = None) -> list[str]:
        return [r.message for r in self.remarks if pass_name is None or r.pass_name == pass_name]

    def __iter__(self):
        return iter(self.remarks)

    def __len__(self) -> int:
        return len(self.remarks)


# ---------------------------------------------------------------------------------------
# LLVM optimization records (YAML), written without a YAML library.
#
# LLVM's tools build a record's message by concatenating the values of all its Args, in order
# (opt-viewer's optrecord.py `Remark.message`; LLVM's own records spell `inlined into` as a
# `String` between a `Callee` and a `Caller`). So the Args are the message cut into pieces: the
# text between arguments as `String`s, each argument the message mentions under its own key with
# the text the message shows, as a string (`Level: '0'`; an argument that is a source location
# also carries a DebugLoc, which opt-viewer turns into a link). Arguments the message does not
# show (the refusal code: it is the record's Name; hoisted ops, shapes, ...) are left out: every
# value would be concatenated into the message. `--remarks-json` keeps every argument.

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.@/-]*\Z")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"}
# Args that the message never shows as such: `loops` repeats loop1 and loop2, `reason` the detail
# or the message, `code` is the record's Name, `detail` follows the message in brackets.
_NOT_IN_MESSAGE = ("loops", "reason", "code", "detail")
_WORD_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:@%-")


def yaml_scalar(value: Any) -> str:
    """A YAML scalar: numbers and booleans as they are, simple words plain, other one-line text
    single-quoted (a quote doubled), anything with control characters double-quoted (JSON escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value)
    text = str(value)
    if _PLAIN.match(text) and text.lower() not in _YAML_WORDS:
        return text
    if text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text)


def debug_loc(location: str) -> tuple[str, int, int] | None:
    """(file, line, column) of a `file:line:col` location, None without a line and column."""
    m = re.match(r"(?P<file>.*):(?P<line>\d+):(?P<col>\d+)\Z", location or "", re.S)
    if not m:
        return None
    return m.group("file"), int(m.group("line")), int(m.group("col"))


def _spellings(value: Any) -> list[str]:
    """How a message may show an argument's value (floats: as an integer, %g, repr)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, float):
        out = [str(int(value))] if value.is_integer() and abs(value) < 1e15 else []
        return out + [f"{value:g}", repr(value)]
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
        return [":".join(items), ", ".join(items)] if items else []
    text = str(value)
    return [text] if text else []


def _find_word(message: str, word: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first occurrence of `word` in `message` that stands alone (not inside a longer number,
    name or location) and overlaps no span already taken."""
    start = message.find(word)
    while start >= 0:
        end = start + len(word)
        alone = (start == 0 or message[start - 1] not in _WORD_CHARS) and \
                (end == len(message) or message[end] not in _WORD_CHARS)
        if alone and all(end <= a or start >= b for a, b in taken):
            return start, end
        start = message.find(word, start + 1)
    return None


def message_args(r: Remark) -> list[tuple[str, str]]:
    """The record's Args as (key, text) pairs whose texts concatenate to `r.text`: `String` pieces
    and, for each argument the message shows, its CamelCase key and the text shown."""
    spans: list[tuple[int, int, str]] = []
    for key, value in (r.args or {}).items():
        if key in _NOT_IN_MESSAGE:
            continue
        for word in _spellings(value):
            hit = _find_word(r.message, word, [(a, b) for a, b, _ in spans])
            if hit is not None:
                spans.append((hit[0], hit[1], camel_case(key)))
                break
    out: list[tuple[str, str]] = []
    at = 0
    for a, b, key in sorted(spans):
        if a > at:
            out.append(("String", r.message[at:a]))
        out.append((key, r.message[a:b]))
        at = b
    if at < len(r.message) or not out:
        out.append(("String", r.message[at:]))
    if r.detail:
        out += [("String", " ["), ("Detail", r.detail), ("String", "]")]
    return out


def _debug_loc_text(file: str, line: int, col: int) -> str:
    return f"{{ File: {yaml_scalar(file)}, Line: {line}, Column: {col} }}"


def remark_yaml(r: Remark, filename: str | None = None) -> str:
    """One `--- !Kind` document: Pass, Name, DebugLoc (when the remark has a position), Function
    (`<module>` for module-level remarks: LLVM's parser requires one) and Args, a list of
    single-key mappings whose string values concatenate to the message (`message_args`); an
    argument that is a source location also carries its DebugLoc."""
    lines = [f"--- !{r.kind}", f"Pass:            {yaml_scalar(r.pass_name)}",
             f"Name:            {yaml_scalar(r.name)}"]
    loc = debug_loc(r.location)
    if loc is not None:
        lines.append(f"DebugLoc:        {_debug_loc_text(filename if filename is not None else loc[0], *loc[1:])}")
    lines.append(f"Function:        {yaml_scalar(r.function or '<module>')}")
    lines.append("Args:")
    for key, text in message_args(r):
        lines.append(f"  - {yaml_scalar(key) + ':':<16} {yaml_scalar(str(text))}")
        arg_loc = debug_loc(text) if key != "String" else None
        if arg_loc is not None:
            file = filename if filename is not None else arg_loc[0]
            lines.append(f"    DebugLoc:        {_debug_loc_text(file, *arg_loc[1:])}")
    return "\n".join(lines) + "\n"


def remarks_yaml(remarks, filename: str | None = None) -> str:
    """Every remark as an LLVM optimization record; the stream ends with `...`. `filename`
    (the input's path) replaces the file of each DebugLoc when given."""
    return "".join(remark_yaml(r, filename) for r in remarks) + "...\n"


# ---------------------------------------------------------------------------------------
# The Fusion Profit Graphs as Graphviz DOT.

_EDGE_STYLE = {"fused": 'color="darkgreen", penwidth=2', "stale": 'color="gray", style=dashed',
               "not popped": 'color="gray", style=dotted'}


def _dot_string(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def fpg_dot(graphs: list[FPGGraph], title: str = "") -> str:
    """One digraph; per block that had candidates one `cluster_<n>` subgraph. Nodes are loops
    (`b<block>_L<k>`, labelled `L<k>` and the source location), edges candidate pairs
    (first loop -> second) labelled with profit and outcome; `profit`, `outcome` and `pops`
    are also attributes of their own."""
    out = ["digraph fpg {", f"  label={_dot_string('Fusion Profit Graph ' + title)};",
           "  labelloc=t;", '  node [shape=box, fontname="monospace"];']
    for n, g in enumerate(graphs):
        out.append(f"  subgraph cluster_{n} {{")
        out.append(f"    label={_dot_string(f'@{g.function} block {g.block} (level {g.level})')};")
        for k in sorted(g.nodes):
            node = g.nodes[k]
            label = f"L{k}\\n{node.location}" + (f"\\n{node.fate}" if node.fate else "")
            style = ", style=dashed" if node.fate else ""
            out.append(f'    b{g.block}_L{k} [label="{_escape_label(label)}", location={_dot_string(node.location)}'
                       f"{style}];")
        for (k1, k2) in sorted(g.edges):
            e = g.edges[(k1, k2)]
            profit = yaml_scalar(float(e.profit))
            style = _EDGE_STYLE.get(e.outcome, 'color="red"')
            out.append(f"    b{g.block}_L{k1} -> b{g.block}_L{k2} [label={_dot_string(f'{profit} {e.outcome}')}, "
                       f"profit={profit}, outcome={_dot_string(e.outcome)}, pops={e.pops}, {style}];")
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def _escape_label(text: str) -> str:
    """Escape quotes and backslashes of a label whose `\\n` line breaks are meant for Graphviz."""
    return text.replace('"', '\\"')
