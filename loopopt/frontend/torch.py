"""From PyTorch: export an nn.Module through torch-mlir and return its linalg-on-tensors text.

    import torch, loopopt.frontend.torch as lt
    text = lt.from_torch(model, torch.randn(128, 256))          # linalg on tensors, MLIR text
    text = lt.from_torch(model, x, dynamic_shapes=({0: torch.export.Dim("batch")},))

torch-mlir bundles its own MLIR (24.0.0git), separate from the bindings loopopt uses (MLIR 23):
objects do not cross between them, text does. So `torch.export.export` runs here (plain torch,
no MLIR), the ExportedProgram is saved to a temporary file, and torch-mlir's
`fx.export_and_import(program, output_type="linalg-on-tensors")` runs in a child Python, which
prints the module as text. Needs torch and torch-mlir (`pip install torch-mlir==20261001`;
torch from the CPU wheel, see docs/frontend.md) in the Python that runs the child (`python=`,
default this one). This module imports neither torch-mlir nor loopopt's MLIR bindings.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

from ..errors import LoopOptError

TORCH_MLIR_VERSION = "20261001"  # the version the committed fixtures were made with

_CHILD = r"""
import sys
import torch
from torch_mlir import fx
program = torch.export.load(sys.argv[1])
module = fx.export_and_import(program, output_type="linalg-on-tensors", func_name=sys.argv[2])
sys.stdout.write(str(module))
"""


def default_func_name(module) -> str:
    """The kernel's name: the module's class name in snake case (`EncoderLayer` -> `encoder_layer`);
    never `main`, which loopopt's native harness reserves."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type(module).__name__).lower()
    name = re.sub(r"\W", "_", name) or "forward"
    return "forward" if name == "main" else name


def export_program(module, example_inputs: tuple, dynamic_shapes=None, strict: bool = False):
    """torch.export.export of the module on the example inputs (in this process: no MLIR)."""
    import torch

    return torch.export.export(module, tuple(example_inputs), dynamic_shapes=dynamic_shapes, strict=strict)


def from_torch(module, *example_inputs, func_name: str | None = None, dynamic_shapes=None,
               strict: bool = False, python: str | None = None, timeout: float = 600) -> str:
    """The linalg-on-tensors text torch-mlir makes of `module` called on `example_inputs`.

    func_name: the function's name (default from the class name). dynamic_shapes: as for
    torch.export.export (e.g. `({0: torch.export.Dim("batch")},)`). python: the interpreter that
    has torch-mlir (default sys.executable). Raises LoopOptError with one line on failure."""
    name = func_name or default_func_name(module)
    try:
        program = export_program(module, example_inputs, dynamic_shapes=dynamic_shapes, strict=strict)
    except ImportError:
        raise LoopOptError("loopopt.from_torch: error: torch is not installed (see docs/frontend.md)") from None
    except Exception as e:  # torch.export's own errors are long; keep the first line
        raise LoopOptError(f"loopopt.from_torch: error: torch.export failed: {_first_line(str(e))}") from None
    import torch

    with tempfile.TemporaryDirectory(prefix="loopopt-torch-") as d:
        path = os.path.join(d, "program.pt2")
        torch.export.save(program, path)
        try:
            p = subprocess.run([python or sys.executable, "-c", _CHILD, path, name],
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise LoopOptError(f"loopopt.from_torch: error: torch-mlir took longer than {timeout:.0f} s") from None
        except OSError as e:
            raise LoopOptError(f"loopopt.from_torch: error: cannot run {python}: {e.strerror}") from None
    if p.returncode != 0:
        raise LoopOptError(f"loopopt.from_torch: error: {_child_error(p.stderr)}")
    return p.stdout if p.stdout.endswith("\n") else p.stdout + "\n"


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "(no message)")


def _child_error(stderr: str) -> str:
    if "No module named 'torch_mlir'" in stderr:
        return (f"torch-mlir is not installed for that Python: pip install torch-mlir=={TORCH_MLIR_VERSION} "
                "(see docs/frontend.md)")
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip() and not ln.startswith(" ")]
    return "torch-mlir failed: " + (lines[-1] if lines else "(no message)")
