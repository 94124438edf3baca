// resnext_block_small: ResNeXt bottleneck: 1x1 8->8, BN, ReLU, 3x3 grouped conv 8->8 groups=4, BN, ReLU, 1x1 8->8, BN, + x, ReLU on 1x8x6x6. Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  func.func @resnext_block_small(%arg0: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant dense_resource<torch_tensor_8_torch.float32_11> : tensor<8xf32>
    %cst_2 = arith.constant dense_resource<torch_tensor_8_torch.float32_10> : tensor<8xf32>
    %cst_3 = arith.constant dense_resource<torch_tensor_8_torch.float32_9> : tensor<8xf32>
    %cst_4 = arith.constant dense_resource<torch_tensor_8_torch.float32_8> : tensor<8xf32>
    %cst_5 = arith.constant dense_resource<torch_tensor_8_8_1_1_torch.float32_1> : tensor<8x8x1x1xf32>
    %cst_6 = arith.constant dense_resource<torch_tensor_8_torch.float32_7> : tensor<8xf32>
    %cst_7 = arith.constant dense_resource<torch_tensor_8_torch.float32_6> : tensor<8xf32>
    %cst_8 = arith.constant dense_resource<torch_tensor_8_torch.float32_5> : tensor<8xf32>
    %cst_9 = arith.constant dense_resource<torch_tensor_8_torch.float32_4> : tensor<8xf32>
    %cst_10 = arith.constant dense_resource<torch_tensor_8_2_3_3_torch.float32> : tensor<8x2x3x3xf32>
    %cst_11 = arith.constant dense_resource<torch_tensor_8_torch.float32_3> : tensor<8xf32>
    %cst_12 = arith.constant dense_resource<torch_tensor_8_torch.float32_2> : tensor<8xf32>
    %cst_13 = arith.constant 1.000000e-05 : f64
    %cst_14 = arith.constant dense_resource<torch_tensor_8_torch.float32_1> : tensor<8xf32>
    %cst_15 = arith.constant dense_resource<torch_tensor_8_torch.float32> : tensor<8xf32>
    %cst_16 = arith.constant dense_resource<torch_tensor_8_8_1_1_torch.float32> : tensor<8x8x1x1xf32>
    %0 = tensor.empty() : tensor<1x8x6x6xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg0, %cst_16 : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) outs(%1 : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %3 = tensor.empty() : tensor<8xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_14 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.truncf %cst_13 : f64 to f32
      %33 = arith.addf %in, %32 : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.sqrt %in : f32
      linalg.yield %32 : f32
    } -> tensor<8xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%5 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.cmpf one, %in, %cst : f32
      cf.assert %32, "unimplemented: tensor with zero element"
      %33 = arith.divf %cst_0, %in : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %expanded = tensor.expand_shape %cst_15 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %expanded_17 = tensor.expand_shape %6 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %expanded : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.subf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %expanded_17 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.mulf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %expanded_18 = tensor.expand_shape %cst_12 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %expanded_18 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.mulf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %expanded_19 = tensor.expand_shape %cst_11 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9, %expanded_19 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.addf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x8x6x6xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.cmpf ugt, %in, %cst : f32
      %33 = arith.select %32, %in, %cst : f32
      linalg.yield %33 : f32
    } -> tensor<1x8x6x6xf32>
    %padded = tensor.pad %11 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
    %expanded_20 = tensor.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 4, 2, 8, 8] : tensor<1x8x8x8xf32> into tensor<1x4x2x8x8xf32>
    %expanded_21 = tensor.expand_shape %cst_10 [[0, 1], [2], [3], [4]] output_shape [4, 2, 2, 3, 3] : tensor<8x2x3x3xf32> into tensor<4x2x2x3x3xf32>
    %expanded_22 = tensor.expand_shape %0 [[0], [1, 2], [3], [4]] output_shape [1, 4, 2, 6, 6] : tensor<1x8x6x6xf32> into tensor<1x4x2x6x6xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%expanded_22 : tensor<1x4x2x6x6xf32>) -> tensor<1x4x2x6x6xf32>
    %13 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%expanded_20, %expanded_21 : tensor<1x4x2x8x8xf32>, tensor<4x2x2x3x3xf32>) outs(%12 : tensor<1x4x2x6x6xf32>) -> tensor<1x4x2x6x6xf32>
    %collapsed = tensor.collapse_shape %13 [[0], [1, 2], [3], [4]] : tensor<1x4x2x6x6xf32> into tensor<1x8x6x6xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_8 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.truncf %cst_13 : f64 to f32
      %33 = arith.addf %in, %32 : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%14 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.sqrt %in : f32
      linalg.yield %32 : f32
    } -> tensor<8xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%15 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.cmpf one, %in, %cst : f32
      cf.assert %32, "unimplemented: tensor with zero element"
      %33 = arith.divf %cst_0, %in : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %expanded_23 = tensor.expand_shape %cst_9 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %expanded_24 = tensor.expand_shape %16 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %17 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed, %expanded_23 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.subf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %18 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %expanded_24 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.mulf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %expanded_25 = tensor.expand_shape %cst_7 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %expanded_25 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.mulf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %expanded_26 = tensor.expand_shape %cst_6 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %expanded_26 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.addf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20 : tensor<1x8x6x6xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.cmpf ugt, %in, %cst : f32
      %33 = arith.select %32, %in, %cst : f32
      linalg.yield %33 : f32
    } -> tensor<1x8x6x6xf32>
    %22 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%21, %cst_5 : tensor<1x8x6x6xf32>, tensor<8x8x1x1xf32>) outs(%1 : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_3 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.truncf %cst_13 : f64 to f32
      %33 = arith.addf %in, %32 : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%23 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = math.sqrt %in : f32
      linalg.yield %32 : f32
    } -> tensor<8xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%24 : tensor<8xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.cmpf one, %in, %cst : f32
      cf.assert %32, "unimplemented: tensor with zero element"
      %33 = arith.divf %cst_0, %in : f32
      linalg.yield %33 : f32
    } -> tensor<8xf32>
    %expanded_27 = tensor.expand_shape %cst_4 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %expanded_28 = tensor.expand_shape %25 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %26 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22, %expanded_27 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.subf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %27 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26, %expanded_28 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.mulf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %expanded_29 = tensor.expand_shape %cst_2 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %28 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27, %expanded_29 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.mulf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %expanded_30 = tensor.expand_shape %cst_1 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %29 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28, %expanded_30 : tensor<1x8x6x6xf32>, tensor<8x1x1xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.addf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %30 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29, %arg0 : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %in_31: f32, %out: f32):
      %32 = arith.addf %in, %in_31 : f32
      linalg.yield %32 : f32
    } -> tensor<1x8x6x6xf32>
    %31 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%30 : tensor<1x8x6x6xf32>) outs(%0 : tensor<1x8x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %32 = arith.cmpf ugt, %in, %cst : f32
      %33 = arith.select %32, %in, %cst : f32
      linalg.yield %33 : f32
    } -> tensor<1x8x6x6xf32>
    return %31 : tensor<1x8x6x6xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_8_torch.float32_11: "0x04000000AB6B8F3EC84D5F3EC324CCBD5AF3513B772011BC067E8ABD2B2E1ABD8F3AD53D",
      torch_tensor_8_torch.float32_10: "0x040000007EB0693F85D95C3F6C43833FEC015B3F6D58483FFC44873FB4DD683FC2E2783F",
      torch_tensor_8_torch.float32_9: "0x0400000075228F3FC2C5823F9AE9943FCEF3933F3C92843F5436993F94CD873F4E3A843F",
      torch_tensor_8_torch.float32_8: "0x04000000A3E7C2BD7DFE053E9F7FD0BB1A4ABABCC8955B3D4245FC3D2C9C163E3B71103E",
      torch_tensor_8_8_1_1_torch.float32_1: "0x040000005C4110BB3E41F2BDEC5312BEC109423E226C763E925E793EF52E78BED32CE5BD8C276FBE28A7BB3D13BF24BE594E88BDA0C726BE893AA83E056994BEB1F132BD1F967E3E8B71883EBD6F38BEED5C03BE3A3BA7BD760F9BBE562D2CBE39C6AA3E89C0B03E1A189FBE870E033E959DD53D77ABAE3E94D5ADBED227983E490072BECDAA11BE9F7B09BE606E70BE8715433EB2889A3E7482B0BE742FA1BE65EFA33ED32407BE70B004BD11C1C53D83E8C0BCEFB3AFBEE2939EBECDBB353E520654BEF416B3BE2162A13CBB598B3E51C78B3EDF9C1BBE8E94293EA2DE92BD78DE71BEEE6B9CBE870687BEF37A17BEC31DAD3E01C1EA3BDB8F1BBDC7F09B3E5C1C7F3E",
      torch_tensor_8_torch.float32_7: "0x0400000008DCA23CFCE2ACBDE7965A3E976A0E3D5E198ABE45ABB73DB79889BD893542BE",
      torch_tensor_8_torch.float32_6: "0x0400000062606D3F2F0D8C3F7E227A3F16DB8A3F7965863F144B823F92F7833F34F08B3F",
      torch_tensor_8_torch.float32_5: "0x04000000EDC9833F2947963F83388A3FEBD18D3FDF76933F366F923FF0B1873F914C923F",
      torch_tensor_8_torch.float32_4: "0x04000000A55FD73D2C7B08BE8F1BEA3CDBCBFB3D0C0A2BBE836BDBBD356776BC63A0013E",
      torch_tensor_8_2_3_3_torch.float32: "0x04000000600AE0BD4804E23DD2EC273E5DEF0EBD9B27BF3DA3010C3E2093663E5CF024BEF47AB83D14631E3E3F8AEF3D9129D5BDF4A404BEAD1A493CA02234BE0AD047BE0EDFE83C68B6A8BD869839BE51AD6ABE956E7EBD0894093E3BE0093E53D946BE9BD8B9BDD783EABC0A46503E62C3E5BC2BF5E3BDA77E77BBF85B32BE4365C1BCA58432BE905742BBDD32B3BD3F69E83D3198393E1968E83DD3CB8C3D3EFF1BBE502285BB03661FBE748627BEDD42DDBD2F08433EC833D1BD98FCAB3C2039ADBD367268BE693AECBDFCB040BE292321BEC5208EBDBB11443E0F6810BEA0DD56BE9AFF0E3E4F5C403EEA9EEF3D101D9FBD84F246BE92D8F5BC5583353E9EED5FBB227CE23DF555C2BDE6A2ECBC3F551DBD57562D3EB1A3033E4B0C693E3CB284BCBEF62E3E449629BED072103E29E8E3BD4976BF3C99ED143E0CF67BBCA0BD05BE10FD08BE2C34233DDC71C9BD99FE513E557788BD100383BDD70C693E67248BBDD517EA3C9F25B4BC7CBE343EA021CE3DEFE21F3EB5C9E73D139C5DBEDC9957BE24C70BBE5A2B3DBEC1AF31BEBEAC353E4CED2CBEA029283E9E9A0A3D42A9F0BDAE71573EFAFD013D3854B43DF412F1BD001B3B3D4C29563E77169F3CEE5A08BE2EB71EBC9550E73D1E574FBE2F1C443E7E47203E26B928BE81B065BE4620FFBCAF08123E782A493D22CF593ED0F38FBBEEF8203E82726ABE7C8307BC53452DBE1952583ED51A043EF5FD6ABE9ADE4F3EBD3F5CBE08853BBE15D6543DAD138F3DA0AE5B3ECDBD363EC69EF9BD65E4D73DAC48B6BDB0C07ABC095F743C4516C83D",
      torch_tensor_8_torch.float32_3: "0x0400000063091EBD32DA18BEBBFD093E8F65983D324E823D6C1715BC3FCB373D97C2A9BD",
      torch_tensor_8_torch.float32_2: "0x04000000ECB1873F032F873F28AA413F34CE843F823B713FAB769C3F18D1873FB0F4933F",
      torch_tensor_8_torch.float32_1: "0x040000002CC3933F55B5823F9C26823FC4AB903FE6C8953F467F993FDD4D983FC0FA853F",
      torch_tensor_8_torch.float32: "0x040000001B8E5DBE8080FBBC0DF078BC2C290CBE53AC01BEE307F5BC1E3A43BD6DF426BC",
      torch_tensor_8_8_1_1_torch.float32: "0x04000000E1EB6F3EC692233DA710A83E3C717FBA1360053E2EC05FBE765AA6BE4E9147BDF4BD833E1AAD473ECAF68DBEF04B8B3EE59BB23E0E9458BE7CE6ABBE77CE913DAA3D4EBE5B499A3E5E9B933EF9EE86BECCAAAFBE809599BDE11F9F3EC81E0FBD3633A2BDDBBA913EAFA9593E6034CDBAA308A6BE62BCDA3D4FF981BE59BF9C3E19D8B3BD49E49D3E84D14C3E0B537EBE89D208BD0FE963BD12EC1ABE8E9C46BE45A8DBBD266E213BD0F0B1BD9D2DA4BE9721943EDA985E3C6AD4DCBD2997603E1FBC073EB45E94BE96899A3D02C2F53DF1D520BD9BD253BB8E1FD23C0DE79BBD78BCC13DD3982CBEFA3E74BE82F8D63DD1A660BEC616283E0BFEC3BD7FE0D0BD"
    }
  }
#-}
