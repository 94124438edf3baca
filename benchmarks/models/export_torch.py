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

For every block NAME this writes into benchmarks/models/blocks/ (held-out blocks: heldout/; the
transposed-convolution test fixtures: tests/fixtures/transposed_conv/):
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
from common import (BLOCKS_DIR, CHECKSUM_TEXT, FILL_TEXT, HELDOUT_DIR, INT_FILL_TEXT, SEED,  # noqa: E402
                    check_versions, harness_fill, record, write_fixture)

TRANSPOSED_CONV_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                                    "fixtures", "transposed_conv"))
PINNED = {"torch": "2.13.0+cpu", "torch-mlir": "20261001"}


# ----------------------------------------------------------------------------- the blocks

@dataclass
class Block:
    """One PyTorch block: how to build it, its example input shapes, which input dims are
    dynamic (input index -> {dim: name}), and the shapes of each run whose outputs are saved.
    Inputs are f32 unless `dtypes` (input index -> numpy dtype name) says otherwise; a held-out
    block's fixture goes to benchmarks/models/heldout/ (measured apart, never tuned on)."""

    name: str
    what: str
    build: Callable  # () -> torch.nn.Module (called after seeding)
    inputs: list  # example input shapes
    dynamic: dict = field(default_factory=dict)
    runs: list = field(default_factory=list)  # input shape lists; [] = the example shapes only
    dtypes: dict = field(default_factory=dict)
    heldout: bool = False
    directory: str = ""  # where its fixture goes when not blocks/ or heldout/ (the test fixtures)

    def run_shapes(self) -> list:
        return self.runs or [self.inputs]

    def dtype(self, k: int) -> str:
        return self.dtypes.get(k, "float32")

    def fill(self, shapes: list) -> list:
        """The harness's inputs for one run (argument k filled as make_harness fills it)."""
        return [harness_fill(s, k, self.dtype(k)) for k, s in enumerate(shapes)]


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

    def bn(m):
        """Batch-norm in eval mode with statistics and affine part that are not the defaults, so
        every term of it matters."""
        with torch.no_grad():
            m.weight.copy_(1.0 + 0.1 * torch.randn_like(m.weight))
            m.bias.copy_(0.1 * torch.randn_like(m.bias))
            m.running_mean.copy_(0.1 * torch.randn_like(m.running_mean))
            m.running_var.copy_(1.0 + 0.2 * torch.rand_like(m.running_var))
        return m

    class BasicBlock(nn.Module):
        """ResNet's basic block: conv3x3, BN, ReLU, conv3x3, BN, + x, ReLU."""

        def __init__(self, c):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn(nn.BatchNorm2d(c))
            self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn(nn.BatchNorm2d(c))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            return F.relu(self.bn2(self.conv2(y)) + x)

    class SmallCNN(nn.Module):
        """conv3x3 (padding 1), ReLU, maxpool 2, conv3x3, ReLU, maxpool 2, flatten, Linear."""

        def __init__(self, cin, c1, c2, hw, classes):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(cin, c1, 3, padding=1), nn.Conv2d(c1, c2, 3, padding=1)
            self.fc = nn.Linear(c2 * (hw // 4) ** 2, classes)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            return self.fc(torch.flatten(x, 1))

    class InvertedResidual(nn.Module):
        """MobileNetV2's block (stride 1, in = out): 1x1 expand, BN, ReLU6, 3x3 depthwise, BN,
        ReLU6, 1x1 project, BN, + x."""

        def __init__(self, c, expand):
            super().__init__()
            h = c * expand
            self.expand, self.bn1 = nn.Conv2d(c, h, 1, bias=False), bn(nn.BatchNorm2d(h))
            self.dw, self.bn2 = nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), bn(nn.BatchNorm2d(h))
            self.project, self.bn3 = nn.Conv2d(h, c, 1, bias=False), bn(nn.BatchNorm2d(c))

        def forward(self, x):
            y = F.relu6(self.bn1(self.expand(x)))
            y = F.relu6(self.bn2(self.dw(y)))
            return x + self.bn3(self.project(y))

    class ConvBNReLU(nn.Module):
        """conv (any kernel, stride, groups; 1-D or 2-D), BN, ReLU, then an optional pooling
        ("avg2" / "max2": 2x2 window, stride 2)."""

        def __init__(self, cin, cout, k, stride=1, groups=1, dims=2, pool=None):
            super().__init__()
            conv, norm = (nn.Conv1d, nn.BatchNorm1d) if dims == 1 else (nn.Conv2d, nn.BatchNorm2d)
            self.conv = conv(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False)
            self.bn, self.pool = bn(norm(cout)), pool

        def forward(self, x):
            y = F.relu(self.bn(self.conv(x)))
            if self.pool == "avg2":
                y = F.avg_pool2d(y, 2)
            elif self.pool == "max2":
                y = F.max_pool2d(y, 2)
            return y

    class VGGStack(nn.Module):
        """VGG's pattern: conv3x3, ReLU, conv3x3, ReLU, maxpool 2 (convs with bias, no BN)."""

        def __init__(self, cin, c):
            super().__init__()
            self.conv1, self.conv2 = nn.Conv2d(cin, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)

        def forward(self, x):
            return F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)

    class ResNeXtBlock(nn.Module):
        """ResNeXt's bottleneck (stride 1, in = out): 1x1, BN, ReLU, 3x3 grouped conv, BN, ReLU,
        1x1, BN, + x, ReLU."""

        def __init__(self, c, width, groups):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(c, width, 1, bias=False), bn(nn.BatchNorm2d(width))
            self.conv2 = nn.Conv2d(width, width, 3, padding=1, groups=groups, bias=False)
            self.bn2 = bn(nn.BatchNorm2d(width))
            self.conv3, self.bn3 = nn.Conv2d(width, c, 1, bias=False), bn(nn.BatchNorm2d(c))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = F.relu(self.bn2(self.conv2(y)))
            return F.relu(self.bn3(self.conv3(y)) + x)

    class FFN(nn.Module):
        """BERT's feed-forward layer with its weights as inputs: Linear, GELU (erf), Linear."""

        def forward(self, x, w1, b1, w2, b2):
            return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)

    class BertAttention(nn.Module):
        """BERT's attention layer on one sequence (seq x d), weights as inputs: separate q, k, v
        projections, heads split, softmax(q k^T / sqrt(d_head)) v, heads merged, the output
        projection, + x, LayerNorm (BertSelfOutput). The projections' input is x / sqrt(d): the
        harness fills the weights in [-1, 1], ~sqrt(d) times nn.Linear's init range, which
        without it makes the scores ~d times too large and the softmax ill-conditioned (f32
        against f64: 1e-4)."""

        def __init__(self, heads):
            super().__init__()
            self.heads = heads

        def forward(self, x, wq, bq, wk, bk, wv, bv, wo, bo, ln_w, ln_b):
            seq, d = x.shape
            h = self.heads
            xs = x * (1.0 / math.sqrt(d))
            q, k, v = (F.linear(xs, w, b).reshape(seq, h, d // h).transpose(0, 1)
                       for w, b in ((wq, bq), (wk, bk), (wv, bv)))
            s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(d // h))
            a = torch.matmul(torch.softmax(s, dim=-1), v).transpose(0, 1).reshape(seq, d)
            return F.layer_norm(F.linear(a, wo, bo) + x, (d,), ln_w, ln_b)

    class Cell(nn.Module):
        """nn.LSTMCell / nn.GRUCell / nn.RNNCell with its parameters as inputs
        (torch.func.functional_call); the LSTM returns (h', c')."""

        def __init__(self, kind, d_in, hidden):
            super().__init__()
            self.kind = kind
            self.cell = {"lstm": nn.LSTMCell, "gru": nn.GRUCell, "rnn": nn.RNNCell}[kind](d_in, hidden)

        def step(self, x, state, w_ih, w_hh, b_ih, b_hh):
            params = {"weight_ih": w_ih, "weight_hh": w_hh, "bias_ih": b_ih, "bias_hh": b_hh}
            return torch.func.functional_call(self.cell, params, (x, state))

        def forward(self, x, *rest):
            if self.kind == "lstm":
                h, c, *weights = rest
                return self.step(x, (h, c), *weights)
            h, *weights = rest
            return self.step(x, h, *weights)

    class RNNSequence(Cell):
        """nn.RNNCell (tanh) run over a sequence (seq x batch x d_in) from h0, unrolled by the
        export; every step's hidden state is returned (seq x batch x hidden). Each step's x and h
        enter the cell divided by sqrt(d_in) and sqrt(hidden): the same as weights in nn.RNNCell's
        init range (the harness fills them in [-1, 1]), without which the recurrence amplifies
        rounding (f32 against f64: 2e-3)."""

        def __init__(self, d_in, hidden):
            super().__init__("rnn", d_in, hidden)

        def forward(self, x, h, *weights):
            out = []
            si, sh = 1.0 / math.sqrt(x.shape[-1]), 1.0 / math.sqrt(h.shape[-1])
            for t in range(x.shape[0]):
                h = self.step(x[t] * si, h * sh, *weights)
                out.append(h)
            return torch.stack(out)

    class CrossEntropy(nn.Module):
        """F.cross_entropy (mean) of logits (batch x classes) against integer targets; the
        targets are taken modulo the class count (the harness fills integers with -125..125)."""

        def forward(self, logits, targets):
            return F.cross_entropy(logits, targets.remainder(logits.shape[-1]))

    class NLLLoss(nn.Module):
        """F.nll_loss(F.log_softmax(logits)) (mean), targets modulo the class count."""

        def forward(self, logits, targets):
            return F.nll_loss(F.log_softmax(logits, dim=-1), targets.remainder(logits.shape[-1]))

    class LogProbsNLL(nn.Module):
        """A language model's head output: the log-probabilities over the vocabulary (returned)
        and their mean negative log-likelihood at the targets (modulo the class count)."""

        def forward(self, logits, targets):
            logp = F.log_softmax(logits, dim=-1)
            return logp, F.nll_loss(logp, targets.remainder(logits.shape[-1]))

    class GPT2Layer(nn.Module):
        """GPT-2's decoder layer on one sequence (seq x d), weights as inputs (its Conv1D layout:
        x @ W + b, W is in x out): x + c_proj(causal attention(LN1(x))), then
        + mlp_proj(gelu_tanh(fc(LN2(.)))). The causal mask is a bool buffer, applied as GPT-2
        does (torch.where with the dtype's min). LN1's output is divided by sqrt(d) before the
        qkv projection (see BertAttention: the harness's weights are wide)."""

        def __init__(self, seq, heads):
            super().__init__()
            self.heads = heads
            self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

        def forward(self, x, ln1_w, ln1_b, w_attn, b_attn, w_aproj, b_aproj, ln2_w, ln2_b, w_fc, b_fc,
                    w_proj, b_proj):
            seq, d = x.shape
            h = self.heads
            y = F.layer_norm(x, (d,), ln1_w, ln1_b) * (1.0 / math.sqrt(d))
            q, k, v = (t.reshape(seq, h, d // h).transpose(0, 1) for t in (y @ w_attn + b_attn).split(d, dim=-1))
            s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(d // h))
            s = torch.where(self.mask, s, torch.finfo(s.dtype).min)
            a = torch.matmul(torch.softmax(s, dim=-1), v).transpose(0, 1).reshape(seq, d)
            x = x + (a @ w_aproj + b_aproj)
            y = F.layer_norm(x, (d,), ln2_w, ln2_b)
            f = y @ w_fc + b_fc
            # GPT-2's gelu_new written out as its code does (torch-mlir 20261001 lowers
            # F.gelu(approximate="tanh") with 0.797724 for sqrt(2/pi): off by 2e-4)
            f = 0.5 * f * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (f + 0.044715 * torch.pow(f, 3.0))))
            return x + (f @ w_proj + b_proj)

    class LlamaMLP(nn.Module):
        """RMSNorm then the SwiGLU MLP, + x (a LLaMA/T5-style block), weights as inputs:
        x + down(silu(gate(n)) * up(n)), n = x * rsqrt(mean(x^2) + eps) * w."""

        def forward(self, x, norm_w, w_gate, w_up, w_down):
            n = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * norm_w
            return x + F.linear(F.silu(F.linear(n, w_gate)) * F.linear(n, w_up), w_down)

    class ReduceDim0(nn.Module):
        """Reductions over the outer dimension: column sums and column means of squares."""

        def forward(self, x):
            return x.sum(dim=0), (x * x).mean(dim=0)

    class BNStats(nn.Module):
        """Batch-norm's training statistics of a ReLU output: per-channel variance (biased) and
        mean over N, H, W. (Of the harness's input itself the mean is ~0: a cancelling sum whose
        f32 rounding depends on the order, 2e-5 of its scale in IREE's order.)"""

        def forward(self, x):
            return torch.var_mean(F.relu(x), dim=(0, 2, 3), correction=0)


    # ---- new kinds (round 4): held out, exported as a new user would, weights as inputs
    class UNetResBlock(nn.Module):
        """A diffusion UNet residual block, weights as inputs: GroupNorm(32), SiLU, conv3x3, + the
        projected time embedding (SiLU, Linear) per channel, GroupNorm(32), SiLU, conv3x3, + x.
        Weights are scaled by 1/sqrt(fan-in) in forward (the harness fills them in [-1, 1])."""

        def forward(self, x, temb, g1w, g1b, w1, b1, wt, bt, g2w, g2b, w2, b2):
            c = x.shape[1]
            h = F.conv2d(F.silu(F.group_norm(x, 32, g1w, g1b)), w1 * (1.0 / math.sqrt(9 * c)), b1, padding=1)
            t = F.linear(F.silu(temb), wt * (1.0 / math.sqrt(temb.shape[-1])), bt)
            h = h + t[:, :, None, None]
            h = F.conv2d(F.silu(F.group_norm(h, 32, g2w, g2b)), w2 * (1.0 / math.sqrt(9 * c)), b2, padding=1)
            return x + h

    class ConvNeXtBlock(nn.Module):
        """A ConvNeXt block, weights as inputs: 7x7 depthwise conv (pad 3), channels last,
        LayerNorm over channels, Linear c->4c, GELU (erf), Linear 4c->c, layer scale, channels
        first, + x."""

        def forward(self, x, dw, dwb, lnw, lnb, w1, b1, w2, b2, gamma):
            c = x.shape[1]
            h = F.conv2d(x, dw * (1.0 / 7.0), dwb, padding=3, groups=c).permute(0, 2, 3, 1)
            h = F.layer_norm(h, (c,), lnw, lnb, 1e-6)
            h = F.linear(F.gelu(F.linear(h, w1 * (1.0 / math.sqrt(c)), b1)), w2 * (0.5 / math.sqrt(c)), b2)
            return x + (gamma * h).permute(0, 3, 1, 2)

    class PatchEmbed(nn.Module):
        """A ViT patch embedding, weights as inputs: conv 16x16 stride 16 (3 -> d), flatten,
        tokens x d, + position embedding, LayerNorm."""

        def forward(self, img, w, b, pos, lnw, lnb):
            h = F.conv2d(img, w * (1.0 / math.sqrt(w.shape[1] * 256)), b, stride=16)
            h = h.flatten(2).transpose(1, 2) + pos
            return F.layer_norm(h, (w.shape[0],), lnw, lnb, 1e-6)

    class T5FFN(nn.Module):
        """T5 v1.1's feed-forward layer, weights as inputs: RMSNorm (mean of squares, eps 1e-6,
        scale), gated GELU (tanh approximation) wi_0 x * wi_1 x, wo, + x."""

        def forward(self, x, scale, wi0, wi1, wo):
            d = x.shape[-1]
            h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * scale
            g = F.gelu(F.linear(h, wi0 * (1.0 / math.sqrt(d))), approximate="tanh") * F.linear(h, wi1 * (1.0 / math.sqrt(d)))
            return x + F.linear(g, wo * (1.0 / math.sqrt(wo.shape[1])))

    class UpBlock(nn.Module):
        """A decoder upsampling block, weights as inputs: ConvTranspose2d k4 stride 2 pad 1
        (ci -> co, doubles H and W), BatchNorm (eval, running stats as inputs), ReLU."""

        def forward(self, x, w, b, mean, var, bnw, bnb):
            h = F.conv_transpose2d(x, w * (1.0 / math.sqrt(w.shape[0] * 4)), b, stride=2, padding=1)
            h = F.batch_norm(h, mean, var.abs() + 0.5, bnw, bnb, False, 0.0, 1e-5)
            return F.relu(h)

    class GANUpBlock(nn.Module):
        """A DCGAN generator stage, weights as inputs: ConvTranspose2d k4 stride 2 pad 1 without
        bias (ci -> co, doubles H and W), BatchNorm (eval, running stats as inputs), ReLU."""

        def forward(self, x, w, mean, var, bnw, bnb):
            h = F.conv_transpose2d(x, w * (1.0 / math.sqrt(w.shape[0] * 4)), None, stride=2, padding=1)
            h = F.batch_norm(h, mean, var.abs() + 0.5, bnw, bnb, False, 0.0, 1e-5)
            return F.relu(h)

    class AudioUpBlock(nn.Module):
        """A vocoder's (HiFi-GAN / MelGAN-style) 1-D decoder stage, weights as inputs:
        ConvTranspose1d k8 stride 4 pad 2 (ci -> co, 4x the length), LeakyReLU(0.1), then
        + Conv1d k3 pad 1 (co -> co) of it (a residual unit)."""

        def forward(self, x, w_up, b_up, w_res, b_res):
            h = F.conv_transpose1d(x, w_up * (1.0 / math.sqrt(w_up.shape[0] * 2)), b_up, stride=4, padding=2)
            h = F.leaky_relu(h, 0.1)
            return h + F.conv1d(h, w_res * (1.0 / math.sqrt(w_res.shape[1] * 3)), b_res, padding=1)

    class ConvTranspose(nn.Module):
        """F.conv_transpose1d / 2d alone, weight (and bias, when given) as inputs: the test
        fixtures of tests/fixtures/transposed_conv/."""

        def __init__(self, dims, **kw):
            super().__init__()
            self.op, self.kw = (F.conv_transpose1d if dims == 1 else F.conv_transpose2d), kw

        def forward(self, x, w, *bias):
            return self.op(x, w, bias[0] if bias else None, **self.kw)

    class EmbeddingBag(nn.Module):
        """Embedding lookup and mean pool (a bag-of-words text encoder), then a Linear classifier:
        ids (batch x length, i64, taken modulo the vocabulary), table (vocab x d), w (k x d), b."""

        def forward(self, ids, table, w, b):
            e = F.embedding(ids.remainder(table.shape[0]), table).mean(1)
            return F.linear(e, w, b)

    class PoolHead(nn.Module):
        """A CNN classifier head, weights as inputs: global average pool, flatten, Linear c -> k."""

        def forward(self, x, w, b):
            return F.linear(F.adaptive_avg_pool2d(x, 1).flatten(1), w * (1.0 / math.sqrt(x.shape[1])), b)

    return dict(MLP=MLP, LayerNorm=LayerNorm, Softmax=Softmax, Attention=Attention, SDPA=SDPA,
                Elementwise=Elementwise, RowMax=RowMax, EncoderLayer=EncoderLayer, BasicBlock=BasicBlock,
                SmallCNN=SmallCNN, InvertedResidual=InvertedResidual, ResNeXtBlock=ResNeXtBlock, ConvBNReLU=ConvBNReLU, VGGStack=VGGStack,
                FFN=FFN, BertAttention=BertAttention, Cell=Cell, RNNSequence=RNNSequence, CrossEntropy=CrossEntropy,
                NLLLoss=NLLLoss, LogProbsNLL=LogProbsNLL, GPT2Layer=GPT2Layer, LlamaMLP=LlamaMLP, ReduceDim0=ReduceDim0, BNStats=BNStats,
                UNetResBlock=UNetResBlock, ConvNeXtBlock=ConvNeXtBlock, PatchEmbed=PatchEmbed, T5FFN=T5FFN,
                UpBlock=UpBlock, EmbeddingBag=EmbeddingBag, PoolHead=PoolHead, GANUpBlock=GANUpBlock,
                AudioUpBlock=AudioUpBlock, ConvTranspose=ConvTranspose)


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
    return out + model_blocks() + heldout_blocks() + new_kind_blocks() + transposed_conv_blocks()


def _w(*shapes) -> list:
    return [tuple(s) for s in shapes]


def model_blocks() -> list[Block]:
    """Issue 35's blocks: convolutions, BERT-size GEMMs and attention, RNN cells, a loss, a
    causal decoder layer and outer-dimension reductions; each full size and `_small`. Weights
    too large to bake in (over ~1 MB) are inputs, named in `what`."""
    M = _modules
    out = []
    for sfx, (n, c, hw) in (("", (4, 64, 16)), ("_small", (1, 4, 6))):
        out.append(Block(f"resnet_block{sfx}", f"ResNet basic block: conv3x3 {c}->{c}, BN (eval), ReLU, conv3x3, BN, "
                         f"+ x, ReLU on {n}x{c}x{hw}x{hw}", lambda c=c: M()["BasicBlock"](c), [(n, c, hw, hw)]))
    for sfx, (n, hw, c1, c2, k) in (("", (16, 32, 16, 32, 10)), ("_small", (2, 8, 4, 8, 5))):
        out.append(Block(f"small_cnn{sfx}", f"small CNN: conv3x3 3->{c1} (pad 1), ReLU, maxpool 2, conv3x3 {c1}->{c2}, "
                         f"ReLU, maxpool 2, flatten, Linear {c2 * (hw // 4) ** 2}->{k} on {n}x3x{hw}x{hw}",
                         lambda hw=hw, c1=c1, c2=c2, k=k: M()["SmallCNN"](3, c1, c2, hw, k), [(n, 3, hw, hw)]))
    for sfx, (n, c, e, hw) in (("", (4, 32, 6, 28)), ("_small", (1, 4, 3, 6))):
        out.append(Block(f"mobilenet_block{sfx}", f"MobileNetV2 inverted residual: 1x1 expand {c}->{c * e}, BN, ReLU6, "
                         f"3x3 depthwise, BN, ReLU6, 1x1 project ->{c}, BN, + x on {n}x{c}x{hw}x{hw}",
                         lambda c=c, e=e: M()["InvertedResidual"](c, e), [(n, c, hw, hw)]))
    for sfx, (n, c, w, g, hw) in (("", (4, 128, 128, 32, 28)), ("_small", (1, 8, 8, 4, 6))):
        out.append(Block(f"resnext_block{sfx}", f"ResNeXt bottleneck: 1x1 {c}->{w}, BN, ReLU, 3x3 grouped conv "
                         f"{w}->{w} groups={g}, BN, ReLU, 1x1 {w}->{c}, BN, + x, ReLU on {n}x{c}x{hw}x{hw}",
                         lambda c=c, w=w, g=g: M()["ResNeXtBlock"](c, w, g), [(n, c, hw, hw)]))
    for sfx, (n, ci, co, hw) in (("", (4, 64, 128, 32)), ("_small", (1, 4, 8, 8))):
        out.append(Block(f"strided_conv{sfx}", f"conv3x3 stride 2 {ci}->{co} (pad 1), BN, ReLU, avgpool 2 on "
                         f"{n}x{ci}x{hw}x{hw}", lambda ci=ci, co=co: M()["ConvBNReLU"](ci, co, 3, stride=2, pool="avg2"),
                         [(n, ci, hw, hw)]))
    for sfx, (n, c, L) in (("", (8, 128, 128)), ("_small", (2, 4, 16))):
        out.append(Block(f"conv1d_block{sfx}", f"Conv1d k=3 {c}->{c} (pad 1), BatchNorm1d, ReLU on {n}x{c}x{L}",
                         lambda c=c: M()["ConvBNReLU"](c, c, 3, dims=1), [(n, c, L)]))
    for sfx, (s, d, f) in (("", (128, 768, 3072)), ("_small", (8, 16, 64))):
        out.append(Block(f"bert_ffn{sfx}", f"BERT feed-forward: Linear {d}->{f}, GELU (erf), Linear {f}->{d} on {s}x{d}; "
                         "weights and biases are inputs (x, w1, b1, w2, b2)", lambda: M()["FFN"](),
                         _w((s, d), (f, d), (f,), (d, f), (d,))))
    for sfx, (s, d, h) in (("", (128, 768, 12)), ("_small", (8, 16, 2))):
        out.append(Block(f"bert_attention{sfx}", f"BERT attention layer: q, k, v projections {d}->{d}, {h} heads, "
                         f"softmax(q k^T / sqrt({d // h})) v, output projection, + x, LayerNorm on {s}x{d}; the "
                         f"projections take x / sqrt({d}) (the harness's weights are wide); weights are inputs (x, wq, bq, wk, bk, wv, bv, wo, bo, ln_w, ln_b)", lambda h=h: M()["BertAttention"](h),
                         _w((s, d), *[(d, d), (d,)] * 4, (d,), (d,))))
    for sfx, (b, d, hid) in (("", (32, 512, 512)), ("_small", (2, 8, 8))):
        out.append(Block(f"lstm_cell{sfx}", f"nn.LSTMCell({d}, {hid}), batch {b}, returns (h', c'); its parameters are "
                         "inputs (x, h, c, w_ih, w_hh, b_ih, b_hh; torch.func.functional_call)",
                         lambda d=d, hid=hid: M()["Cell"]("lstm", d, hid),
                         _w((b, d), (b, hid), (b, hid), (4 * hid, d), (4 * hid, hid), (4 * hid,), (4 * hid,))))
        out.append(Block(f"gru_cell{sfx}", f"nn.GRUCell({d}, {hid}), batch {b}; its parameters are inputs (x, h, w_ih, "
                         "w_hh, b_ih, b_hh; torch.func.functional_call)", lambda d=d, hid=hid: M()["Cell"]("gru", d, hid),
                         _w((b, d), (b, hid), (3 * hid, d), (3 * hid, hid), (3 * hid,), (3 * hid,))))
    for sfx, (b, k) in (("", (128, 1000)), ("_small", (8, 16))):
        out.append(Block(f"cross_entropy{sfx}", f"F.cross_entropy (mean) over {b}x{k} logits, i64 targets (input 1, "
                         f"taken modulo {k})", lambda: M()["CrossEntropy"](), [(b, k), (b,)], dtypes={1: "int64"}))
    # language-model losses: long rows (a vocabulary); the small rows are odd (no whole vector)
    for sfx, (b, k) in (("", (32, 50257)), ("_small", (4, 75))):
        out.append(Block(f"lm_loss{sfx}", f"F.cross_entropy (mean) over {b}x{k} logits (a GPT-2 vocabulary), i64 "
                         f"targets (input 1, taken modulo {k})", lambda: M()["CrossEntropy"](), [(b, k), (b,)],
                         dtypes={1: "int64"}))
    for sfx, (b, k) in (("", (16, 30522)), ("_small", (3, 40))):
        out.append(Block(f"lm_logprobs{sfx}", f"F.log_softmax over {b}x{k} logits (a BERT vocabulary), returned, and "
                         f"F.nll_loss (mean) of it, i64 targets (input 1, taken modulo {k})",
                         lambda: M()["LogProbsNLL"](), [(b, k), (b,)], dtypes={1: "int64"}))
    for sfx, (s, d, h, f) in (("", (128, 512, 8, 2048)), ("_small", (8, 16, 2, 32))):
        out.append(Block(f"gpt2_layer{sfx}", f"GPT-2 decoder layer, causal mask: seq {s}, d {d}, {h} heads, mlp {f} "
                         "(LN, / sqrt(d), qkv, causal softmax attention, projection, + x, LN, MLP with GPT-2's gelu_new (tanh, written out), + x); weights are inputs "
                         "(x, ln1_w, ln1_b, w_attn, b_attn, w_aproj, b_aproj, ln2_w, ln2_b, w_fc, b_fc, w_proj, b_proj)",
                         lambda s=s, h=h: M()["GPT2Layer"](s, h),
                         _w((s, d), (d,), (d,), (d, 3 * d), (3 * d,), (d, d), (d,), (d,), (d,), (d, f), (f,), (f, d), (d,))))
    for sfx, (r, c) in (("", (1024, 1024)), ("_small", (16, 32))):
        out.append(Block(f"reduce_dim0{sfx}", f"x.sum(0) and (x * x).mean(0) of {r}x{c} (reductions over the outer dim)",
                         lambda: M()["ReduceDim0"](), [(r, c)]))
    for sfx, shape in (("", (32, 64, 28, 28)), ("_small", (2, 4, 3, 3))):
        out.append(Block(f"bn_stats{sfx}", f"torch.var_mean over dims 0, 2, 3 (batch-norm statistics) of "
                         f"relu(x), x {'x'.join(map(str, shape))}", lambda: M()["BNStats"](), [shape]))
    for sfx, (n, ci, co, hw) in (("", (8, 128, 64, 16)), ("_small", (2, 8, 4, 6))):
        out.append(Block(f"gan_upsample{sfx}", f"DCGAN generator stage: ConvTranspose2d k4 stride 2 pad 1 {ci}->{co} "
                         f"(no bias), BatchNorm (eval), ReLU on {n}x{ci}x{hw}x{hw} -> {2 * hw}x{2 * hw}; weights are "
                         "inputs (x, w, mean, var, bn_w, bn_b)", lambda: M()["GANUpBlock"](),
                         _w((n, ci, hw, hw), (ci, co, 4, 4), (co,), (co,), (co,), (co,))))
    return out


def heldout_blocks() -> list[Block]:
    """The held-out set (benchmarks/models/heldout/): the same kinds, other shapes and
    architectures, full size only; the benchmark reports them in a table of their own and
    nothing is tuned on them."""
    M = _modules
    s, d, f = 128, 512, 1408
    return [
        Block("vgg_stack", "VGG stack: conv3x3 32->64, ReLU, conv3x3 64->64, ReLU, maxpool 2 on 2x32x24x24",
              lambda: M()["VGGStack"](32, 64), [(2, 32, 24, 24)], heldout=True),
        Block("conv5x5_stride", "conv5x5 stride 2 16->32 (pad 2), BN, ReLU on 8x16x32x32",
              lambda: M()["ConvBNReLU"](16, 32, 5, stride=2), [(8, 16, 32, 32)], heldout=True),
        Block("grouped_conv", "conv3x3 64->64 groups=4 (pad 1), BN, ReLU on 4x64x28x28",
              lambda: M()["ConvBNReLU"](64, 64, 3, groups=4), [(4, 64, 28, 28)], heldout=True),
        Block("rnn_seq", "nn.RNNCell(256, 512) (tanh) over 8 steps, batch 16, every hidden state returned, x and h "
              "divided by sqrt(256), sqrt(512) as they enter each step; its parameters are inputs (x, h0, w_ih, w_hh, b_ih, b_hh)", lambda: M()["RNNSequence"](256, 512),
              _w((8, 16, 256), (16, 512), (512, 256), (512, 512), (512,), (512,)), heldout=True),
        Block("llama_mlp", f"RMSNorm + SwiGLU MLP + x (LLaMA-style): {s}x{d}, hidden {f}; weights are inputs "
              "(x, norm_w, w_gate, w_up, w_down)", lambda: M()["LlamaMLP"](),
              _w((s, d), (d,), (f, d), (f, d), (d, f)), heldout=True),
        Block("nll_loss", "F.nll_loss(F.log_softmax(x)) (mean) over 64x32000 logits, i64 targets (input 1, taken "
              "modulo 32000)", lambda: M()["NLLLoss"](), [(64, 32000), (64,)], dtypes={1: "int64"}, heldout=True),
    ]


def new_kind_blocks() -> list[Block]:
    """Held-out blocks of kinds the main set lacks (round 4), at realistic sizes, weights as
    inputs (the fixtures stay small); exported as a new user would, never tuned on."""
    M = _modules
    n, c, hw, t = 1, 64, 32, 256
    unet = Block("unet_resblock", f"diffusion UNet residual block: GroupNorm(32, {c}), SiLU, conv3x3 {c}->{c}, + Linear "
                 f"{t}->{c}(SiLU(temb)) per channel, GroupNorm, SiLU, conv3x3, + x on {n}x{c}x{hw}x{hw}; weights are inputs "
                 "(x, temb, gn1_w, gn1_b, w1, b1, wt, bt, gn2_w, gn2_b, w2, b2)", lambda: M()["UNetResBlock"](),
                 _w((n, c, hw, hw), (n, t), (c,), (c,), (c, c, 3, 3), (c,), (c, t), (c,), (c,), (c,), (c, c, 3, 3), (c,)),
                 heldout=True)
    n, c, hw = 1, 128, 28
    convnext = Block("convnext_block", f"ConvNeXt block: 7x7 depthwise conv {c} (pad 3), channels last, LayerNorm({c}), "
                     f"Linear {c}->{4 * c}, GELU (erf), Linear {4 * c}->{c}, layer scale, + x on {n}x{c}x{hw}x{hw}; weights "
                     "are inputs (x, dw, dw_b, ln_w, ln_b, w1, b1, w2, b2, gamma)", lambda: M()["ConvNeXtBlock"](),
                     _w((n, c, hw, hw), (c, 1, 7, 7), (c,), (c,), (c,), (4 * c, c), (4 * c,), (c, 4 * c), (c,), (c,)),
                     heldout=True)
    d = 384
    patch = Block("vit_patch_embed", f"ViT patch embedding: conv 16x16 stride 16, 3->{d}, on 1x3x224x224, flatten to "
                  f"196x{d} tokens, + position embedding, LayerNorm({d}); weights are inputs (img, w, b, pos, ln_w, ln_b)",
                  lambda: M()["PatchEmbed"](), _w((1, 3, 224, 224), (d, 3, 16, 16), (d,), (1, 196, d), (d,), (d,)),
                  heldout=True)
    s, d, f = 77, 512, 1024
    t5 = Block("t5_ffn", f"T5 v1.1 feed-forward: RMSNorm({d}), gated GELU (tanh) Linear {d}->{f} twice, Linear {f}->{d}, "
               f"+ x on {s}x{d} (a CLIP-length sequence); weights are inputs (x, scale, wi_0, wi_1, wo)",
               lambda: M()["T5FFN"](), _w((s, d), (d,), (f, d), (f, d), (d, f)), heldout=True)
    n, ci, co, hw = 1, 64, 32, 32
    up = Block("upsample_block", f"decoder upsampling: ConvTranspose2d k4 stride 2 pad 1 {ci}->{co}, BatchNorm (eval), "
               f"ReLU on {n}x{ci}x{hw}x{hw} -> {2 * hw}x{2 * hw}; weights are inputs (x, w, b, mean, var, bn_w, bn_b)",
               lambda: M()["UpBlock"](), _w((n, ci, hw, hw), (ci, co, 4, 4), (co,), (co,), (co,), (co,), (co,)),
               heldout=True)
    b, L, v, d, k = 64, 256, 30522, 256, 4
    bag = Block("embedding_bag", f"embedding lookup (vocab {v}, dim {d}) of {b}x{L} i64 ids (modulo {v}), mean over the "
                f"sequence, Linear {d}->{k}; weights are inputs (ids, table, w, b)", lambda: M()["EmbeddingBag"](),
                _w((b, L), (v, d), (k, d), (k,)), dtypes={0: "int64"}, heldout=True)
    n, c, hw, k = 32, 512, 7, 1000
    head = Block("pool_head", f"classifier head: global average pool, flatten, Linear {c}->{k} on {n}x{c}x{hw}x{hw} "
                 "(ResNet-18's); weights are inputs (x, w, b)", lambda: M()["PoolHead"](), _w((n, c, hw, hw), (k, c), (k,)),
                 heldout=True)
    n, ci, co, L = 4, 256, 128, 256
    audio = Block("audio_upsample", f"vocoder decoder stage: ConvTranspose1d k8 stride 4 pad 2 {ci}->{co}, LeakyReLU(0.1), "
                  f"+ Conv1d k3 pad 1 {co}->{co} of it (residual) on {n}x{ci}x{L} -> {4 * L}; weights are inputs "
                  "(x, w_up, b_up, w_res, b_res)", lambda: M()["AudioUpBlock"](),
                  _w((n, ci, L), (ci, co, 8), (co,), (co, co, 3), (co,)), heldout=True)
    return [unet, convnext, patch, t5, up, bag, head, audio]


def transposed_conv_blocks() -> list[Block]:
    """Tiny transposed convolutions, one feature each (output padding, bias, groups, stride 3,
    no overlap, dilation, kernel smaller than the stride), weight and bias as inputs: the test
    fixtures of tests/fixtures/transposed_conv/ (README.md there), not benchmarked."""
    M = _modules
    cases = [  # name, dims, input shape, (ci, co/groups, *kernel), bias, F.conv_transpose keywords
        ("convt1d_k3_s2_p1_op1", 1, (2, 4, 7), (4, 3, 3), False, dict(stride=2, padding=1, output_padding=1)),
        ("convt2d_k3_s2_p1_op1_bias", 2, (2, 4, 6, 5), (4, 3, 3, 3), True, dict(stride=2, padding=1, output_padding=1)),
        ("convt2d_k4_s2_p1_g2", 2, (1, 4, 6, 6), (4, 3, 4, 4), False, dict(stride=2, padding=1, groups=2)),
        ("convt2d_k4_s2_p1_g2_bias", 2, (1, 4, 6, 6), (4, 3, 4, 4), True, dict(stride=2, padding=1, groups=2)),
        ("convt2d_k5_s3_p2", 2, (1, 4, 5, 7), (4, 3, 5, 5), False, dict(stride=3, padding=2)),
        ("convt2d_k2_s2_p0", 2, (2, 4, 5, 5), (4, 3, 2, 2), False, dict(stride=2)),
        ("convt2d_k3_s2_d2", 2, (1, 4, 6, 6), (4, 3, 3, 3), False, dict(stride=2, dilation=2)),
        ("convt2d_k1_s2_bias", 2, (2, 4, 5, 5), (4, 3, 1, 1), True, dict(stride=2)),
    ]
    out = []
    for name, dims, x, w, bias, kw in cases:
        co = w[1] * kw.get("groups", 1)
        args = ", ".join(f"{k}={v}" for k, v in kw.items())
        out.append(Block(name, f"F.conv_transpose{dims}d(x, w{', b' if bias else ', None'}, {args}) on "
                         f"{'x'.join(map(str, x))}, weight {'x'.join(map(str, w))}; inputs (x, w{', b' if bias else ''})",
                         lambda dims=dims, kw=kw: M()["ConvTranspose"](dims, **kw),
                         _w(x, w, *([(co,)] if bias else [])), directory=TRANSPOSED_CONV_DIR))
    return out


# ----------------------------------------------------------------------------- export

def export_block(block: Block) -> tuple[str, dict, float]:
    """(linalg text, expected-outputs record, export seconds) of one block."""
    import torch
    from torch_mlir import fx

    torch.manual_seed(SEED)
    model = block.build().eval()
    example = [torch.from_numpy(x) for x in block.fill(block.inputs)]
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
            inputs = block.fill(shapes)
            got = model(*[torch.from_numpy(x) for x in inputs])
            got = got if isinstance(got, tuple) else (got,)
            runs.append({"inputs": [record(x, values=False) for x in inputs], "outputs": [record(y.numpy()) for y in got]})
    header = (f"// {block.name}: {block.what}. Exported by benchmarks/models/export_torch.py "
              f"(torch {metadata.version('torch')}, torch-mlir {metadata.version('torch-mlir')}, seed {SEED}).\n")
    expected = {
        "block": block.name, "what": block.what, "function": block.name, "format": "linalg-on-tensors",
        "producer": f"torch {metadata.version('torch')}, torch-mlir {metadata.version('torch-mlir')}",
        "seed": SEED, "fill": FILL_TEXT + ("; " + INT_FILL_TEXT if block.dtypes else ""),
        "checksums": CHECKSUM_TEXT, "runs": runs,
    }
    return header + text, expected, export_seconds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=None, help="directory for the fixtures (default benchmarks/models/blocks, "
                   "held-out blocks benchmarks/models/heldout)")
    p.add_argument("--only", default="", help="comma-separated block names (default: all)")
    p.add_argument("--any-version", action="store_true", help="do not insist on the pinned torch/torch-mlir")
    p.add_argument("--list", action="store_true", help="list the blocks and exit")
    a = p.parse_args(argv)
    chosen = blocks()
    if a.list:
        for b in chosen:
            where = "(held out) " if b.heldout else "(test fixture) " if b.directory else ""
            print(f"{b.name:20s} {where}{b.what}")
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
    for b in chosen:
        text, expected, seconds = export_block(b)
        write_fixture(a.out or b.directory or (HELDOUT_DIR if b.heldout else BLOCKS_DIR), b.name, text, expected)
        print(f"{b.name:20s} {len(text) / 1e6:7.3f} MB  export {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
