"""Export the PyTorch blocks of issue 26 as linalg-on-tensors fixtures, with torch's outputs.

Runs only where torch and torch-mlir are installed (the default test suite never needs them).
The environment used for the committed fixtures, outside the repository:

    python3 -m venv /work/venv-torch
    /work/venv-torch/bin/pip install /opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl \
        torch-mlir==20261001 numpy
    /work/venv-torch/bin/python benchmarks/models/export_torch.py            # every block
    /work/venv-torch/bin/python benchmarks/models/export_torch.py --only mlp_relu_small

Install torch from that CPU wheel (`find / -xdev -name 'torch-*+cpu-*.whl'` finds it): torch from
PyPI is the CUDA build, several GB. The pinned versions are checked at start (`--any-version`
skips the check; fixtures made so are not the committed ones).

For every block NAME this writes into benchmarks/models/blocks/:
  NAME.mlir           `torch_mlir.fx.export_and_import(..., output_type="linalg-on-tensors")`,
                      printed as text (torch-mlir's MLIR is 24.0.0git; its bytecode does not load
                      in loopopt's bindings, its text does)
  NAME.expected.json  torch's outputs on the inputs loopopt's native harness makes (below), for
                      each run size: shapes, checksums, and every value of small outputs

Inputs: loopopt.native.make_harness fills argument k of the lowered kernel, element i in
row-major order, with ((7 i + 131 k + 3) mod 251) * 2/251 - 1 computed in f64 and rounded to the
element type. The lowered kernel's arguments are the block's inputs in order, then one
out-parameter per result, so input k gets the same fill here. Weights come from
torch.manual_seed(SEED) and are baked into the module as `dense_resource` constants.

Checksums are the harness's: sum, sum of x * ((i mod 1009) + 1), sum of |x| (f64, row-major).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass, field
from importlib import metadata
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (BLOCKS_DIR, CHECKSUM_TEXT, FILL_TEXT, SEED, check_versions, harness_fill,  # noqa: E402
                    record, write_fixture)

PINNED = {"torch": "2.13.0+cpu", "torch-mlir": "20261001"}


# ----------------------------------------------------------------------------- the blocks

@dataclass
class Block:
    """One PyTorch block: how to build it, its example input shapes, which input dims are
    dynamic (input index -> {dim: name}), and the shapes of each run whose outputs are saved."""

    name: str
    what: str
    build: Callable  # () -> torch.nn.Module (called after seeding)
    inputs: list  # example input shapes
    dynamic: dict = field(default_factory=dict)
    runs: list = field(default_factory=list)  # input shape lists; [] = the example shapes only

    def run_shapes(self) -> list:
        return self.runs or [self.inputs]


def _modules():
    """The nn.Module classes (defined here so this file imports without torch)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class MLP(nn.Module):
        def __init__(self, d_in, hidden, d_out, act):
            super().__init__()
            self.fc1, self.fc2, self.act = nn.Linear(d_in, hidden), nn.Linear(hidden, d_out), act

        def forward(self, x):
            h = self.fc1(x)
            h = F.relu(h) if self.act == "relu" else F.gelu(h)
            return self.fc2(h)

    class LayerNorm(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.ln = nn.LayerNorm(d)
            with torch.no_grad():  # not the default ones and zeros, so the affine part matters
                self.ln.weight.copy_(1.0 + 0.1 * torch.randn(d))
                self.ln.bias.copy_(0.1 * torch.randn(d))

        def forward(self, x):
            return self.ln(x)

    class Softmax(nn.Module):
        def forward(self, x):
            return torch.softmax(x, dim=-1)

    class Attention(nn.Module):
        """softmax(q k^T / sqrt(d)) v, written out: two batch matmuls around a softmax."""

        def forward(self, q, k, v):
            s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
            return torch.matmul(torch.softmax(s, dim=-1), v)

    class SDPA(nn.Module):
        def forward(self, q, k, v):
            return F.scaled_dot_product_attention(q, k, v)

    class Elementwise(nn.Module):
        """A chain of pointwise ops: tanh, sigmoid, exp, multiply-adds."""

        def forward(self, x):
            a = torch.tanh(x)
            b = torch.sigmoid(1.7 * x)
            c = a * b + 0.25 * x
            d = torch.exp(-c * c)
            return d * a - 0.5 * b

    class RowMax(nn.Module):
        """The row max and its argmax (i64): both results of aten.max.dim are used."""

        def forward(self, x):
            values, indices = torch.max(x, dim=-1)
            return values, indices

    class EncoderLayer(nn.Module):
        """Pre-norm transformer encoder layer on one sequence (seq x d):
        x + proj(attention(LN1(x))), then + fc2(gelu(fc1(LN2(.))))."""

        def __init__(self, d, heads, ffn):
            super().__init__()
            self.d, self.heads = d, heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

        def forward(self, x):
            seq, d, h = x.shape[0], self.d, self.heads
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
            q, k, v = (t.reshape(seq, h, d // h).transpose(0, 1) for t in (q, k, v))
            s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(d // h))
            a = torch.matmul(torch.softmax(s, dim=-1), v).transpose(0, 1).reshape(seq, d)
            x = x + self.proj(a)
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    return dict(MLP=MLP, LayerNorm=LayerNorm, Softmax=Softmax, Attention=Attention, SDPA=SDPA,
                Elementwise=Elementwise, RowMax=RowMax, EncoderLayer=EncoderLayer)


def blocks() -> list[Block]:
    """Every block, full size (issue 26's sizes) and a small variant (`_small`) for fast tests."""
    M = _modules
    out = []
    for suffix, (b, d, h, o) in (("", (128, 256, 512, 256)), ("_small", (8, 16, 32, 16))):
        out.append(Block(f"mlp_relu{suffix}", f"Linear {d}->{h}, ReLU, Linear {h}->{o} on a batch of {b}",
                         lambda d=d, h=h, o=o: M()["MLP"](d, h, o, "relu"), [(b, d)]))
        out.append(Block(f"mlp_gelu{suffix}", f"Linear {d}->{h}, GELU (erf), Linear {h}->{o} on a batch of {b}",
                         lambda d=d, h=h, o=o: M()["MLP"](d, h, o, "gelu"), [(b, d)]))
        small_batch = 5 if suffix else 37
        out.append(Block(f"mlp_dynamic{suffix}", f"mlp_gelu{suffix} with a dynamic batch (torch.export.Dim)",
                         lambda d=d, h=h, o=o: M()["MLP"](d, h, o, "gelu"), [(b, d)], dynamic={0: {0: "batch"}},
                         runs=[[(b, d)], [(small_batch, d)]]))
    for suffix, (r, c) in (("", (512, 1024)), ("_small", (8, 32))):
        out.append(Block(f"layernorm{suffix}", f"nn.LayerNorm({c}) on {r}x{c} (f64 variance)",
                         lambda c=c: M()["LayerNorm"](c), [(r, c)]))
        out.append(Block(f"softmax{suffix}", f"softmax over the last dim of {r}x{c}",
                         lambda: M()["Softmax"](), [(r, c)]))
    for suffix, shape in (("", (4, 256, 64)), ("_small", (2, 8, 4))):
        out.append(Block(f"attention{suffix}", f"matmul, softmax, matmul on q, k, v of {'x'.join(map(str, shape))}",
                         lambda: M()["Attention"](), [shape] * 3))
        out.append(Block(f"sdpa{suffix}", f"F.scaled_dot_product_attention on {'x'.join(map(str, shape))}",
                         lambda: M()["SDPA"](), [shape] * 3))
    for suffix, shape in (("", (1024, 1024)), ("_small", (16, 32))):
        out.append(Block(f"elementwise{suffix}", f"tanh/sigmoid/exp chain on {'x'.join(map(str, shape))}",
                         lambda: M()["Elementwise"](), [shape]))
    out.append(Block("rowmax_small", "torch.max(x, dim=-1): row max (f32) and argmax (i64) of 8x32",
                     lambda: M()["RowMax"](), [(8, 32)]))
    for suffix, (seq, d, heads, ffn) in (("", (128, 256, 4, 1024)), ("_small", (8, 16, 2, 32))):
        out.append(Block(f"encoder{suffix}", f"pre-norm transformer encoder layer, seq {seq}, d {d}, "
                         f"{heads} heads, ffn {ffn}", lambda d=d, heads=heads, ffn=ffn: M()["EncoderLayer"](d, heads, ffn),
                         [(seq, d)]))
    return out


# ----------------------------------------------------------------------------- export

def export_block(block: Block) -> tuple[str, dict, float]:
    """(linalg text, expected-outputs record, export seconds) of one block."""
    import torch
    from torch_mlir import fx

    torch.manual_seed(SEED)
    model = block.build().eval()
    example = [torch.from_numpy(harness_fill(s, k)) for k, s in enumerate(block.inputs)]
    kw = {}
    if block.dynamic:
        dims = {}
        names = {}
        for k, per_dim in block.dynamic.items():
            dims[k] = {dim: names.setdefault(n, torch.export.Dim(n)) for dim, n in per_dim.items()}
        kw["dynamic_shapes"] = [dims.get(k) for k in range(len(block.inputs))]
    t0 = time.perf_counter()
    module = fx.export_and_import(model, *example, output_type="linalg-on-tensors", func_name=block.name, **kw)
    export_seconds = time.perf_counter() - t0
    text = str(module)
    runs = []
    with torch.no_grad():
        for shapes in block.run_shapes():
            inputs = [harness_fill(s, k) for k, s in enumerate(shapes)]
            got = model(*[torch.from_numpy(x) for x in inputs])
            got = got if isinstance(got, tuple) else (got,)
            runs.append({"inputs": [record(x, values=False) for x in inputs], "outputs": [record(y.numpy()) for y in got]})
    header = (f"// {block.name}: {block.what}. Exported by benchmarks/models/export_torch.py "
              f"(torch {metadata.version('torch')}, torch-mlir {metadata.version('torch-mlir')}, seed {SEED}).\n")
    expected = {
        "block": block.name, "what": block.what, "function": block.name, "format": "linalg-on-tensors",
        "producer": f"torch {metadata.version('torch')}, torch-mlir {metadata.version('torch-mlir')}",
        "seed": SEED, "fill": FILL_TEXT, "checksums": CHECKSUM_TEXT, "runs": runs,
    }
    return header + text, expected, export_seconds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=BLOCKS_DIR, help="directory for the fixtures (default benchmarks/models/blocks)")
    p.add_argument("--only", default="", help="comma-separated block names (default: all)")
    p.add_argument("--any-version", action="store_true", help="do not insist on the pinned torch/torch-mlir")
    p.add_argument("--list", action="store_true", help="list the blocks and exit")
    a = p.parse_args(argv)
    chosen = blocks()
    if a.list:
        for b in chosen:
            print(f"{b.name:20s} {b.what}")
        return 0
    bad = check_versions(PINNED)
    if bad and not a.any_version:
        print(f"export_torch: error: {', '.join(bad)}; see this script's docstring for the environment "
              "(or pass --any-version)", file=sys.stderr)
        return 2
    if a.only:
        want = {n.strip() for n in a.only.split(",") if n.strip()}
        unknown = want - {b.name for b in chosen}
        if unknown:
            print(f"export_torch: error: unknown block(s) {', '.join(sorted(unknown))} (see --list)", file=sys.stderr)
            return 2
        chosen = [b for b in chosen if b.name in want]
    os.makedirs(a.out, exist_ok=True)
    for b in chosen:
        text, expected, seconds = export_block(b)
        write_fixture(a.out, b.name, text, expected)
        print(f"{b.name:20s} {len(text) / 1e6:7.3f} MB  export {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
