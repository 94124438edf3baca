// bert_attention: BERT attention layer: q, k, v projections 768->768, 12 heads, softmax(q k^T / sqrt(64)) v, output projection, + x, LayerNorm on 128x768; the projections take x / sqrt(768) (the harness's weights are wide); weights are inputs (x, wq, bq, wk, bk, wv, bv, wo, bo, ln_w, ln_b). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map5 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @bert_attention(%arg0: tensor<128x768xf32>, %arg1: tensor<768x768xf32>, %arg2: tensor<768xf32>, %arg3: tensor<768x768xf32>, %arg4: tensor<768xf32>, %arg5: tensor<768x768xf32>, %arg6: tensor<768xf32>, %arg7: tensor<768x768xf32>, %arg8: tensor<768xf32>, %arg9: tensor<768xf32>, %arg10: tensor<768xf32>) -> tensor<128x768xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 0.000000e+00 : f64
    %cst_2 = arith.constant 1.000000e-05 : f64
    %cst_3 = arith.constant 0.036084391824351615 : f64
    %cst_4 = arith.constant 1.250000e-01 : f32
    %cst_5 = arith.constant 7.680000e+02 : f64
    %cst_6 = arith.constant 7.680000e+02 : f32
    %0 = tensor.empty() : tensor<128x768xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<128x768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = arith.truncf %cst_3 : f64 to f32
      %55 = arith.mulf %in, %54 : f32
      linalg.yield %55 : f32
    } -> tensor<128x768xf32>
    %2 = tensor.empty() : tensor<768x768xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<768x768xf32>) outs(%2 : tensor<768x768xf32>) permutation = [1, 0] 
    %3 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %4 = linalg.matmul ins(%1, %transposed : tensor<128x768xf32>, tensor<768x768xf32>) outs(%3 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg2 : tensor<128x768xf32>, tensor<768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.addf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %expanded = tensor.expand_shape %5 [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf32> into tensor<128x12x64xf32>
    %6 = tensor.empty() : tensor<12x128x64xf32>
    %transposed_7 = linalg.transpose ins(%expanded : tensor<128x12x64xf32>) outs(%6 : tensor<12x128x64xf32>) permutation = [1, 0, 2] 
    %transposed_8 = linalg.transpose ins(%arg3 : tensor<768x768xf32>) outs(%2 : tensor<768x768xf32>) permutation = [1, 0] 
    %7 = linalg.matmul ins(%1, %transposed_8 : tensor<128x768xf32>, tensor<768x768xf32>) outs(%3 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %arg4 : tensor<128x768xf32>, tensor<768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.addf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %expanded_9 = tensor.expand_shape %8 [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf32> into tensor<128x12x64xf32>
    %transposed_10 = linalg.transpose ins(%arg5 : tensor<768x768xf32>) outs(%2 : tensor<768x768xf32>) permutation = [1, 0] 
    %9 = linalg.matmul ins(%1, %transposed_10 : tensor<128x768xf32>, tensor<768x768xf32>) outs(%3 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg6 : tensor<128x768xf32>, tensor<768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.addf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %expanded_11 = tensor.expand_shape %10 [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf32> into tensor<128x12x64xf32>
    %transposed_12 = linalg.transpose ins(%expanded_11 : tensor<128x12x64xf32>) outs(%6 : tensor<12x128x64xf32>) permutation = [1, 0, 2] 
    %11 = tensor.empty() : tensor<12x64x128xf32>
    %transposed_13 = linalg.transpose ins(%expanded_9 : tensor<128x12x64xf32>) outs(%11 : tensor<12x64x128xf32>) permutation = [1, 2, 0] 
    %12 = tensor.empty() : tensor<12x128x128xf32>
    %13 = linalg.fill ins(%cst : f32) outs(%12 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
    %14 = linalg.batch_matmul ins(%transposed_7, %transposed_13 : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%13 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
    %15 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14 : tensor<12x128x128xf32>) outs(%12 : tensor<12x128x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = arith.mulf %in, %cst_4 : f32
      linalg.yield %54 : f32
    } -> tensor<12x128x128xf32>
    %16 = tensor.empty() : tensor<12x128xi64>
    %17 = linalg.fill ins(%c0_i64 : i64) outs(%16 : tensor<12x128xi64>) -> tensor<12x128xi64>
    %18 = tensor.empty() : tensor<12x128xf32>
    %19 = linalg.fill ins(%cst_0 : f32) outs(%18 : tensor<12x128xf32>) -> tensor<12x128xf32>
    %20:2 = linalg.generic {indexing_maps = [#map2, #map3, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%15 : tensor<12x128x128xf32>) outs(%19, %17 : tensor<12x128xf32>, tensor<12x128xi64>) {
    ^bb0(%in: f32, %out: f32, %out_17: i64):
      %54 = linalg.index 2 : index
      %55 = arith.index_cast %54 : index to i64
      %56 = arith.maximumf %in, %out : f32
      %57 = arith.cmpf ogt, %in, %out : f32
      %58 = arith.select %57, %55, %out_17 : i64
      linalg.yield %56, %58 : f32, i64
    } -> (tensor<12x128xf32>, tensor<12x128xi64>)
    %expanded_14 = tensor.expand_shape %20#0 [[0], [1, 2]] output_shape [12, 128, 1] : tensor<12x128xf32> into tensor<12x128x1xf32>
    %21 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15, %expanded_14 : tensor<12x128x128xf32>, tensor<12x128x1xf32>) outs(%12 : tensor<12x128x128xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.subf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<12x128x128xf32>
    %22 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%21 : tensor<12x128x128xf32>) outs(%12 : tensor<12x128x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = math.exp %in : f32
      linalg.yield %54 : f32
    } -> tensor<12x128x128xf32>
    %23 = tensor.empty() : tensor<12x128x1xf32>
    %24 = linalg.fill ins(%cst : f32) outs(%23 : tensor<12x128x1xf32>) -> tensor<12x128x1xf32>
    %25 = linalg.generic {indexing_maps = [#map2, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%22 : tensor<12x128x128xf32>) outs(%24 : tensor<12x128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = arith.addf %in, %out : f32
      linalg.yield %54 : f32
    } -> tensor<12x128x1xf32>
    %26 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%22, %25 : tensor<12x128x128xf32>, tensor<12x128x1xf32>) outs(%12 : tensor<12x128x128xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.divf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<12x128x128xf32>
    %27 = linalg.fill ins(%cst : f32) outs(%6 : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
    %28 = linalg.batch_matmul ins(%26, %transposed_12 : tensor<12x128x128xf32>, tensor<12x128x64xf32>) outs(%27 : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
    %29 = tensor.empty() : tensor<128x12x64xf32>
    %transposed_15 = linalg.transpose ins(%28 : tensor<12x128x64xf32>) outs(%29 : tensor<128x12x64xf32>) permutation = [1, 0, 2] 
    %collapsed = tensor.collapse_shape %transposed_15 [[0], [1, 2]] : tensor<128x12x64xf32> into tensor<128x768xf32>
    %transposed_16 = linalg.transpose ins(%arg7 : tensor<768x768xf32>) outs(%2 : tensor<768x768xf32>) permutation = [1, 0] 
    %30 = linalg.matmul ins(%collapsed, %transposed_16 : tensor<128x768xf32>, tensor<768x768xf32>) outs(%3 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %31 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%30, %arg8 : tensor<128x768xf32>, tensor<768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.addf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%31, %arg0 : tensor<128x768xf32>, tensor<128x768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.addf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %33 = tensor.empty() : tensor<128x768xf64>
    %34 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%32 : tensor<128x768xf32>) outs(%33 : tensor<128x768xf64>) {
    ^bb0(%in: f32, %out: f64):
      %54 = arith.extf %in : f32 to f64
      linalg.yield %54 : f64
    } -> tensor<128x768xf64>
    %35 = tensor.empty() : tensor<128x1xf64>
    %36 = linalg.fill ins(%cst_1 : f64) outs(%35 : tensor<128x1xf64>) -> tensor<128x1xf64>
    %37 = linalg.generic {indexing_maps = [#map, #map5], iterator_types = ["parallel", "reduction"]} ins(%34 : tensor<128x768xf64>) outs(%36 : tensor<128x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %54 = arith.addf %in, %out : f64
      linalg.yield %54 : f64
    } -> tensor<128x1xf64>
    %38 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%37 : tensor<128x1xf64>) outs(%35 : tensor<128x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %54 = arith.divf %in, %cst_5 : f64
      linalg.yield %54 : f64
    } -> tensor<128x1xf64>
    %39 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%34, %38 : tensor<128x768xf64>, tensor<128x1xf64>) outs(%33 : tensor<128x768xf64>) {
    ^bb0(%in: f64, %in_17: f64, %out: f64):
      %54 = arith.subf %in, %in_17 : f64
      linalg.yield %54 : f64
    } -> tensor<128x768xf64>
    %40 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%39, %39 : tensor<128x768xf64>, tensor<128x768xf64>) outs(%33 : tensor<128x768xf64>) {
    ^bb0(%in: f64, %in_17: f64, %out: f64):
      %54 = arith.mulf %in, %in_17 : f64
      linalg.yield %54 : f64
    } -> tensor<128x768xf64>
    %41 = linalg.generic {indexing_maps = [#map, #map5], iterator_types = ["parallel", "reduction"]} ins(%40 : tensor<128x768xf64>) outs(%36 : tensor<128x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %54 = arith.addf %in, %out : f64
      linalg.yield %54 : f64
    } -> tensor<128x1xf64>
    %42 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<128x1xf64>) outs(%35 : tensor<128x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %54 = arith.divf %in, %cst_5 : f64
      linalg.yield %54 : f64
    } -> tensor<128x1xf64>
    %43 = tensor.empty() : tensor<128x1xf32>
    %44 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%42 : tensor<128x1xf64>) outs(%43 : tensor<128x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %54 = arith.truncf %in : f64 to f32
      linalg.yield %54 : f32
    } -> tensor<128x1xf32>
    %45 = linalg.fill ins(%cst : f32) outs(%43 : tensor<128x1xf32>) -> tensor<128x1xf32>
    %46 = linalg.generic {indexing_maps = [#map, #map5], iterator_types = ["parallel", "reduction"]} ins(%32 : tensor<128x768xf32>) outs(%45 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = arith.addf %in, %out : f32
      linalg.yield %54 : f32
    } -> tensor<128x1xf32>
    %47 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%46 : tensor<128x1xf32>) outs(%43 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = arith.divf %in, %cst_6 : f32
      linalg.yield %54 : f32
    } -> tensor<128x1xf32>
    %48 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<128x1xf32>) outs(%43 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = arith.truncf %cst_2 : f64 to f32
      %55 = arith.addf %in, %54 : f32
      linalg.yield %55 : f32
    } -> tensor<128x1xf32>
    %49 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%48 : tensor<128x1xf32>) outs(%43 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %54 = math.rsqrt %in : f32
      linalg.yield %54 : f32
    } -> tensor<128x1xf32>
    %50 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%32, %47 : tensor<128x768xf32>, tensor<128x1xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.subf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%50, %49 : tensor<128x768xf32>, tensor<128x1xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.mulf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%51, %arg9 : tensor<128x768xf32>, tensor<768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.mulf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    %53 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%52, %arg10 : tensor<128x768xf32>, tensor<768xf32>) outs(%0 : tensor<128x768xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %54 = arith.addf %in, %in_17 : f32
      linalg.yield %54 : f32
    } -> tensor<128x768xf32>
    return %53 : tensor<128x768xf32>
  }
}
