// llama_mlp: RMSNorm + SwiGLU MLP + x (LLaMA-style): 128x512, hidden 1408; weights are inputs (x, norm_w, w_gate, w_up, w_down). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @llama_mlp(%arg0: tensor<128x512xf32>, %arg1: tensor<512xf32>, %arg2: tensor<1408x512xf32>, %arg3: tensor<1408x512xf32>, %arg4: tensor<512x1408xf32>) -> tensor<128x512xf32> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 9.9999999999999995E-7 : f64
    %cst_2 = arith.constant 5.120000e+02 : f32
    %0 = tensor.empty() : tensor<128x512xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<128x512xf32>) outs(%0 : tensor<128x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %22 : f32
    } -> tensor<128x512xf32>
    %2 = tensor.empty() : tensor<128x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<128x1xf32>) -> tensor<128x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<128x512xf32>) outs(%3 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.addf %in, %out : f32
      linalg.yield %22 : f32
    } -> tensor<128x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<128x1xf32>) outs(%2 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.divf %in, %cst_2 : f32
      linalg.yield %22 : f32
    } -> tensor<128x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<128x1xf32>) outs(%2 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.truncf %cst_1 : f64 to f32
      %23 = arith.addf %in, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<128x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<128x1xf32>) outs(%2 : tensor<128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.rsqrt %in : f32
      linalg.yield %22 : f32
    } -> tensor<128x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %7 : tensor<128x512xf32>, tensor<128x1xf32>) outs(%0 : tensor<128x512xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.mulf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<128x512xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %arg1 : tensor<128x512xf32>, tensor<512xf32>) outs(%0 : tensor<128x512xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.mulf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<128x512xf32>
    %10 = tensor.empty() : tensor<512x1408xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<1408x512xf32>) outs(%10 : tensor<512x1408xf32>) permutation = [1, 0] 
    %11 = tensor.empty() : tensor<128x1408xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%11 : tensor<128x1408xf32>) -> tensor<128x1408xf32>
    %13 = linalg.matmul ins(%9, %transposed : tensor<128x512xf32>, tensor<512x1408xf32>) outs(%12 : tensor<128x1408xf32>) -> tensor<128x1408xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<128x1408xf32>) outs(%11 : tensor<128x1408xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.negf %in : f32
      %23 = math.exp %22 : f32
      %24 = arith.addf %23, %cst_0 : f32
      %25 = arith.divf %cst_0, %24 : f32
      linalg.yield %25 : f32
    } -> tensor<128x1408xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %14 : tensor<128x1408xf32>, tensor<128x1408xf32>) outs(%11 : tensor<128x1408xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.mulf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<128x1408xf32>
    %transposed_3 = linalg.transpose ins(%arg3 : tensor<1408x512xf32>) outs(%10 : tensor<512x1408xf32>) permutation = [1, 0] 
    %16 = linalg.matmul ins(%9, %transposed_3 : tensor<128x512xf32>, tensor<512x1408xf32>) outs(%12 : tensor<128x1408xf32>) -> tensor<128x1408xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %16 : tensor<128x1408xf32>, tensor<128x1408xf32>) outs(%11 : tensor<128x1408xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.mulf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<128x1408xf32>
    %18 = tensor.empty() : tensor<1408x512xf32>
    %transposed_4 = linalg.transpose ins(%arg4 : tensor<512x1408xf32>) outs(%18 : tensor<1408x512xf32>) permutation = [1, 0] 
    %19 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x512xf32>) -> tensor<128x512xf32>
    %20 = linalg.matmul ins(%17, %transposed_4 : tensor<128x1408xf32>, tensor<1408x512xf32>) outs(%19 : tensor<128x512xf32>) -> tensor<128x512xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %20 : tensor<128x512xf32>, tensor<128x512xf32>) outs(%0 : tensor<128x512xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.addf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<128x512xf32>
    return %21 : tensor<128x512xf32>
  }
}
