// audio_upsample: vocoder decoder stage: ConvTranspose1d k8 stride 4 pad 2 256->128, LeakyReLU(0.1), + Conv1d k3 pad 1 128->128 of it (residual) on 4x256x256 -> 1024; weights are inputs (x, w_up, b_up, w_res, b_res). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
module {
  func.func @audio_upsample(%arg0: tensor<4x256x256xf32>, %arg1: tensor<256x128x8xf32>, %arg2: tensor<128xf32>, %arg3: tensor<128x128x3xf32>, %arg4: tensor<128xf32>) -> tensor<4x128x1024xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = arith.constant 0.051031036307982884 : f64
    %cst_2 = arith.constant 1.000000e-01 : f64
    %cst_3 = arith.constant 0.044194173824159216 : f64
    %c7 = arith.constant 7 : index
    %0 = tensor.empty() : tensor<256x128x8xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<256x128x8xf32>) outs(%0 : tensor<256x128x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.truncf %cst_3 : f64 to f32
      %18 = arith.mulf %in, %17 : f32
      linalg.yield %18 : f32
    } -> tensor<256x128x8xf32>
    %2 = tensor.empty() : tensor<128x256x8xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<128x256x8xf32>) -> tensor<128x256x8xf32>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%3 : tensor<128x256x8xf32>) {
    ^bb0(%out: f32):
      %17 = linalg.index 0 : index
      %18 = linalg.index 1 : index
      %19 = linalg.index 2 : index
      %20 = arith.subi %c7, %19 : index
      %extracted = tensor.extract %1[%18, %17, %20] : tensor<256x128x8xf32>
      linalg.yield %extracted : f32
    } -> tensor<128x256x8xf32>
    %5 = tensor.empty() : tensor<4x256x1031xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<4x256x1031xf32>) -> tensor<4x256x1031xf32>
    %inserted_slice = tensor.insert_slice %arg0 into %6[0, 0, 5] [4, 256, 256] [1, 1, 4] : tensor<4x256x256xf32> into tensor<4x256x1031xf32>
    %7 = tensor.empty() : tensor<4x128x1024xf32>
    %broadcasted = linalg.broadcast ins(%arg2 : tensor<128xf32>) outs(%7 : tensor<4x128x1024xf32>) dimensions = [0, 2] 
    %8 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%inserted_slice, %4 : tensor<4x256x1031xf32>, tensor<128x256x8xf32>) outs(%broadcasted : tensor<4x128x1024xf32>) -> tensor<4x128x1024xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst_0, %8 : tensor<f32>, tensor<4x128x1024xf32>) outs(%7 : tensor<4x128x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %17 = arith.cmpf ogt, %in, %in_5 : f32
      %18 = arith.select %17, %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<4x128x1024xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst_0, %8 : tensor<f32>, tensor<4x128x1024xf32>) outs(%7 : tensor<4x128x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %17 = arith.cmpf olt, %in, %in_5 : f32
      %18 = arith.select %17, %in, %in_5 : f32
      linalg.yield %18 : f32
    } -> tensor<4x128x1024xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<4x128x1024xf32>) outs(%7 : tensor<4x128x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.truncf %cst_2 : f64 to f32
      %18 = arith.mulf %in, %17 : f32
      linalg.yield %18 : f32
    } -> tensor<4x128x1024xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %11 : tensor<4x128x1024xf32>, tensor<4x128x1024xf32>) outs(%7 : tensor<4x128x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %17 = arith.addf %in, %in_5 : f32
      linalg.yield %17 : f32
    } -> tensor<4x128x1024xf32>
    %13 = tensor.empty() : tensor<128x128x3xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<128x128x3xf32>) outs(%13 : tensor<128x128x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.truncf %cst_1 : f64 to f32
      %18 = arith.mulf %in, %17 : f32
      linalg.yield %18 : f32
    } -> tensor<128x128x3xf32>
    %padded = tensor.pad %12 low[0, 0, 1] high[0, 0, 1] {
    ^bb0(%arg5: index, %arg6: index, %arg7: index):
      tensor.yield %cst : f32
    } : tensor<4x128x1024xf32> to tensor<4x128x1026xf32>
    %broadcasted_4 = linalg.broadcast ins(%arg4 : tensor<128xf32>) outs(%7 : tensor<4x128x1024xf32>) dimensions = [0, 2] 
    %15 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%padded, %14 : tensor<4x128x1026xf32>, tensor<128x128x3xf32>) outs(%broadcasted_4 : tensor<4x128x1024xf32>) -> tensor<4x128x1024xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%12, %15 : tensor<4x128x1024xf32>, tensor<4x128x1024xf32>) outs(%7 : tensor<4x128x1024xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %17 = arith.addf %in, %in_5 : f32
      linalg.yield %17 : f32
    } -> tensor<4x128x1024xf32>
    return %16 : tensor<4x128x1024xf32>
  }
}
