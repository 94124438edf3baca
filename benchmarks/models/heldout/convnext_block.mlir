// convnext_block: ConvNeXt block: 7x7 depthwise conv 128 (pad 3), channels last, LayerNorm(128), Linear 128->512, GELU (erf), Linear 512->128, layer scale, + x on 1x128x28x28; weights are inputs (x, dw, dw_b, ln_w, ln_b, w1, b1, w2, b2, gamma). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d3)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @convnext_block(%arg0: tensor<1x128x28x28xf32>, %arg1: tensor<128x1x7x7xf32>, %arg2: tensor<128xf32>, %arg3: tensor<128xf32>, %arg4: tensor<128xf32>, %arg5: tensor<512x128xf32>, %arg6: tensor<512xf32>, %arg7: tensor<128x512xf32>, %arg8: tensor<128xf32>, %arg9: tensor<128xf32>) -> tensor<1x128x28x28xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f64
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %cst_3 = arith.constant 0.044194173824159216 : f64
    %cst_4 = arith.constant 0.088388347648318433 : f64
    %cst_5 = arith.constant 9.9999999999999995E-7 : f64
    %cst_6 = arith.constant 0.14285714285714285 : f64
    %cst_7 = arith.constant 1.280000e+02 : f64
    %cst_8 = arith.constant 1.280000e+02 : f32
    %cst_9 = arith.constant 1.41421354 : f32
    %0 = tensor.empty() : tensor<128x1x7x7xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<128x1x7x7xf32>) outs(%0 : tensor<128x1x7x7xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.truncf %cst_6 : f64 to f32
      %43 = arith.mulf %in, %42 : f32
      linalg.yield %43 : f32
    } -> tensor<128x1x7x7xf32>
    %padded = tensor.pad %arg0 low[0, 0, 3, 3] high[0, 0, 3, 3] {
    ^bb0(%arg10: index, %arg11: index, %arg12: index, %arg13: index):
      tensor.yield %cst : f32
    } : tensor<1x128x28x28xf32> to tensor<1x128x34x34xf32>
    %2 = tensor.empty() : tensor<1x128x28x28xf32>
    %broadcasted = linalg.broadcast ins(%arg2 : tensor<128xf32>) outs(%2 : tensor<1x128x28x28xf32>) dimensions = [0, 2, 3] 
    %collapsed = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<128x1x7x7xf32> into tensor<128x7x7xf32>
    %3 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %collapsed : tensor<1x128x34x34xf32>, tensor<128x7x7xf32>) outs(%broadcasted : tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32>
    %4 = tensor.empty() : tensor<1x28x28x128xf32>
    %transposed = linalg.transpose ins(%3 : tensor<1x128x28x28xf32>) outs(%4 : tensor<1x28x28x128xf32>) permutation = [0, 2, 3, 1] 
    %5 = tensor.empty() : tensor<1x28x28x128xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed : tensor<1x28x28x128xf32>) outs(%5 : tensor<1x28x28x128xf64>) {
    ^bb0(%in: f32, %out: f64):
      %42 = arith.extf %in : f32 to f64
      linalg.yield %42 : f64
    } -> tensor<1x28x28x128xf64>
    %7 = tensor.empty() : tensor<1x28x28x1xf64>
    %8 = linalg.fill ins(%cst_0 : f64) outs(%7 : tensor<1x28x28x1xf64>) -> tensor<1x28x28x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%6 : tensor<1x28x28x128xf64>) outs(%8 : tensor<1x28x28x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %42 = arith.addf %in, %out : f64
      linalg.yield %42 : f64
    } -> tensor<1x28x28x1xf64>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x28x28x1xf64>) outs(%7 : tensor<1x28x28x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %42 = arith.divf %in, %cst_7 : f64
      linalg.yield %42 : f64
    } -> tensor<1x28x28x1xf64>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %10 : tensor<1x28x28x128xf64>, tensor<1x28x28x1xf64>) outs(%5 : tensor<1x28x28x128xf64>) {
    ^bb0(%in: f64, %in_16: f64, %out: f64):
      %42 = arith.subf %in, %in_16 : f64
      linalg.yield %42 : f64
    } -> tensor<1x28x28x128xf64>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11, %11 : tensor<1x28x28x128xf64>, tensor<1x28x28x128xf64>) outs(%5 : tensor<1x28x28x128xf64>) {
    ^bb0(%in: f64, %in_16: f64, %out: f64):
      %42 = arith.mulf %in, %in_16 : f64
      linalg.yield %42 : f64
    } -> tensor<1x28x28x128xf64>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%12 : tensor<1x28x28x128xf64>) outs(%8 : tensor<1x28x28x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %42 = arith.addf %in, %out : f64
      linalg.yield %42 : f64
    } -> tensor<1x28x28x1xf64>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x28x28x1xf64>) outs(%7 : tensor<1x28x28x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %42 = arith.divf %in, %cst_7 : f64
      linalg.yield %42 : f64
    } -> tensor<1x28x28x1xf64>
    %15 = tensor.empty() : tensor<1x28x28x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<1x28x28x1xf64>) outs(%15 : tensor<1x28x28x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %42 = arith.truncf %in : f64 to f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x1xf32>
    %17 = linalg.fill ins(%cst : f32) outs(%15 : tensor<1x28x28x1xf32>) -> tensor<1x28x28x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%transposed : tensor<1x28x28x128xf32>) outs(%17 : tensor<1x28x28x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.addf %in, %out : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x28x28x1xf32>) outs(%15 : tensor<1x28x28x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.divf %in, %cst_8 : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x1xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<1x28x28x1xf32>) outs(%15 : tensor<1x28x28x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.truncf %cst_5 : f64 to f32
      %43 = arith.addf %in, %42 : f32
      linalg.yield %43 : f32
    } -> tensor<1x28x28x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20 : tensor<1x28x28x1xf32>) outs(%15 : tensor<1x28x28x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = math.rsqrt %in : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed, %19 : tensor<1x28x28x128xf32>, tensor<1x28x28x1xf32>) outs(%4 : tensor<1x28x28x128xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.subf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x128xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22, %21 : tensor<1x28x28x128xf32>, tensor<1x28x28x1xf32>) outs(%4 : tensor<1x28x28x128xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.mulf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x128xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %arg3 : tensor<1x28x28x128xf32>, tensor<128xf32>) outs(%4 : tensor<1x28x28x128xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.mulf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x128xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24, %arg4 : tensor<1x28x28x128xf32>, tensor<128xf32>) outs(%4 : tensor<1x28x28x128xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.addf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x128xf32>
    %26 = tensor.empty() : tensor<512x128xf32>
    %27 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg5 : tensor<512x128xf32>) outs(%26 : tensor<512x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.truncf %cst_4 : f64 to f32
      %43 = arith.mulf %in, %42 : f32
      linalg.yield %43 : f32
    } -> tensor<512x128xf32>
    %collapsed_10 = tensor.collapse_shape %25 [[0, 1, 2], [3]] : tensor<1x28x28x128xf32> into tensor<784x128xf32>
    %28 = tensor.empty() : tensor<128x512xf32>
    %transposed_11 = linalg.transpose ins(%27 : tensor<512x128xf32>) outs(%28 : tensor<128x512xf32>) permutation = [1, 0] 
    %29 = tensor.empty() : tensor<784x512xf32>
    %30 = linalg.fill ins(%cst : f32) outs(%29 : tensor<784x512xf32>) -> tensor<784x512xf32>
    %31 = linalg.matmul ins(%collapsed_10, %transposed_11 : tensor<784x128xf32>, tensor<128x512xf32>) outs(%30 : tensor<784x512xf32>) -> tensor<784x512xf32>
    %32 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%31, %arg6 : tensor<784x512xf32>, tensor<512xf32>) outs(%29 : tensor<784x512xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.addf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<784x512xf32>
    %expanded = tensor.expand_shape %32 [[0, 1, 2], [3]] output_shape [1, 28, 28, 512] : tensor<784x512xf32> into tensor<1x28x28x512xf32>
    %33 = tensor.empty() : tensor<1x28x28x512xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x28x28x512xf32>) outs(%33 : tensor<1x28x28x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.divf %in, %cst_9 : f32
      %43 = math.erf %42 : f32
      %44 = arith.addf %43, %cst_1 : f32
      %45 = arith.mulf %44, %cst_2 : f32
      %46 = arith.mulf %in, %45 : f32
      linalg.yield %46 : f32
    } -> tensor<1x28x28x512xf32>
    %35 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%arg7 : tensor<128x512xf32>) outs(%28 : tensor<128x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = arith.truncf %cst_3 : f64 to f32
      %43 = arith.mulf %in, %42 : f32
      linalg.yield %43 : f32
    } -> tensor<128x512xf32>
    %collapsed_12 = tensor.collapse_shape %34 [[0, 1, 2], [3]] : tensor<1x28x28x512xf32> into tensor<784x512xf32>
    %transposed_13 = linalg.transpose ins(%35 : tensor<128x512xf32>) outs(%26 : tensor<512x128xf32>) permutation = [1, 0] 
    %36 = tensor.empty() : tensor<784x128xf32>
    %37 = linalg.fill ins(%cst : f32) outs(%36 : tensor<784x128xf32>) -> tensor<784x128xf32>
    %38 = linalg.matmul ins(%collapsed_12, %transposed_13 : tensor<784x512xf32>, tensor<512x128xf32>) outs(%37 : tensor<784x128xf32>) -> tensor<784x128xf32>
    %39 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%38, %arg8 : tensor<784x128xf32>, tensor<128xf32>) outs(%36 : tensor<784x128xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.addf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<784x128xf32>
    %expanded_14 = tensor.expand_shape %39 [[0, 1, 2], [3]] output_shape [1, 28, 28, 128] : tensor<784x128xf32> into tensor<1x28x28x128xf32>
    %40 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg9, %expanded_14 : tensor<128xf32>, tensor<1x28x28x128xf32>) outs(%4 : tensor<1x28x28x128xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.mulf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<1x28x28x128xf32>
    %transposed_15 = linalg.transpose ins(%40 : tensor<1x28x28x128xf32>) outs(%2 : tensor<1x128x28x28xf32>) permutation = [0, 3, 1, 2] 
    %41 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %transposed_15 : tensor<1x128x28x28xf32>, tensor<1x128x28x28xf32>) outs(%2 : tensor<1x128x28x28xf32>) {
    ^bb0(%in: f32, %in_16: f32, %out: f32):
      %42 = arith.addf %in, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<1x128x28x28xf32>
    return %41 : tensor<1x128x28x28xf32>
  }
}
