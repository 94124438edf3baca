// lstm_cell: nn.LSTMCell(512, 512), batch 32, returns (h', c'); its parameters are inputs (x, h, c, w_ih, w_hh, b_ih, b_hh; torch.func.functional_call). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @lstm_cell(%arg0: tensor<32x512xf32>, %arg1: tensor<32x512xf32>, %arg2: tensor<32x512xf32>, %arg3: tensor<2048x512xf32>, %arg4: tensor<2048x512xf32>, %arg5: tensor<2048xf32>, %arg6: tensor<2048xf32>) -> (tensor<32x512xf32>, tensor<32x512xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<512x2048xf32>
    %transposed = linalg.transpose ins(%arg4 : tensor<2048x512xf32>) outs(%0 : tensor<512x2048xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<32x2048xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
    %3 = linalg.matmul ins(%arg1, %transposed : tensor<32x512xf32>, tensor<512x2048xf32>) outs(%2 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg6 : tensor<32x2048xf32>, tensor<2048xf32>) outs(%1 : tensor<32x2048xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.addf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<32x2048xf32>
    %transposed_1 = linalg.transpose ins(%arg3 : tensor<2048x512xf32>) outs(%0 : tensor<512x2048xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%arg0, %transposed_1 : tensor<32x512xf32>, tensor<512x2048xf32>) outs(%2 : tensor<32x2048xf32>) -> tensor<32x2048xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg5 : tensor<32x2048xf32>, tensor<2048xf32>) outs(%1 : tensor<32x2048xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.addf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<32x2048xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %6 : tensor<32x2048xf32>, tensor<32x2048xf32>) outs(%1 : tensor<32x2048xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.addf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<32x2048xf32>
    %extracted_slice = tensor.extract_slice %7[0, 0] [32, 512] [1, 1] : tensor<32x2048xf32> to tensor<32x512xf32>
    %extracted_slice_2 = tensor.extract_slice %7[0, 512] [32, 512] [1, 1] : tensor<32x2048xf32> to tensor<32x512xf32>
    %extracted_slice_3 = tensor.extract_slice %7[0, 1024] [32, 512] [1, 1] : tensor<32x2048xf32> to tensor<32x512xf32>
    %extracted_slice_4 = tensor.extract_slice %7[0, 1536] [32, 512] [1, 1] : tensor<32x2048xf32> to tensor<32x512xf32>
    %8 = tensor.empty() : tensor<32x512xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.negf %in : f32
      %19 = math.exp %18 : f32
      %20 = arith.addf %19, %cst_0 : f32
      %21 = arith.divf %cst_0, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<32x512xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_2 : tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.negf %in : f32
      %19 = math.exp %18 : f32
      %20 = arith.addf %19, %cst_0 : f32
      %21 = arith.divf %cst_0, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<32x512xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_3 : tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = math.tanh %in : f32
      linalg.yield %18 : f32
    } -> tensor<32x512xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_4 : tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.negf %in : f32
      %19 = math.exp %18 : f32
      %20 = arith.addf %19, %cst_0 : f32
      %21 = arith.divf %cst_0, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<32x512xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %arg2 : tensor<32x512xf32>, tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.mulf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<32x512xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %11 : tensor<32x512xf32>, tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.mulf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<32x512xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%13, %14 : tensor<32x512xf32>, tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.addf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<32x512xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = math.tanh %in : f32
      linalg.yield %18 : f32
    } -> tensor<32x512xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %16 : tensor<32x512xf32>, tensor<32x512xf32>) outs(%8 : tensor<32x512xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %18 = arith.mulf %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<32x512xf32>
    return %17, %15 : tensor<32x512xf32>, tensor<32x512xf32>
  }
}
