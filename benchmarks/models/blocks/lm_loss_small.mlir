// lm_loss_small: F.cross_entropy (mean) over 4x75 logits (a GPT-2 vocabulary), i64 targets (input 1, taken modulo 75). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
module {
  func.func @lm_loss_small(%arg0: tensor<4x75xf32>, %arg1: tensor<4xi64>) -> tensor<f32> {
    %c-100_i64 = arith.constant -100 : i64
    %c75_i64 = arith.constant 75 : i64
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %c75 = arith.constant 75 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<4xi64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%0 : tensor<4xi64>) {
    ^bb0(%in: i64, %out: i64):
      %28 = arith.remsi %in, %c75_i64 : i64
      %29 = arith.cmpi ne, %28, %c0_i64 : i64
      %30 = arith.cmpi slt, %28, %c0_i64 : i64
      %31 = arith.andi %29, %30 : i1
      %32 = arith.addi %28, %c75_i64 : i64
      %33 = arith.select %31, %32, %28 : i64
      linalg.yield %33 : i64
    } -> tensor<4xi64>
    %2 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<4xi64>) -> tensor<4xi64>
    %3 = tensor.empty() : tensor<4xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4xf32>) -> tensor<4xf32>
    %5:2 = linalg.generic {indexing_maps = [#map1, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x75xf32>) outs(%4, %2 : tensor<4xf32>, tensor<4xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %28 = linalg.index 1 : index
      %29 = arith.index_cast %28 : index to i64
      %30 = arith.maximumf %in, %out : f32
      %31 = arith.cmpf ogt, %in, %out : f32
      %32 = arith.select %31, %29, %out_4 : i64
      linalg.yield %30, %32 : f32, i64
    } -> (tensor<4xf32>, tensor<4xi64>)
    %expanded = tensor.expand_shape %5#0 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %6 = tensor.empty() : tensor<4x75xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<4x75xf32>, tensor<4x1xf32>) outs(%6 : tensor<4x75xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %28 = arith.subf %in, %in_4 : f32
      linalg.yield %28 : f32
    } -> tensor<4x75xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<4x75xf32>) outs(%6 : tensor<4x75xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = math.exp %in : f32
      linalg.yield %28 : f32
    } -> tensor<4x75xf32>
    %9 = tensor.empty() : tensor<4x1xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map3], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<4x75xf32>) outs(%10 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.addf %in, %out : f32
      linalg.yield %28 : f32
    } -> tensor<4x1xf32>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<4x1xf32>) outs(%9 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = math.log %in : f32
      linalg.yield %28 : f32
    } -> tensor<4x1xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel"]} ins(%7, %12 : tensor<4x75xf32>, tensor<4x1xf32>) outs(%6 : tensor<4x75xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %28 = arith.subf %in, %in_4 : f32
      linalg.yield %28 : f32
    } -> tensor<4x75xf32>
    %14 = tensor.empty() : tensor<4xi1>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<4xi64>) outs(%14 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %28 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %28 : i1
    } -> tensor<4xi1>
    %16 = linalg.generic {indexing_maps = [#map, #map, #map4, #map], iterator_types = ["parallel"]} ins(%15, %1, %cst_2 : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%0 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_4: i64, %in_5: i64, %out: i64):
      %28 = arith.select %in, %in_4, %in_5 : i64
      linalg.yield %28 : i64
    } -> tensor<4xi64>
    %expanded_3 = tensor.expand_shape %16 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %17 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%expanded_3 : tensor<4x1xi64>) outs(%10 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %28 = linalg.index 0 : index
      %29 = arith.index_cast %in : i64 to index
      %30 = arith.cmpi slt, %29, %c75 : index
      cf.assert %30, "index must be smaller than dim size"
      %31 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %31, "index must be larger or equal to 0"
      %extracted = tensor.extract %13[%28, %29] : tensor<4x75xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %17 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.negf %in : f32
      linalg.yield %28 : f32
    } -> tensor<4xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map, #map4, #map], iterator_types = ["parallel"]} ins(%15, %18, %cst_1 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %28 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %28 : f32
    } -> tensor<4xf32>
    %20 = tensor.empty() : tensor<i64>
    %21 = linalg.fill ins(%c0_i64 : i64) outs(%20 : tensor<i64>) -> tensor<i64>
    %22 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction"]} ins(%15 : tensor<4xi1>) outs(%21 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %28 = arith.extui %in : i1 to i64
      %29 = arith.addi %28, %out : i64
      linalg.yield %29 : i64
    } -> tensor<i64>
    %23 = tensor.empty() : tensor<f32>
    %24 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%22 : tensor<i64>) outs(%23 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %28 = arith.sitofp %in : i64 to f32
      linalg.yield %28 : f32
    } -> tensor<f32>
    %25 = linalg.fill ins(%cst_0 : f32) outs(%23 : tensor<f32>) -> tensor<f32>
    %26 = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["reduction"]} ins(%19 : tensor<4xf32>) outs(%25 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.addf %in, %out : f32
      linalg.yield %28 : f32
    } -> tensor<f32>
    %27 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%26, %24 : tensor<f32>, tensor<f32>) outs(%23 : tensor<f32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %28 = arith.divf %in, %in_4 : f32
      linalg.yield %28 : f32
    } -> tensor<f32>
    return %27 : tensor<f32>
  }
}
