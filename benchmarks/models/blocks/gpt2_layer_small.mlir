// gpt2_layer_small: GPT-2 decoder layer, causal mask: seq 8, d 16, 2 heads, mlp 32 (LN, / sqrt(d), qkv, causal softmax attention, projection, + x, LN, MLP with GPT-2's gelu_new (tanh, written out), + x); weights are inputs (x, ln1_w, ln1_b, w_attn, b_attn, w_aproj, b_aproj, ln2_w, ln2_b, w_fc, b_fc, w_proj, b_proj). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> ()>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
module {
  func.func @gpt2_layer_small(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16x48xf32>, %arg4: tensor<48xf32>, %arg5: tensor<16x16xf32>, %arg6: tensor<16xf32>, %arg7: tensor<16xf32>, %arg8: tensor<16xf32>, %arg9: tensor<16x32xf32>, %arg10: tensor<32xf32>, %arg11: tensor<32x16xf32>, %arg12: tensor<16xf32>) -> tensor<8x16xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c0_i8 = arith.constant 0 : i8
    %cst_1 = arith.constant 0xFF800000 : f32
    %cst_2 = arith.constant dense<-3.40282347E+38> : tensor<f32>
    %cst_3 = arith.constant 0.79788456080286541 : f64
    %cst_4 = arith.constant 4.471500e-02 : f64
    %cst_5 = arith.constant 0.35355339059327373 : f64
    %cst_6 = arith.constant 1.000000e-05 : f64
    %cst_7 = arith.constant 1.600000e+01 : f64
    %cst_8 = arith.constant 1.600000e+01 : f32
    %cst_9 = arith.constant 2.500000e-01 : f32
    %cst_10 = arith.constant 5.000000e-01 : f32
    %cst_11 = arith.constant 1.000000e+00 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_12 = arith.constant dense_resource<torch_tensor_8_8_torch.uint8> : tensor<8x8xi8>
    %0 = tensor.empty() : tensor<8x16xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf64>) {
    ^bb0(%in: f32, %out: f64):
      %82 = arith.extf %in : f32 to f64
      linalg.yield %82 : f64
    } -> tensor<8x16xf64>
    %2 = tensor.empty() : tensor<8x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<8x1xf64>) -> tensor<8x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x16xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.addf %in, %out : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.divf %in, %cst_7 : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %5 : tensor<8x16xf64>, tensor<8x1xf64>) outs(%0 : tensor<8x16xf64>) {
    ^bb0(%in: f64, %in_21: f64, %out: f64):
      %82 = arith.subf %in, %in_21 : f64
      linalg.yield %82 : f64
    } -> tensor<8x16xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<8x16xf64>, tensor<8x16xf64>) outs(%0 : tensor<8x16xf64>) {
    ^bb0(%in: f64, %in_21: f64, %out: f64):
      %82 = arith.mulf %in, %in_21 : f64
      linalg.yield %82 : f64
    } -> tensor<8x16xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<8x16xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.addf %in, %out : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.divf %in, %cst_7 : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %10 = tensor.empty() : tensor<8x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<8x1xf64>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %82 = arith.truncf %in : f64 to f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x16xf32>) outs(%12 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.addf %in, %out : f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.divf %in, %cst_8 : f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.truncf %cst_6 : f64 to f32
      %83 = arith.addf %in, %82 : f32
      linalg.yield %83 : f32
    } -> tensor<8x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = math.rsqrt %in : f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %17 = tensor.empty() : tensor<8x16xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %14 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.subf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %16 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.mulf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %arg1 : tensor<8x16xf32>, tensor<16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.mulf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %arg2 : tensor<8x16xf32>, tensor<16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%21 : tensor<8x16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.mulf %in, %cst_9 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %23 = tensor.empty() : tensor<8x48xf32>
    %24 = linalg.fill ins(%cst_0 : f32) outs(%23 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %25 = linalg.matmul ins(%22, %arg3 : tensor<8x16xf32>, tensor<16x48xf32>) outs(%24 : tensor<8x48xf32>) -> tensor<8x48xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%25, %arg4 : tensor<8x48xf32>, tensor<48xf32>) outs(%23 : tensor<8x48xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x48xf32>
    %extracted_slice = tensor.extract_slice %26[0, 0] [8, 16] [1, 1] : tensor<8x48xf32> to tensor<8x16xf32>
    %extracted_slice_13 = tensor.extract_slice %26[0, 16] [8, 16] [1, 1] : tensor<8x48xf32> to tensor<8x16xf32>
    %extracted_slice_14 = tensor.extract_slice %26[0, 32] [8, 16] [1, 1] : tensor<8x48xf32> to tensor<8x16xf32>
    %expanded = tensor.expand_shape %extracted_slice [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %27 = tensor.empty() : tensor<2x8x8xf32>
    %transposed = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%27 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %expanded_15 = tensor.expand_shape %extracted_slice_13 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %expanded_16 = tensor.expand_shape %extracted_slice_14 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %transposed_17 = linalg.transpose ins(%expanded_16 : tensor<8x2x8xf32>) outs(%27 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_18 = linalg.transpose ins(%expanded_15 : tensor<8x2x8xf32>) outs(%27 : tensor<2x8x8xf32>) permutation = [1, 2, 0] 
    %28 = linalg.fill ins(%cst_0 : f32) outs(%27 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %29 = linalg.batch_matmul ins(%transposed, %transposed_18 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%28 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %30 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%29 : tensor<2x8x8xf32>) outs(%27 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.truncf %cst_5 : f64 to f32
      %83 = arith.mulf %in, %82 : f32
      linalg.yield %83 : f32
    } -> tensor<2x8x8xf32>
    %31 = tensor.empty() : tensor<8x8xi1>
    %32 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%cst_12 : tensor<8x8xi8>) outs(%31 : tensor<8x8xi1>) {
    ^bb0(%in: i8, %out: i1):
      %82 = arith.cmpi ne, %in, %c0_i8 : i8
      linalg.yield %82 : i1
    } -> tensor<8x8xi1>
    %33 = linalg.generic {indexing_maps = [#map4, #map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%32, %30, %cst_2 : tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) outs(%27 : tensor<2x8x8xf32>) {
    ^bb0(%in: i1, %in_21: f32, %in_22: f32, %out: f32):
      %82 = arith.select %in, %in_21, %in_22 : f32
      linalg.yield %82 : f32
    } -> tensor<2x8x8xf32>
    %34 = tensor.empty() : tensor<2x8xi64>
    %35 = linalg.fill ins(%c0_i64 : i64) outs(%34 : tensor<2x8xi64>) -> tensor<2x8xi64>
    %36 = tensor.empty() : tensor<2x8xf32>
    %37 = linalg.fill ins(%cst_1 : f32) outs(%36 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %38:2 = linalg.generic {indexing_maps = [#map3, #map6, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%33 : tensor<2x8x8xf32>) outs(%37, %35 : tensor<2x8xf32>, tensor<2x8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_21: i64):
      %82 = linalg.index 2 : index
      %83 = arith.index_cast %82 : index to i64
      %84 = arith.maximumf %in, %out : f32
      %85 = arith.cmpf ogt, %in, %out : f32
      %86 = arith.select %85, %83, %out_21 : i64
      linalg.yield %84, %86 : f32, i64
    } -> (tensor<2x8xf32>, tensor<2x8xi64>)
    %expanded_19 = tensor.expand_shape %38#0 [[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
    %39 = linalg.generic {indexing_maps = [#map3, #map7, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%33, %expanded_19 : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%27 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.subf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<2x8x8xf32>
    %40 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%39 : tensor<2x8x8xf32>) outs(%27 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = math.exp %in : f32
      linalg.yield %82 : f32
    } -> tensor<2x8x8xf32>
    %41 = tensor.empty() : tensor<2x8x1xf32>
    %42 = linalg.fill ins(%cst_0 : f32) outs(%41 : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    %43 = linalg.generic {indexing_maps = [#map3, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%40 : tensor<2x8x8xf32>) outs(%42 : tensor<2x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.addf %in, %out : f32
      linalg.yield %82 : f32
    } -> tensor<2x8x1xf32>
    %44 = linalg.generic {indexing_maps = [#map3, #map7, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%40, %43 : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%27 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.divf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<2x8x8xf32>
    %45 = linalg.batch_matmul ins(%44, %transposed_17 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%28 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %46 = tensor.empty() : tensor<8x2x8xf32>
    %transposed_20 = linalg.transpose ins(%45 : tensor<2x8x8xf32>) outs(%46 : tensor<8x2x8xf32>) permutation = [1, 0, 2] 
    %collapsed = tensor.collapse_shape %transposed_20 [[0], [1, 2]] : tensor<8x2x8xf32> into tensor<8x16xf32>
    %47 = linalg.fill ins(%cst_0 : f32) outs(%17 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %48 = linalg.matmul ins(%collapsed, %arg5 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%47 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %49 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%48, %arg6 : tensor<8x16xf32>, tensor<16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %50 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %49 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%50 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf64>) {
    ^bb0(%in: f32, %out: f64):
      %82 = arith.extf %in : f32 to f64
      linalg.yield %82 : f64
    } -> tensor<8x16xf64>
    %52 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%51 : tensor<8x16xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.addf %in, %out : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %53 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%52 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.divf %in, %cst_7 : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %54 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%51, %53 : tensor<8x16xf64>, tensor<8x1xf64>) outs(%0 : tensor<8x16xf64>) {
    ^bb0(%in: f64, %in_21: f64, %out: f64):
      %82 = arith.subf %in, %in_21 : f64
      linalg.yield %82 : f64
    } -> tensor<8x16xf64>
    %55 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%54, %54 : tensor<8x16xf64>, tensor<8x16xf64>) outs(%0 : tensor<8x16xf64>) {
    ^bb0(%in: f64, %in_21: f64, %out: f64):
      %82 = arith.mulf %in, %in_21 : f64
      linalg.yield %82 : f64
    } -> tensor<8x16xf64>
    %56 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%55 : tensor<8x16xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.addf %in, %out : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %57 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%56 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %82 = arith.divf %in, %cst_7 : f64
      linalg.yield %82 : f64
    } -> tensor<8x1xf64>
    %58 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%57 : tensor<8x1xf64>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %82 = arith.truncf %in : f64 to f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %59 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%50 : tensor<8x16xf32>) outs(%12 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.addf %in, %out : f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %60 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%59 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.divf %in, %cst_8 : f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %61 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%58 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.truncf %cst_6 : f64 to f32
      %83 = arith.addf %in, %82 : f32
      linalg.yield %83 : f32
    } -> tensor<8x1xf32>
    %62 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%61 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = math.rsqrt %in : f32
      linalg.yield %82 : f32
    } -> tensor<8x1xf32>
    %63 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%50, %60 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.subf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %64 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%63, %62 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.mulf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %65 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%64, %arg7 : tensor<8x16xf32>, tensor<16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.mulf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %66 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%65, %arg8 : tensor<8x16xf32>, tensor<16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %67 = tensor.empty() : tensor<8x32xf32>
    %68 = linalg.fill ins(%cst_0 : f32) outs(%67 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %69 = linalg.matmul ins(%66, %arg9 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%68 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %70 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%69, %arg10 : tensor<8x32xf32>, tensor<32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x32xf32>
    %71 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%70 : tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.mulf %in, %cst_10 : f32
      linalg.yield %82 : f32
    } -> tensor<8x32xf32>
    %72 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%70 : tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = math.fpowi %in, %c3_i64 : f32, i64
      linalg.yield %82 : f32
    } -> tensor<8x32xf32>
    %73 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%72 : tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.truncf %cst_4 : f64 to f32
      %83 = arith.mulf %in, %82 : f32
      linalg.yield %83 : f32
    } -> tensor<8x32xf32>
    %74 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%70, %73 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x32xf32>
    %75 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%74 : tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.truncf %cst_3 : f64 to f32
      %83 = arith.mulf %in, %82 : f32
      linalg.yield %83 : f32
    } -> tensor<8x32xf32>
    %76 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%75 : tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = math.tanh %in : f32
      linalg.yield %82 : f32
    } -> tensor<8x32xf32>
    %77 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%76 : tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %82 = arith.addf %in, %cst_11 : f32
      linalg.yield %82 : f32
    } -> tensor<8x32xf32>
    %78 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%71, %77 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%67 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.mulf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x32xf32>
    %79 = linalg.matmul ins(%78, %arg11 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%47 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %80 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%79, %arg12 : tensor<8x16xf32>, tensor<16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    %81 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%50, %80 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%17 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_21: f32, %out: f32):
      %82 = arith.addf %in, %in_21 : f32
      linalg.yield %82 : f32
    } -> tensor<8x16xf32>
    return %81 : tensor<8x16xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_8_8_torch.uint8: "0x0100000001000000000000000101000000000000010101000000000001010101000000000101010101000000010101010101000001010101010101000101010101010101"
    }
  }
#-}
