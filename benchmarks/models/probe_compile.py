"""torch.compile(model, backend=loopopt.torch_backend) against eager on models the benchmark does
not hold: kinds a new user brings (a ResNet stem, a dilated 1-D conv, GRU and LSTM cells at a batch
of one, BERT self-attention, a MobileNet v1 downsampling pair, a channel softmax, a
squeeze-excitation block, a 5x5 conv, an MLP at a batch of one, a 3-D video conv, nearest and
bilinear 2x upsampling before a conv, GroupNorm + SiLU + 3x3 conv of a diffusion UNet, rotary
embeddings before causal attention, 3x3 pooling of stride 3, a stride-3 5x5 depthwise conv, a ViT
MLP with layer scale; InstanceNorm + ReLU + conv, MLP-Mixer token mixing, Swin window attention,
Linear + Mish + LayerNorm, einsum bilinear pooling, an adaptive-pool classifier head, a 1-D conv
and max pool, a ShuffleNet v2 unit with its channel shuffle; PyTorch's own TransformerEncoderLayer,
whose inference fast path is one fused op; a decoder's ConvTranspose2d 64->64 k4 stride 2, plain and
in 4 groups; a ConvTranspose2d decoder step, HiFi-GAN's and MelGAN's ConvTranspose1d upsampling stages
with a Conv1d residual, a DeepLab ASPP branch
(dilation 6), an ESPCN pixel-shuffle tail, a Conformer convolution module, an EfficientNet MBConv,
PyTorch's TransformerDecoderLayer with a causal mask, BERT embeddings (token ids), a distillation
KL loss, a cumsum scan, a batch-256 MLP, a TCN block (causal dilated, weight-normed), a DenseNet
transition, a ConvNeXt LayerNorm over NCHW channels; a CLIP text block (77 tokens, causal
nn.MultiheadAttention, QuickGELU), nn.MultiheadAttention (batch first) with a key_padding_mask, a
MobileNetV3 bneck (hardswish, hardsigmoid SE), a tabular MLP (BatchNorm1d, 300 features, batch
512), an InfoNCE contrastive loss, a per-pixel segmentation cross-entropy, a sigmoid focal loss, an
Inception pool branch (count_include_pad=False), a UNet decoder step (bilinear upsample, cat with
the skip, 3x3 conv), a DenseNet layer, ResNet-18's last block (512 channels on 7x7, batch 8),
scaled_dot_product_attention of head_dim 80, nn.GRU over a sequence; grouped-query attention, a
KV-cache decode step, Stable Diffusion cross-attention, a bidirectional LSTM, a log-target KL, a
label-smoothed cross-entropy, cdist, 4096 small bmm, wav2vec's Conv1d stem, a dilated 3x3 conv, a
non-divisible AdaptiveAvgPool2d, BatchNorm2d in training mode, pixel_unshuffle, SwiGLU, ELU +
Softplus; a ViT block, LLaMA attention with complex rotary embeddings, a top-2 mixture of experts,
T5's relative position bias, YOLO's SPPF, Whisper's stem, metric-learning losses, ALiBi, masked
pooling, argmax, a reflection-padded residual block, a timestep embedding, a GCN layer by
index_add, fake quantization, grid_sample, shifted-window Swin; and semantics at their corners: NaN
through max pooling, clamp and maximum, attention over a fully padded sequence, rounding and
floor division of halves, int64 feature hashing, bool reductions, var/std over several dims,
cumprod and cummax, unfold and fold, nn.Bilinear with PReLU/SELU/CELU/hardswish/softsign/GLU,
EmbeddingBag max, LocalResponseNorm, bicubic/area/non-integer-scale interpolation, circular,
replicate and negative padding, DLRM's dot interaction, float16 and bfloat16 MLPs, channels_last,
transposed and strided inputs; long sorts: an LLM's top-50 over a vocabulary of 32000, sort of
rows of 1024, argsort of rows of 4096), their parameters as the backend receives them
(constants of the graph). A model class may set `train_mode` (called in training mode) or `rnn`
(compiled under torch._dynamo.config.allow_rnn). Each model is compiled after torch._dynamo.reset(): two kinds that share
a forward (nn.Sequential's) would otherwise see the second recompiled with dynamic shapes.
One thread; eager and the compiled module called alternately, 3 warm-up then N timed calls each;
prints per model the compile time, the relative error against eager (over every output; inf
where a dtype, a shape, a NaN or an infinity, or an integer differs), both lower quartiles and
their ratio. Needs torch and torch-mlir (the `torch` extra; /work/venv-torch here):

    PYTHONPATH=. /work/venv-torch/bin/python benchmarks/models/probe_compile.py [--only a,b] [--calls 20]

`--dynamic` compiles with `torch.compile(..., dynamic=True)` and also checks eager's results with
every input's first dimension doubled (where the model takes that size). `--dump DIR` writes each graph's linalg text (DIR/<model>-<k>.mlir) for `python3 -m loopopt FILE
--target cpu --remarks`.

These models are a probe for what the benchmark misses, not a tuning set: docs/cpu_codegen.md
sections 11c, 27, 34c, 37, 43, 49, 59, 66, 70, 79, 81 and 85 name what they found (a batch of one's transposed constants; NCHW maps of
28 x 28) and the numbers before and after.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import loopopt  # noqa: E402


class Stem(nn.Module):
    """ResNet stem: 7x7 conv stride 2, batch norm, ReLU, 3x3 max pool stride 2."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(3, 2, 1)

    def forward(self, x):
        return self.pool(F.relu(self.bn(self.conv(x))))


class Wavenet(nn.Module):
    """Dilated 1-D conv (k3, dilation 4), gated tanh * sigmoid, 1x1 conv, residual."""

    def __init__(self, c=64):
        super().__init__()
        self.dilated = nn.Conv1d(c, 2 * c, 3, dilation=4, padding=4)
        self.out = nn.Conv1d(c, c, 1)

    def forward(self, x):
        a, b = self.dilated(x).chunk(2, 1)
        return x + self.out(torch.tanh(a) * torch.sigmoid(b))


class Cell(nn.Module):
    """nn.GRUCell or nn.LSTMCell called with its state as inputs (returns h')."""

    def __init__(self, kind: str, d: int, h: int):
        super().__init__()
        self.kind = kind
        self.cell = nn.GRUCell(d, h) if kind == "gru" else nn.LSTMCell(d, h)

    def forward(self, x, h, c=None):
        return self.cell(x, h) if self.kind == "gru" else self.cell(x, (h, c))[0]


class Attention(nn.Module):
    """BERT self-attention with an explicit softmax (no fused SDPA)."""

    def __init__(self, d=768, heads=12):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in self.qkv(x).split(d, -1))
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, -1)
        return self.out((a @ v).transpose(1, 2).reshape(b, s, d))


class DepthwiseDown(nn.Module):
    """MobileNet v1 downsampling pair: 3x3 depthwise stride 2, BN, ReLU6, 1x1 conv, BN, ReLU6."""

    def __init__(self, c=128):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 3, 2, 1, groups=c, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.pw = nn.Conv2d(c, 2 * c, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(2 * c)

    def forward(self, x):
        return F.relu6(self.bn2(self.pw(F.relu6(self.bn1(self.dw(x))))))


class ChannelSoftmax(nn.Module):
    """Softmax over channels (an outer dimension of NCHW) times the spatial mean."""

    def forward(self, x):
        return torch.softmax(x, 1) * x.mean((2, 3), keepdim=True)


class SqueezeExcite(nn.Module):
    """Squeeze-excitation: mean over the map, Linear c->c/r, ReLU, Linear c/r->c, sigmoid, scale."""

    def __init__(self, c=256, r=16):
        super().__init__()
        self.down = nn.Linear(c, c // r)
        self.up = nn.Linear(c // r, c)

    def forward(self, x):
        return x * torch.sigmoid(self.up(F.relu(self.down(x.mean((2, 3))))))[:, :, None, None]


class Conv5(nn.Module):
    """A 5x5 conv 24->40 with bias, then SiLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(24, 40, 5, 1, 2)

    def forward(self, x):
        return F.silu(self.conv(x))


class Video3d(nn.Module):
    """Video block: Conv3d 32->64 k3 padding 1, BatchNorm3d, ReLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(32, 64, 3, padding=1)
        self.bn = nn.BatchNorm3d(64)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class UpNearest(nn.Module):
    """FPN/UNet decoder step: nearest 2x upsample, conv 128->64 k3 p1, ReLU."""

    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.conv = nn.Conv2d(128, 64, 3, padding=1)

    def forward(self, x):
        return F.relu(self.conv(self.up(x)))


class UpBilinear(nn.Module):
    """Bilinear 2x interpolation (align_corners=False), then a 1x1 conv 64->64."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(64, 64, 1)

    def forward(self, x):
        return self.conv(F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False))


class GroupNormBlock(nn.Module):
    """Half a diffusion UNet res-block: GroupNorm(32, 256), SiLU, conv 256->256 k3 p1."""

    def __init__(self):
        super().__init__()
        self.norm = nn.GroupNorm(32, 256)
        self.conv = nn.Conv2d(256, 256, 3, padding=1)

    def forward(self, x):
        return self.conv(F.silu(self.norm(x)))


class Rope(nn.Module):
    """LLaMA rotary embedding on q and k, then causal attention with an explicit softmax."""

    def __init__(self, seq=256, dim=64):
        super().__init__()
        inv = 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim)
        freqs = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat((freqs, freqs), -1)
        self.cos, self.sin = emb.cos(), emb.sin()  # plain tensors, not parameters: inputs of the kernel
        self.mask = torch.full((seq, seq), float("-inf")).triu(1)

    @staticmethod
    def rotate_half(x):
        x1, x2 = x.chunk(2, -1)
        return torch.cat((-x2, x1), -1)

    def forward(self, q, k, v):
        q = q * self.cos + self.rotate_half(q) * self.sin
        k = k * self.cos + self.rotate_half(k) * self.sin
        a = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5 + self.mask, -1)
        return a @ v


class Pool3s(nn.Module):
    """Max pool 3x3 stride 3 plus average pool 3x3 stride 3 (stride >= 3 pooling)."""

    def forward(self, x):
        return F.max_pool2d(x, 3, 3) + F.avg_pool2d(x, 3, 3)


class DwStride3(nn.Module):
    """Depthwise 5x5 conv stride 3 on 96 channels, ReLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(96, 96, 5, stride=3, groups=96)

    def forward(self, x):
        return F.relu(self.conv(x))


class LayerScaleMlp(nn.Module):
    """ViT MLP: Linear 384->1536, GELU (tanh), Linear 1536->384, layer scale, residual."""

    def __init__(self, d=384, r=4):
        super().__init__()
        self.fc1 = nn.Linear(d, r * d)
        self.fc2 = nn.Linear(r * d, d)
        self.gamma = nn.Parameter(torch.full((d,), 1e-1))

    def forward(self, x):
        return x + self.gamma * self.fc2(F.gelu(self.fc1(x), approximate="tanh"))


class InstanceNormConv(nn.Module):
    """Style-transfer step: InstanceNorm2d(64) (affine), ReLU, conv 64->64 k3 p1."""

    def __init__(self, c=64):
        super().__init__()
        self.norm = nn.InstanceNorm2d(c, affine=True)
        self.conv = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        return self.conv(F.relu(self.norm(x)))


class MixerTokens(nn.Module):
    """MLP-Mixer token mixing: LayerNorm(512), transpose, Linear 196->256, GELU, Linear 256->196,
    transpose back, residual."""

    def __init__(self, tokens=196, d=512, hidden=256):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(tokens, hidden)
        self.fc2 = nn.Linear(hidden, tokens)

    def forward(self, x):
        y = self.norm(x).transpose(1, 2)
        return x + self.fc2(F.gelu(self.fc1(y))).transpose(1, 2)


class WindowAttention(nn.Module):
    """Swin window attention: 56x56x128 channels-last map partitioned into 7x7 windows by
    view/permute, 4 heads, relative-position bias per head, softmax, projection, windows reversed."""

    def __init__(self, d=128, heads=4, w=7):
        super().__init__()
        self.heads, self.w = heads, w
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.bias = nn.Parameter(torch.zeros(heads, w * w, w * w))

    def forward(self, x):
        b, hh, ww, c = x.shape
        w, nh = self.w, self.heads
        t = x.view(b, hh // w, w, ww // w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, c)
        q, k, v = self.qkv(t).reshape(-1, w * w, 3, nh, c // nh).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) * (c // nh) ** -0.5 + self.bias, -1)
        o = self.proj((a @ v).transpose(1, 2).reshape(-1, w * w, c))
        return o.view(b, hh // w, ww // w, w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hh, ww, c)


class MishNorm(nn.Module):
    """Linear 768->768, Mish (x * tanh(softplus(x))), LayerNorm(768)."""

    def __init__(self, d=768):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(F.mish(self.fc(x)))


class BilinearPool(nn.Module):
    """Bilinear CNN pooling: einsum('bchw,bdhw->bcd') / hw, signed square root, L2 normalisation."""

    def forward(self, x):
        g = torch.einsum("bchw,bdhw->bcd", x, x) / (x.shape[2] * x.shape[3])
        g = torch.sign(g) * torch.sqrt(g.abs() + 1e-10)
        return F.normalize(g.flatten(1), dim=1)


class AdaptiveHead(nn.Module):
    """VGG-style head: adaptive average pool 14x14 -> 7x7, flatten, Linear 12544->128, ReLU,
    Linear 128->10."""

    def __init__(self, c=256):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(7)
        self.fc1 = nn.Linear(c * 49, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(self.pool(x).flatten(1))))


class MaxPool1d(nn.Module):
    """Audio front end: Conv1d 64->64 k5 p2, ReLU, MaxPool1d k3 stride 2 p1."""

    def __init__(self, c=64):
        super().__init__()
        self.conv = nn.Conv1d(c, c, 5, padding=2)

    def forward(self, x):
        return F.max_pool1d(F.relu(self.conv(x)), 3, 2, 1)


class ShuffleUnit(nn.Module):
    """ShuffleNet v2 unit (stride 1, 116 channels): split, 1x1 conv + BN + ReLU, 3x3 depthwise +
    BN, 1x1 conv + BN + ReLU, concatenation, channel shuffle of 2 groups (view/transpose)."""

    def __init__(self, c=116):
        super().__init__()
        h = c // 2
        self.pw1, self.bn1 = nn.Conv2d(h, h, 1, bias=False), nn.BatchNorm2d(h)
        self.dw, self.bn2 = nn.Conv2d(h, h, 3, 1, 1, groups=h, bias=False), nn.BatchNorm2d(h)
        self.pw2, self.bn3 = nn.Conv2d(h, h, 1, bias=False), nn.BatchNorm2d(h)

    def forward(self, x):
        a, b = x.chunk(2, 1)
        b = F.relu(self.bn3(self.pw2(self.bn2(self.dw(F.relu(self.bn1(self.pw1(b))))))))
        y = torch.cat((a, b), 1)
        n, c, hh, ww = y.shape
        return y.view(n, 2, c // 2, hh, ww).transpose(1, 2).reshape(n, c, hh, ww)


class ConvTransposeUp(nn.Module):
    """UNet/DCGAN decoder step: ConvTranspose2d 128->64 k4 stride 2 p1 (groups 1), BatchNorm, ReLU."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(128, 64, 4, 2, 1, bias=False)
        self.bn = nn.BatchNorm2d(64)

    def forward(self, x):
        return F.relu(self.bn(self.up(x)))


class HifiUp(nn.Module):
    """HiFi-GAN upsampling stage: ConvTranspose1d 512->256 k16 stride 8 p4, LeakyReLU(0.1), then a
    residual x + Conv1d 256->256 k3 dilation 3 (padding 3) of LeakyReLU(x)."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose1d(512, 256, 16, 8, 4)
        self.res = nn.Conv1d(256, 256, 3, dilation=3, padding=3)

    def forward(self, x):
        x = F.leaky_relu(self.up(x), 0.1)
        return x + self.res(F.leaky_relu(x, 0.1))


class MelganUp(nn.Module):
    """MelGAN-like upsampling: LeakyReLU(0.2), ConvTranspose1d 256->128 k8 stride 4 p2, then a
    residual x + Conv1d 128->128 k3 (padding 1) of LeakyReLU(x)."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose1d(256, 128, 8, 4, 2)
        self.res = nn.Conv1d(128, 128, 3, padding=1)

    def forward(self, x):
        x = self.up(F.leaky_relu(x, 0.2))
        return x + self.res(F.leaky_relu(x, 0.2))


class AsppBranch(nn.Module):
    """DeepLab ASPP branch: 3x3 conv 256->64 of dilation 6 (padding 6), BatchNorm, ReLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(256, 64, 3, padding=6, dilation=6, bias=False)
        self.bn = nn.BatchNorm2d(64)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Espcn(nn.Module):
    """ESPCN super-resolution tail: conv 64->32 k3 p1, tanh, conv 32->27 k3 p1, pixel_shuffle(3)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(64, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 3 * 9, 3, padding=1)

    def forward(self, x):
        return F.pixel_shuffle(self.conv2(torch.tanh(self.conv1(x))), 3)


class ConformerConv(nn.Module):
    """Conformer convolution module on (B, T, D): LayerNorm, pointwise Conv1d D->2D, GLU, depthwise
    Conv1d k31 p15, BatchNorm1d, SiLU, pointwise Conv1d D->D, residual."""

    def __init__(self, d=256, k=31):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x):
        y = F.glu(self.pw1(self.norm(x).transpose(1, 2)), dim=1)
        y = self.pw2(F.silu(self.bn(self.dw(y))))
        return x + y.transpose(1, 2)


class MBConv(nn.Module):
    """EfficientNet MBConv (stride 1, 40 channels, expansion 6): 1x1 expand + BN + SiLU, 5x5
    depthwise + BN + SiLU, squeeze-excitation (SiLU, 240->10->240, sigmoid), 1x1 project + BN,
    residual."""

    def __init__(self, c=40, e=6, k=5):
        super().__init__()
        h = c * e
        self.expand, self.bn0 = nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h)
        self.dw, self.bn1 = nn.Conv2d(h, h, k, 1, k // 2, groups=h, bias=False), nn.BatchNorm2d(h)
        self.se_down, self.se_up = nn.Conv2d(h, c // 4, 1), nn.Conv2d(c // 4, h, 1)
        self.project, self.bn2 = nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.silu(self.bn1(self.dw(F.silu(self.bn0(self.expand(x))))))
        s = torch.sigmoid(self.se_up(F.silu(self.se_down(y.mean((2, 3), keepdim=True)))))
        return x + self.bn2(self.project(y * s))


class DecoderLayer(nn.Module):
    """PyTorch's nn.TransformerDecoderLayer (batch first, post-norm): causal self-attention,
    cross-attention to a memory, feed-forward; the causal mask a constant of the module."""

    def __init__(self, d=256, heads=4, ff=1024, tgt=64):
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.mask = nn.Transformer.generate_square_subsequent_mask(tgt)

    def forward(self, tgt, memory):
        return self.layer(tgt, memory, tgt_mask=self.mask)


class BertEmbeddings(nn.Module):
    """BERT(-mini) embeddings: word (30522 x 256) + position + token-type gathers, LayerNorm."""

    def __init__(self, vocab=30522, d=256, positions=512):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.position = nn.Embedding(positions, d)
        self.token_type = nn.Embedding(2, d)
        self.norm = nn.LayerNorm(d, eps=1e-12)

    def forward(self, ids, types):
        pos = torch.arange(ids.shape[1], device=ids.device)
        return self.norm(self.word(ids) + self.position(pos)[None] + self.token_type(types))


class Distill(nn.Module):
    """Knowledge-distillation loss: KL(softmax(t / T) || log_softmax(s / T)) * T^2, batchmean."""

    def forward(self, s, t, temperature: float = 4.0):
        return F.kl_div(F.log_softmax(s / temperature, -1), F.softmax(t / temperature, -1),
                        reduction="batchmean") * temperature ** 2


class Cumsum(nn.Module):
    """A scan along rows: cumsum over the last dimension, normalised by the row total."""

    def forward(self, x):
        c = torch.cumsum(x.abs(), -1)
        return c / c[:, -1:]


class TcnBlock(nn.Module):
    """TCN residual block: two causal dilated Conv1d 64->64 k3 dilation 4 (left padding only) with
    weight normalisation, ReLU after each, residual."""

    def __init__(self, c=64, k=3, d=4):
        super().__init__()
        wn = nn.utils.parametrizations.weight_norm
        self.pad = (k - 1) * d
        self.conv1 = wn(nn.Conv1d(c, c, k, dilation=d))
        self.conv2 = wn(nn.Conv1d(c, c, k, dilation=d))

    def forward(self, x):
        y = F.relu(self.conv1(F.pad(x, (self.pad, 0))))
        y = F.relu(self.conv2(F.pad(y, (self.pad, 0))))
        return F.relu(x + y)


class Transition(nn.Module):
    """DenseNet transition: BatchNorm, ReLU, 1x1 conv 256->128, average pool 2x2 stride 2."""

    def __init__(self, c=256):
        super().__init__()
        self.bn = nn.BatchNorm2d(c)
        self.conv = nn.Conv2d(c, c // 2, 1, bias=False)

    def forward(self, x):
        return F.avg_pool2d(self.conv(F.relu(self.bn(x))), 2)


class ChannelsLayerNorm(nn.Module):
    """ConvNeXt LayerNorm over the channels of NCHW: permute to NHWC, LayerNorm(96), permute back."""

    def __init__(self, c=96):
        super().__init__()
        self.norm = nn.LayerNorm(c, eps=1e-6)

    def forward(self, x):
        return self.norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class ClipTextBlock(nn.Module):
    """CLIP text transformer block (width 512, 8 heads, 77 tokens): pre-LayerNorm, nn.MultiheadAttention
    with a causal float mask, QuickGELU MLP (x * sigmoid(1.702 x)), residuals."""

    def __init__(self, d=512, heads=8, ctx=77):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads)
        self.fc, self.proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.mask = torch.full((ctx, ctx), float("-inf")).triu(1)

    def forward(self, x):  # (ctx, batch, d), CLIP's sequence-first layout
        y = self.ln1(x)
        x = x + self.attn(y, y, y, need_weights=False, attn_mask=self.mask)[0]
        h = self.fc(self.ln2(x))
        return x + self.proj(h * torch.sigmoid(1.702 * h))


class PaddedMha(nn.Module):
    """nn.MultiheadAttention (256, 8 heads, batch first) over padded sequences: a boolean
    key_padding_mask (True past each sequence's length)."""

    def __init__(self, d=256, heads=8):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)

    def forward(self, x, pad):
        return self.attn(x, x, x, key_padding_mask=pad, need_weights=False)[0]


class MobileNetV3Block(nn.Module):
    """MobileNetV3 bneck (40 -> 120 -> 40, 5x5, stride 1): 1x1 expand + BN + hardswish, 5x5
    depthwise + BN + hardswish, SE (mean, 120->32 ReLU, 32->120 hardsigmoid), 1x1 project + BN,
    residual."""

    def __init__(self, c=40, h=120, s=32, k=5):
        super().__init__()
        self.expand, self.bn0 = nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h)
        self.dw, self.bn1 = nn.Conv2d(h, h, k, 1, k // 2, groups=h, bias=False), nn.BatchNorm2d(h)
        self.se_down, self.se_up = nn.Conv2d(h, s, 1), nn.Conv2d(s, h, 1)
        self.project, self.bn2 = nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.hardswish(self.bn1(self.dw(F.hardswish(self.bn0(self.expand(x))))))
        y = y * F.hardsigmoid(self.se_up(F.relu(self.se_down(y.mean((2, 3), keepdim=True)))))
        return x + self.bn2(self.project(y))


class Tabular(nn.Module):
    """Tabular MLP (batch 512, 300 features): BatchNorm1d, Linear 300->256, ReLU, BatchNorm1d,
    Linear 256->128, ReLU, Linear 128->1."""

    def __init__(self, f=300):
        super().__init__()
        self.net = nn.Sequential(nn.BatchNorm1d(f), nn.Linear(f, 256), nn.ReLU(), nn.BatchNorm1d(256),
                                 nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, x):
        return self.net(x)


class InfoNce(nn.Module):
    """Contrastive (CLIP / SimCLR) loss: rows L2-normalised, 256x512 @ 512x256 logits over a
    temperature of 0.07, cross-entropy against the diagonal, both directions."""

    def forward(self, a, b):
        logits = F.normalize(a, dim=1) @ F.normalize(b, dim=1).t() / 0.07
        labels = torch.arange(a.shape[0])
        return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2


class SegmentationCe(nn.Module):
    """Per-pixel cross-entropy of (4, 21, 64, 64) segmentation logits against class ids, with
    ignore_index 255 absent (the mean over every pixel)."""

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, ignore_index=255)


class FocalLoss(nn.Module):
    """RetinaNet sigmoid focal loss (alpha 0.25, gamma 2) over (4096, 80) logits and 0/1 targets:
    BCEWithLogits (no reduction), (1 - p_t)^2 weighting, mean."""

    def forward(self, x, t):
        ce = F.binary_cross_entropy_with_logits(x, t, reduction="none")
        p = torch.sigmoid(x)
        p_t = p * t + (1 - p) * (1 - t)
        a_t = 0.25 * t + 0.75 * (1 - t)
        return (a_t * ce * (1 - p_t) ** 2).mean()


class InceptionPool(nn.Module):
    """Inception pool branch: AvgPool2d 3x3 stride 1 padding 1 (count_include_pad=False), 1x1
    conv 192->32, BatchNorm, ReLU."""

    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.conv, self.bn = nn.Conv2d(192, 32, 1, bias=False), nn.BatchNorm2d(32)

    def forward(self, x):
        return F.relu(self.bn(self.conv(self.pool(x))))


class UnetUp(nn.Module):
    """UNet decoder step: bilinear 2x upsample (align_corners=True) of 128 channels, torch.cat with
    the 64-channel skip, conv 192->64 k3 p1, BatchNorm, ReLU."""

    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.conv, self.bn = nn.Conv2d(192, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64)

    def forward(self, x, skip):
        return F.relu(self.bn(self.conv(torch.cat((self.up(x), skip), 1))))


class DenseLayer(nn.Module):
    """DenseNet-121 layer (192 channels in, growth 32): BN, ReLU, 1x1 conv 192->128, BN, ReLU, 3x3
    conv 128->32 p1, concatenated to its input."""

    def __init__(self, c=192, growth=32):
        super().__init__()
        self.bn1, self.conv1 = nn.BatchNorm2d(c), nn.Conv2d(c, 4 * growth, 1, bias=False)
        self.bn2, self.conv2 = nn.BatchNorm2d(4 * growth), nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x):
        return torch.cat((x, self.conv2(F.relu(self.bn2(self.conv1(F.relu(self.bn1(x))))))), 1)


class ResNetLast(nn.Module):
    """ResNet-18's last basic block (512 channels on 7x7, batch 8): conv3x3 + BN + ReLU, conv3x3 +
    BN, residual, ReLU."""

    def __init__(self, c=512):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))))


class SdpaHead80(nn.Module):
    """Self-attention of head_dim 80 (640 wide, 8 heads, 196 tokens) through
    F.scaled_dot_product_attention, with its qkv and output projections."""

    def __init__(self, d=640, heads=8):
        super().__init__()
        self.heads = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        return self.out(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, d))


class GruSeq(nn.Module):
    """nn.GRU over a sequence (batch first, 32 steps, batch 4, 128 -> 256 hidden), every step's
    output. TorchDynamo runs an RNN module eagerly (no graph reaches the backend) unless
    `torch._dynamo.config.allow_rnn` is set; then the 32 steps are unrolled into one graph (probed
    so: the compile time of unrolled steps, docs/cpu_codegen.md section 67)."""

    rnn = True

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(128, 256, batch_first=True)

    def forward(self, x):
        return self.gru(x)[0]


class GroupedQueryAttention(nn.Module):
    """LLaMA-style grouped-query attention (512 wide, 8 query heads, 2 key/value heads of 64, 128
    tokens): q, k, v projections, k and v repeated to the query heads by repeat_interleave, causal
    F.scaled_dot_product_attention, output projection."""

    def __init__(self, d=512, heads=8, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.q = nn.Linear(d, d, bias=False)
        self.kv = nn.Linear(d, 2 * kv_heads * self.hd, bias=False)
        self.o = nn.Linear(d, d, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        q = self.q(x).view(b, s, self.heads, self.hd).transpose(1, 2)
        k, v = self.kv(x).view(b, s, 2, self.kv_heads, self.hd).permute(2, 0, 3, 1, 4)
        r = self.heads // self.kv_heads
        k, v = k.repeat_interleave(r, 1), v.repeat_interleave(r, 1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(y.transpose(1, 2).reshape(b, s, d))


class KvDecode(nn.Module):
    """A decoder's KV-cache step at batch 1: one new token (512 wide, 8 heads of 64) projected to q,
    attending to 1024 cached keys and values with an explicit softmax, output projection."""

    def __init__(self, d=512, heads=8):
        super().__init__()
        self.heads = heads
        self.q, self.o = nn.Linear(d, d, bias=False), nn.Linear(d, d, bias=False)

    def forward(self, x, k_cache, v_cache):
        b, _, d = x.shape
        q = self.q(x).view(b, 1, self.heads, d // self.heads).transpose(1, 2)
        a = torch.softmax(q @ k_cache.transpose(-1, -2) / (d // self.heads) ** 0.5, -1)
        return self.o((a @ v_cache).transpose(1, 2).reshape(b, 1, d))


class CrossAttention(nn.Module):
    """Stable Diffusion cross-attention: 1024 image tokens of 320 attend to 77 text tokens of 768
    (8 heads of 40), q from the image, k and v from the text, explicit softmax, output projection."""

    def __init__(self, d=320, ctx=768, heads=8):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d, bias=False)
        self.k, self.v = nn.Linear(ctx, d, bias=False), nn.Linear(ctx, d, bias=False)
        self.o = nn.Linear(d, d)

    def forward(self, x, context):
        b, s, d = x.shape
        h, hd = self.heads, d // self.heads
        q = self.q(x).view(b, s, h, hd).transpose(1, 2)
        k = self.k(context).view(b, -1, h, hd).transpose(1, 2)
        v = self.v(context).view(b, -1, h, hd).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-1, -2) * hd ** -0.5, -1)
        return self.o((a @ v).transpose(1, 2).reshape(b, s, d))


class BiLstm(nn.Module):
    """A bidirectional nn.LSTM over a sequence (batch first, 16 steps, batch 4, 64 -> 128 hidden
    each way), every step's output of both directions; compiled with
    `torch._dynamo.config.allow_rnn` (the steps unrolled into one graph)."""

    rnn = True

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(64, 128, batch_first=True, bidirectional=True)

    def forward(self, x):
        return self.lstm(x)[0]


class KlLogTarget(nn.Module):
    """VAE / policy KL term: nn.KLDivLoss(reduction="sum", log_target=True) between two
    log_softmax distributions of (256, 512) logits."""

    def forward(self, a, b):
        return F.kl_div(F.log_softmax(a, -1), F.log_softmax(b, -1), reduction="sum", log_target=True)


class LabelSmoothingCe(nn.Module):
    """ImageNet classifier loss: cross-entropy of (256, 1000) logits with label_smoothing 0.1."""

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, label_smoothing=0.1)


class Cdist(nn.Module):
    """Pairwise Euclidean distances torch.cdist of 1024 queries against 512 points of 64 features
    (batch 1), then a softmin over the points (a soft nearest neighbour)."""

    def forward(self, x, y):
        return torch.softmax(-torch.cdist(x, y), -1)


class SmallBmm(nn.Module):
    """Many small batched products: torch.bmm of 4096 pairs of 8 x 8 matrices."""

    def forward(self, a, b):
        return torch.bmm(a, b)


class Wav2vecStem(nn.Module):
    """wav2vec 2.0's first feature-extractor layer: Conv1d 1->512 k10 stride 5 (no bias) over 16000
    samples, GroupNorm(512, 512), GELU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 512, 10, stride=5, bias=False)
        self.norm = nn.GroupNorm(512, 512)

    def forward(self, x):
        return F.gelu(self.norm(self.conv(x)))


class Dilated3x3(nn.Module):
    """A dilated 3x3 conv 64->64 (dilation 2, padding 2) on 56 x 56, BatchNorm, ReLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(64, 64, 3, padding=2, dilation=2, bias=False)
        self.bn = nn.BatchNorm2d(64)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class BatchNormTrain(nn.Module):
    """BatchNorm2d(64) in training mode (the batch's own mean and variance, running statistics
    updated) on 8 x 64 x 56 x 56, ReLU."""

    train_mode = True

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(64)

    def forward(self, x):
        return F.relu(self.bn(x))


class Unshuffle(nn.Module):
    """Space-to-depth: pixel_unshuffle(2) of 1 x 16 x 128 x 128, then a 1x1 conv 64->64, SiLU."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(64, 64, 1)

    def forward(self, x):
        return F.silu(self.conv(F.pixel_unshuffle(x, 2)))


class SwiGlu(nn.Module):
    """LLaMA feed-forward (SwiGLU): down(silu(gate(x)) * up(x)), 512 -> 1376 -> 512, 64 tokens;
    plus F.glu of the gate and up outputs concatenated."""

    def __init__(self, d=512, h=1376):
        super().__init__()
        self.gate, self.up = nn.Linear(d, h, bias=False), nn.Linear(d, h, bias=False)
        self.down = nn.Linear(h, d, bias=False)

    def forward(self, x):
        g, u = self.gate(x), self.up(x)
        return self.down(F.silu(g) * u) + self.down(F.glu(torch.cat((u, g), -1), -1))


class EluSoftplus(nn.Module):
    """Pointwise activations after a 3x3 conv 32->32 on 64 x 64: ELU(alpha 1) and Softplus(beta 2,
    threshold 10), summed."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(32, 32, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return F.elu(y) + F.softplus(y, beta=2.0, threshold=10.0)


class VitBlock(nn.Module):
    """timm ViT-S/16 block at 197 tokens: LayerNorm, qkv Linear 384->1152, scaled_dot_product_attention
    of 6 heads of 64, projection, residual; LayerNorm, MLP 384->1536 GELU (erf) ->384, residual."""

    def __init__(self, d=384, heads=6):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d, eps=1e-6), nn.LayerNorm(d, eps=1e-6)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, c)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class LlamaAttention(nn.Module):
    """Meta's LLaMA reference attention: RMSNorm, wq/wk/wv 512->512, rotary embedding by
    view_as_complex and a complex freqs_cis (torch.polar), causal scaled_dot_product_attention of 8
    heads of 64, wo, residual; 128 tokens."""

    def __init__(self, d=512, heads=8, seq=128):
        super().__init__()
        self.heads = heads
        self.weight = nn.Parameter(torch.ones(d))
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
        hd = d // heads
        freqs = 1.0 / 10000.0 ** (torch.arange(0, hd, 2).float() / hd)
        self.freqs_cis = torch.polar(torch.ones(seq, hd // 2), torch.outer(torch.arange(seq).float(), freqs))

    def rotary(self, x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * self.freqs_cis[None, :, None]).flatten(3).type_as(x)

    def forward(self, x):
        b, s, d = x.shape
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        q, k, v = (w(h).view(b, s, self.heads, d // self.heads) for w in (self.wq, self.wk, self.wv))
        q, k = self.rotary(q), self.rotary(k)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return x + self.wo(o.transpose(1, 2).reshape(b, s, d))


class MoeTop2(nn.Module):
    """Mixtral-like top-2 mixture of 8 experts, computed densely: router Linear 256->8, softmax,
    topk 2, renormalised, scattered into a (tokens, experts) weight; experts' SiLU MLPs 256->512->256
    as two einsums over stacked weights; 64 tokens."""

    def __init__(self, d=256, h=512, experts=8):
        super().__init__()
        self.router = nn.Linear(d, experts, bias=False)
        self.w1 = nn.Parameter(torch.empty(experts, d, h))
        self.w2 = nn.Parameter(torch.empty(experts, h, d))

    def forward(self, x):
        p = torch.softmax(self.router(x), -1)
        top, idx = torch.topk(p, 2, -1)
        weights = torch.zeros_like(p).scatter(-1, idx, top / top.sum(-1, keepdim=True))
        y = torch.einsum("teh,ehd->ted", F.silu(torch.einsum("td,edh->teh", x, self.w1)), self.w2)
        return torch.einsum("te,ted->td", weights, y)


class T5Bias(nn.Module):
    """T5 self-attention with its relative position bias: bidirectional buckets (32, max distance
    128: abs, log, integer casts, min, where) from arange, Embedding(32, 8) gathered, permuted and
    added to unscaled scores, softmax; 8 heads of 64, 128 tokens."""

    def __init__(self, heads=8, buckets=32, max_distance=128):
        super().__init__()
        self.buckets, self.max_distance = buckets, max_distance
        self.bias = nn.Embedding(buckets, heads)

    def bucket(self, rel):
        n = self.buckets // 2
        ret = (rel > 0).long() * n
        rel = rel.abs()
        exact = n // 2
        large = exact + (torch.log(rel.float() / exact) / torch.log(torch.tensor(self.max_distance / exact))
                         * (n - exact)).long()
        large = torch.min(large, torch.full_like(large, n - 1))
        return ret + torch.where(rel < exact, rel, large)

    def forward(self, q, k, v):
        s = q.shape[2]
        ctx = torch.arange(s, device=q.device)
        b = self.bias(self.bucket(ctx[None, :] - ctx[:, None])).permute(2, 0, 1)[None]
        return torch.softmax(q @ k.transpose(-1, -2) + b, -1) @ v


class Sppf(nn.Module):
    """YOLOv5 SPPF at 20 x 20: 1x1 conv 512->256 + BN + SiLU, three cascaded MaxPool2d(5, 1, 2),
    torch.cat of the four, 1x1 conv 1024->512 + BN + SiLU."""

    def __init__(self, c=512):
        super().__init__()
        self.cv1, self.bn1 = nn.Conv2d(c, c // 2, 1, bias=False), nn.BatchNorm2d(c // 2)
        self.cv2, self.bn2 = nn.Conv2d(2 * c, c, 1, bias=False), nn.BatchNorm2d(c)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = F.silu(self.bn1(self.cv1(x)))
        y1 = self.pool(x)
        y2 = self.pool(y1)
        return F.silu(self.bn2(self.cv2(torch.cat((x, y1, y2, self.pool(y2)), 1))))


class WhisperStem(nn.Module):
    """Whisper(-tiny) encoder stem: Conv1d 80->384 k3 p1, GELU, Conv1d 384->384 k3 stride 2 p1, GELU,
    permute to (B, T, D), plus the sinusoidal positional embedding; 3000 mel frames."""

    def __init__(self, mels=80, d=384, frames=1500):
        super().__init__()
        self.conv1 = nn.Conv1d(mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        inc = torch.exp(-torch.log(torch.tensor(10000.0)) / (d // 2 - 1) * torch.arange(d // 2))
        t = torch.arange(frames)[:, None] * inc[None]
        self.pos = torch.cat([torch.sin(t), torch.cos(t)], 1)

    def forward(self, x):
        x = F.gelu(self.conv2(F.gelu(self.conv1(x))))
        return x.permute(0, 2, 1) + self.pos


class MetricLoss(nn.Module):
    """Metric-learning losses over 256 embeddings of 128: TripletMarginLoss(margin 1, p 2) plus
    CosineEmbeddingLoss(margin 0.2) against +-1 targets."""

    def __init__(self, n=256):
        super().__init__()
        self.triplet = nn.TripletMarginLoss(margin=1.0, p=2)
        self.cosine = nn.CosineEmbeddingLoss(margin=0.2)
        self.y = torch.where(torch.arange(n) % 3 == 0, -1.0, 1.0)

    def forward(self, a, p, n):
        return self.triplet(a, p, n) + self.cosine(a, n, self.y)


class Alibi(nn.Module):
    """BLOOM's ALiBi attention: per-head slopes times key positions from the attention mask's cumsum,
    baddbmm with the scaled scores, causal and padding masks by masked_fill(finfo.min), softmax in
    float, times v; 8 heads of 64, 256 tokens, batch 2."""

    def __init__(self, heads=8):
        super().__init__()
        self.heads = heads
        self.slopes = torch.tensor([2.0 ** (-8.0 * (i + 1) / heads) for i in range(heads)])

    def forward(self, q, k, v, mask):
        b, h, s, d = q.shape
        keep = (~mask).long()  # Padding: True on pads
        pos = ((keep.cumsum(-1) - 1) * keep)[:, None, :]
        alibi = (self.slopes[None, :, None] * pos).reshape(b * h, 1, s)
        scores = torch.baddbmm(alibi, q.reshape(b * h, s, d), k.reshape(b * h, s, d).transpose(1, 2),
                               beta=1.0, alpha=d ** -0.5).view(b, h, s, s)
        causal = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        masked = causal[None, None] | mask[:, None, None, :]
        scores = scores.masked_fill(masked, torch.finfo(scores.dtype).min)
        return torch.softmax(scores, -1) @ v


class MaskedPooling(nn.Module):
    """Sentence-embedding pooling over (32, 128, 384) token states and a 0/1 attention mask: masked
    mean (sum / clamp(count, 1e-9)), masked max (masked_fill -1e9), torch.where of the CLS state for
    empty rows, concatenated and L2-normalised."""

    def forward(self, x, pad):
        m = (~pad).unsqueeze(-1).float()
        mean = (x * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)
        mx = x.masked_fill(pad.unsqueeze(-1), -1e9).max(1).values
        mx = torch.where(m.sum(1) > 0, mx, x[:, 0])
        return F.normalize(torch.cat([mean, mx], -1), dim=-1)


class ArgmaxAccuracy(nn.Module):
    """Classifier metrics over (256, 1000) logits: argmax == target per row, and the row max."""

    def forward(self, logits, target):
        best = logits.max(-1)
        return torch.cat([(logits.argmax(-1) == target).float(), best.values, best.indices.float()])


class TopkLogits(nn.Module):
    """An LLM's sampling step: the top 50 of (4, 32000) logits, values and indices."""

    def forward(self, logits):
        return torch.topk(logits, 50, dim=-1)


class SortRows(nn.Module):
    """torch.sort of (64, 1024) rows, values and indices."""

    def forward(self, x):
        return torch.sort(x, dim=-1)


class ArgsortRows(nn.Module):
    """argsort of (16, 4096) rows, descending."""

    def forward(self, x):
        return torch.argsort(x, dim=-1, descending=True)


class ReflectResidual(nn.Module):
    """Johnson style-transfer residual block: ReflectionPad2d(1), conv 128->128 k3, InstanceNorm2d
    (affine), ReLU, ReflectionPad2d(1), conv, InstanceNorm2d, residual; 64 x 64."""

    def __init__(self, c=128):
        super().__init__()
        self.pad = nn.ReflectionPad2d(1)
        self.conv1, self.conv2 = nn.Conv2d(c, c, 3), nn.Conv2d(c, c, 3)
        self.in1, self.in2 = nn.InstanceNorm2d(c, affine=True), nn.InstanceNorm2d(c, affine=True)

    def forward(self, x):
        y = F.relu(self.in1(self.conv1(self.pad(x))))
        return x + self.in2(self.conv2(self.pad(y)))


class TimestepEmbedding(nn.Module):
    """Diffusers' timestep embedding: sinusoidal features of 320 (exp of arange, sin and cos of
    timesteps up to 1000, flipped to cos first), Linear 320->1280, SiLU, Linear 1280->1280; batch 2."""

    def __init__(self, ch=320, d=1280):
        super().__init__()
        self.ch = ch
        self.l1, self.l2 = nn.Linear(ch, d), nn.Linear(d, d)

    def forward(self, t):
        half = self.ch // 2
        freqs = torch.exp(-torch.log(torch.tensor(10000.0)) * torch.arange(half, dtype=torch.float32) / half)
        a = t[:, None].float() * freqs[None]
        emb = torch.cat([torch.cos(a), torch.sin(a)], -1)
        return self.l2(F.silu(self.l1(emb)))


class GcnLayer(nn.Module):
    """Graph convolution by message passing: 4096 nodes of 64 features, 32768 edges (src, dst):
    h = x W (64->64), degree by index_add of ones, messages h[src] / sqrt(deg[src] deg[dst]),
    index_add into dst, ReLU."""

    def __init__(self, d=64):
        super().__init__()
        self.lin = nn.Linear(d, d, bias=False)

    def forward(self, x, edges):
        src, dst = edges[0], edges[1]
        deg = torch.zeros(x.shape[0], device=x.device).index_add_(0, dst, torch.ones_like(dst, dtype=x.dtype)) + 1
        h = self.lin(x)
        norm = torch.rsqrt(deg[src] * deg[dst])
        return F.relu(torch.zeros_like(h).index_add_(0, dst, h[src] * norm[:, None]) + h / deg[:, None])


class FakeQuantConv(nn.Module):
    """Quantization-aware training: fake_quantize_per_tensor_affine (scale 1/32, int8) of the input
    and of the weight, conv 32->32 k3 p1, ReLU; 1 x 32 x 56 x 56."""

    def __init__(self, c=32):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        xq = torch.fake_quantize_per_tensor_affine(x, 1 / 32, 0, -128, 127)
        wq = torch.fake_quantize_per_tensor_affine(self.conv.weight, 1 / 256, 0, -128, 127)
        return F.relu(F.conv2d(xq, wq, self.conv.bias, padding=1))


class GridSample(nn.Module):
    """Spatial transformer: affine_grid of per-sample 2x3 thetas, grid_sample (bilinear, zeros
    padding, align_corners False) of 8 x 16 x 64 x 64."""

    def forward(self, x, theta):
        grid = F.affine_grid(theta.view(-1, 2, 3) * 0.2 + torch.tensor([1.0, 0, 0, 0, 1, 0]).view(1, 2, 3),
                             list(x.shape), align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


class ShiftedWindow(nn.Module):
    """Swin shifted-window attention at 56 x 56 x 96, window 7, shift 3: torch.roll, window partition,
    relative position bias gathered from a (13*13, 3) table by a (49, 49) index, the shift's
    region mask, softmax, projection, windows reversed, rolled back."""

    def __init__(self, d=96, heads=3, w=7, shift=3, size=56):
        super().__init__()
        self.heads, self.w, self.shift = heads, w, shift
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.table = nn.Parameter(torch.empty((2 * w - 1) ** 2, heads))
        c = torch.stack(torch.meshgrid(torch.arange(w), torch.arange(w), indexing="ij")).flatten(1)
        r = (c[:, :, None] - c[:, None, :]).permute(1, 2, 0) + (w - 1)
        self.index = r[..., 0] * (2 * w - 1) + r[..., 1]
        img = torch.zeros(1, size, size, 1)
        cnt = 0
        for hs in (slice(0, -w), slice(-w, -shift), slice(-shift, None)):
            for ws in (slice(0, -w), slice(-w, -shift), slice(-shift, None)):
                img[:, hs, ws, :] = cnt
                cnt += 1
        win = self.partition(img).squeeze(-1)
        diff = win[:, None, :] - win[:, :, None]
        self.mask = diff.masked_fill(diff != 0, -100.0).masked_fill(diff == 0, 0.0)

    def partition(self, x):
        b, hh, ww, c = x.shape
        w = self.w
        return x.view(b, hh // w, w, ww // w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, c)

    def forward(self, x):
        b, hh, ww, c = x.shape
        w, nh = self.w, self.heads
        t = self.partition(torch.roll(x, (-self.shift, -self.shift), (1, 2)))
        nw = t.shape[0]
        q, k, v = self.qkv(t).reshape(nw, w * w, 3, nh, c // nh).permute(2, 0, 3, 1, 4)
        bias = self.table[self.index.view(-1)].view(w * w, w * w, nh).permute(2, 0, 1)
        a = q @ k.transpose(-1, -2) * (c // nh) ** -0.5 + bias[None]
        a = (a.view(nw // self.mask.shape[0], self.mask.shape[0], nh, w * w, w * w) + self.mask[None, :, None]).view(nw, nh, w * w, w * w)
        o = self.proj((torch.softmax(a, -1) @ v).transpose(1, 2).reshape(nw, w * w, c))
        o = o.view(b, hh // w, ww // w, w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hh, ww, c)
        return torch.roll(o, (self.shift, self.shift), (1, 2))


class NanPropagation(nn.Module):
    """NaN through the ops that choose between values, at vector sizes (8 x 64 x 32 x 32, 1% NaN):
    max pooling, a max over channels, max with indices and the whole tensor's max, clamp, maximum
    and minimum (eager: NaN wins), fmax (eager: the number wins)."""

    def forward(self, x):
        v, i = torch.max(x.flatten(2), -1)
        both = torch.maximum(torch.clamp(x, -0.5, 0.5), x.flip(1)) - torch.minimum(x, torch.zeros_like(x))
        return F.max_pool2d(x, 2), torch.amax(x, 1), v, i, x.max(), both, torch.fmax(x, x.flip(2))


class FullyMaskedAttention(nn.Module):
    """Attention over padded keys where a whole sequence is padding (2 x 4 heads x 64 x 32, the first
    batch element all pads): scores masked_fill(-inf), softmax (eager: a NaN row), logsumexp of the
    scores (eager: -inf), and the NaN-cleaned softmax times v (nan_to_num)."""

    def forward(self, q, k, v, pad):
        s = (q @ k.transpose(-1, -2) / 32 ** 0.5).masked_fill(pad[:, None, None, :], float("-inf"))
        a = torch.softmax(s, -1)
        return a @ v, torch.logsumexp(s, -1), torch.nan_to_num(a, 0.0) @ v


class Rounding(nn.Module):
    """Quantisation and wrapping arithmetic on halves (k / 2, k in [-40, 40]) and their negatives:
    round (half to even), round to 1 decimal, trunc, fmod and remainder by 1.5, floor_divide by 0.1
    (eager: Python's //, 1.0 // 0.1 = 9), div by 0.25 rounding floor and trunc; 64 x 1024."""

    def forward(self, x):
        return torch.stack([torch.round(x), torch.round(x * 0.3, decimals=1), torch.trunc(x * 0.7),
                            torch.fmod(x, 1.5), torch.remainder(x, -1.5), torch.floor_divide(x, 0.1),
                            torch.div(x, 0.25, rounding_mode="floor"), torch.div(x * 0.3, 0.25, rounding_mode="trunc")])


class HashEmbedding(nn.Module):
    """Feature hashing of int64 ids (32 x 64, ids below 10^6): products by large odd constants that
    wrap past 2^63, xor with shifts (arithmetic, of negative hashes), remainder (of negative products)
    and bitwise and into 4096 buckets, two lookups of one Embedding(4096, 64) summed; the buckets, a
    shifted hash and a floor division of the hashes by -977 returned too."""

    def __init__(self, buckets=4096, d=64):
        super().__init__()
        self.emb = nn.Embedding(buckets, d)

    def forward(self, ids):
        h1 = ids * -7046029254386353131
        b1 = torch.remainder(h1 ^ (h1 >> 29), 4096)
        h2 = (ids * 2654435761 + 12345) & 0xFFFFFF
        b2 = (h2 ^ (h2 << 5) ^ (h2 >> 7)) & 4095
        return self.emb(b1) + self.emb(b2), b1, b2, h1 >> 40, (h1 // -977) % 1000


class BoolLogic(nn.Module):
    """Validity-mask logic over 64 x 128 x 32: any and all along different dims, a count of bools
    (int64 sum), xor and not of masks, an int argmax of a mask (first True), the fraction valid."""

    def forward(self, x):
        valid = x > 0.9
        anyv = valid.any(-1)
        return (anyv, (x > -0.99).all(1), valid.sum((1, 2)), (valid ^ valid.flip(-1)).any(0),
                valid.int().argmax(-1), (~valid & anyv[..., None]).float().mean((0, 1)))


class VarStd(nn.Module):
    """Statistics over several dims of 16 x 64 x 28 x 28: var with correction 0 over (1, 2, 3) as a
    normalisation, std with correction 2 over (0, 2), var_mean (unbiased) over (2, 3), logsumexp over
    (2, 3) of 20x scaled values."""

    def forward(self, x):
        v = torch.var(x, dim=(1, 2, 3), correction=0, keepdim=True)
        var, mean = torch.var_mean(x, (2, 3), unbiased=True)
        return ((x - x.mean((1, 2, 3), keepdim=True)) / torch.sqrt(v + 1e-5), torch.std(x, dim=(0, 2), correction=2),
                var, mean, torch.logsumexp(x * 20, (2, 3)))


class Cumulative(nn.Module):
    """Scans over 32 x 1024: stick-breaking cumprod of 1 - sigmoid, logcumsumexp along the batch;
    then (a second graph) cummax with indices and cummin."""

    def forward(self, x):
        rest = torch.cumprod(1 - torch.sigmoid(x), -1)
        lc = torch.logcumsumexp(x * 10, 0)
        torch._dynamo.graph_break()
        v, i = torch.cummax(x, -1)
        return rest, lc, v, i, torch.cummin(x, 0).values


class UnfoldFold(nn.Module):
    """im2col: F.unfold (k3, padding 1, stride 2) of 2 x 16 x 32 x 32, a locally shared weight
    product (32 x 144), and (a second graph) F.fold of the columns back (overlap-add)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.empty(32, 144))

    def forward(self, x):
        cols = F.unfold(x, 3, padding=1, stride=2)
        y = (self.w @ cols).view(x.shape[0], 32, 16, 16)
        torch._dynamo.graph_break()
        return y, F.fold(cols, (32, 32), 3, padding=1, stride=2)


class Activations(nn.Module):
    """nn.Bilinear(64, 48 -> 64) of 256 pairs, GLU, then PReLU (32 slopes), SELU, CELU(0.5),
    hardswish, softsign, hardshrink, concatenated; scaled to reach every branch."""

    def __init__(self):
        super().__init__()
        self.bil = nn.Bilinear(64, 48, 64)
        self.prelu = nn.PReLU(32)

    def forward(self, a, b):
        g = F.glu(self.bil(a, b) * 4, -1)
        return torch.cat([self.prelu(g), F.selu(g), F.celu(g, 0.5), F.hardswish(g * 2), F.softsign(g),
                          F.hardshrink(g, 0.5)], -1)


class EmbeddingBags(nn.Module):
    """EmbeddingBag(1000, 64) of 256 bags of 12 ids, mode 'max', and mode 'mean' over the flattened
    ids cut by offsets (some bags empty: eager gives zeros)."""

    def __init__(self):
        super().__init__()
        self.bag_max = nn.EmbeddingBag(1000, 64, mode="max")
        self.bag_mean = nn.EmbeddingBag(1000, 64, mode="mean")
        self.offsets = torch.tensor([0, 0, 5, 17, 17, 17, 100, 1000, 3071, 3072])

    def forward(self, ids):
        return self.bag_max(ids), self.bag_mean(ids.flatten(), self.offsets)


class LrnBlock(nn.Module):
    """AlexNet after conv1: ReLU, LocalResponseNorm(5, 1e-4, 0.75, 2), MaxPool 3 s2; 1 x 96 x 55 x 55."""

    def __init__(self):
        super().__init__()
        self.lrn = nn.LocalResponseNorm(5, 1e-4, 0.75, 2.0)

    def forward(self, x):
        return F.max_pool2d(self.lrn(F.relu(x * 10)), 3, 2)


class Interpolations(nn.Module):
    """Resampling 2 x 16 x 45 x 60 other than by 2: bicubic 2x, area to 30 x 40, bilinear by 1.5 and
    nearest by 0.7 (eager maps coordinates by the given scale, not the size ratio), bilinear with
    align_corners to 64 x 64."""

    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False),
                F.interpolate(x, size=(30, 40), mode="area"),
                F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False),
                F.interpolate(x, scale_factor=0.7, mode="nearest"),
                F.interpolate(x, size=(64, 64), mode="bilinear", align_corners=True))


class PadModes(nn.Module):
    """Padding modes of 1 x 32 x 40 x 40: a Conv2d 32->32 k3 with padding_mode='circular', replicate
    (2, 1, 0, 3), reflect (1, 2, 3, 0); then (a second graph) constant with negative amounts (a crop)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(32, 32, 3, padding=1, padding_mode="circular")

    def forward(self, x):
        out = (self.conv(x), F.pad(x, (2, 1, 0, 3), mode="replicate"), F.pad(x, (1, 2, 3, 0), mode="reflect"))
        torch._dynamo.graph_break()
        return (*out, F.pad(x, (-1, 2, 1, -2), value=0.5))


class DlrmInteraction(nn.Module):
    """DLRM: bottom MLP 13->128->64 of dense features, 8 Embedding(1000, 64) lookups, the dot
    interaction (bmm of the 9 vectors with themselves, the strict lower triangle gathered by
    tril_indices), top MLP 100->256->1, sigmoid; batch 128."""

    def __init__(self, d=64, tables=8, rows=1000):
        super().__init__()
        self.bot = nn.Sequential(nn.Linear(13, 128), nn.ReLU(), nn.Linear(128, d), nn.ReLU())
        self.embs = nn.ModuleList(nn.Embedding(rows, d) for _ in range(tables))
        n = tables + 1
        self.top = nn.Sequential(nn.Linear(d + n * (n - 1) // 2, 256), nn.ReLU(), nn.Linear(256, 1))
        self.li, self.lj = torch.tril_indices(n, n, offset=-1)

    def forward(self, dense, sparse):
        x = self.bot(dense)
        t = torch.stack([x] + [e(sparse[:, i]) for i, e in enumerate(self.embs)], 1)
        z = torch.bmm(t, t.transpose(1, 2))[:, self.li, self.lj]
        return torch.sigmoid(self.top(torch.cat([x, z], 1)))


class HalfMlp(nn.Module):
    """A transformer MLP in one dtype (float16 or bfloat16 parameters and input, 64 x 256): LayerNorm,
    Linear 256->512, GELU, Linear 512->256, residual, softmax; eager computes on the CPU in that dtype."""

    def __init__(self, dtype):
        super().__init__()
        self.ln, self.l1, self.l2 = nn.LayerNorm(256), nn.Linear(256, 512), nn.Linear(512, 256)
        self.to(dtype)

    def forward(self, x):
        return torch.softmax(x + self.l2(F.gelu(self.l1(self.ln(x)))), -1)


class LayoutInputs(nn.Module):
    """Inputs not row-major: a channels_last 4 x 64 x 28 x 28 map into conv 64->64 k3, BatchNorm,
    ReLU, plus a (4, 64, 28, 28) view of a (4, 28, 64, 28) tensor (transposed) and a column-strided
    slice (every other element of the last dim); a Linear 28->28 over the strided one."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(64, 64, 3, padding=1)
        self.bn = nn.BatchNorm2d(64)
        self.lin = nn.Linear(28, 28)

    def forward(self, x, t, s):
        return F.relu(self.bn(self.conv(x))) + t, self.lin(s) * t


@dataclass(frozen=True)
class Ints:
    """An integer input (token ids) of SHAPE drawn from [0, HIGH)."""

    shape: tuple
    high: int

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        return torch.randint(self.high, (batch_scale * self.shape[0], *self.shape[1:]))


@dataclass(frozen=True)
class Padding:
    """A boolean key-padding mask of SHAPE (batch, seq): True from each row's length on, the lengths
    drawn from [seq // 2, seq] (the first `empty` rows: 0, all padding)."""

    shape: tuple
    empty: int = 0  # the first EMPTY rows are all padding (length 0)

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        b, s = batch_scale * self.shape[0], self.shape[1]
        lengths = torch.randint(s // 2, s + 1, (b, 1))
        lengths[: self.empty] = 0
        return torch.arange(s)[None] >= lengths


@dataclass(frozen=True)
class Binary:
    """A float input of SHAPE holding 0 and 1 (targets of a binary loss)."""

    shape: tuple

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        return (torch.rand(batch_scale * self.shape[0], *self.shape[1:]) < 0.1).float()


@dataclass(frozen=True)
class Uniform:
    """A float input of SHAPE uniform in [LOW, HIGH) (diffusion timesteps)."""

    shape: tuple
    low: float
    high: float

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        return torch.rand(batch_scale * self.shape[0], *self.shape[1:]) * (self.high - self.low) + self.low


@dataclass(frozen=True)
class WithNaN:
    """A float input of SHAPE uniform in [-1, 1) with a FRACTION of its elements NaN."""

    shape: tuple
    fraction: float

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        x = torch.rand(batch_scale * self.shape[0], *self.shape[1:]) * 2 - 1
        return x.masked_fill(torch.rand(x.shape) < self.fraction, float("nan"))


@dataclass(frozen=True)
class Halves:
    """A float input of SHAPE holding k / 2 for integers k in [-2 HIGH, 2 HIGH] (ties of rounding)."""

    shape: tuple
    high: int

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        return torch.randint(-2 * self.high, 2 * self.high + 1, (batch_scale * self.shape[0], *self.shape[1:])) / 2


@dataclass(frozen=True)
class Distinct:
    """A float input of SHAPE holding a shuffled -n/2 .. n/2 - 1 (n its size): no two elements equal,
    so a sort's order (and eager's unstable sort's) is one."""

    shape: tuple

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        shape = (batch_scale * self.shape[0], *self.shape[1:])
        n = math.prod(shape)
        return (torch.randperm(n) - n // 2).float().reshape(shape)


@dataclass(frozen=True)
class Rising:
    """Distinct's values with each row sorted ascending: the adversarial row of a largest-first
    topk (every element a new first; docs/cpu_codegen.md section 85)."""

    shape: tuple

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        return Distinct(self.shape).make(batch_scale).sort(dim=-1).values.contiguous()


@dataclass(frozen=True)
class Typed:
    """A float input of SHAPE uniform in [-1, 1), of DTYPE."""

    shape: tuple
    dtype: torch.dtype

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        return (torch.rand(batch_scale * self.shape[0], *self.shape[1:]) * 2 - 1).to(self.dtype)


@dataclass(frozen=True)
class ChannelsLast:
    """A float input of SHAPE (N, C, H, W) uniform in [-1, 1), in channels_last memory."""

    shape: tuple

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        x = torch.rand(batch_scale * self.shape[0], *self.shape[1:]) * 2 - 1
        return x.contiguous(memory_format=torch.channels_last)


@dataclass(frozen=True)
class Transposed:
    """A float input of SHAPE uniform in [-1, 1): the transpose (dims 1 and 2) of a row-major tensor."""

    shape: tuple

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        n, a, b, *rest = batch_scale * self.shape[0], *self.shape[1:]
        return (torch.rand(n, b, a, *rest) * 2 - 1).transpose(1, 2)


@dataclass(frozen=True)
class Strided:
    """A float input of SHAPE uniform in [-1, 1): every other element of the last dim of a row-major
    tensor twice as wide (not dense)."""

    shape: tuple

    def make(self, batch_scale: int = 1) -> torch.Tensor:
        wide = (batch_scale * self.shape[0], *self.shape[1:-1], 2 * self.shape[-1])
        return (torch.rand(wide) * 2 - 1)[..., ::2]


def make_input(spec, batch_scale: int = 1) -> torch.Tensor:
    """A float input uniform in [-1, 1) of shape SPEC (first dimension times BATCH_SCALE), or spec.make."""
    if isinstance(spec, (Ints, Padding, Binary, Uniform, WithNaN, Halves, Distinct, Rising, Typed, ChannelsLast, Transposed,
                         Strided)):
        return spec.make(batch_scale)
    return torch.rand(batch_scale * spec[0], *spec[1:]) * 2 - 1


MODELS = {  # name: (module factory, input shapes)
    "stem": (Stem, [(1, 3, 224, 224)]),
    "wavenet": (Wavenet, [(1, 64, 4096)]),
    "gru1": (lambda: Cell("gru", 1024, 1024), [(1, 1024), (1, 1024)]),
    "lstm1": (lambda: Cell("lstm", 512, 1024), [(1, 512), (1, 1024), (1, 1024)]),
    "attention": (Attention, [(1, 128, 768)]),
    "dwdown": (DepthwiseDown, [(1, 128, 56, 56)]),
    "chansoftmax": (ChannelSoftmax, [(8, 64, 32, 32)]),
    "se": (SqueezeExcite, [(8, 256, 28, 28)]),
    "conv5": (Conv5, [(1, 24, 56, 56)]),
    "mlp1": (lambda: nn.Sequential(nn.Linear(1024, 4096), nn.Tanh(), nn.Linear(4096, 1024)), [(1, 1024)]),
    "conv3d": (Video3d, [(1, 32, 8, 56, 56)]),
    "upnearest": (UpNearest, [(1, 128, 28, 28)]),
    "upbilinear": (UpBilinear, [(1, 64, 56, 56)]),
    "groupnorm": (GroupNormBlock, [(1, 256, 32, 32)]),
    "rope": (Rope, [(1, 8, 256, 64)] * 3),
    "pool3s": (Pool3s, [(8, 64, 96, 96)]),
    "dwstride3": (DwStride3, [(1, 96, 96, 96)]),
    "layerscale_mlp": (LayerScaleMlp, [(1, 197, 384)]),
    "instnorm": (InstanceNormConv, [(1, 64, 64, 64)]),
    "mixer": (MixerTokens, [(1, 196, 512)]),
    "swin": (WindowAttention, [(1, 56, 56, 128)]),
    "mishnorm": (MishNorm, [(1, 128, 768)]),
    "bilinearpool": (BilinearPool, [(4, 256, 28, 28)]),
    "adaptivehead": (AdaptiveHead, [(8, 256, 14, 14)]),
    "maxpool1d": (MaxPool1d, [(4, 64, 4096)]),
    "shuffle": (ShuffleUnit, [(1, 116, 28, 28)]),
    "encoderlayer": (lambda: nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True), [(8, 128, 256)]),
    "convt_g1": (lambda: nn.ConvTranspose2d(64, 64, 4, stride=2, padding=1), [(1, 64, 28, 28)]),
    "convt_g4": (lambda: nn.ConvTranspose2d(64, 64, 4, stride=2, padding=1, groups=4), [(1, 64, 28, 28)]),
    "convtranspose": (ConvTransposeUp, [(1, 128, 28, 28)]),
    "hifiup": (HifiUp, [(1, 512, 256)]),
    "melganup": (MelganUp, [(4, 256, 160)]),
    "aspp": (AsppBranch, [(1, 256, 33, 33)]),
    "espcn": (Espcn, [(1, 64, 64, 64)]),
    "conformerconv": (ConformerConv, [(1, 256, 256)]),
    "mbconv": (MBConv, [(1, 40, 28, 28)]),
    "decoderlayer": (DecoderLayer, [(8, 64, 256), (8, 128, 256)]),
    "bertembed": (BertEmbeddings, [Ints((8, 128), 30522), Ints((8, 128), 2)]),
    "distill": (Distill, [(64, 1000), (64, 1000)]),
    "cumsum": (Cumsum, [(32, 8192)]),
    "mlp256": (lambda: nn.Sequential(nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 1024)), [(256, 1024)]),
    "tcn": (TcnBlock, [(1, 64, 4096)]),
    "transition": (Transition, [(1, 256, 56, 56)]),
    "channelsln": (ChannelsLayerNorm, [(1, 96, 56, 56)]),
    "clip": (ClipTextBlock, [(77, 4, 512)]),
    "mhapad": (PaddedMha, [(8, 64, 256), Padding((8, 64))]),
    "mbv3": (MobileNetV3Block, [(1, 40, 28, 28)]),
    "tabular": (Tabular, [(512, 300)]),
    "infonce": (InfoNce, [(256, 512), (256, 512)]),
    "segce": (SegmentationCe, [(4, 21, 64, 64), Ints((4, 64, 64), 21)]),
    "focal": (FocalLoss, [(4096, 80), Binary((4096, 80))]),
    "inceptpool": (InceptionPool, [(1, 192, 28, 28)]),
    "unetup": (UnetUp, [(1, 128, 32, 32), (1, 64, 64, 64)]),
    "denselayer": (DenseLayer, [(1, 192, 28, 28)]),
    "resnetlast": (ResNetLast, [(8, 512, 7, 7)]),
    "sdpa80": (SdpaHead80, [(1, 196, 640)]),
    "gruseq": (GruSeq, [(4, 32, 128)]),
    "gqa": (GroupedQueryAttention, [(1, 128, 512)]),
    "kvdecode": (KvDecode, [(1, 1, 512), (1, 8, 1024, 64), (1, 8, 1024, 64)]),
    "crossattn": (CrossAttention, [(1, 1024, 320), (1, 77, 768)]),
    "bilstm": (BiLstm, [(4, 16, 64)]),
    "kllog": (KlLogTarget, [(256, 512), (256, 512)]),
    "smoothce": (LabelSmoothingCe, [(256, 1000), Ints((256,), 1000)]),
    "cdist": (Cdist, [(1, 1024, 64), (1, 512, 64)]),
    "bmm8": (SmallBmm, [(4096, 8, 8), (4096, 8, 8)]),
    "wav2vec": (Wav2vecStem, [(1, 1, 16000)]),
    "dilated3": (Dilated3x3, [(1, 64, 56, 56)]),
    "adaptive10": (lambda: nn.AdaptiveAvgPool2d(7), [(8, 512, 10, 10)]),
    "bntrain": (BatchNormTrain, [(8, 64, 56, 56)]),
    "unshuffle": (Unshuffle, [(1, 16, 128, 128)]),
    "swiglu": (SwiGlu, [(1, 64, 512)]),
    "elusoftplus": (EluSoftplus, [(1, 32, 64, 64)]),
    "vitblock": (VitBlock, [(1, 197, 384)]),
    "llamaattn": (LlamaAttention, [(1, 128, 512)]),
    "moe": (MoeTop2, [(64, 256)]),
    "t5bias": (T5Bias, [(1, 8, 128, 64)] * 3),
    "sppf": (Sppf, [(1, 512, 20, 20)]),
    "whisperstem": (WhisperStem, [(1, 80, 3000)]),
    "metricloss": (MetricLoss, [(256, 128)] * 3),
    "alibi": (Alibi, [(2, 8, 256, 64)] * 3 + [Padding((2, 256))]),
    "maskpool": (MaskedPooling, [(32, 128, 384), Padding((32, 128))]),
    "argmax": (ArgmaxAccuracy, [(256, 1000), Ints((256,), 1000)]),
    "reflectres": (ReflectResidual, [(1, 128, 64, 64)]),
    "timestep": (TimestepEmbedding, [Uniform((2,), 0.0, 1000.0)]),
    "gcn": (GcnLayer, [(4096, 64), Ints((2, 32768), 4096)]),
    "fakequant": (FakeQuantConv, [(1, 32, 56, 56)]),
    "gridsample": (GridSample, [(8, 16, 64, 64), (8, 6)]),
    "swinshift": (ShiftedWindow, [(1, 56, 56, 96)]),
    "nanmax": (NanPropagation, [WithNaN((8, 64, 32, 32), 0.01)]),
    "fullmask": (FullyMaskedAttention, [(2, 4, 64, 32)] * 3 + [Padding((2, 64), empty=1)]),
    "rounding": (Rounding, [Halves((64, 1024), 40)]),
    "hashembed": (HashEmbedding, [Ints((32, 64), 10 ** 6)]),
    "boolmask": (BoolLogic, [(64, 128, 32)]),
    "varstd": (VarStd, [(16, 64, 28, 28)]),
    "cumulative": (Cumulative, [(32, 1024)]),
    "im2col": (UnfoldFold, [(2, 16, 32, 32)]),
    "activations": (Activations, [(256, 64), (256, 48)]),
    "embbag": (EmbeddingBags, [Ints((256, 12), 1000)]),
    "lrn": (LrnBlock, [(1, 96, 55, 55)]),
    "interp": (Interpolations, [(2, 16, 45, 60)]),
    "padmodes": (PadModes, [(1, 32, 40, 40)]),
    "dlrm": (DlrmInteraction, [(128, 13), Ints((128, 8), 1000)]),
    "fp16mlp": (lambda: HalfMlp(torch.float16), [Typed((64, 256), torch.float16)]),
    "bf16mlp": (lambda: HalfMlp(torch.bfloat16), [Typed((64, 256), torch.bfloat16)]),
    "topk32k": (TopkLogits, [Distinct((4, 32000))]),
    "topk32k_rising": (TopkLogits, [Rising((4, 32000))]),
    "sort1k": (SortRows, [Distinct((64, 1024))]),
    "argsort4k": (ArgsortRows, [Distinct((16, 4096))]),
    "layouts": (LayoutInputs, [ChannelsLast((4, 64, 28, 28)), Transposed((4, 64, 28, 28)), Strided((4, 64, 28, 28))]),
}


def quartile(ts: list[float]) -> float:
    ts = sorted(ts)
    return ts[len(ts) // 4]


def timed_pair(eager, compiled, args, calls: int) -> tuple[float, float]:
    """Lower quartiles (s) of eager and compiled, called alternately after 3 warm-up calls each."""
    for _ in range(3):
        eager(*args)
        compiled(*args)
    te, tc = [], []
    for _ in range(calls):
        t = time.perf_counter()
        eager(*args)
        te.append(time.perf_counter() - t)
        t = time.perf_counter()
        compiled(*args)
        tc.append(time.perf_counter() - t)
    return quartile(te), quartile(tc)


def relative_error(got, want) -> float:
    """The largest difference over the largest finite magnitude of eager's result, over every output;
    inf where they differ in kind: another number of outputs, dtype or shape, a NaN or an infinity
    where eager has another value, or integers and bools not equal."""
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return float("inf")
        return max((relative_error(g, w) for g, w in zip(got, want)), default=0.0)
    if got.dtype != want.dtype or got.shape != want.shape:
        return float("inf")
    if not want.dtype.is_floating_point:
        return 0.0 if torch.equal(got, want) else float("inf")
    g, w = got.double(), want.double()
    finite = torch.isfinite(w)
    if not torch.equal(torch.isnan(g), torch.isnan(w)) or not torch.equal(g[torch.isinf(w)], w[torch.isinf(w)]) \
            or not torch.isfinite(g[finite]).all():
        return float("inf")
    if not finite.any():
        return 0.0
    return (g[finite] - w[finite]).abs().max().item() / max(w[finite].abs().max().item(), 1e-30)


def dump_linalg(directory: str, current: list) -> None:
    """Make the backend write every graph's linalg text it compiles to DIRECTORY/<model>-<k>.mlir."""
    from loopopt.runtime import torch_backend as tb

    os.makedirs(directory, exist_ok=True)
    to_linalg, count = tb.to_linalg, {}

    def writing(*a, **k):
        text = to_linalg(*a, **k)
        count[current[0]] = count.get(current[0], 0) + 1
        with open(os.path.join(directory, f"{current[0]}-{count[current[0]]}.mlir"), "w") as f:
            f.write(text)
        return text

    tb.to_linalg = writing


def _cpu() -> tuple[float, float]:
    """(CPU seconds of this process, of the subprocesses it waited for)."""
    t = os.times()
    return time.process_time(), t.children_user + t.children_system


def phase_summary(path: str) -> str:
    """The phases a model's graphs wrote (loopopt.runtime.phases' JSON lines), each graph's
    outermost name dropped so that its graphs' times add up: wall, CPU here, CPU of subprocesses."""
    import json

    totals: dict = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                p = json.loads(line)
                parts = p["phase"].split("/")
                name = "/".join(["graphs", *parts[1:]]) if parts[0].startswith("torch graph") else p["phase"]
                t = totals.setdefault(name, [0.0, 0.0, 0.0, 0])
                t[0] += p["wall"]
                t[1] += p["cpu"] or 0.0
                t[2] += p["children"] or 0.0
                t[3] += 1
    lines = [f"    {'wall s':>8} {'cpu s':>8} {'child s':>8}  phase (x times)"]
    for name, (w, c, k, n) in totals.items():
        depth = name.count("/")
        lines.append(f"    {w:8.3f} {c:8.3f} {k:8.3f}  {'  ' * depth}{name.rsplit('/', 1)[-1]}" + (f" (x{n})" if n > 1 else ""))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--calls", type=int, default=20, help="timed calls per model and column")
    ap.add_argument("--dynamic", action="store_true", help="torch.compile(..., dynamic=True); results also "
                    "checked with every input's first dimension doubled")
    ap.add_argument("--dump", default="", help="directory to write each graph's linalg text to (NAME-K.mlir), "
                    "for `python3 -m loopopt FILE --target cpu --remarks`")
    ap.add_argument("--phases", action="store_true", help="after each model, its build's CPU and wall time per "
                    "phase, summed over its graphs (LOOPOPT_PHASE_TIMES; docs/runtime.md)")
    args = ap.parse_args(argv)
    if args.phases:
        phase_file = os.path.join(tempfile.mkdtemp(prefix="probe-phases-"), "phases.jsonl")
        os.environ["LOOPOPT_PHASE_TIMES"] = phase_file
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        print(f"probe_compile: unknown model(s) {', '.join(unknown)} (known: {', '.join(MODELS)})", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    current = [""]
    if args.dump:
        dump_linalg(args.dump, current)
    for name in names:
        current[0] = name
        torch._dynamo.reset()  # each model compiled afresh: no recompile of a shared forward (nn.Sequential's) made dynamic
        torch.manual_seed(0)
        build, shapes = MODELS[name]
        m = build()
        m.train(getattr(m, "train_mode", False))  # BatchNormTrain: the batch's statistics
        with torch.no_grad():
            for p in m.parameters():
                p.uniform_(-1, 1)
                p.div_(max(1, p[0].numel()) ** 0.5)
            for b in m.buffers():
                if b.dtype.is_floating_point:
                    b.uniform_(0.5, 1.5)
            xs = [make_input(s) for s in shapes]
            want = m(*xs)
            t0, c0 = time.perf_counter(), _cpu()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                cm = torch.compile(m, backend=loopopt.torch_backend, dynamic=args.dynamic or None)
                with torch._dynamo.config.patch(allow_rnn=getattr(m, "rnn", False)):
                    got = cm(*xs)
                compile_s, compile_cpu = time.perf_counter() - t0, [b - a for a, b in zip(c0, _cpu())]
                err = relative_error(got, want)
                if args.dynamic:  # every input's first dimension doubled, through the same compiled module
                    other = [make_input(s, 2) for s in shapes]
                    try:
                        want2 = m(*other)
                    except RuntimeError:  # the model fixes its batch (a reshape to a constant)
                        want2 = None
                    if want2 is not None:
                        err = max(err, relative_error(cm(*other), want2))
            te, tc = timed_pair(m, cm, xs, args.calls)
        fell = [str(w.message).splitlines()[0][:100] for w in caught if "Fallback" in type(w.message).__name__]
        print(f"{name:14s} compile {compile_s:6.1f} s  error {err:.1e}  eager {te * 1e3:8.3f} ms  "
              f"loopopt {tc * 1e3:8.3f} ms  x {tc / te:5.2f}  {'; '.join(fell)}", flush=True)
        if args.phases:
            print(f"    {compile_s:8.3f} {compile_cpu[0]:8.3f} {compile_cpu[1]:8.3f}  compile (the first call)", flush=True)
            print(phase_summary(phase_file), flush=True)
            os.remove(phase_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
