"""The torch dialect (torch-mlir's `output_type="torch"`, and ONNX as `iree-import-onnx` imports
it: `torch.operator "onnx.Gemm"`), lowered through linalg on tensors.

The iree-base-compiler wheel bundles torch-mlir's conversion passes, registered in the
bindings' pass manager, so both run in-process:
  onnx:  torch-onnx-to-torch-backend-pipeline, then torch-backend-to-linalg-on-tensors-backend-pipeline
  torch: torch-function-to-torch-backend-pipeline, then torch-backend-to-linalg-on-tensors-backend-pipeline
and the linalg lowering takes the result. The bundled torch-mlir is the one IREE 3.11 was built
with, not torch-mlir 20261001: torch-dialect text from a newer torch-mlir may use ops it does not
know (linalg-on-tensors text, which from_torch uses, has no such skew).
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir
from . import linalg

TO_LINALG = "torch-backend-to-linalg-on-tensors-backend-pipeline"
FROM_ONNX = "torch-onnx-to-torch-backend-pipeline"
FROM_TORCH = "torch-function-to-torch-backend-pipeline"


def steps(kind: str, elementwise_fusion: bool = False) -> list[str]:
    """kind "onnx" or "torch": to the torch backend form, to linalg on tensors, then the linalg lowering."""
    return [FROM_ONNX if kind == "onnx" else FROM_TORCH, TO_LINALG, *linalg.steps(elementwise_fusion)]


def torch_kind(module: ir.Module) -> str | None:
    """"onnx" if the module holds ONNX operators in the torch dialect, "torch" if it holds other
    torch-dialect ops or types, else None."""
    kind = None
    for op in mlir.walk_list(module.operation):
        if op.name == "torch.operator" and "name" in op.attributes and \
                ir.StringAttr(op.attributes["name"]).value.startswith("onnx."):
            return "onnx"
        if op.name.startswith("torch.") or op.name.startswith("torch_c."):
            kind = "torch"
        elif op.name == "func.func" and "!torch." in str(op.attributes["function_type"]):
            kind = "torch"
    return kind
