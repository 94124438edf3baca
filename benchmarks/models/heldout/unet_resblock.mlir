// unet_resblock: diffusion UNet residual block: GroupNorm(32, 64), SiLU, conv3x3 64->64, + Linear 256->64(SiLU(temb)) per channel, GroupNorm, SiLU, conv3x3, + x on 1x64x32x32; weights are inputs (x, temb, gn1_w, gn1_b, w1, b1, wt, bt, gn2_w, gn2_b, w2, b2). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map3 = affine_map<(d0, d1) -> (0, d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @unet_resblock(%arg0: tensor<1x64x32x32xf32>, %arg1: tensor<1x256xf32>, %arg2: tensor<64xf32>, %arg3: tensor<64xf32>, %arg4: tensor<64x64x3x3xf32>, %arg5: tensor<64xf32>, %arg6: tensor<64x256xf32>, %arg7: tensor<64xf32>, %arg8: tensor<64xf32>, %arg9: tensor<64xf32>, %arg10: tensor<64x64x3x3xf32>, %arg11: tensor<64xf32>) -> tensor<1x64x32x32xf32> {
    %c1_i64 = arith.constant 1 : i64
    %c32_i64 = arith.constant 32 : i64
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 0.041666666666666664 : f64
    %cst_3 = arith.constant 1.000000e-05 : f64
    %cst_4 = arith.constant 2.048000e+03 : f64
    %cst_5 = arith.constant 2.048000e+03 : f32
    %cst_6 = arith.constant 6.250000e-02 : f32
    %cst_7 = arith.constant dense_resource<torch_tensor_1_64_torch.int64> : tensor<1x64xi64>
    %cst_8 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_1> : tensor<1x64xi64>
    %cst_9 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_2> : tensor<1x64xi64>
    %cst_10 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_3> : tensor<1x64xi64>
    %cst_11 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_4> : tensor<1x64xi64>
    %cst_12 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_5> : tensor<1x64xi64>
    %cst_13 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_6> : tensor<1x64xi64>
    %cst_14 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_7> : tensor<1x64xi64>
    %cst_15 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_8> : tensor<1x64xi64>
    %cst_16 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_9> : tensor<1x64xi64>
    %cst_17 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_10> : tensor<1x64xi64>
    %cst_18 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_11> : tensor<1x64xi64>
    %cst_19 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_12> : tensor<1x64xi64>
    %cst_20 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_13> : tensor<1x64xi64>
    %cst_21 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_14> : tensor<1x64xi64>
    %cst_22 = arith.constant dense_resource<torch_tensor_1_64_torch.int64_15> : tensor<1x64xi64>
    %collapsed = tensor.collapse_shape %arg0 [[0], [1], [2, 3]] : tensor<1x64x32x32xf32> into tensor<1x64x1024xf32>
    %expanded = tensor.expand_shape %collapsed [[0], [1, 2], [3]] output_shape [1, 32, 2, 1024] : tensor<1x64x1024xf32> into tensor<1x32x2x1024xf32>
    %0 = tensor.empty() : tensor<1x32x2x1024xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x32x2x1024xf32>) outs(%0 : tensor<1x32x2x1024xf64>) {
    ^bb0(%in: f32, %out: f64):
      %68 = arith.extf %in : f32 to f64
      linalg.yield %68 : f64
    } -> tensor<1x32x2x1024xf64>
    %2 = tensor.empty() : tensor<1x32x1x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<1x32x1x1xf64>) -> tensor<1x32x1x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%1 : tensor<1x32x2x1024xf64>) outs(%3 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.addf %in, %out : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<1x32x1x1xf64>) outs(%2 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.divf %in, %cst_4 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<1x32x2x1024xf64>, tensor<1x32x1x1xf64>) outs(%0 : tensor<1x32x2x1024xf64>) {
    ^bb0(%in: f64, %in_36: f64, %out: f64):
      %68 = arith.subf %in, %in_36 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x2x1024xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<1x32x2x1024xf64>, tensor<1x32x2x1024xf64>) outs(%0 : tensor<1x32x2x1024xf64>) {
    ^bb0(%in: f64, %in_36: f64, %out: f64):
      %68 = arith.mulf %in, %in_36 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x2x1024xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%7 : tensor<1x32x2x1024xf64>) outs(%3 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.addf %in, %out : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<1x32x1x1xf64>) outs(%2 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.divf %in, %cst_4 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %10 = tensor.empty() : tensor<1x32x1x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x32x1x1xf64>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %68 = arith.truncf %in : f64 to f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded : tensor<1x32x2x1024xf32>) outs(%12 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.addf %in, %out : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.divf %in, %cst_5 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.truncf %cst_3 : f64 to f32
      %69 = arith.addf %in, %68 : f32
      linalg.yield %69 : f32
    } -> tensor<1x32x1x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = math.rsqrt %in : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %expanded_23 = tensor.expand_shape %arg2 [[0, 1, 2, 3]] output_shape [1, 32, 2, 1] : tensor<64xf32> into tensor<1x32x2x1xf32>
    %17 = tensor.empty() : tensor<1x32x2x1xf32>
    %18 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %expanded_23 : tensor<1x32x1x1xf32>, tensor<1x32x2x1xf32>) outs(%17 : tensor<1x32x2x1xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x2x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.negf %in : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %20 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %18 : tensor<1x32x1x1xf32>, tensor<1x32x2x1xf32>) outs(%17 : tensor<1x32x2x1xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x2x1xf32>
    %expanded_24 = tensor.expand_shape %arg3 [[0, 1, 2, 3]] output_shape [1, 32, 2, 1] : tensor<64xf32> into tensor<1x32x2x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %expanded_24 : tensor<1x32x2x1xf32>, tensor<1x32x2x1xf32>) outs(%17 : tensor<1x32x2x1xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.addf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x2x1xf32>
    %22 = tensor.empty() : tensor<1x64xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map3, #map3, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst_7, %cst_8, %cst_9, %cst_10 : tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>) outs(%22 : tensor<1x64xf32>) {
    ^bb0(%in: i64, %in_36: i64, %in_37: i64, %in_38: i64, %out: f32):
      %68 = arith.cmpi slt, %in, %c0_i64 : i64
      %69 = arith.addi %in, %c1_i64 : i64
      %70 = arith.select %68, %69, %in : i64
      %71 = arith.index_cast %70 : i64 to index
      %72 = arith.cmpi slt, %in_36, %c0_i64 : i64
      %73 = arith.addi %in_36, %c32_i64 : i64
      %74 = arith.select %72, %73, %in_36 : i64
      %75 = arith.index_cast %74 : i64 to index
      %76 = arith.cmpi slt, %in_37, %c0_i64 : i64
      %77 = arith.addi %in_37, %c2_i64 : i64
      %78 = arith.select %76, %77, %in_37 : i64
      %79 = arith.index_cast %78 : i64 to index
      %80 = arith.cmpi slt, %in_38, %c0_i64 : i64
      %81 = arith.addi %in_38, %c1_i64 : i64
      %82 = arith.select %80, %81, %in_38 : i64
      %83 = arith.index_cast %82 : i64 to index
      %extracted = tensor.extract %18[%71, %75, %79, %83] : tensor<1x32x2x1xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x64xf32>
    %24 = linalg.generic {indexing_maps = [#map3, #map3, #map3, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst_11, %cst_12, %cst_13, %cst_14 : tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>) outs(%22 : tensor<1x64xf32>) {
    ^bb0(%in: i64, %in_36: i64, %in_37: i64, %in_38: i64, %out: f32):
      %68 = arith.cmpi slt, %in, %c0_i64 : i64
      %69 = arith.addi %in, %c1_i64 : i64
      %70 = arith.select %68, %69, %in : i64
      %71 = arith.index_cast %70 : i64 to index
      %72 = arith.cmpi slt, %in_36, %c0_i64 : i64
      %73 = arith.addi %in_36, %c32_i64 : i64
      %74 = arith.select %72, %73, %in_36 : i64
      %75 = arith.index_cast %74 : i64 to index
      %76 = arith.cmpi slt, %in_37, %c0_i64 : i64
      %77 = arith.addi %in_37, %c2_i64 : i64
      %78 = arith.select %76, %77, %in_37 : i64
      %79 = arith.index_cast %78 : i64 to index
      %80 = arith.cmpi slt, %in_38, %c0_i64 : i64
      %81 = arith.addi %in_38, %c1_i64 : i64
      %82 = arith.select %80, %81, %in_38 : i64
      %83 = arith.index_cast %82 : i64 to index
      %extracted = tensor.extract %21[%71, %75, %79, %83] : tensor<1x32x2x1xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x64xf32>
    %expanded_25 = tensor.expand_shape %23 [[0], [1, 2, 3]] output_shape [1, 64, 1, 1] : tensor<1x64xf32> into tensor<1x64x1x1xf32>
    %expanded_26 = tensor.expand_shape %24 [[0], [1, 2, 3]] output_shape [1, 64, 1, 1] : tensor<1x64xf32> into tensor<1x64x1x1xf32>
    %25 = tensor.empty() : tensor<1x64x32x32xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %expanded_25 : tensor<1x64x32x32xf32>, tensor<1x64x1x1xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26, %expanded_26 : tensor<1x64x32x32xf32>, tensor<1x64x1x1xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.addf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27 : tensor<1x64x32x32xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.negf %in : f32
      %69 = math.exp %68 : f32
      %70 = arith.addf %69, %cst_1 : f32
      %71 = arith.divf %cst_1, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<1x64x32x32xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27, %28 : tensor<1x64x32x32xf32>, tensor<1x64x32x32xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    %30 = tensor.empty() : tensor<64x64x3x3xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg4 : tensor<64x64x3x3xf32>) outs(%30 : tensor<64x64x3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.truncf %cst_2 : f64 to f32
      %69 = arith.mulf %in, %68 : f32
      linalg.yield %69 : f32
    } -> tensor<64x64x3x3xf32>
    %padded = tensor.pad %29 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg12: index, %arg13: index, %arg14: index, %arg15: index):
      tensor.yield %cst_0 : f32
    } : tensor<1x64x32x32xf32> to tensor<1x64x34x34xf32>
    %broadcasted = linalg.broadcast ins(%arg5 : tensor<64xf32>) outs(%25 : tensor<1x64x32x32xf32>) dimensions = [0, 2, 3] 
    %32 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %31 : tensor<1x64x34x34xf32>, tensor<64x64x3x3xf32>) outs(%broadcasted : tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32>
    %33 = tensor.empty() : tensor<1x256xf32>
    %34 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<1x256xf32>) outs(%33 : tensor<1x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.negf %in : f32
      %69 = math.exp %68 : f32
      %70 = arith.addf %69, %cst_1 : f32
      %71 = arith.divf %cst_1, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<1x256xf32>
    %35 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg1, %34 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%33 : tensor<1x256xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x256xf32>
    %36 = tensor.empty() : tensor<64x256xf32>
    %37 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg6 : tensor<64x256xf32>) outs(%36 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.mulf %in, %cst_6 : f32
      linalg.yield %68 : f32
    } -> tensor<64x256xf32>
    %38 = tensor.empty() : tensor<256x64xf32>
    %transposed = linalg.transpose ins(%37 : tensor<64x256xf32>) outs(%38 : tensor<256x64xf32>) permutation = [1, 0] 
    %39 = linalg.fill ins(%cst_0 : f32) outs(%22 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %40 = linalg.matmul ins(%35, %transposed : tensor<1x256xf32>, tensor<256x64xf32>) outs(%39 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %41 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel"]} ins(%40, %arg7 : tensor<1x64xf32>, tensor<64xf32>) outs(%22 : tensor<1x64xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.addf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64xf32>
    %expanded_27 = tensor.expand_shape %41 [[0], [1, 2, 3]] output_shape [1, 64, 1, 1] : tensor<1x64xf32> into tensor<1x64x1x1xf32>
    %42 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32, %expanded_27 : tensor<1x64x32x32xf32>, tensor<1x64x1x1xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.addf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    %collapsed_28 = tensor.collapse_shape %42 [[0], [1], [2, 3]] : tensor<1x64x32x32xf32> into tensor<1x64x1024xf32>
    %expanded_29 = tensor.expand_shape %collapsed_28 [[0], [1, 2], [3]] output_shape [1, 32, 2, 1024] : tensor<1x64x1024xf32> into tensor<1x32x2x1024xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_29 : tensor<1x32x2x1024xf32>) outs(%0 : tensor<1x32x2x1024xf64>) {
    ^bb0(%in: f32, %out: f64):
      %68 = arith.extf %in : f32 to f64
      linalg.yield %68 : f64
    } -> tensor<1x32x2x1024xf64>
    %44 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%43 : tensor<1x32x2x1024xf64>) outs(%3 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.addf %in, %out : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %45 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%44 : tensor<1x32x1x1xf64>) outs(%2 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.divf %in, %cst_4 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %46 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%43, %45 : tensor<1x32x2x1024xf64>, tensor<1x32x1x1xf64>) outs(%0 : tensor<1x32x2x1024xf64>) {
    ^bb0(%in: f64, %in_36: f64, %out: f64):
      %68 = arith.subf %in, %in_36 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x2x1024xf64>
    %47 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%46, %46 : tensor<1x32x2x1024xf64>, tensor<1x32x2x1024xf64>) outs(%0 : tensor<1x32x2x1024xf64>) {
    ^bb0(%in: f64, %in_36: f64, %out: f64):
      %68 = arith.mulf %in, %in_36 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x2x1024xf64>
    %48 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%47 : tensor<1x32x2x1024xf64>) outs(%3 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.addf %in, %out : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %49 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%48 : tensor<1x32x1x1xf64>) outs(%2 : tensor<1x32x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %68 = arith.divf %in, %cst_4 : f64
      linalg.yield %68 : f64
    } -> tensor<1x32x1x1xf64>
    %50 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%49 : tensor<1x32x1x1xf64>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %68 = arith.truncf %in : f64 to f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded_29 : tensor<1x32x2x1024xf32>) outs(%12 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.addf %in, %out : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%51 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.divf %in, %cst_5 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %53 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%50 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.truncf %cst_3 : f64 to f32
      %69 = arith.addf %in, %68 : f32
      linalg.yield %69 : f32
    } -> tensor<1x32x1x1xf32>
    %54 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%53 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = math.rsqrt %in : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %expanded_30 = tensor.expand_shape %arg8 [[0, 1, 2, 3]] output_shape [1, 32, 2, 1] : tensor<64xf32> into tensor<1x32x2x1xf32>
    %55 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%54, %expanded_30 : tensor<1x32x1x1xf32>, tensor<1x32x2x1xf32>) outs(%17 : tensor<1x32x2x1xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x2x1xf32>
    %56 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%52 : tensor<1x32x1x1xf32>) outs(%10 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.negf %in : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x1x1xf32>
    %57 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%56, %55 : tensor<1x32x1x1xf32>, tensor<1x32x2x1xf32>) outs(%17 : tensor<1x32x2x1xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x2x1xf32>
    %expanded_31 = tensor.expand_shape %arg9 [[0, 1, 2, 3]] output_shape [1, 32, 2, 1] : tensor<64xf32> into tensor<1x32x2x1xf32>
    %58 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%57, %expanded_31 : tensor<1x32x2x1xf32>, tensor<1x32x2x1xf32>) outs(%17 : tensor<1x32x2x1xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.addf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x32x2x1xf32>
    %59 = linalg.generic {indexing_maps = [#map3, #map3, #map3, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst_15, %cst_16, %cst_17, %cst_18 : tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>) outs(%22 : tensor<1x64xf32>) {
    ^bb0(%in: i64, %in_36: i64, %in_37: i64, %in_38: i64, %out: f32):
      %68 = arith.cmpi slt, %in, %c0_i64 : i64
      %69 = arith.addi %in, %c1_i64 : i64
      %70 = arith.select %68, %69, %in : i64
      %71 = arith.index_cast %70 : i64 to index
      %72 = arith.cmpi slt, %in_36, %c0_i64 : i64
      %73 = arith.addi %in_36, %c32_i64 : i64
      %74 = arith.select %72, %73, %in_36 : i64
      %75 = arith.index_cast %74 : i64 to index
      %76 = arith.cmpi slt, %in_37, %c0_i64 : i64
      %77 = arith.addi %in_37, %c2_i64 : i64
      %78 = arith.select %76, %77, %in_37 : i64
      %79 = arith.index_cast %78 : i64 to index
      %80 = arith.cmpi slt, %in_38, %c0_i64 : i64
      %81 = arith.addi %in_38, %c1_i64 : i64
      %82 = arith.select %80, %81, %in_38 : i64
      %83 = arith.index_cast %82 : i64 to index
      %extracted = tensor.extract %55[%71, %75, %79, %83] : tensor<1x32x2x1xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x64xf32>
    %60 = linalg.generic {indexing_maps = [#map3, #map3, #map3, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst_19, %cst_20, %cst_21, %cst_22 : tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>, tensor<1x64xi64>) outs(%22 : tensor<1x64xf32>) {
    ^bb0(%in: i64, %in_36: i64, %in_37: i64, %in_38: i64, %out: f32):
      %68 = arith.cmpi slt, %in, %c0_i64 : i64
      %69 = arith.addi %in, %c1_i64 : i64
      %70 = arith.select %68, %69, %in : i64
      %71 = arith.index_cast %70 : i64 to index
      %72 = arith.cmpi slt, %in_36, %c0_i64 : i64
      %73 = arith.addi %in_36, %c32_i64 : i64
      %74 = arith.select %72, %73, %in_36 : i64
      %75 = arith.index_cast %74 : i64 to index
      %76 = arith.cmpi slt, %in_37, %c0_i64 : i64
      %77 = arith.addi %in_37, %c2_i64 : i64
      %78 = arith.select %76, %77, %in_37 : i64
      %79 = arith.index_cast %78 : i64 to index
      %80 = arith.cmpi slt, %in_38, %c0_i64 : i64
      %81 = arith.addi %in_38, %c1_i64 : i64
      %82 = arith.select %80, %81, %in_38 : i64
      %83 = arith.index_cast %82 : i64 to index
      %extracted = tensor.extract %58[%71, %75, %79, %83] : tensor<1x32x2x1xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x64xf32>
    %expanded_32 = tensor.expand_shape %59 [[0], [1, 2, 3]] output_shape [1, 64, 1, 1] : tensor<1x64xf32> into tensor<1x64x1x1xf32>
    %expanded_33 = tensor.expand_shape %60 [[0], [1, 2, 3]] output_shape [1, 64, 1, 1] : tensor<1x64xf32> into tensor<1x64x1x1xf32>
    %61 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%42, %expanded_32 : tensor<1x64x32x32xf32>, tensor<1x64x1x1xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    %62 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%61, %expanded_33 : tensor<1x64x32x32xf32>, tensor<1x64x1x1xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.addf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    %63 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%62 : tensor<1x64x32x32xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.negf %in : f32
      %69 = math.exp %68 : f32
      %70 = arith.addf %69, %cst_1 : f32
      %71 = arith.divf %cst_1, %70 : f32
      linalg.yield %71 : f32
    } -> tensor<1x64x32x32xf32>
    %64 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%62, %63 : tensor<1x64x32x32xf32>, tensor<1x64x32x32xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.mulf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    %65 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg10 : tensor<64x64x3x3xf32>) outs(%30 : tensor<64x64x3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %68 = arith.truncf %cst_2 : f64 to f32
      %69 = arith.mulf %in, %68 : f32
      linalg.yield %69 : f32
    } -> tensor<64x64x3x3xf32>
    %padded_34 = tensor.pad %64 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg12: index, %arg13: index, %arg14: index, %arg15: index):
      tensor.yield %cst_0 : f32
    } : tensor<1x64x32x32xf32> to tensor<1x64x34x34xf32>
    %broadcasted_35 = linalg.broadcast ins(%arg11 : tensor<64xf32>) outs(%25 : tensor<1x64x32x32xf32>) dimensions = [0, 2, 3] 
    %66 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_34, %65 : tensor<1x64x34x34xf32>, tensor<64x64x3x3xf32>) outs(%broadcasted_35 : tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32>
    %67 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %66 : tensor<1x64x32x32xf32>, tensor<1x64x32x32xf32>) outs(%25 : tensor<1x64x32x32xf32>) {
    ^bb0(%in: f32, %in_36: f32, %out: f32):
      %68 = arith.addf %in, %in_36 : f32
      linalg.yield %68 : f32
    } -> tensor<1x64x32x32xf32>
    return %67 : tensor<1x64x32x32xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_1_64_torch.int64: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64_1: "0x08000000000000000000000000000000000000000100000000000000010000000000000002000000000000000200000000000000030000000000000003000000000000000400000000000000040000000000000005000000000000000500000000000000060000000000000006000000000000000700000000000000070000000000000008000000000000000800000000000000090000000000000009000000000000000A000000000000000A000000000000000B000000000000000B000000000000000C000000000000000C000000000000000D000000000000000D000000000000000E000000000000000E000000000000000F000000000000000F00000000000000100000000000000010000000000000001100000000000000110000000000000012000000000000001200000000000000130000000000000013000000000000001400000000000000140000000000000015000000000000001500000000000000160000000000000016000000000000001700000000000000170000000000000018000000000000001800000000000000190000000000000019000000000000001A000000000000001A000000000000001B000000000000001B000000000000001C000000000000001C000000000000001D000000000000001D000000000000001E000000000000001E000000000000001F000000000000001F00000000000000",
      torch_tensor_1_64_torch.int64_2: "0x080000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000",
      torch_tensor_1_64_torch.int64_3: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64_4: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64_5: "0x08000000000000000000000000000000000000000100000000000000010000000000000002000000000000000200000000000000030000000000000003000000000000000400000000000000040000000000000005000000000000000500000000000000060000000000000006000000000000000700000000000000070000000000000008000000000000000800000000000000090000000000000009000000000000000A000000000000000A000000000000000B000000000000000B000000000000000C000000000000000C000000000000000D000000000000000D000000000000000E000000000000000E000000000000000F000000000000000F00000000000000100000000000000010000000000000001100000000000000110000000000000012000000000000001200000000000000130000000000000013000000000000001400000000000000140000000000000015000000000000001500000000000000160000000000000016000000000000001700000000000000170000000000000018000000000000001800000000000000190000000000000019000000000000001A000000000000001A000000000000001B000000000000001B000000000000001C000000000000001C000000000000001D000000000000001D000000000000001E000000000000001E000000000000001F000000000000001F00000000000000",
      torch_tensor_1_64_torch.int64_6: "0x080000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000",
      torch_tensor_1_64_torch.int64_7: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64_8: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64_9: "0x08000000000000000000000000000000000000000100000000000000010000000000000002000000000000000200000000000000030000000000000003000000000000000400000000000000040000000000000005000000000000000500000000000000060000000000000006000000000000000700000000000000070000000000000008000000000000000800000000000000090000000000000009000000000000000A000000000000000A000000000000000B000000000000000B000000000000000C000000000000000C000000000000000D000000000000000D000000000000000E000000000000000E000000000000000F000000000000000F00000000000000100000000000000010000000000000001100000000000000110000000000000012000000000000001200000000000000130000000000000013000000000000001400000000000000140000000000000015000000000000001500000000000000160000000000000016000000000000001700000000000000170000000000000018000000000000001800000000000000190000000000000019000000000000001A000000000000001A000000000000001B000000000000001B000000000000001C000000000000001C000000000000001D000000000000001D000000000000001E000000000000001E000000000000001F000000000000001F00000000000000",
      torch_tensor_1_64_torch.int64_10: "0x080000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000",
      torch_tensor_1_64_torch.int64_11: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64_12: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_1_64_torch.int64_13: "0x08000000000000000000000000000000000000000100000000000000010000000000000002000000000000000200000000000000030000000000000003000000000000000400000000000000040000000000000005000000000000000500000000000000060000000000000006000000000000000700000000000000070000000000000008000000000000000800000000000000090000000000000009000000000000000A000000000000000A000000000000000B000000000000000B000000000000000C000000000000000C000000000000000D000000000000000D000000000000000E000000000000000E000000000000000F000000000000000F00000000000000100000000000000010000000000000001100000000000000110000000000000012000000000000001200000000000000130000000000000013000000000000001400000000000000140000000000000015000000000000001500000000000000160000000000000016000000000000001700000000000000170000000000000018000000000000001800000000000000190000000000000019000000000000001A000000000000001A000000000000001B000000000000001B000000000000001C000000000000001C000000000000001D000000000000001D000000000000001E000000000000001E000000000000001F000000000000001F00000000000000",
      torch_tensor_1_64_torch.int64_14: "0x080000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000000000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000",
      torch_tensor_1_64_torch.int64_15: "0x080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    }
  }
#-}
