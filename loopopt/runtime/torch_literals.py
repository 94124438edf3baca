"""The graph's constant tensors (the frozen weights) imported by torch-mlir without a Python list.

torch-mlir's FX importer makes each constant tensor's attribute as `np.array(t.tolist())
.astype(dtype)`: every element a Python float or int, then an array of float64 or int64, then cast
back. That round trip returns the tensor's own values for every dtype taken here (float32 and
float16 into float64 and back are exact, integers are integers), and it is most of the import's
time on a model with weights (the probe's sppf: 3.2 of its 5.2 s). `LiteralHooks.resolve_literal`
makes the same attribute from the tensor's bytes (`t.numpy()`): the same element type, shape,
blob name and values, so the module torch-mlir prints, and every kernel built from it, is byte
for byte what the list made. It fills torch-mlir's own reference tracker, whose default path then
finds the attribute made; a tensor it does not take (another dtype, a single element, which
torch-mlir makes a splat, one holding a NaN, whose payload the float64 round trip may change, a
tensor numpy cannot view) is left to that path as before.
"""
from __future__ import annotations

import numpy as np

TAKEN = ("float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8")  # torch dtype names


def literal_array(tensor) -> np.ndarray | None:
    """The tensor's values as the numpy array torch-mlir's `np.array(t.tolist()).astype(...)`
    makes, read from its bytes; None where this does not hold or cannot be read (see module)."""
    import torch

    if not isinstance(tensor, torch.Tensor) or str(tensor.dtype).removeprefix("torch.") not in TAKEN:
        return None
    if tensor.numel() <= 1 or tensor.layout is not torch.strided or tensor.device.type != "cpu":
        return None
    try:
        with torch.no_grad():
            t = tensor.detach()
            if t.is_floating_point() and bool(torch.isnan(t).any()):
                return None
            return np.array(t.numpy(), copy=True, order="C")  # (the module keeps no view of a weight)
    except Exception:  # noqa: BLE001 - a fake or otherwise unreadable tensor: torch-mlir's own path
        return None


def literal_hooks():
    """An FxImporterHooks whose resolve_literal makes a taken tensor's attribute (literal_array)
    in the importer's tracker and returns None: torch-mlir's default path builds the op."""
    from torch_mlir.extras import fx_importer as fxi

    class LiteralHooks(fxi.FxImporterHooks):
        def resolve_literal(self, gni, literal, info):
            try:
                tracker = gni._cc._py_attr_tracker
                npy_dtype = fxi.TORCH_DTYPE_TO_NPY_TYPE[literal.dtype]
            except (AttributeError, KeyError, TypeError):
                return None
            mapping = tracker.track(literal)
            if not mapping.is_empty:
                return None
            array = literal_array(literal)
            if array is None or array.dtype != np.dtype(npy_dtype):
                return None
            shape_desc = "_".join(str(d) for d in literal.shape)  # torch-mlir's blob name
            mapping.value = fxi.DenseResourceElementsAttr.get_from_buffer(
                array.view(npy_dtype), f"torch_tensor_{shape_desc}_{literal.dtype}", fxi.create_mlir_tensor_type(literal))
            return None

    return LiteralHooks()
