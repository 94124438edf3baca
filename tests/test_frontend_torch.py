"""From PyTorch, where torch and torch-mlir are installed (skipped otherwise: the default suite
never needs torch). Run them with the environment of docs/frontend.md:

    PYTHONPATH=. /work/venv-torch/bin/python -m pytest -q tests/test_frontend_torch.py

from_torch exports through torch-mlir in a child process and returns linalg text that lowers,
runs natively and prints torch's own outputs; the committed fixtures are what the committed
export script makes.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None or importlib.util.find_spec("torch_mlir") is None,
                                reason="torch and torch-mlir not installed (see docs/frontend.md)")

ROOT = Path(__file__).resolve().parent.parent


def _mlp():
    import torch

    class TinyMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)

        def forward(self, x):
            return self.fc2(torch.nn.functional.gelu(self.fc1(x)))

    torch.manual_seed(0)
    return TinyMLP().eval()


def _fill(shape, k):
    import numpy as np
    import torch

    n = int(np.prod(shape))
    v = ((7 * np.arange(n) + 131 * k + 3) % 251) * (2 / 251) - 1
    return torch.from_numpy(v.astype(np.float32).reshape(shape))


@pytest.mark.parametrize("dynamic", [False, True])
def test_from_torch_lowers_and_runs_like_torch(dynamic):
    import torch

    from loopopt import frontend
    from loopopt.frontend import fixtures
    from loopopt.frontend.torch import from_torch
    from loopopt.toolchain import find_tool

    model, x = _mlp(), _fill((4, 16), 0)
    dyn = ({0: torch.export.Dim("batch")},) if dynamic else None
    text = from_torch(model, x, dynamic_shapes=dyn)
    assert "func.func @tiny_mlp(" in text and "linalg.matmul" in text
    low = frontend.lower(text)
    assert low.checks == (["tiny_mlp: dim 0 of output argument 1 must equal dim 0 of argument 0"] if dynamic else [])
    if find_tool("mlir-runner") is None:
        pytest.skip("mlir-runner 22 not found")
    batch = 6 if dynamic else 4
    with torch.no_grad():
        want = model(_fill((batch, 16), 0)).numpy()
    got = fixtures.run_block(low.text, "tiny_mlp", [[batch, 16], [batch, 8]], reps=1).outputs[1]
    diff = max(abs(g - w) for g, w in zip(got.values, want.reshape(-1)))
    assert diff <= fixtures.RTOL * abs(want).max()


def test_from_torch_errors_are_one_line():
    import torch

    from loopopt.errors import LoopOptError
    from loopopt.frontend.torch import from_torch

    with pytest.raises(LoopOptError, match="torch.export failed"):
        from_torch(_mlp(), torch.zeros(4, 3))  # wrong inner size
    with pytest.raises(LoopOptError, match="cannot run|torch-mlir"):
        from_torch(_mlp(), torch.zeros(4, 16), python="/nonexistent/python")


def test_export_script_reproduces_the_committed_fixtures(tmp_path):
    script = ROOT / "benchmarks" / "models" / "export_torch.py"
    # cross_entropy_small: an i64 input; resnet_block_small: baked batch-norm statistics; nll_loss: held out
    names = ["mlp_relu_small", "mlp_dynamic_small", "rowmax_small", "cross_entropy_small", "resnet_block_small",
             "nll_loss"]
    p = subprocess.run([sys.executable, str(script), "--out", str(tmp_path), "--only", ",".join(names)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    models = ROOT / "benchmarks" / "models"
    for name in names:
        committed = models / ("heldout" if name == "nll_loss" else "blocks")
        assert (tmp_path / f"{name}.mlir").read_text() == (committed / f"{name}.mlir").read_text(), name + ".mlir"
        made = json.loads((tmp_path / f"{name}.expected.json").read_text())
        kept = json.loads((committed / f"{name}.expected.json").read_text())
        assert _same_expected(made, kept), name + ".expected.json"


def _same_expected(made: dict, kept: dict) -> bool:
    """Two expected-output files of one block agree: the same description, runs and inputs, and
    outputs that compare_record accepts (the tolerance every result is held to). torch's kernels
    differ in the last bits between x86-64 hosts (its CPU dispatch picks AVX2 or AVX-512 code), so
    torch's outputs are compared as any result is, not bit for bit."""
    from loopopt.frontend.fixtures import compare_record
    from loopopt.native import Output

    if {k: v for k, v in made.items() if k != "runs"} != {k: v for k, v in kept.items() if k != "runs"}:
        return False
    if len(made["runs"]) != len(kept["runs"]):
        return False
    for a, b in zip(made["runs"], kept["runs"]):
        if a["inputs"] != b["inputs"] or len(a["outputs"]) != len(b["outputs"]):
            return False
        for x, y in zip(a["outputs"], b["outputs"]):
            if {k: v for k, v in x.items() if k not in ("values", "checksum")} != \
                    {k: v for k, v in y.items() if k not in ("values", "checksum")} or ("values" in x) != ("values" in y):
                return False
            got = Output("made", x["numel"], tuple(x["values"]) if "values" in x else None, tuple(x["checksum"]))
            if compare_record(got, y, "output") is not None:
                return False
    return True


def test_expected_outputs_compare_within_the_tolerance():
    out = {"shape": [2], "dtype": "float32", "numel": 2, "values": [1.0, -2.0], "checksum": [-1.0, -3.0, 3.0]}
    base = {"block": "b", "runs": [{"inputs": [{"shape": [2], "checksum": [1.0, 2.0, 3.0]}], "outputs": [out]}]}
    near = json.loads(json.dumps(base))
    near["runs"][0]["outputs"][0]["values"][0] += 1e-7
    assert _same_expected(near, base)
    far = json.loads(json.dumps(base))
    far["runs"][0]["outputs"][0]["values"][1] = -2.1
    assert not _same_expected(far, base)
    other_input = json.loads(json.dumps(base))
    other_input["runs"][0]["inputs"][0]["checksum"][0] = 1.0000001
    assert not _same_expected(other_input, base)
