// elementwise: tanh/sigmoid/exp chain on 1024x1024. Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @elementwise(%arg0: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant 1.700000e+00 : f64
    %cst_1 = arith.constant 2.500000e-01 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<1024x1024xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.tanh %in : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.truncf %cst_0 : f64 to f32
      %14 = arith.mulf %in, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<1024x1024xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.negf %in : f32
      %14 = math.exp %13 : f32
      %15 = arith.addf %14, %cst : f32
      %16 = arith.divf %cst, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<1024x1024xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %3 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %13 = arith.mulf %in, %in_3 : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.mulf %in, %cst_1 : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %5 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %13 = arith.addf %in, %in_3 : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.negf %in : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %6 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %13 = arith.mulf %in, %in_3 : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.exp %in : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %1 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %13 = arith.mulf %in, %in_3 : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.mulf %in, %cst_2 : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %11 : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%0 : tensor<1024x1024xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %13 = arith.subf %in, %in_3 : f32
      linalg.yield %13 : f32
    } -> tensor<1024x1024xf32>
    return %12 : tensor<1024x1024xf32>
  }
}
