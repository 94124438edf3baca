"""README's "Run it" section runs as written: the numpy snippet, the torch snippet (where torch and
torch-mlir are installed), and the two command lines."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from loopopt.runtime import build, cache as cachemod

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MISSING = build.missing_tools()
pytestmark = [pytest.mark.toolchain, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]


def section() -> list[str]:
    with open(os.path.join(REPO, "README.md")) as f:
        lines = f.read().splitlines()
    start = lines.index("## Run it")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    return lines[start:end]


def snippet(marker: str) -> str:
    """The indented code block right after the `<!-- run-it: MARKER ...` line."""
    lines = section()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(f"<!-- run-it: {marker} "))
    block = []
    for ln in lines[at + 1:]:
        if ln.startswith("    "):
            block.append(ln)
        elif block or ln.strip():
            break
    assert block, f"no code after the {marker} marker"
    return textwrap.dedent("\n".join(block)) + "\n"


def run_python(code: str, cache: str, cwd: str = REPO):
    env = dict(os.environ, PYTHONPATH=REPO, **{cachemod.CACHE_ENV: cache})
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_the_numpy_snippet(tmp_path):
    p = run_python(snippet("numpy"), str(tmp_path / "cache"))
    assert p.returncode == 0, p.stderr[-2000:]
    kernel, shape = p.stdout.strip().splitlines()
    assert kernel.startswith("<loopopt.Kernel mlp_relu_small(arg0: memref<8x16xf32> (input), arg1: memref<8x16xf32> (output))")
    assert shape == "(8, 16) float32"


def test_the_torch_snippet(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("torch_mlir.fx")
    code = ("import warnings\nfrom loopopt.runtime.torch_backend import LoopoptFallbackWarning\n"
            "warnings.simplefilter('error', LoopoptFallbackWarning)\n" + snippet("torch"))
    p = run_python(code, str(tmp_path / "cache"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert float(p.stdout.strip().splitlines()[-1]) < 1e-5


def test_the_command_lines(tmp_path):
    """Run in a directory holding the bundled block at the path the README gives."""
    lines = [ln.strip() for ln in section() if ln.startswith("    loopopt ")]
    assert len(lines) == 2
    blocks = tmp_path / "benchmarks" / "models" / "blocks"
    blocks.mkdir(parents=True)
    shutil.copy(os.path.join(REPO, "benchmarks", "models", "blocks", "mlp_relu_small.mlir"), blocks)
    env = dict(os.environ, PYTHONPATH=REPO, **{cachemod.CACHE_ENV: str(tmp_path / "cache")})
    for line in lines:
        command = line.split("  #")[0].replace("loopopt ", f"{sys.executable} -m loopopt ", 1)
        p = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert p.returncode == 0, (line, p.stderr)
    assert (tmp_path / "libmlp.so").read_bytes()[:4] == b"\x7fELF"
    assert "_mlir_ciface_mlp_relu_small" in (tmp_path / "libmlp.h").read_text()
