// bert_ffn_small: BERT feed-forward: Linear 16->64, GELU (erf), Linear 64->16 on 8x16; weights and biases are inputs (x, w1, b1, w2, b2). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @bert_ffn_small(%arg0: tensor<8x16xf32>, %arg1: tensor<64x16xf32>, %arg2: tensor<64xf32>, %arg3: tensor<16x64xf32>, %arg4: tensor<16xf32>) -> tensor<8x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant 1.41421354 : f32
    %0 = tensor.empty() : tensor<16x64xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<64x16xf32>) outs(%0 : tensor<16x64xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<8x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<8x16xf32>, tensor<16x64xf32>) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<8x64xf32>, tensor<64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %11 = arith.addf %in, %in_4 : f32
      linalg.yield %11 : f32
    } -> tensor<8x64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x64xf32>) outs(%1 : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.divf %in, %cst_2 : f32
      %12 = math.erf %11 : f32
      %13 = arith.addf %12, %cst_0 : f32
      %14 = arith.mulf %13, %cst_1 : f32
      %15 = arith.mulf %in, %14 : f32
      linalg.yield %15 : f32
    } -> tensor<8x64xf32>
    %6 = tensor.empty() : tensor<64x16xf32>
    %transposed_3 = linalg.transpose ins(%arg3 : tensor<16x64xf32>) outs(%6 : tensor<64x16xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<8x16xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %9 = linalg.matmul ins(%5, %transposed_3 : tensor<8x64xf32>, tensor<64x16xf32>) outs(%8 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg4 : tensor<8x16xf32>, tensor<16xf32>) outs(%7 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %11 = arith.addf %in, %in_4 : f32
      linalg.yield %11 : f32
    } -> tensor<8x16xf32>
    return %10 : tensor<8x16xf32>
  }
}
