// upsample_block: decoder upsampling: ConvTranspose2d k4 stride 2 pad 1 64->32, BatchNorm (eval), ReLU on 1x64x32x32 -> 64x64; weights are inputs (x, w, b, mean, var, bn_w, bn_b). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  func.func @upsample_block(%arg0: tensor<1x64x32x32xf32>, %arg1: tensor<64x32x4x4xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32xf32>, %arg6: tensor<32xf32>) -> tensor<1x32x64x64xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 6.250000e-02 : f32
    %c3 = arith.constant 3 : index
    %cst_3 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<64x32x4x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<64x32x4x4xf32>) outs(%0 : tensor<64x32x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.mulf %in, %cst_2 : f32
      linalg.yield %20 : f32
    } -> tensor<64x32x4x4xf32>
    %2 = tensor.empty() : tensor<32x64x4x4xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<32x64x4x4xf32>) -> tensor<32x64x4x4xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%3 : tensor<32x64x4x4xf32>) {
    ^bb0(%out: f32):
      %20 = linalg.index 0 : index
      %21 = linalg.index 1 : index
      %22 = linalg.index 2 : index
      %23 = linalg.index 3 : index
      %24 = arith.subi %c3, %22 : index
      %25 = arith.subi %c3, %23 : index
      %extracted = tensor.extract %1[%21, %20, %24, %25] : tensor<64x32x4x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<32x64x4x4xf32>
    %5 = tensor.empty() : tensor<1x64x67x67xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<1x64x67x67xf32>) -> tensor<1x64x67x67xf32>
    %inserted_slice = tensor.insert_slice %arg0 into %6[0, 0, 2, 2] [1, 64, 32, 32] [1, 1, 2, 2] : tensor<1x64x32x32xf32> into tensor<1x64x67x67xf32>
    %7 = tensor.empty() : tensor<1x32x64x64xf32>
    %broadcasted = linalg.broadcast ins(%arg2 : tensor<32xf32>) outs(%7 : tensor<1x32x64x64xf32>) dimensions = [0, 2, 3] 
    %8 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%inserted_slice, %4 : tensor<1x64x67x67xf32>, tensor<32x64x4x4xf32>) outs(%broadcasted : tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
    %9 = tensor.empty() : tensor<32xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%arg4 : tensor<32xf32>) outs(%9 : tensor<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = math.absf %in : f32
      linalg.yield %20 : f32
    } -> tensor<32xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%10 : tensor<32xf32>) outs(%9 : tensor<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.addf %in, %cst_3 : f32
      linalg.yield %20 : f32
    } -> tensor<32xf32>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%11 : tensor<32xf32>) outs(%9 : tensor<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.truncf %cst_1 : f64 to f32
      %21 = arith.addf %in, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<32xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%12 : tensor<32xf32>) outs(%9 : tensor<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = math.sqrt %in : f32
      linalg.yield %20 : f32
    } -> tensor<32xf32>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%13 : tensor<32xf32>) outs(%9 : tensor<32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.cmpf one, %in, %cst : f32
      cf.assert %20, "unimplemented: tensor with zero element"
      %21 = arith.divf %cst_0, %in : f32
      linalg.yield %21 : f32
    } -> tensor<32xf32>
    %expanded = tensor.expand_shape %arg3 [[0, 1, 2]] output_shape [32, 1, 1] : tensor<32xf32> into tensor<32x1x1xf32>
    %expanded_4 = tensor.expand_shape %14 [[0, 1, 2]] output_shape [32, 1, 1] : tensor<32xf32> into tensor<32x1x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %expanded : tensor<1x32x64x64xf32>, tensor<32x1x1xf32>) outs(%7 : tensor<1x32x64x64xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %20 = arith.subf %in, %in_7 : f32
      linalg.yield %20 : f32
    } -> tensor<1x32x64x64xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15, %expanded_4 : tensor<1x32x64x64xf32>, tensor<32x1x1xf32>) outs(%7 : tensor<1x32x64x64xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %20 = arith.mulf %in, %in_7 : f32
      linalg.yield %20 : f32
    } -> tensor<1x32x64x64xf32>
    %expanded_5 = tensor.expand_shape %arg5 [[0, 1, 2]] output_shape [32, 1, 1] : tensor<32xf32> into tensor<32x1x1xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %expanded_5 : tensor<1x32x64x64xf32>, tensor<32x1x1xf32>) outs(%7 : tensor<1x32x64x64xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %20 = arith.mulf %in, %in_7 : f32
      linalg.yield %20 : f32
    } -> tensor<1x32x64x64xf32>
    %expanded_6 = tensor.expand_shape %arg6 [[0, 1, 2]] output_shape [32, 1, 1] : tensor<32xf32> into tensor<32x1x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %expanded_6 : tensor<1x32x64x64xf32>, tensor<32x1x1xf32>) outs(%7 : tensor<1x32x64x64xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %20 = arith.addf %in, %in_7 : f32
      linalg.yield %20 : f32
    } -> tensor<1x32x64x64xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x32x64x64xf32>) outs(%7 : tensor<1x32x64x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.cmpf ugt, %in, %cst : f32
      %21 = arith.select %20, %in, %cst : f32
      linalg.yield %21 : f32
    } -> tensor<1x32x64x64xf32>
    return %19 : tensor<1x32x64x64xf32>
  }
}
