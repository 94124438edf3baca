"""The torch backend's constant tensors imported from their bytes (runtime/torch_literals.py): the
same values torch-mlir's `np.array(t.tolist()).astype(...)` makes, and the same printed module,
byte for byte, with the hooks as without.

Needs torch and torch-mlir (the `torch` extra), skipped without them; here:
    PYTHONPATH=$PWD /work/venv-torch/bin/python -m pytest -q -p no:cacheprovider tests/test_runtime_torch_literals.py
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
fx = pytest.importorskip("torch_mlir.fx")

from torch_mlir.extras.fx_importer import TORCH_DTYPE_TO_NPY_TYPE  # noqa: E402

from loopopt.runtime.torch_literals import TAKEN, literal_array, literal_hooks  # noqa: E402

SPECIAL = [0.0, -0.0, 1.0, -1.5, 3.4e38, -3.4e38, 1e-45, float("inf"), float("-inf"), 0.1, 1 / 3]


def _torch_mlirs(t) -> np.ndarray:
    """What torch-mlir's default literal path makes of `t`."""
    return np.array(t.tolist()).astype(TORCH_DTYPE_TO_NPY_TYPE[t.dtype])


@pytest.mark.parametrize("dtype", TAKEN)
def test_the_bytes_are_the_lists_values(dtype):
    dt = getattr(torch, dtype)
    g = torch.Generator().manual_seed(0)
    if dt.is_floating_point:
        t = torch.cat([torch.tensor(SPECIAL, dtype=torch.float64).to(dt), torch.randn(37, generator=g).to(dt)])
    else:
        info = torch.iinfo(dt)
        t = torch.cat([torch.tensor([info.min, info.max, 0, -1 if info.min < 0 else 1], dtype=dt),
                       torch.randint(info.min, info.max, (38,), dtype=dt, generator=g)])
    t = t.reshape(3, -1)[:, 1:]  # (a strided view: read as the list reads it, row-major)
    got = literal_array(t)
    want = _torch_mlirs(t)
    assert got is not None and got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_what_is_not_taken_is_left_to_torch_mlir():
    assert literal_array(torch.tensor([1.0, float("nan")])) is None  # the round trip may change a NaN
    assert literal_array(torch.tensor([2.0])) is None  # a splat
    assert literal_array(torch.ones(4, dtype=torch.bfloat16)) is None
    assert literal_array(torch.ones(4, dtype=torch.complex64)) is None
    assert literal_array(3.0) is None


class Weights(torch.nn.Module):
    """Constants of every kind the import meets: float weights (one used twice), an int64 and a
    bool buffer, a NaN-holding one, a one-element one."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.register_buffer("idx", torch.arange(16, dtype=torch.int64).flip(0))
        self.register_buffer("mask", torch.arange(16) % 3 == 0)
        self.register_buffer("nan", torch.where(torch.arange(16) == 5, float("nan"), 0.5))
        self.register_buffer("one", torch.tensor([0.25]))
        self.register_buffer("halves", torch.linspace(-2, 2, 16, dtype=torch.float16))

    def forward(self, x):
        y = self.lin(self.lin(x)) * self.one + self.halves.float()
        y = torch.where(self.mask, y, y.index_select(1, self.idx))
        return torch.nan_to_num(y + self.nan)


def test_the_module_printed_is_the_same_with_the_hooks(monkeypatch):
    from loopopt.runtime import torch_literals

    taken = []

    def counted(t):
        got = literal_array(t)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(torch_literals, "literal_array", counted)
    torch.manual_seed(0)
    m = Weights().eval()
    x = torch.randn(4, 16)
    with torch.no_grad():
        program = torch.export.export(m, (x,))
    texts = [str(fx.export_and_import(program, output_type="linalg-on-tensors", func_name="f", hooks=hooks))
             for hooks in (None, literal_hooks())]
    assert "dense_resource<torch_tensor_16_16_torch.float32>" in texts[0]
    assert texts[1] == texts[0]
    assert sum(taken) == 5, taken  # the weight (once: the tracker has it), bias, idx, mask, halves


@pytest.mark.toolchain
def test_the_backend_imports_its_frozen_weights_through_the_hooks(monkeypatch, tmp_path):
    import loopopt
    from loopopt.runtime import build, cache as cachemod, torch_literals

    if build.missing_tools() is not None:
        pytest.skip(build.missing_tools())
    monkeypatch.setenv(cachemod.CACHE_ENV, str(tmp_path))
    taken = []

    def counted(t):
        got = literal_array(t)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(torch_literals, "literal_array", counted)
    torch._dynamo.reset()
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()).eval()
    x = torch.randn(2, 8)
    with torch.no_grad():
        got = torch.compile(m, backend=loopopt.torch_backend)(x)
        want = m(x)
    assert torch.allclose(got, want, rtol=1e-5, atol=1e-6)
    assert any(taken), taken  # the weight (or its transposed panel) came from its bytes
