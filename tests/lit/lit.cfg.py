"""lit configuration of the golden IR tests (`lit tests/lit`; pytest runs them via tests/test_lit.py).

Each `.mlir` file runs its `// RUN:` lines in lit's internal shell. Tool names are substituted
so that they resolve without the PATH: `loopopt` and `filecheck` become the Python interpreter
running lit with `-m loopopt` / `-m filecheck` (the repository root is put on PYTHONPATH), and
`mlir-opt` becomes MLIR 22's binary (feature `mlir-opt`, for `// REQUIRES: mlir-opt`).
Scratch files (`%t`) go to a temporary directory, never into the source tree.
"""
import importlib.util
import os
import shutil
import sys
import tempfile

import lit.formats

config.name = "loopopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.environ.get("LOOPOPT_LIT_OUTPUT") or os.path.join(tempfile.gettempdir(), f"loopopt-lit-{os.getuid()}")

REPO = os.path.dirname(os.path.dirname(config.test_source_root))
config.environment["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH", "")) if p)
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
if "LOOPOPT_CHECK_ERASE" in os.environ:  # the suite's erase check (tests/conftest.py) reaches the RUN lines
    config.environment["LOOPOPT_CHECK_ERASE"] = os.environ["LOOPOPT_CHECK_ERASE"]


def _tool_pattern(name: str) -> str:
    """A tool name standing alone as a command word (not part of a path or an option)."""
    return r"(?<![\w./%-])" + name.replace("-", r"\-") + r"(?![\w./-])"


def _python_tool(module: str) -> str:
    if importlib.util.find_spec(module) is not None:
        return f'"{sys.executable}" -m {module}'
    found = shutil.which(module)
    if found is None:
        lit_config.fatal(f"{module} is not installed (pip install -e '.[test]')")
    return f'"{found}"'


def _mlir_opt() -> str | None:
    for candidate in ("/usr/lib/llvm-22/bin/mlir-opt", shutil.which("mlir-opt-22")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


# `%cat A B`: the files' text, one after the other (a RUN line checks a run's remarks and its output as
# `2>&1` would show them, from one run). lit's own `cat` builtin is not used: in lit 23 it leaves its
# PYTHONPATH in the shell's environment, and the RUN lines after it no longer find loopopt.
config.substitutions.append(("%cat", f'"{sys.executable}" -c "import shutil, sys; '
                             f'[shutil.copyfileobj(open(f), sys.stdout) for f in sys.argv[1:]]"'))
# `loopopt`: the command line with the host's facts pinned (tests/lit/loopopt_pinned.py): the goldens
# hold one machine's plans, whatever machine runs them.
config.substitutions.append((_tool_pattern("loopopt"),
                             f'"{sys.executable}" "{os.path.join(REPO, "tests", "lit", "loopopt_pinned.py")}"'))
config.substitutions.append((_tool_pattern("filecheck"), _python_tool("filecheck")))
MLIR_OPT = _mlir_opt()
if MLIR_OPT is not None:
    config.available_features.add("mlir-opt")
    config.substitutions.append((_tool_pattern("mlir-opt"), f'"{MLIR_OPT}"'))
