"""PyTorch's fused inference fast paths, written as the ops they fuse, for torch.export.

`nn.TransformerEncoderLayer` in eval mode under `torch.no_grad()` (batch_first, no dropout, ...)
calls one fused op, `torch._transformer_encoder_layer_fwd`, which TorchDynamo keeps in the graph
and torch-mlir cannot lower: every encoder layer would run eagerly. `unfuse(gm)` returns a copy
of the graph with each such call (without a mask) replaced by `encoder_layer`, the same layer
as the module's own slow path computes it (self-attention through
`scaled_dot_product_attention`, the feed-forward block, the two layer norms, post- or pre-norm),
so the export sees the aten ops it lowers. Results match eager's fused op up to rounding (a
different order of the same sums). A call with a mask (mask_type: an attention or key padding
mask, which the fused op may also turn into nested tensors) is left as it is: its graph then
falls back with the op named.
"""
from __future__ import annotations


def encoder_layer(src, embed_dim: int, num_heads: int, qkv_weight, qkv_bias, proj_weight, proj_bias,
                  use_gelu: bool, norm_first: bool, eps: float, norm_weight_1, norm_bias_1, norm_weight_2,
                  norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None):
    """`torch._transformer_encoder_layer_fwd` without a mask: src is (batch, sequence, embed_dim)."""
    import torch.nn.functional as F

    if mask is not None:
        raise ValueError("encoder_layer: a mask is not taken (unfuse leaves such calls alone)")

    def attention(x):
        b, s, e = x.shape
        qkv = F.linear(x, qkv_weight, qkv_bias).view(b, s, 3, num_heads, e // num_heads).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2])
        return F.linear(o.transpose(1, 2).reshape(b, s, e), proj_weight, proj_bias)

    def feed_forward(x):
        h = F.linear(x, ffn_weight_1, ffn_bias_1)
        return F.linear(F.gelu(h) if use_gelu else F.relu(h), ffn_weight_2, ffn_bias_2)

    norm1 = (embed_dim,)
    if norm_first:
        x = src + attention(F.layer_norm(src, norm1, norm_weight_1, norm_bias_1, eps))
        return x + feed_forward(F.layer_norm(x, norm1, norm_weight_2, norm_bias_2, eps))
    x = F.layer_norm(src + attention(src), norm1, norm_weight_1, norm_bias_1, eps)
    return F.layer_norm(x + feed_forward(x), norm1, norm_weight_2, norm_bias_2, eps)


MASK_ARG = 18  # the position of `mask` in _transformer_encoder_layer_fwd's arguments


def _fused_encoder_layer(node) -> bool:
    import torch

    return node.op == "call_function" and node.target is torch._transformer_encoder_layer_fwd


def _has_mask(node) -> bool:
    mask = node.args[MASK_ARG] if len(node.args) > MASK_ARG else node.kwargs.get("mask")
    return mask is not None


def fused_calls(gm) -> list:
    """The graph's calls of fused fast paths `unfuse` takes (an encoder layer without a mask)."""
    return [n for n in gm.graph.nodes if _fused_encoder_layer(n) and not _has_mask(n)]


def unfuse(gm):
    """`gm` itself when it calls no fused fast path unfuse takes, else a copy calling
    `encoder_layer` in their place."""
    import copy

    import torch

    if not fused_calls(gm):
        return gm
    graph = copy.deepcopy(gm.graph)
    for node in graph.nodes:
        if _fused_encoder_layer(node) and not _has_mask(node):
            node.target = encoder_layer
    return torch.fx.GraphModule(gm, graph)
