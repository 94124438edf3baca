// sdpa: F.scaled_dot_product_attention on 4x256x64. Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
module {
  func.func @sdpa(%arg0: tensor<4x256x64xf32>, %arg1: tensor<4x256x64xf32>, %arg2: tensor<4x256x64xf32>) -> tensor<4x256x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<4x256x256xf32>
    %cst_2 = arith.constant 0xFFF0000000000000 : f64
    %cst_3 = arith.constant 0.35355339059327379 : f64
    %0 = tensor.empty() : tensor<4x256x64xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<4x256x64xf32>) outs(%0 : tensor<4x256x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.truncf %cst_3 : f64 to f32
      %27 = arith.mulf %in, %26 : f32
      linalg.yield %27 : f32
    } -> tensor<4x256x64xf32>
    %2 = tensor.empty() : tensor<4x64x256xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<4x256x64xf32>) outs(%2 : tensor<4x64x256xf32>) permutation = [0, 2, 1] 
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed : tensor<4x64x256xf32>) outs(%2 : tensor<4x64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.truncf %cst_3 : f64 to f32
      %27 = arith.mulf %in, %26 : f32
      linalg.yield %27 : f32
    } -> tensor<4x64x256xf32>
    %4 = tensor.empty() : tensor<4x256x256xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
    %6 = linalg.batch_matmul ins(%1, %3 : tensor<4x256x64xf32>, tensor<4x64x256xf32>) outs(%5 : tensor<4x256x256xf32>) -> tensor<4x256x256xf32>
    %7 = tensor.empty() : tensor<4x256xi64>
    %8 = linalg.fill ins(%c0_i64 : i64) outs(%7 : tensor<4x256xi64>) -> tensor<4x256xi64>
    %9 = tensor.empty() : tensor<4x256xf32>
    %10 = linalg.fill ins(%cst_0 : f32) outs(%9 : tensor<4x256xf32>) -> tensor<4x256xf32>
    %11:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%6 : tensor<4x256x256xf32>) outs(%10, %8 : tensor<4x256xf32>, tensor<4x256xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %26 = linalg.index 2 : index
      %27 = arith.index_cast %26 : index to i64
      %28 = arith.maximumf %in, %out : f32
      %29 = arith.cmpf ogt, %in, %out : f32
      %30 = arith.select %29, %27, %out_4 : i64
      linalg.yield %28, %30 : f32, i64
    } -> (tensor<4x256xf32>, tensor<4x256xi64>)
    %expanded = tensor.expand_shape %11#0 [[0], [1, 2]] output_shape [4, 256, 1] : tensor<4x256xf32> into tensor<4x256x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %expanded : tensor<4x256x256xf32>, tensor<4x256x1xf32>) outs(%4 : tensor<4x256x256xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %26 = arith.subf %in, %in_4 : f32
      linalg.yield %26 : f32
    } -> tensor<4x256x256xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12 : tensor<4x256x256xf32>) outs(%4 : tensor<4x256x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = math.exp %in : f32
      linalg.yield %26 : f32
    } -> tensor<4x256x256xf32>
    %14 = tensor.empty() : tensor<4x256x1xf32>
    %15 = linalg.fill ins(%cst : f32) outs(%14 : tensor<4x256x1xf32>) -> tensor<4x256x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%13 : tensor<4x256x256xf32>) outs(%15 : tensor<4x256x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.addf %in, %out : f32
      linalg.yield %26 : f32
    } -> tensor<4x256x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %16 : tensor<4x256x256xf32>, tensor<4x256x1xf32>) outs(%4 : tensor<4x256x256xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %26 = arith.divf %in, %in_4 : f32
      linalg.yield %26 : f32
    } -> tensor<4x256x256xf32>
    %18 = tensor.empty() : tensor<4x256x256xi1>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<4x256x256xf32>) outs(%18 : tensor<4x256x256xi1>) {
    ^bb0(%in: f32, %out: i1):
      %26 = arith.extf %in : f32 to f64
      %27 = arith.cmpf oeq, %26, %cst_2 : f64
      linalg.yield %27 : i1
    } -> tensor<4x256x256xi1>
    %20 = tensor.empty() : tensor<4x256x1xi1>
    %21 = linalg.fill ins(%true : i1) outs(%20 : tensor<4x256x1xi1>) -> tensor<4x256x1xi1>
    %22 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%19 : tensor<4x256x256xi1>) outs(%21 : tensor<4x256x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %26 = arith.andi %in, %out : i1
      linalg.yield %26 : i1
    } -> tensor<4x256x1xi1>
    %23 = linalg.generic {indexing_maps = [#map2, #map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%22, %cst_1, %17 : tensor<4x256x1xi1>, tensor<4x256x256xf32>, tensor<4x256x256xf32>) outs(%4 : tensor<4x256x256xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %26 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %26 : f32
    } -> tensor<4x256x256xf32>
    %24 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
    %25 = linalg.batch_matmul ins(%23, %arg2 : tensor<4x256x256xf32>, tensor<4x256x64xf32>) outs(%24 : tensor<4x256x64xf32>) -> tensor<4x256x64xf32>
    return %25 : tensor<4x256x64xf32>
  }
}
