"""The reference toolchain (Debian's mlir-22-tools): locate and call mlir-opt / mlir-runner."""
from __future__ import annotations

import os
import shutil
import subprocess

LLVM_BIN = "/usr/lib/llvm-22/bin"


def find_tool(name: str) -> str | None:
    """Path of `name` (mlir-opt, mlir-runner, ...): $LOOPOPT_LLVM_BIN, then LLVM 22's bin, then PATH."""
    for d in (os.environ.get("LOOPOPT_LLVM_BIN"), LLVM_BIN):
        if d and os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return shutil.which(name) or shutil.which(f"{name}-22")


def mlir_opt(text: str, args: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `mlir-opt ARGS` on `text` (stdin); returns the completed process (text mode)."""
    tool = find_tool("mlir-opt")
    if tool is None:
        raise FileNotFoundError("mlir-opt 22 not found: apt-get install -y mlir-22-tools")
    return subprocess.run([tool, *args], input=text, capture_output=True, text=True, timeout=timeout)


def verify_with_mlir_opt(text: str) -> str | None:
    """None if stock mlir-opt parses and verifies `text`, else its first error line."""
    p = mlir_opt(text, ["-o", os.devnull])
    if p.returncode == 0:
        return None
    lines = [ln for ln in p.stderr.splitlines() if "error" in ln] or p.stderr.splitlines() or ["mlir-opt failed"]
    return lines[0]
