// bn_stats: torch.var_mean over dims 0, 2, 3 (batch-norm statistics) of relu(x), x 32x64x28x28. Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1)>
#map3 = affine_map<(d0) -> (d0)>
module {
  func.func @bn_stats(%arg0: tensor<32x64x28x28xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f64
    %cst_1 = arith.constant 2.508800e+04 : f64
    %cst_2 = arith.constant 2.508800e+04 : f32
    %0 = tensor.empty() : tensor<32x64x28x28xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<32x64x28x28xf32>) outs(%0 : tensor<32x64x28x28xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.cmpf ugt, %in, %cst : f32
      %20 = arith.select %19, %in, %cst : f32
      linalg.yield %20 : f32
    } -> tensor<32x64x28x28xf32>
    %2 = tensor.empty() : tensor<32x64x28x28xf64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<32x64x28x28xf32>) outs(%2 : tensor<32x64x28x28xf64>) {
    ^bb0(%in: f32, %out: f64):
      %19 = arith.extf %in : f32 to f64
      linalg.yield %19 : f64
    } -> tensor<32x64x28x28xf64>
    %4 = tensor.empty() : tensor<1x64x1x1xf64>
    %5 = linalg.fill ins(%cst_0 : f64) outs(%4 : tensor<1x64x1x1xf64>) -> tensor<1x64x1x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%3 : tensor<32x64x28x28xf64>) outs(%5 : tensor<1x64x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %19 = arith.addf %in, %out : f64
      linalg.yield %19 : f64
    } -> tensor<1x64x1x1xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<1x64x1x1xf64>) outs(%4 : tensor<1x64x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %19 = arith.divf %in, %cst_1 : f64
      linalg.yield %19 : f64
    } -> tensor<1x64x1x1xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %7 : tensor<32x64x28x28xf64>, tensor<1x64x1x1xf64>) outs(%2 : tensor<32x64x28x28xf64>) {
    ^bb0(%in: f64, %in_3: f64, %out: f64):
      %19 = arith.subf %in, %in_3 : f64
      linalg.yield %19 : f64
    } -> tensor<32x64x28x28xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %8 : tensor<32x64x28x28xf64>, tensor<32x64x28x28xf64>) outs(%2 : tensor<32x64x28x28xf64>) {
    ^bb0(%in: f64, %in_3: f64, %out: f64):
      %19 = arith.mulf %in, %in_3 : f64
      linalg.yield %19 : f64
    } -> tensor<32x64x28x28xf64>
    %10 = tensor.empty() : tensor<64xf64>
    %11 = linalg.fill ins(%cst_0 : f64) outs(%10 : tensor<64xf64>) -> tensor<64xf64>
    %12 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%9 : tensor<32x64x28x28xf64>) outs(%11 : tensor<64xf64>) {
    ^bb0(%in: f64, %out: f64):
      %19 = arith.addf %in, %out : f64
      linalg.yield %19 : f64
    } -> tensor<64xf64>
    %13 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%12 : tensor<64xf64>) outs(%10 : tensor<64xf64>) {
    ^bb0(%in: f64, %out: f64):
      %19 = arith.divf %in, %cst_1 : f64
      linalg.yield %19 : f64
    } -> tensor<64xf64>
    %14 = tensor.empty() : tensor<64xf32>
    %15 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%13 : tensor<64xf64>) outs(%14 : tensor<64xf32>) {
    ^bb0(%in: f64, %out: f32):
      %19 = arith.truncf %in : f64 to f32
      linalg.yield %19 : f32
    } -> tensor<64xf32>
    %16 = linalg.fill ins(%cst : f32) outs(%14 : tensor<64xf32>) -> tensor<64xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%1 : tensor<32x64x28x28xf32>) outs(%16 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.addf %in, %out : f32
      linalg.yield %19 : f32
    } -> tensor<64xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%17 : tensor<64xf32>) outs(%14 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.divf %in, %cst_2 : f32
      linalg.yield %19 : f32
    } -> tensor<64xf32>
    return %15, %18 : tensor<64xf32>, tensor<64xf32>
  }
}
