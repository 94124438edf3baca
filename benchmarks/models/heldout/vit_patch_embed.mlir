// vit_patch_embed: ViT patch embedding: conv 16x16 stride 16, 3->384, on 1x3x224x224, flatten to 196x384 tokens, + position embedding, LayerNorm(384); weights are inputs (img, w, b, pos, ln_w, ln_b). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
module {
  func.func @vit_patch_embed(%arg0: tensor<1x3x224x224xf32>, %arg1: tensor<384x3x16x16xf32>, %arg2: tensor<384xf32>, %arg3: tensor<1x196x384xf32>, %arg4: tensor<384xf32>, %arg5: tensor<384xf32>) -> tensor<1x196x384xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f64
    %cst_1 = arith.constant 9.9999999999999995E-7 : f64
    %cst_2 = arith.constant 0.036084391824351615 : f64
    %cst_3 = arith.constant 3.840000e+02 : f64
    %cst_4 = arith.constant 3.840000e+02 : f32
    %0 = tensor.empty() : tensor<384x3x16x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<384x3x16x16xf32>) outs(%0 : tensor<384x3x16x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = arith.truncf %cst_2 : f64 to f32
      %28 = arith.mulf %in, %27 : f32
      linalg.yield %28 : f32
    } -> tensor<384x3x16x16xf32>
    %2 = tensor.empty() : tensor<1x384x14x14xf32>
    %broadcasted = linalg.broadcast ins(%arg2 : tensor<384xf32>) outs(%2 : tensor<1x384x14x14xf32>) dimensions = [0, 2, 3] 
    %3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<16> : vector<2xi64>} ins(%arg0, %1 : tensor<1x3x224x224xf32>, tensor<384x3x16x16xf32>) outs(%broadcasted : tensor<1x384x14x14xf32>) -> tensor<1x384x14x14xf32>
    %collapsed = tensor.collapse_shape %3 [[0], [1], [2, 3]] : tensor<1x384x14x14xf32> into tensor<1x384x196xf32>
    %4 = tensor.empty() : tensor<1x196x384xf32>
    %transposed = linalg.transpose ins(%collapsed : tensor<1x384x196xf32>) outs(%4 : tensor<1x196x384xf32>) permutation = [0, 2, 1] 
    %5 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed, %arg3 : tensor<1x196x384xf32>, tensor<1x196x384xf32>) outs(%4 : tensor<1x196x384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %27 = arith.addf %in, %in_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x384xf32>
    %6 = tensor.empty() : tensor<1x196x384xf64>
    %7 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<1x196x384xf32>) outs(%6 : tensor<1x196x384xf64>) {
    ^bb0(%in: f32, %out: f64):
      %27 = arith.extf %in : f32 to f64
      linalg.yield %27 : f64
    } -> tensor<1x196x384xf64>
    %8 = tensor.empty() : tensor<1x196x1xf64>
    %9 = linalg.fill ins(%cst_0 : f64) outs(%8 : tensor<1x196x1xf64>) -> tensor<1x196x1xf64>
    %10 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<1x196x384xf64>) outs(%9 : tensor<1x196x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %27 = arith.addf %in, %out : f64
      linalg.yield %27 : f64
    } -> tensor<1x196x1xf64>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<1x196x1xf64>) outs(%8 : tensor<1x196x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %27 = arith.divf %in, %cst_3 : f64
      linalg.yield %27 : f64
    } -> tensor<1x196x1xf64>
    %12 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %11 : tensor<1x196x384xf64>, tensor<1x196x1xf64>) outs(%6 : tensor<1x196x384xf64>) {
    ^bb0(%in: f64, %in_5: f64, %out: f64):
      %27 = arith.subf %in, %in_5 : f64
      linalg.yield %27 : f64
    } -> tensor<1x196x384xf64>
    %13 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12, %12 : tensor<1x196x384xf64>, tensor<1x196x384xf64>) outs(%6 : tensor<1x196x384xf64>) {
    ^bb0(%in: f64, %in_5: f64, %out: f64):
      %27 = arith.mulf %in, %in_5 : f64
      linalg.yield %27 : f64
    } -> tensor<1x196x384xf64>
    %14 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%13 : tensor<1x196x384xf64>) outs(%9 : tensor<1x196x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %27 = arith.addf %in, %out : f64
      linalg.yield %27 : f64
    } -> tensor<1x196x1xf64>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14 : tensor<1x196x1xf64>) outs(%8 : tensor<1x196x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %27 = arith.divf %in, %cst_3 : f64
      linalg.yield %27 : f64
    } -> tensor<1x196x1xf64>
    %16 = tensor.empty() : tensor<1x196x1xf32>
    %17 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<1x196x1xf64>) outs(%16 : tensor<1x196x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %27 = arith.truncf %in : f64 to f32
      linalg.yield %27 : f32
    } -> tensor<1x196x1xf32>
    %18 = linalg.fill ins(%cst : f32) outs(%16 : tensor<1x196x1xf32>) -> tensor<1x196x1xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%5 : tensor<1x196x384xf32>) outs(%18 : tensor<1x196x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = arith.addf %in, %out : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x1xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19 : tensor<1x196x1xf32>) outs(%16 : tensor<1x196x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = arith.divf %in, %cst_4 : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x1xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17 : tensor<1x196x1xf32>) outs(%16 : tensor<1x196x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = arith.truncf %cst_1 : f64 to f32
      %28 = arith.addf %in, %27 : f32
      linalg.yield %28 : f32
    } -> tensor<1x196x1xf32>
    %22 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%21 : tensor<1x196x1xf32>) outs(%16 : tensor<1x196x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = math.rsqrt %in : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x1xf32>
    %23 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %20 : tensor<1x196x384xf32>, tensor<1x196x1xf32>) outs(%4 : tensor<1x196x384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %27 = arith.subf %in, %in_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x384xf32>
    %24 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%23, %22 : tensor<1x196x384xf32>, tensor<1x196x1xf32>) outs(%4 : tensor<1x196x384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %27 = arith.mulf %in, %in_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x384xf32>
    %25 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%24, %arg4 : tensor<1x196x384xf32>, tensor<384xf32>) outs(%4 : tensor<1x196x384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %27 = arith.mulf %in, %in_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x384xf32>
    %26 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%25, %arg5 : tensor<1x196x384xf32>, tensor<384xf32>) outs(%4 : tensor<1x196x384xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %27 = arith.addf %in, %in_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x196x384xf32>
    return %26 : tensor<1x196x384xf32>
  }
}
