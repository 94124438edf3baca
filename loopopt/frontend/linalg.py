"""Linalg on tensors, as torch-mlir's and IREE's importers emit it, lowered to affine loops.

The pipeline (docs/frontend.md says what each step fixes), every step a registered MLIR pass but
the `loopopt-*` ones (rewrites.py):

  loopopt-scans-to-loops               torch-mlir's tm_tensor.scan (torch.cumsum) as affine loops over
                                       buffers (scans.py)
  loopopt-scatters-to-loops            torch-mlir's tm_tensor.scatter (index_add, scatter_add) as
                                       loops over buffers (scatters.py)
  loopopt-sorts-to-loops               torch-mlir's tm_tensor.sort (sort, argsort, topk) as loops
                                       over buffers: each element stored at its stable rank (sorts.py)
  loopopt-check-input                  refuse, with the op's name and place, what will not lower
  func.func(linalg-fold-unit-extent-dims, canonicalize, cse)
                                       drop the unit dims of row reductions (tensor<512x1xf32>)
                                       and the expand_shape views joining them
  [func.func(linalg-fuse-elementwise-ops, canonicalize, cse)]   with elementwise_fusion
  loopopt-matmul-of-broadcast-operand a batched product of one matrix broadcast over the batch
                                       (torch's F.linear of a transposed 3-D input) as one matrix
                                       product of the batch's rows (shared_operand.py)
  loopopt-recompute-gathered-elements  a gather of an elementwise result recomputes the element
                                       (gather_recompute.py): no log-softmax materialised for nll
  loopopt-recompute-casts              a copy that only widens its input (a norm's f64 statistics)
                                       is cast again in each reader instead (cast_recompute.py)
  loopopt-prove-constant-checks        a check on constant data (a BatchNorm's sqrt(var + eps) != 0)
                                       computed at compile time, erased where it always holds
                                       (constant_checks.py)
  loopopt-skip-inserted-zeros          a convolution over a zero-inserted input (a transposed
                                       convolution) runs as phase convolutions (zero_phases.py)
  loopopt-duplicate-shared-fills       no copy for a fill that initializes two reductions
  eliminate-empty-tensors, empty-tensor-to-alloc-tensor,
  loopopt-read-only-inputs             a public function's tensor arguments marked not writable:
                                       an update of a reshaped input writes a copy (inputs are
                                       only read, the calling convention)
  one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}
                                       tensors to buffers, identity layouts at the boundary
  loopopt-fold-branch-buffers          an scf.if whose branches yield one buffer (a transposed
                                       convolution's phases and its original, both in place)
                                       returns nothing: its uses read that buffer, which the
                                       deallocation and out-parameter steps can trace
                                       (branch_yields.py)
  buffer-results-to-out-params{modify-public-functions=true}
                                       results become trailing out-parameters
  loopopt-results-into-out-params      computed in the out-parameter, no copy; dynamic output
                                       sizes checked at entry and unified with the inputs'
  ownership-based-buffer-deallocation, buffer-deallocation-simplification,
  bufferization-lower-deallocations, canonicalize
                                       plain memref.dealloc of the temporaries
  func.func(convert-linalg-to-affine-loops), fold-memref-alias-ops
                                       loops; subviews folded into the accesses (a load through
                                       an expand_shape becomes an affine.linearize_index)
  loopopt-copies-to-loops              any copy left becomes a loop nest
  loopopt-fold-reshape-views           accesses through reshape views re-indexed
  loopopt-drop-trailing-unit-dims      a temporary's trailing dims of size 1 dropped (a named op's
                                       unit dims, which the fold above leaves; unit_dims.py)
  loopopt-unify-dynamic-sizes          the dims the loop conversion took of out-parameters read
                                       the checked input sizes instead
  canonicalize
  affine-expand-index-ops-as-affine    affine.linearize_index / delinearize_index as affine.apply
                                       (pure, analysable; a dynamic basis gives a semi-affine map);
                                       after canonicalize, which folds a disjoint unit basis away
  cse
  loopopt-check-lowered                verifies; only func/affine/memref/arith/math/scf (+ cf.assert)
"""
from __future__ import annotations

from ..mlir import ir
from .. import mlir

BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries "
             "function-boundary-type-conversion=identity-layout-map}")


def steps(elementwise_fusion: bool = False) -> list[str]:
    """The top-level steps of the linalg-on-tensors lowering."""
    out = ["loopopt-scans-to-loops", "loopopt-scatters-to-loops", "loopopt-sorts-to-loops", "loopopt-check-input", "func.func(linalg-fold-unit-extent-dims,canonicalize,cse)"]
    if elementwise_fusion:
        out.append("func.func(linalg-fuse-elementwise-ops,canonicalize,cse)")
    out += [
        "loopopt-matmul-of-broadcast-operand",
        "loopopt-recompute-gathered-elements",
        "loopopt-recompute-casts",
        "loopopt-prove-constant-checks",
        "loopopt-skip-inserted-zeros",
        "loopopt-duplicate-shared-fills",
        "eliminate-empty-tensors",
        "empty-tensor-to-alloc-tensor",
        "loopopt-read-only-inputs",
        BUFFERIZE,
        "loopopt-fold-branch-buffers",
        "buffer-results-to-out-params{modify-public-functions=true}",
        "loopopt-results-into-out-params",
        "ownership-based-buffer-deallocation",
        "buffer-deallocation-simplification",
        "bufferization-lower-deallocations",
        "canonicalize",
        "func.func(convert-linalg-to-affine-loops)",
        "fold-memref-alias-ops",
        "loopopt-copies-to-loops",
        "loopopt-fold-reshape-views",
        "loopopt-drop-trailing-unit-dims",
        "loopopt-unify-dynamic-sizes",
        "canonicalize",
        "affine-expand-index-ops-as-affine",
        "cse",
        "loopopt-check-lowered",
    ]
    return out


TENSOR_DIALECTS = ("tensor", "linalg", "bufferization")


def is_tensor_program(module: ir.Module) -> bool:
    """Linalg/tensor input: an op of the tensor, linalg or bufferization dialect, or a function
    that takes or returns a ranked tensor."""
    for op in mlir.walk(module.operation):
        if op.name.split(".", 1)[0] in TENSOR_DIALECTS:
            return True
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            if any(isinstance(t, ir.RankedTensorType) for t in (*ftype.inputs, *ftype.results)):
                return True
    return False
