"""Issue 34: the package's layers, kept honest by reading every import (at module level and
inside functions; `if TYPE_CHECKING:` blocks are annotations only and left out).

The layers, bottom up: the MLIR bindings and the options; `analysis/` (general facts) and
`transforms/` (mechanical loop rewrites); `loop_optimization/` (the seed's pass); `codegen/cpu/`
(the cpu code generator); `pipeline.py` (the step table) and the driver, API and CLI above them.
A layer imports only from the layers below it, and no set of modules imports itself round.
"""
from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "loopopt")


def _modules() -> dict[str, str]:
    out = {}
    for dp, dn, fn in os.walk(ROOT):
        dn[:] = [d for d in dn if d != "__pycache__"]
        for f in fn:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dp, f), os.path.dirname(ROOT))
                mod = rel[:-3].replace(os.sep, ".")
                out[mod[:-len(".__init__")] if mod.endswith(".__init__") else mod] = os.path.join(dp, f)
    return out


MODULES = _modules()


def _imports(mod: str) -> dict[str, bool]:
    """The loopopt modules `mod` imports, each mapped to True when some import of it is inside a
    function (TYPE_CHECKING blocks skipped)."""
    path = MODULES[mod]
    package = mod.split(".") if path.endswith("__init__.py") else mod.split(".")[:-1]
    out: dict[str, bool] = {}

    def visit(node, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                base = package[:len(package) - child.level + 1] if child.level else []
                full = ".".join(base + ([child.module] if child.module else []))
                for alias in child.names:
                    target = f"{full}.{alias.name}" if f"{full}.{alias.name}" in MODULES else full
                    if target in MODULES:
                        out[target] = out.get(target, False) or inner
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name in MODULES:
                        out[alias.name] = out.get(alias.name, False) or inner
            visit(child, inner)

    visit(ast.parse(open(path, encoding="utf-8").read()), False)
    out.pop(mod, None)
    return out


GRAPH = {m: _imports(m) for m in MODULES}


def layer(mod: str) -> str:
    """The layer of a module: its folder under loopopt/, or the module itself at the top."""
    parts = mod.split(".")
    return parts[1] if len(parts) > 2 else mod.removeprefix("loopopt.") if mod != "loopopt" else "loopopt"


# What each layer may import (besides itself). The facts and rewrites sit on the bindings; the
# seed's pass on them; the cpu code generator on all three; only the table and what is above it
# see both the pass and the code generator.
BELOW = {
    "mlir": {"errors"},
    "options": set(),
    "remarks": {"errors"},
    "step": {"options", "remarks"},
    "analysis": {"mlir", "errors"},
    "transforms": {"analysis", "mlir", "errors", "options", "remarks", "step"},
    "loop_optimization": {"analysis", "transforms", "mlir", "errors", "options", "remarks", "step"},
    "codegen": {"analysis", "transforms", "loop_optimization", "mlir", "errors", "options", "remarks", "step"},
}


@pytest.mark.parametrize("low", sorted(BELOW))
def test_a_layer_imports_only_what_is_below_it(low):
    wrong = sorted(f"{m} imports {d}" for m, deps in GRAPH.items() if layer(m) == low
                   for d in deps if layer(d) != low and layer(d) not in BELOW[low])
    assert not wrong, wrong


def test_no_modules_import_each_other_round():
    """No cycle among modules, counting imports inside functions (a function-level import that
    closes a cycle hides it from Python, not from the reader)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def strongconnect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            strongconnect(v)
    assert not cycles, cycles


def test_the_seed_pass_never_tests_the_target():
    """Fusion and its rescues ask the target hooks; no module of the pass reads
    `target.partitioned` or the target's name (loop_optimization/hooks.py)."""
    found = []
    for mod, path in MODULES.items():
        if layer(mod) == "loop_optimization" and not mod.endswith(".hooks"):
            text = open(path, encoding="utf-8").read()
            found += [f"{mod}: {needle}" for needle in ("target.partitioned", "target.name", "target.kind")
                      if needle in text]
    assert not found, found


def test_every_relative_import_names_a_module_or_a_package_attribute():
    """A relative import inside a function is resolved only when it runs: a path that no longer
    resolves (after a module moved) fails here instead of in the one run that reaches it."""
    bad = []
    for mod, path in MODULES.items():
        package = mod.split(".") if path.endswith("__init__.py") else mod.split(".")[:-1]
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            if base not in MODULES:
                bad.append(f"{mod}:{node.lineno}: {'.' * node.level}{node.module or ''}")
            elif not node.module:
                init = open(MODULES[base], encoding="utf-8").read()
                bad += [f"{mod}:{node.lineno}: {a.name} of {base}" for a in node.names
                        if f"{base}.{a.name}" not in MODULES and a.name not in init]
    assert not bad, bad
