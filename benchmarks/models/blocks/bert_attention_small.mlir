// bert_attention_small: BERT attention layer: q, k, v projections 16->16, 2 heads, softmax(q k^T / sqrt(8)) v, output projection, + x, LayerNorm on 8x16; the projections take x / sqrt(16) (the harness's weights are wide); weights are inputs (x, wq, bq, wk, bk, wv, bv, wo, bo, ln_w, ln_b). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map5 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @bert_attention_small(%arg0: tensor<8x16xf32>, %arg1: tensor<16x16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16x16xf32>, %arg4: tensor<16xf32>, %arg5: tensor<16x16xf32>, %arg6: tensor<16xf32>, %arg7: tensor<16x16xf32>, %arg8: tensor<16xf32>, %arg9: tensor<16xf32>, %arg10: tensor<16xf32>) -> tensor<8x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 0.000000e+00 : f64
    %cst_2 = arith.constant 1.000000e-05 : f64
    %cst_3 = arith.constant 0.35355339059327373 : f64
    %cst_4 = arith.constant 2.500000e-01 : f32
    %cst_5 = arith.constant 1.600000e+01 : f64
    %cst_6 = arith.constant 1.600000e+01 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = arith.mulf %in, %cst_4 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<16x16xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<16x16xf32>) outs(%2 : tensor<16x16xf32>) permutation = [1, 0] 
    %3 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %4 = linalg.matmul ins(%1, %transposed : tensor<8x16xf32>, tensor<16x16xf32>) outs(%3 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg2 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.addf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %expanded = tensor.expand_shape %5 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %6 = tensor.empty() : tensor<2x8x8xf32>
    %transposed_7 = linalg.transpose ins(%expanded : tensor<8x2x8xf32>) outs(%6 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_8 = linalg.transpose ins(%arg3 : tensor<16x16xf32>) outs(%2 : tensor<16x16xf32>) permutation = [1, 0] 
    %7 = linalg.matmul ins(%1, %transposed_8 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%3 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %arg4 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.addf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %expanded_9 = tensor.expand_shape %8 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %transposed_10 = linalg.transpose ins(%arg5 : tensor<16x16xf32>) outs(%2 : tensor<16x16xf32>) permutation = [1, 0] 
    %9 = linalg.matmul ins(%1, %transposed_10 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%3 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg6 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.addf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %expanded_11 = tensor.expand_shape %10 [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
    %transposed_12 = linalg.transpose ins(%expanded_11 : tensor<8x2x8xf32>) outs(%6 : tensor<2x8x8xf32>) permutation = [1, 0, 2] 
    %transposed_13 = linalg.transpose ins(%expanded_9 : tensor<8x2x8xf32>) outs(%6 : tensor<2x8x8xf32>) permutation = [1, 2, 0] 
    %11 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %12 = linalg.batch_matmul ins(%transposed_7, %transposed_13 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%11 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %13 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12 : tensor<2x8x8xf32>) outs(%6 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = arith.truncf %cst_3 : f64 to f32
      %52 = arith.mulf %in, %51 : f32
      linalg.yield %52 : f32
    } -> tensor<2x8x8xf32>
    %14 = tensor.empty() : tensor<2x8xi64>
    %15 = linalg.fill ins(%c0_i64 : i64) outs(%14 : tensor<2x8xi64>) -> tensor<2x8xi64>
    %16 = tensor.empty() : tensor<2x8xf32>
    %17 = linalg.fill ins(%cst_0 : f32) outs(%16 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %18:2 = linalg.generic {indexing_maps = [#map2, #map3, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%13 : tensor<2x8x8xf32>) outs(%17, %15 : tensor<2x8xf32>, tensor<2x8xi64>) {
    ^bb0(%in: f32, %out: f32, %out_17: i64):
      %51 = linalg.index 2 : index
      %52 = arith.index_cast %51 : index to i64
      %53 = arith.maximumf %in, %out : f32
      %54 = arith.cmpf ogt, %in, %out : f32
      %55 = arith.select %54, %52, %out_17 : i64
      linalg.yield %53, %55 : f32, i64
    } -> (tensor<2x8xf32>, tensor<2x8xi64>)
    %expanded_14 = tensor.expand_shape %18#0 [[0], [1, 2]] output_shape [2, 8, 1] : tensor<2x8xf32> into tensor<2x8x1xf32>
    %19 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %expanded_14 : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%6 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.subf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<2x8x8xf32>
    %20 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19 : tensor<2x8x8xf32>) outs(%6 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = math.exp %in : f32
      linalg.yield %51 : f32
    } -> tensor<2x8x8xf32>
    %21 = tensor.empty() : tensor<2x8x1xf32>
    %22 = linalg.fill ins(%cst : f32) outs(%21 : tensor<2x8x1xf32>) -> tensor<2x8x1xf32>
    %23 = linalg.generic {indexing_maps = [#map2, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%20 : tensor<2x8x8xf32>) outs(%22 : tensor<2x8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = arith.addf %in, %out : f32
      linalg.yield %51 : f32
    } -> tensor<2x8x1xf32>
    %24 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20, %23 : tensor<2x8x8xf32>, tensor<2x8x1xf32>) outs(%6 : tensor<2x8x8xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.divf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<2x8x8xf32>
    %25 = linalg.batch_matmul ins(%24, %transposed_12 : tensor<2x8x8xf32>, tensor<2x8x8xf32>) outs(%11 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %26 = tensor.empty() : tensor<8x2x8xf32>
    %transposed_15 = linalg.transpose ins(%25 : tensor<2x8x8xf32>) outs(%26 : tensor<8x2x8xf32>) permutation = [1, 0, 2] 
    %collapsed = tensor.collapse_shape %transposed_15 [[0], [1, 2]] : tensor<8x2x8xf32> into tensor<8x16xf32>
    %transposed_16 = linalg.transpose ins(%arg7 : tensor<16x16xf32>) outs(%2 : tensor<16x16xf32>) permutation = [1, 0] 
    %27 = linalg.matmul ins(%collapsed, %transposed_16 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%3 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%27, %arg8 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.addf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%28, %arg0 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.addf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %30 = tensor.empty() : tensor<8x16xf64>
    %31 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<8x16xf32>) outs(%30 : tensor<8x16xf64>) {
    ^bb0(%in: f32, %out: f64):
      %51 = arith.extf %in : f32 to f64
      linalg.yield %51 : f64
    } -> tensor<8x16xf64>
    %32 = tensor.empty() : tensor<8x1xf64>
    %33 = linalg.fill ins(%cst_1 : f64) outs(%32 : tensor<8x1xf64>) -> tensor<8x1xf64>
    %34 = linalg.generic {indexing_maps = [#map, #map5], iterator_types = ["parallel", "reduction"]} ins(%31 : tensor<8x16xf64>) outs(%33 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %51 = arith.addf %in, %out : f64
      linalg.yield %51 : f64
    } -> tensor<8x1xf64>
    %35 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%34 : tensor<8x1xf64>) outs(%32 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %51 = arith.divf %in, %cst_5 : f64
      linalg.yield %51 : f64
    } -> tensor<8x1xf64>
    %36 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%31, %35 : tensor<8x16xf64>, tensor<8x1xf64>) outs(%30 : tensor<8x16xf64>) {
    ^bb0(%in: f64, %in_17: f64, %out: f64):
      %51 = arith.subf %in, %in_17 : f64
      linalg.yield %51 : f64
    } -> tensor<8x16xf64>
    %37 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%36, %36 : tensor<8x16xf64>, tensor<8x16xf64>) outs(%30 : tensor<8x16xf64>) {
    ^bb0(%in: f64, %in_17: f64, %out: f64):
      %51 = arith.mulf %in, %in_17 : f64
      linalg.yield %51 : f64
    } -> tensor<8x16xf64>
    %38 = linalg.generic {indexing_maps = [#map, #map5], iterator_types = ["parallel", "reduction"]} ins(%37 : tensor<8x16xf64>) outs(%33 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %51 = arith.addf %in, %out : f64
      linalg.yield %51 : f64
    } -> tensor<8x1xf64>
    %39 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%38 : tensor<8x1xf64>) outs(%32 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %51 = arith.divf %in, %cst_5 : f64
      linalg.yield %51 : f64
    } -> tensor<8x1xf64>
    %40 = tensor.empty() : tensor<8x1xf32>
    %41 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%39 : tensor<8x1xf64>) outs(%40 : tensor<8x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %51 = arith.truncf %in : f64 to f32
      linalg.yield %51 : f32
    } -> tensor<8x1xf32>
    %42 = linalg.fill ins(%cst : f32) outs(%40 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map5], iterator_types = ["parallel", "reduction"]} ins(%29 : tensor<8x16xf32>) outs(%42 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = arith.addf %in, %out : f32
      linalg.yield %51 : f32
    } -> tensor<8x1xf32>
    %44 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<8x1xf32>) outs(%40 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = arith.divf %in, %cst_6 : f32
      linalg.yield %51 : f32
    } -> tensor<8x1xf32>
    %45 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%41 : tensor<8x1xf32>) outs(%40 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = arith.truncf %cst_2 : f64 to f32
      %52 = arith.addf %in, %51 : f32
      linalg.yield %52 : f32
    } -> tensor<8x1xf32>
    %46 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%45 : tensor<8x1xf32>) outs(%40 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %51 = math.rsqrt %in : f32
      linalg.yield %51 : f32
    } -> tensor<8x1xf32>
    %47 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%29, %44 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.subf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %48 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%47, %46 : tensor<8x16xf32>, tensor<8x1xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.mulf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %49 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%48, %arg9 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.mulf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    %50 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%49, %arg10 : tensor<8x16xf32>, tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %51 = arith.addf %in, %in_17 : f32
      linalg.yield %51 : f32
    } -> tensor<8x16xf32>
    return %50 : tensor<8x16xf32>
  }
}
