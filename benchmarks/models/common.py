"""What the fixture exporters share: the native harness's input fill, the saved records, files.

Imports only numpy (and the standard library): each exporter runs in its own environment
(torch, JAX or onnx) without loopopt. The constants mirror loopopt.native (FILL_MODULUS,
WEIGHT_MODULUS, FULL_LIMIT); tests/test_frontend_native.py checks that the inputs saved here
equal what the harness makes.
"""
from __future__ import annotations

import json
import math
import os
from importlib import metadata

SEED = 26
FILL_MODULUS = 251  # loopopt.native.FILL_MODULUS
WEIGHT_MODULUS = 1009  # loopopt.native.WEIGHT_MODULUS
FULL_LIMIT = 4096  # outputs with at most this many elements are saved whole (loopopt.native.FULL_LIMIT)
HERE = os.path.dirname(os.path.abspath(__file__))
BLOCKS_DIR = os.path.join(HERE, "blocks")
HELDOUT_DIR = os.path.join(HERE, "heldout")  # the held-out blocks: measured apart, never tuned on
FILL_TEXT = "argument k, element i (row-major): ((7 i + 131 k + 3) mod 251) * 2/251 - 1, f64 rounded to f32"
INT_FILL_TEXT = "integer argument k, element i (row-major): ((7 i + 131 k + 3) mod 251) - 125"
CHECKSUM_TEXT = "sum, sum of x * ((i mod 1009) + 1), sum of |x| (f64, row-major)"


def check_versions(pinned: dict) -> list[str]:
    """The pinned packages whose installed version differs (empty when all match)."""
    bad = []
    for name, want in pinned.items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            have = "not installed"
        if have != want:
            bad.append(f"{name} {have} (want {want})")
    return bad


def harness_fill(shape, argno: int, dtype="float32"):
    """loopopt.native.make_harness's fill of argument `argno`: element i (row-major) holds
    ((7 i + 131 argno + 3) mod 251) * 2/251 - 1, computed in f64, rounded to `dtype`; an
    integer argument holds ((7 i + 131 argno + 3) mod 251) - 125."""
    import numpy as np

    n = math.prod(shape)
    i = np.arange(n, dtype=np.int64)
    r = (7 * i + 131 * argno + 3) % FILL_MODULUS
    if np.dtype(dtype).kind in "iu":
        return (r - FILL_MODULUS // 2).astype(dtype).reshape(tuple(shape))
    v = r.astype(np.float64) * (2.0 / FILL_MODULUS) - 1.0
    return v.astype(dtype).reshape(tuple(shape))


def fixture_dir(name: str) -> str:
    """The directory holding block `name`: benchmarks/models/blocks/, else heldout/."""
    if os.path.exists(os.path.join(BLOCKS_DIR, f"{name}.expected.json")):
        return BLOCKS_DIR
    return HELDOUT_DIR


def checksums(values) -> list[float]:
    """(sum, position-weighted sum, sum of magnitudes) in f64 over the row-major elements."""
    import numpy as np

    x = np.asarray(values).reshape(-1).astype(np.float64)
    w = (np.arange(x.size) % WEIGHT_MODULUS + 1).astype(np.float64)
    return [float(x.sum()), float((x * w).sum()), float(np.abs(x).sum())]


def record(array, values: bool = True) -> dict:
    """Shape, element type, checksums, and (with `values`) every value when small (floats
    exactly, as f64). Inputs are saved without values: their checksums show the fill."""
    import numpy as np

    a = np.asarray(array)
    rec = {"shape": list(a.shape), "dtype": str(a.dtype), "numel": int(a.size), "checksum": checksums(a)}
    if values and a.size <= FULL_LIMIT:
        flat = a.reshape(-1)
        rec["values"] = [int(v) for v in flat] if a.dtype.kind in "iub" else [float(v) for v in flat]
    return rec


def write_fixture(directory: str, name: str, text: str, expected: dict) -> None:
    """NAME.mlir and NAME.expected.json (values of a record on one line each)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, f"{name}.mlir"), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    with open(os.path.join(directory, f"{name}.expected.json"), "w") as f:
        f.write(_dump(expected) + "\n")


def _dump(obj, indent: int = 0) -> str:
    """JSON with dicts and lists of dicts indented, lists of numbers on one line."""
    pad = " " * (indent + 1)
    if isinstance(obj, dict):
        items = [f"{pad}{json.dumps(k)}: {_dump(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj):
        return "[\n" + ",\n".join(pad + _dump(v, indent + 1) for v in obj) + "\n" + " " * indent + "]"
    return json.dumps(obj)
