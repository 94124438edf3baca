// t5_ffn: T5 v1.1 feed-forward: RMSNorm(512), gated GELU (tanh) Linear 512->1024 twice, Linear 1024->512, + x on 77x512 (a CLIP-length sequence); weights are inputs (x, scale, wi_0, wi_1, wo). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @t5_ffn(%arg0: tensor<77x512xf32>, %arg1: tensor<512xf32>, %arg2: tensor<1024x512xf32>, %arg3: tensor<1024x512xf32>, %arg4: tensor<512x1024xf32>) -> tensor<77x512xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %c3_i64 = arith.constant 3 : i64
    %cst_0 = arith.constant 4.471500e-02 : f32
    %cst_1 = arith.constant 7.977240e-01 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %cst_3 = arith.constant 5.000000e-01 : f32
    %cst_4 = arith.constant 0.044194173824159216 : f64
    %cst_5 = arith.constant 9.9999999999999995E-7 : f64
    %cst_6 = arith.constant 5.120000e+02 : f32
    %cst_7 = arith.constant 3.125000e-02 : f32
    %0 = tensor.empty() : tensor<77x512xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<77x512xf32>) outs(%0 : tensor<77x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %24 : f32
    } -> tensor<77x512xf32>
    %2 = tensor.empty() : tensor<77x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<77x1xf32>) -> tensor<77x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<77x512xf32>) outs(%3 : tensor<77x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.addf %in, %out : f32
      linalg.yield %24 : f32
    } -> tensor<77x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<77x1xf32>) outs(%2 : tensor<77x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.divf %in, %cst_6 : f32
      linalg.yield %24 : f32
    } -> tensor<77x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<77x1xf32>) outs(%2 : tensor<77x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.truncf %cst_5 : f64 to f32
      %25 = arith.addf %in, %24 : f32
      linalg.yield %25 : f32
    } -> tensor<77x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<77x1xf32>) outs(%2 : tensor<77x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = math.rsqrt %in : f32
      linalg.yield %24 : f32
    } -> tensor<77x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<77x512xf32>, tensor<77x1xf32>) outs(%0 : tensor<77x512xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %24 = arith.mulf %in, %in_10 : f32
      linalg.yield %24 : f32
    } -> tensor<77x512xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg1 : tensor<77x512xf32>, tensor<512xf32>) outs(%0 : tensor<77x512xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %24 = arith.mulf %in, %in_10 : f32
      linalg.yield %24 : f32
    } -> tensor<77x512xf32>
    %10 = tensor.empty() : tensor<1024x512xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<1024x512xf32>) outs(%10 : tensor<1024x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.truncf %cst_4 : f64 to f32
      %25 = arith.mulf %in, %24 : f32
      linalg.yield %25 : f32
    } -> tensor<1024x512xf32>
    %12 = tensor.empty() : tensor<512x1024xf32>
    %transposed = linalg.transpose ins(%11 : tensor<1024x512xf32>) outs(%12 : tensor<512x1024xf32>) permutation = [1, 0] 
    %13 = tensor.empty() : tensor<77x1024xf32>
    %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<77x1024xf32>) -> tensor<77x1024xf32>
    %15 = linalg.matmul ins(%9, %transposed : tensor<77x512xf32>, tensor<512x1024xf32>) outs(%14 : tensor<77x1024xf32>) -> tensor<77x1024xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<77x1024xf32>) outs(%13 : tensor<77x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = math.fpowi %in, %c3_i64 : f32, i64
      %25 = arith.mulf %24, %cst_0 : f32
      %26 = arith.addf %in, %25 : f32
      %27 = arith.mulf %26, %cst_1 : f32
      %28 = math.tanh %27 : f32
      %29 = arith.addf %28, %cst_2 : f32
      %30 = arith.mulf %29, %cst_3 : f32
      %31 = arith.mulf %in, %30 : f32
      linalg.yield %31 : f32
    } -> tensor<77x1024xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg3 : tensor<1024x512xf32>) outs(%10 : tensor<1024x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.truncf %cst_4 : f64 to f32
      %25 = arith.mulf %in, %24 : f32
      linalg.yield %25 : f32
    } -> tensor<1024x512xf32>
    %transposed_8 = linalg.transpose ins(%17 : tensor<1024x512xf32>) outs(%12 : tensor<512x1024xf32>) permutation = [1, 0] 
    %18 = linalg.matmul ins(%9, %transposed_8 : tensor<77x512xf32>, tensor<512x1024xf32>) outs(%14 : tensor<77x1024xf32>) -> tensor<77x1024xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%16, %18 : tensor<77x1024xf32>, tensor<77x1024xf32>) outs(%13 : tensor<77x1024xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %24 = arith.mulf %in, %in_10 : f32
      linalg.yield %24 : f32
    } -> tensor<77x1024xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg4 : tensor<512x1024xf32>) outs(%12 : tensor<512x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.mulf %in, %cst_7 : f32
      linalg.yield %24 : f32
    } -> tensor<512x1024xf32>
    %transposed_9 = linalg.transpose ins(%20 : tensor<512x1024xf32>) outs(%10 : tensor<1024x512xf32>) permutation = [1, 0] 
    %21 = linalg.fill ins(%cst : f32) outs(%0 : tensor<77x512xf32>) -> tensor<77x512xf32>
    %22 = linalg.matmul ins(%19, %transposed_9 : tensor<77x1024xf32>, tensor<1024x512xf32>) outs(%21 : tensor<77x512xf32>) -> tensor<77x512xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %22 : tensor<77x512xf32>, tensor<77x512xf32>) outs(%0 : tensor<77x512xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %24 = arith.addf %in, %in_10 : f32
      linalg.yield %24 : f32
    } -> tensor<77x512xf32>
    return %23 : tensor<77x512xf32>
  }
}
