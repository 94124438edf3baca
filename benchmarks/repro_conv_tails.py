"""Reproductions of docs/cpu_codegen.md section 44: 3x3 convolutions and stride-2 depthwise
convolutions (+ ReLU) as torch-mlir emits them (linalg on tensors, batch 1, NCHW, the padded input
and the weights arguments) at several output widths, written to a directory:

    python3 benchmarks/repro_conv_tails.py DIR

then per program `loopopt DIR/X.mlir --target cpu -o X.B.mlir` (and the same with the base commit
for X.A.mlir) and `python3 benchmarks/paired.py X.A.mlir X.B.mlir k --pairs 10 [--flush-mib 128]`.
"""
from __future__ import annotations

import os
import sys

RELU = """    %r = linalg.generic {{indexing_maps = [affine_map<(a,b,c,d)->(a,b,c,d)>, affine_map<(a,b,c,d)->(a,b,c,d)>], iterator_types = ["parallel","parallel","parallel","parallel"]}} ins(%c : {t}) outs(%e : {t}) {{
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %z : f32
      linalg.yield %m : f32
    }} -> {t}
    return %r : {t}
  }}
}}
"""


def conv(cin: int, cout: int, width: int, k: int = 3) -> str:
    """A k x k convolution cin -> cout, stride 1, over a (width + k - 1)^2 padded input."""
    h = width + k - 1
    t = f"tensor<1x{cout}x{width}x{width}xf32>"
    return f"""module {{
  func.func @k(%X: tensor<1x{cin}x{h}x{h}xf32>, %W: tensor<{cout}x{cin}x{k}x{k}xf32>) -> {t} {{
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : {t}
    %f = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}
    %c = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} ins(%X, %W : tensor<1x{cin}x{h}x{h}xf32>, tensor<{cout}x{cin}x{k}x{k}xf32>) outs(%f : {t}) -> {t}
""" + RELU.format(t=t)


def depthwise(c: int, width: int, k: int = 3, s: int = 2) -> str:
    """A k x k depthwise convolution of stride s over c channels, `width` output columns."""
    h = (width - 1) * s + k
    t = f"tensor<1x{c}x{width}x{width}xf32>"
    return f"""module {{
  func.func @k(%X: tensor<1x{c}x{h}x{h}xf32>, %W: tensor<{c}x{k}x{k}xf32>) -> {t} {{
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : {t}
    %f = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}
    %c = linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : vector<2xi64>, strides = dense<{s}> : vector<2xi64>}} ins(%X, %W : tensor<1x{c}x{h}x{h}xf32>, tensor<{c}x{k}x{k}xf32>) outs(%f : {t}) -> {t}
""" + RELU.format(t=t)


CONVS = [(128, 64, 56), (64, 64, 7), (64, 64, 14), (64, 128, 28), (64, 64, 100), (256, 256, 14), (128, 128, 24),
         (64, 64, 40), (64, 64, 24), (32, 64, 24)]
DEPTHWISE = [(192, 7), (144, 14), (96, 28), (32, 56), (64, 7), (256, 7), (576, 7), (128, 7)]


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for cin, cout, w in CONVS:
        with open(os.path.join(out, f"conv_{cin}_{cout}_{w}.mlir"), "w") as f:
            f.write(conv(cin, cout, w))
    for c, w in DEPTHWISE:
        with open(os.path.join(out, f"dw_{c}_{w}.mlir"), "w") as f:
            f.write(depthwise(c, w))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "conv_tails")
