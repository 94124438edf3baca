// gru_cell_small: nn.GRUCell(8, 8), batch 2; its parameters are inputs (x, h, w_ih, w_hh, b_ih, b_hh; torch.func.functional_call). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @gru_cell_small(%arg0: tensor<2x8xf32>, %arg1: tensor<2x8xf32>, %arg2: tensor<24x8xf32>, %arg3: tensor<24x8xf32>, %arg4: tensor<24xf32>, %arg5: tensor<24xf32>) -> tensor<2x8xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x24xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<24x8xf32>) outs(%0 : tensor<8x24xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<2x24xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<2x24xf32>) -> tensor<2x24xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<2x8xf32>, tensor<8x24xf32>) outs(%2 : tensor<2x24xf32>) -> tensor<2x24xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg4 : tensor<2x24xf32>, tensor<24xf32>) outs(%1 : tensor<2x24xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.addf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x24xf32>
    %extracted_slice = tensor.extract_slice %4[0, 0] [2, 8] [1, 1] : tensor<2x24xf32> to tensor<2x8xf32>
    %extracted_slice_1 = tensor.extract_slice %4[0, 8] [2, 8] [1, 1] : tensor<2x24xf32> to tensor<2x8xf32>
    %extracted_slice_2 = tensor.extract_slice %4[0, 16] [2, 8] [1, 1] : tensor<2x24xf32> to tensor<2x8xf32>
    %transposed_3 = linalg.transpose ins(%arg3 : tensor<24x8xf32>) outs(%0 : tensor<8x24xf32>) permutation = [1, 0] 
    %5 = linalg.matmul ins(%arg1, %transposed_3 : tensor<2x8xf32>, tensor<8x24xf32>) outs(%2 : tensor<2x24xf32>) -> tensor<2x24xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg5 : tensor<2x24xf32>, tensor<24xf32>) outs(%1 : tensor<2x24xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.addf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x24xf32>
    %extracted_slice_4 = tensor.extract_slice %6[0, 0] [2, 8] [1, 1] : tensor<2x24xf32> to tensor<2x8xf32>
    %extracted_slice_5 = tensor.extract_slice %6[0, 8] [2, 8] [1, 1] : tensor<2x24xf32> to tensor<2x8xf32>
    %extracted_slice_6 = tensor.extract_slice %6[0, 16] [2, 8] [1, 1] : tensor<2x24xf32> to tensor<2x8xf32>
    %7 = tensor.empty() : tensor<2x8xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_4, %extracted_slice : tensor<2x8xf32>, tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.addf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.negf %in : f32
      %19 = math.exp %18 : f32
      %20 = arith.addf %19, %cst_0 : f32
      %21 = arith.divf %cst_0, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_5, %extracted_slice_1 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.addf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = arith.negf %in : f32
      %19 = math.exp %18 : f32
      %20 = arith.addf %19, %cst_0 : f32
      %21 = arith.divf %cst_0, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<2x8xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_6, %9 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.mulf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice_2, %12 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.addf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %18 = math.tanh %in : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %14 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.subf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %11 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.mulf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    %17 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%16, %14 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%7 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %18 = arith.addf %in, %in_7 : f32
      linalg.yield %18 : f32
    } -> tensor<2x8xf32>
    return %17 : tensor<2x8xf32>
  }
}
