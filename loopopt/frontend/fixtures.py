"""The exported blocks of benchmarks/models/blocks/ and their saved torch outputs.

A fixture is NAME.mlir (linalg on tensors, as torch-mlir printed it) and NAME.expected.json
(written by benchmarks/models/export_torch.py): for each run size the inputs' and outputs'
shapes, checksums, and every value of small outputs. The lowered kernel takes the inputs, then
one out-parameter per output, and loopopt.native's harness fills argument k exactly as the
export script filled input k, so a native run's outputs compare with torch's.

Tolerance (`compare_with_expected`): torch reassociates sums (blocked GEMM, vectorized
reductions) and uses its own exp/erf/tanh, so floats are compared to a bound relative to the
output's scale: |got - want| <= rtol * max|want| per element, and each checksum within rtol
times the sum of magnitudes (times 1009 for the weighted one). Integers (argmax) must be equal.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..native import WEIGHT_MODULUS, NativeResult, Output

BLOCKS_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / "blocks"
RTOL = 1e-5  # 30x the worst error measured over the committed blocks (3.3e-7): docs/frontend.md


@dataclass(frozen=True)
class Fixture:
    name: str
    path: Path  # NAME.mlir
    expected: dict  # NAME.expected.json

    @property
    def text(self) -> str:
        return self.path.read_text()

    @property
    def function(self) -> str:
        return self.expected["function"]

    @property
    def runs(self) -> list[dict]:
        return self.expected["runs"]


def fixture_names(directory: Path | str = BLOCKS_DIR) -> list[str]:
    """The blocks that have both files, sorted."""
    d = Path(directory)
    return sorted(p.name[:-len(".expected.json")] for p in d.glob("*.expected.json")
                  if (d / (p.name[:-len(".expected.json")] + ".mlir")).exists())


def load_fixture(name: str, directory: Path | str = BLOCKS_DIR) -> Fixture:
    d = Path(directory)
    with open(d / f"{name}.expected.json") as f:
        expected = json.load(f)
    return Fixture(name, d / f"{name}.mlir", expected)


def harness_sizes(run: dict) -> list[list[int]]:
    """loopopt.native sizes for the lowered kernel: each input's shape, then each output's."""
    return [list(r["shape"]) for r in run["inputs"]] + [list(r["shape"]) for r in run["outputs"]]


def _float_close(got: float, want: float, scale: float, rtol: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return abs(got - want) <= rtol * scale


def compare_record(got: Output, want: dict, label: str, rtol: float = RTOL) -> str | None:
    """None if a native output matches a saved record (see the module doc), else one line."""
    if got.numel != want["numel"]:
        return f"{label}: {got.numel} elements, the fixture has {want['numel']}"
    integer = want["dtype"].startswith(("int", "uint", "bool"))
    if got.values is not None and "values" in want:
        vals = want["values"]
        if integer:
            bad = next((i for i, (g, w) in enumerate(zip(got.values, vals)) if int(g) != int(w)), None)
        else:
            scale = max((abs(v) for v in vals), default=0.0) or 1.0
            bad = next((i for i, (g, w) in enumerate(zip(got.values, vals)) if not _float_close(g, w, scale, rtol)), None)
        if bad is not None:
            return f"{label}[{bad}] = {got.values[bad]!r}, the fixture has {vals[bad]!r}"
        return None
    have = got.checksum if got.checksum is not None else checksum_of(got.values)
    mag = max(abs(want["checksum"][2]), abs(have[2])) or 1.0
    for k, what in enumerate(("sum", "weighted sum", "sum |x|")):
        scale = mag * (WEIGHT_MODULUS if k == 1 else 1)
        tol = max(rtol, 1e-12)  # the harness sums in order; numpy's pairwise sum differs in the last bits
        if not _float_close(have[k], want["checksum"][k], scale, tol):
            return f"{label} {what} = {have[k]!r}, the fixture has {want['checksum'][k]!r}"
    return None


def checksum_of(values: Sequence[float]) -> tuple[float, float, float]:
    """The harness's checksums of fully printed values (sum, weighted sum, sum |x|)."""
    s = w = a = 0.0
    for i, x in enumerate(values):
        s += x
        w += x * (i % WEIGHT_MODULUS + 1)
        a += abs(x)
    return (s, w, a)


def compare_with_expected(outputs: Sequence[Output], run: dict, rtol: float = RTOL) -> str | None:
    """Compare a native run of the lowered kernel (loopopt.native.run_native: every memref
    argument, inputs first, then the out-parameters) with one saved run. The inputs are
    compared too: equal checksums show the harness filled them as the export script did."""
    ins, outs = run["inputs"], run["outputs"]
    if len(outputs) != len(ins) + len(outs):
        return f"the kernel has {len(outputs)} memref arguments; the fixture has {len(ins)} inputs and {len(outs)} outputs"
    for k, (got, want) in enumerate(zip(outputs, ins + outs)):
        label = f"input {k}" if k < len(ins) else f"output {k - len(ins)}"
        diff = compare_record(got, want, label, rtol=0.0 if k < len(ins) else rtol)
        if diff is not None:
            return diff
    return None


def max_error(outputs: Sequence[Output], run: dict) -> float:
    """The largest error over the outputs in compare_record's units (error / scale): what the
    tolerance must cover. Checksum-only outputs count their checksums."""
    worst = 0.0
    outs = list(outputs)[len(run["inputs"]):]
    for got, want in zip(outs, run["outputs"]):
        if want["dtype"].startswith(("int", "uint", "bool")):
            continue
        if got.values is not None and "values" in want:
            scale = max((abs(v) for v in want["values"]), default=0.0) or 1.0
            worst = max([worst] + [abs(g - w) / scale for g, w in zip(got.values, want["values"])])
        else:
            have = got.checksum if got.checksum is not None else checksum_of(got.values)
            mag = max(abs(want["checksum"][2]), abs(have[2])) or 1.0
            for k in range(3):
                scale = mag * (WEIGHT_MODULUS if k == 1 else 1)
                worst = max(worst, abs(have[k] - want["checksum"][k]) / scale)
    return worst


def harness_fill(shape: Sequence[int], argno: int, dtype) -> "np.ndarray":
    """Argument `argno` as loopopt.native's harness fills it (so as the exporters filled the
    inputs): element i (row-major) holds r = (7 i + 131 argno + 3) mod 251, a float r * 2/251 - 1
    computed in f64 and rounded to the dtype, an integer r - 125 truncated to its width (the
    harness fills `index` elements with r itself; their dtype, int64, cannot say so)."""
    import numpy as np

    from ..native import FILL_MODULUS

    i = np.arange(math.prod(shape), dtype=np.int64)
    r = (7 * i + 131 * argno + 3) % FILL_MODULUS
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        v = r.astype(np.float64) * (2.0 / FILL_MODULUS) - 1.0
    elif dtype.kind == "b":
        v = (r - FILL_MODULUS // 2) & 1  # i1: the low bit, as arith.trunci keeps it
    else:
        v = r - FILL_MODULUS // 2
    return v.astype(dtype).reshape(tuple(shape))


def run_inputs(run: dict) -> list:
    """The inputs of one saved run, as the harness fills them."""
    return [harness_fill(r["shape"], k, r["dtype"]) for k, r in enumerate(run["inputs"])]


def array_output(name: str, a) -> Output:
    """A numpy array as a harness output: every value (up to FULL_LIMIT elements), else checksums."""
    import numpy as np

    from ..native import FULL_LIMIT

    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.size <= FULL_LIMIT:
        return Output(name, int(flat.size), values=tuple(flat.tolist()))
    x = flat.astype(np.float64)
    w = (np.arange(x.size) % WEIGHT_MODULUS + 1).astype(np.float64)
    return Output(name, int(flat.size), checksum=(float(x.sum()), float((x * w).sum()), float(np.abs(x).sum())))


def compare_arrays_with_expected(inputs: Sequence, outputs: Sequence, run: dict, rtol: float = RTOL) -> str | None:
    """compare_with_expected for numpy arrays (a call through loopopt.compile): the inputs as
    passed, then the outputs."""
    got = [array_output(f"arg{k}", a) for k, a in enumerate(list(inputs) + list(outputs))]
    return compare_with_expected(got, run, rtol)


def kernel_mismatch(kernel, fixture: "Fixture", rtol: float = RTOL) -> str | None:
    """None when `kernel` (a loopopt.compile of the fixture) called on every run's inputs gives
    the saved outputs (`compare_arrays_with_expected`) and leaves its inputs as they were; else
    why, in one line naming the run's input shapes."""
    import numpy as np

    for run in fixture.runs:
        inputs = run_inputs(run)
        before = [x.copy() for x in inputs]
        got = kernel(*inputs)
        outs = got if isinstance(got, tuple) else (got,)
        diff = compare_arrays_with_expected(inputs, outs, run, rtol)
        if diff is not None:
            return f"{[r['shape'] for r in run['inputs']]}: {diff}"
        if not all(np.array_equal(a, b) for a, b in zip(inputs, before)):
            return f"{[r['shape'] for r in run['inputs']]}: an input was written"
    return None


def run_block(text: str, kernel: str, sizes: Sequence, reps: int = 3, warmup: int = 1,
              flush_bytes: int = 0, timeout: float = 600) -> NativeResult:
    """loopopt.native.run_native for a block (its `dense_resource` weights stay in the module's
    resource trailer, which the harness keeps after the module)."""
    from ..native import run_native

    return run_native(text, kernel, sizes, reps=reps, warmup=warmup, flush_bytes=flush_bytes, timeout=timeout)
