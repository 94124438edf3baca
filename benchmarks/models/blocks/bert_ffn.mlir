// bert_ffn: BERT feed-forward: Linear 768->3072, GELU (erf), Linear 3072->768 on 128x768; weights and biases are inputs (x, w1, b1, w2, b2). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @bert_ffn(%arg0: tensor<128x768xf32>, %arg1: tensor<3072x768xf32>, %arg2: tensor<3072xf32>, %arg3: tensor<768x3072xf32>, %arg4: tensor<768xf32>) -> tensor<128x768xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant 1.41421354 : f32
    %0 = tensor.empty() : tensor<768x3072xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<3072x768xf32>) outs(%0 : tensor<768x3072xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<128x3072xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%2 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<128x3072xf32>, tensor<3072xf32>) outs(%1 : tensor<128x3072xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %11 = arith.addf %in, %in_4 : f32
      linalg.yield %11 : f32
    } -> tensor<128x3072xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<128x3072xf32>) outs(%1 : tensor<128x3072xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.divf %in, %cst_2 : f32
      %12 = math.erf %11 : f32
      %13 = arith.addf %12, %cst_0 : f32
      %14 = arith.mulf %13, %cst_1 : f32
      %15 = arith.mulf %in, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<128x3072xf32>
    %6 = tensor.empty() : tensor<3072x768xf32>
    %transposed_3 = linalg.transpose ins(%arg3 : tensor<768x3072xf32>) outs(%6 : tensor<3072x768xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<128x768xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %9 = linalg.matmul ins(%5, %transposed_3 : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%8 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg4 : tensor<128x768xf32>, tensor<768xf32>) outs(%7 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %11 = arith.addf %in, %in_4 : f32
      linalg.yield %11 : f32
    } -> tensor<128x768xf32>
    return %10 : tensor<128x768xf32>
  }
}
