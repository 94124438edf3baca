// gan_upsample_small: DCGAN generator stage: ConvTranspose2d k4 stride 2 pad 1 8->4 (no bias), BatchNorm (eval), ReLU on 2x8x6x6 -> 12x12; weights are inputs (x, w, mean, var, bn_w, bn_b). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  func.func @gan_upsample_small(%arg0: tensor<2x8x6x6xf32>, %arg1: tensor<8x4x4x4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4xf32>, %arg4: tensor<4xf32>, %arg5: tensor<4xf32>) -> tensor<2x4x12x12xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 0.17677669529663687 : f64
    %c3 = arith.constant 3 : index
    %cst_3 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<8x4x4x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<8x4x4x4xf32>) outs(%0 : tensor<8x4x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.truncf %cst_2 : f64 to f32
      %22 = arith.mulf %in, %21 : f32
      linalg.yield %22 : f32
    } -> tensor<8x4x4x4xf32>
    %2 = tensor.empty() : tensor<4x8x4x4xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4x8x4x4xf32>) -> tensor<4x8x4x4xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%3 : tensor<4x8x4x4xf32>) {
    ^bb0(%out: f32):
      %21 = linalg.index 0 : index
      %22 = linalg.index 1 : index
      %23 = linalg.index 2 : index
      %24 = linalg.index 3 : index
      %25 = arith.subi %c3, %23 : index
      %26 = arith.subi %c3, %24 : index
      %extracted = tensor.extract %1[%22, %21, %25, %26] : tensor<8x4x4x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x8x4x4xf32>
    %5 = tensor.empty() : tensor<2x8x15x15xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<2x8x15x15xf32>) -> tensor<2x8x15x15xf32>
    %inserted_slice = tensor.insert_slice %arg0 into %6[0, 0, 2, 2] [2, 8, 6, 6] [1, 1, 2, 2] : tensor<2x8x6x6xf32> into tensor<2x8x15x15xf32>
    %7 = tensor.empty() : tensor<2x4x12x12xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<2x4x12x12xf32>) -> tensor<2x4x12x12xf32>
    %9 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%inserted_slice, %4 : tensor<2x8x15x15xf32>, tensor<4x8x4x4xf32>) outs(%8 : tensor<2x4x12x12xf32>) -> tensor<2x4x12x12xf32>
    %10 = tensor.empty() : tensor<4xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%arg3 : tensor<4xf32>) outs(%10 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = math.absf %in : f32
      linalg.yield %21 : f32
    } -> tensor<4xf32>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%11 : tensor<4xf32>) outs(%10 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.addf %in, %cst_3 : f32
      linalg.yield %21 : f32
    } -> tensor<4xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%12 : tensor<4xf32>) outs(%10 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.truncf %cst_1 : f64 to f32
      %22 = arith.addf %in, %21 : f32
      linalg.yield %22 : f32
    } -> tensor<4xf32>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%13 : tensor<4xf32>) outs(%10 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = math.sqrt %in : f32
      linalg.yield %21 : f32
    } -> tensor<4xf32>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%14 : tensor<4xf32>) outs(%10 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.cmpf one, %in, %cst : f32
      cf.assert %21, "unimplemented: tensor with zero element"
      %22 = arith.divf %cst_0, %in : f32
      linalg.yield %22 : f32
    } -> tensor<4xf32>
    %expanded = tensor.expand_shape %arg2 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %expanded_4 = tensor.expand_shape %15 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9, %expanded : tensor<2x4x12x12xf32>, tensor<4x1x1xf32>) outs(%7 : tensor<2x4x12x12xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %21 = arith.subf %in, %in_7 : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x12x12xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %expanded_4 : tensor<2x4x12x12xf32>, tensor<4x1x1xf32>) outs(%7 : tensor<2x4x12x12xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %21 = arith.mulf %in, %in_7 : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x12x12xf32>
    %expanded_5 = tensor.expand_shape %arg4 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %expanded_5 : tensor<2x4x12x12xf32>, tensor<4x1x1xf32>) outs(%7 : tensor<2x4x12x12xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %21 = arith.mulf %in, %in_7 : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x12x12xf32>
    %expanded_6 = tensor.expand_shape %arg5 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %expanded_6 : tensor<2x4x12x12xf32>, tensor<4x1x1xf32>) outs(%7 : tensor<2x4x12x12xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %21 = arith.addf %in, %in_7 : f32
      linalg.yield %21 : f32
    } -> tensor<2x4x12x12xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19 : tensor<2x4x12x12xf32>) outs(%7 : tensor<2x4x12x12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %21 = arith.cmpf ugt, %in, %cst : f32
      %22 = arith.select %21, %in, %cst : f32
      linalg.yield %22 : f32
    } -> tensor<2x4x12x12xf32>
    return %20 : tensor<2x4x12x12xf32>
  }
}
