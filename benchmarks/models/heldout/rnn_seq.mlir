// rnn_seq: nn.RNNCell(256, 512) (tanh) over 8 steps, batch 16, every hidden state returned, x and h divided by sqrt(256), sqrt(512) as they enter each step; its parameters are inputs (x, h0, w_ih, w_hh, b_ih, b_hh). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @rnn_seq(%arg0: tensor<8x16x256xf32>, %arg1: tensor<16x512xf32>, %arg2: tensor<512x256xf32>, %arg3: tensor<512x512xf32>, %arg4: tensor<512xf32>, %arg5: tensor<512xf32>) -> tensor<8x16x512xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.044194173824159216 : f64
    %cst_1 = arith.constant 6.250000e-02 : f32
    %extracted_slice = tensor.extract_slice %arg0[0, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed = tensor.collapse_shape %extracted_slice [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %0 = tensor.empty() : tensor<16x256xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %2 = tensor.empty() : tensor<16x512xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %4 = tensor.empty() : tensor<512x512xf32>
    %transposed = linalg.transpose ins(%arg3 : tensor<512x512xf32>) outs(%4 : tensor<512x512xf32>) permutation = [1, 0] 
    %5 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %6 = linalg.matmul ins(%3, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %8 = tensor.empty() : tensor<256x512xf32>
    %transposed_2 = linalg.transpose ins(%arg2 : tensor<512x256xf32>) outs(%8 : tensor<256x512xf32>) permutation = [1, 0] 
    %9 = linalg.matmul ins(%1, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %10 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %extracted_slice_3 = tensor.extract_slice %arg0[1, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed_4 = tensor.collapse_shape %extracted_slice_3 [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_4 : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %15 = linalg.matmul ins(%14, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%15, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %17 = linalg.matmul ins(%13, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%16, %18 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %extracted_slice_5 = tensor.extract_slice %arg0[2, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed_6 = tensor.collapse_shape %extracted_slice_5 [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_6 : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%20 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %23 = linalg.matmul ins(%22, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%23, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %25 = linalg.matmul ins(%21, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%25, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%24, %26 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%27 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %extracted_slice_7 = tensor.extract_slice %arg0[3, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed_8 = tensor.collapse_shape %extracted_slice_7 [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_8 : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %30 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%28 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %31 = linalg.matmul ins(%30, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %32 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%31, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %33 = linalg.matmul ins(%29, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %34 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%33, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %35 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%32, %34 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%35 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %extracted_slice_9 = tensor.extract_slice %arg0[4, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed_10 = tensor.collapse_shape %extracted_slice_9 [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %37 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_10 : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %38 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%36 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %39 = linalg.matmul ins(%38, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %40 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%39, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %41 = linalg.matmul ins(%37, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %42 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%41, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %43 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%40, %42 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %44 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%43 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %extracted_slice_11 = tensor.extract_slice %arg0[5, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed_12 = tensor.collapse_shape %extracted_slice_11 [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %45 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_12 : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %46 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%44 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %47 = linalg.matmul ins(%46, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %48 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%47, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %49 = linalg.matmul ins(%45, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %50 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%49, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%48, %50 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%51 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %extracted_slice_13 = tensor.extract_slice %arg0[6, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed_14 = tensor.collapse_shape %extracted_slice_13 [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %53 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_14 : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %54 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%52 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %55 = linalg.matmul ins(%54, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %56 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%55, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %57 = linalg.matmul ins(%53, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %58 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%57, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %59 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%56, %58 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %60 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%59 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %extracted_slice_15 = tensor.extract_slice %arg0[7, 0, 0] [1, 16, 256] [1, 1, 1] : tensor<8x16x256xf32> to tensor<1x16x256xf32>
    %collapsed_16 = tensor.collapse_shape %extracted_slice_15 [[0, 1], [2]] : tensor<1x16x256xf32> into tensor<16x256xf32>
    %61 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_16 : tensor<16x256xf32>) outs(%0 : tensor<16x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<16x256xf32>
    %62 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%60 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.truncf %cst_0 : f64 to f32
      %70 = arith.mulf %in, %69 : f32
      linalg.yield %70 : f32
    } -> tensor<16x512xf32>
    %63 = linalg.matmul ins(%62, %transposed : tensor<16x512xf32>, tensor<512x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %64 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%63, %arg5 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %65 = linalg.matmul ins(%61, %transposed_2 : tensor<16x256xf32>, tensor<256x512xf32>) outs(%5 : tensor<16x512xf32>) -> tensor<16x512xf32>
    %66 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%65, %arg4 : tensor<16x512xf32>, tensor<512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %67 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%64, %66 : tensor<16x512xf32>, tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %in_17: f32, %out: f32):
      %69 = arith.addf %in, %in_17 : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %68 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%67 : tensor<16x512xf32>) outs(%2 : tensor<16x512xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.tanh %in : f32
      linalg.yield %69 : f32
    } -> tensor<16x512xf32>
    %concat = tensor.concat dim(0) %12, %20, %28, %36, %44, %52, %60, %68 : (tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>) -> tensor<128x512xf32>
    %expanded = tensor.expand_shape %concat [[0, 1], [2]] output_shape [8, 16, 512] : tensor<128x512xf32> into tensor<8x16x512xf32>
    return %expanded : tensor<8x16x512xf32>
  }
}
