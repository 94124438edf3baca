// conv1d_block_small: Conv1d k=3 4->4 (pad 1), BatchNorm1d, ReLU on 2x4x16. Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, 0)>
module {
  func.func @conv1d_block_small(%arg0: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant dense_resource<torch_tensor_4_torch.float32_3> : tensor<4xf32>
    %cst_2 = arith.constant dense_resource<torch_tensor_4_torch.float32_2> : tensor<4xf32>
    %cst_3 = arith.constant 1.000000e-05 : f64
    %cst_4 = arith.constant dense_resource<torch_tensor_4_torch.float32_1> : tensor<4xf32>
    %cst_5 = arith.constant dense_resource<torch_tensor_4_torch.float32> : tensor<4xf32>
    %cst_6 = arith.constant dense_resource<torch_tensor_4_4_3_torch.float32> : tensor<4x4x3xf32>
    %padded = tensor.pad %arg0 low[0, 0, 1] high[0, 0, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index):
      tensor.yield %cst : f32
    } : tensor<2x4x16xf32> to tensor<2x4x18xf32>
    %0 = tensor.empty() : tensor<2x4x16xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %2 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%padded, %cst_6 : tensor<2x4x18xf32>, tensor<4x4x3xf32>) outs(%1 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
    %3 = tensor.empty() : tensor<4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_4 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.truncf %cst_3 : f64 to f32
      %13 = arith.addf %in, %12 : f32
      linalg.yield %13 : f32
    } -> tensor<4xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.sqrt %in : f32
      linalg.yield %12 : f32
    } -> tensor<4xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%5 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.cmpf one, %in, %cst : f32
      cf.assert %12, "unimplemented: tensor with zero element"
      %13 = arith.divf %cst_0, %in : f32
      linalg.yield %13 : f32
    } -> tensor<4xf32>
    %expanded = tensor.expand_shape %cst_5 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %expanded_7 = tensor.expand_shape %6 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %expanded : tensor<2x4x16xf32>, tensor<4x1xf32>) outs(%0 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %12 = arith.subf %in, %in_10 : f32
      linalg.yield %12 : f32
    } -> tensor<2x4x16xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %expanded_7 : tensor<2x4x16xf32>, tensor<4x1xf32>) outs(%0 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %12 = arith.mulf %in, %in_10 : f32
      linalg.yield %12 : f32
    } -> tensor<2x4x16xf32>
    %expanded_8 = tensor.expand_shape %cst_2 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %expanded_8 : tensor<2x4x16xf32>, tensor<4x1xf32>) outs(%0 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %12 = arith.mulf %in, %in_10 : f32
      linalg.yield %12 : f32
    } -> tensor<2x4x16xf32>
    %expanded_9 = tensor.expand_shape %cst_1 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %expanded_9 : tensor<2x4x16xf32>, tensor<4x1xf32>) outs(%0 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %in_10: f32, %out: f32):
      %12 = arith.addf %in, %in_10 : f32
      linalg.yield %12 : f32
    } -> tensor<2x4x16xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10 : tensor<2x4x16xf32>) outs(%0 : tensor<2x4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.cmpf ugt, %in, %cst : f32
      %13 = arith.select %12, %in, %cst : f32
      linalg.yield %13 : f32
    } -> tensor<2x4x16xf32>
    return %11 : tensor<2x4x16xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_torch.float32_3: "0x0400000054D89C3DDE37143DA22C63BE6D94CDBC",
      torch_tensor_4_torch.float32_2: "0x040000007ACE4D3F370D803F5A176C3FE8B9783F",
      torch_tensor_4_torch.float32_1: "0x040000004B54973F5CD8893F135F893F52058D3F",
      torch_tensor_4_torch.float32: "0x040000008F3D763D5AE0653D605779BE77C6193D",
      torch_tensor_4_4_3_torch.float32: "0x040000001FE5433E9C8E053D7B39893E5A9150BA0BCDD93D12B136BEB3D387BE3EF222BD4122573EF008233E87D367BE6E78633E67D5913EE1D530BE255B8CBEDD196E3D1C6528BEE9F27B3E830A713E70585CBE816E8FBE36CD7ABDB5EC813EE1B6E9BC8F6F84BDD6F96D3E90B8313E818CA7BAE49087BEDB98B23D153F54BEAFF77F3E95D792BD06EB803EC93B273EAEA74FBE176EDFBC8B163ABDA0FCFCBD682A22BE7459B3BDA9CE033BB74991BD090D86BEB2E5713EF0BF353C864EB4BD9A60373E"
    }
  }
#-}
