"""From ONNX: `iree-import-onnx model.onnx` (in the iree-base-compiler wheel; needs the `onnx`
package) gives the model in the torch dialect (`torch.operator "onnx.Gemm"`, weights as
`dense_resource`), which torch_dialect.py lowers in-process.

    text = loopopt.frontend.onnx.import_onnx("model.onnx")      # torch-dialect MLIR text
    low = loopopt.frontend.lower(text)                            # kind "onnx"
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from ..errors import LoopOptError


def import_onnx(model, python: str | None = None, timeout: float = 600) -> str:
    """torch-dialect text of an ONNX model (a path, or the model's bytes), by running the wheel's
    importer (`python -m iree.compiler.tools.import_onnx`) in a child process."""
    with tempfile.TemporaryDirectory(prefix="loopopt-onnx-") as d:
        if isinstance(model, (bytes, bytearray)):
            path = os.path.join(d, "model.onnx")
            with open(path, "wb") as f:
                f.write(model)
        else:
            path = os.fspath(model)
            if not os.path.exists(path):
                raise LoopOptError(f"{path}: error: cannot read input: No such file or directory")
        out = os.path.join(d, "model.mlir")
        cmd = [python or sys.executable, "-m", "iree.compiler.tools.import_onnx", path, "-o", out]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise LoopOptError(f"{path}: error: iree-import-onnx took longer than {timeout:.0f} s") from None
        if p.returncode != 0:
            raise LoopOptError(f"{path}: error: {_importer_error(p.stderr)}")
        with open(out) as f:
            return f.read()


def _importer_error(stderr: str) -> str:
    if "No module named 'onnx'" in stderr:
        return "iree-import-onnx needs the onnx package: pip install onnx (or loopopt[onnx])"
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip() and not ln.startswith(" ")]
    return "iree-import-onnx failed: " + (lines[-1] if lines else "(no message)")


def is_onnx_path(path: str) -> bool:
    """ONNX models are recognised by their file name (`.onnx`): the protobuf has no magic."""
    return str(path).endswith(".onnx")
