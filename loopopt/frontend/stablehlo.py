"""StableHLO (JAX's `jax.jit(f).lower(*args).as_text()`), lowered through linalg on tensors.

IREE's `iree-stablehlo-input-transformation-pipeline` is registered in the bindings' pass
manager (the iree-base-compiler wheel loopopt already depends on), so it runs in-process, as
`iree-opt --iree-stablehlo-input-transformation-pipeline` would: it turns StableHLO into plain
linalg on tensors (func, arith, tensor.empty, linalg.fill/matmul/generic), which the linalg
lowering then takes unchanged.
"""
from __future__ import annotations

from .. import mlir
from ..mlir import ir
from . import linalg

DIALECTS = ("stablehlo", "chlo", "mhlo", "vhlo")
PIPELINE = "iree-stablehlo-input-transformation-pipeline"


def steps(elementwise_fusion: bool = False) -> list[str]:
    """StableHLO to linalg on tensors, then the linalg lowering."""
    return [PIPELINE, *linalg.steps(elementwise_fusion)]


def is_stablehlo_program(module: ir.Module) -> bool:
    return any(op.name.split(".", 1)[0] in DIALECTS for op in mlir.walk_list(module.operation))
