// reduce_dim0: x.sum(0) and (x * x).mean(0) of 1024x1024 (reductions over the outer dim). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
module {
  func.func @reduce_dim0(%arg0: tensor<1024x1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.024000e+03 : f32
    %0 = tensor.empty() : tensor<1024xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1024xf32>) -> tensor<1024xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<1024x1024xf32>) outs(%1 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %out : f32
      linalg.yield %7 : f32
    } -> tensor<1024xf32>
    %3 = tensor.empty() : tensor<1024x1024xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg0 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%3 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %7 = arith.mulf %in, %in_1 : f32
      linalg.yield %7 : f32
    } -> tensor<1024x1024xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%4 : tensor<1024x1024xf32>) outs(%1 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %out : f32
      linalg.yield %7 : f32
    } -> tensor<1024xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%5 : tensor<1024xf32>) outs(%0 : tensor<1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.divf %in, %cst_0 : f32
      linalg.yield %7 : f32
    } -> tensor<1024xf32>
    return %2, %6 : tensor<1024xf32>, tensor<1024xf32>
  }
}
