// pool_head: classifier head: global average pool, flatten, Linear 512->1000 on 32x512x7x7 (ResNet-18's); weights are inputs (x, w, b). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @pool_head(%arg0: tensor<32x512x7x7xf32>, %arg1: tensor<1000x512xf32>, %arg2: tensor<1000xf32>) -> tensor<32x1000xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.044194173824159216 : f64
    %cst_1 = arith.constant 4.900000e+01 : f32
    %0 = tensor.empty() : tensor<32x512x1x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<32x512x1x1xf32>) -> tensor<32x512x1x1xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0 : tensor<32x512x7x7xf32>) outs(%1 : tensor<32x512x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.addf %in, %out : f32
      linalg.yield %11 : f32
    } -> tensor<32x512x1x1xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<32x512x1x1xf32>) outs(%0 : tensor<32x512x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.divf %in, %cst_1 : f32
      linalg.yield %11 : f32
    } -> tensor<32x512x1x1xf32>
    %collapsed = tensor.collapse_shape %3 [[0], [1, 2, 3]] : tensor<32x512x1x1xf32> into tensor<32x512xf32>
    %4 = tensor.empty() : tensor<1000x512xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<1000x512xf32>) outs(%4 : tensor<1000x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.truncf %cst_0 : f64 to f32
      %12 = arith.mulf %in, %11 : f32
      linalg.yield %12 : f32
    } -> tensor<1000x512xf32>
    %6 = tensor.empty() : tensor<512x1000xf32>
    %transposed = linalg.transpose ins(%5 : tensor<1000x512xf32>) outs(%6 : tensor<512x1000xf32>) permutation = [1, 0] 
    %7 = tensor.empty() : tensor<32x1000xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<32x1000xf32>) -> tensor<32x1000xf32>
    %9 = linalg.matmul ins(%collapsed, %transposed : tensor<32x512xf32>, tensor<512x1000xf32>) outs(%8 : tensor<32x1000xf32>) -> tensor<32x1000xf32>
    %10 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%9, %arg2 : tensor<32x1000xf32>, tensor<1000xf32>) outs(%7 : tensor<32x1000xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %11 = arith.addf %in, %in_2 : f32
      linalg.yield %11 : f32
    } -> tensor<32x1000xf32>
    return %10 : tensor<32x1000xf32>
  }
}
