// mobilenet_block_small: MobileNetV2 inverted residual: 1x1 expand 4->12, BN, ReLU6, 3x3 depthwise, BN, ReLU6, 1x1 project ->4, BN, + x on 1x4x6x6. Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#map3 = affine_map<(d0, d1, d2, d3) -> ()>
module {
  func.func @mobilenet_block_small(%arg0: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant dense<6.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_3 = arith.constant dense_resource<torch_tensor_4_torch.float32_3> : tensor<4xf32>
    %cst_4 = arith.constant dense_resource<torch_tensor_4_torch.float32_2> : tensor<4xf32>
    %cst_5 = arith.constant dense_resource<torch_tensor_4_torch.float32_1> : tensor<4xf32>
    %cst_6 = arith.constant dense_resource<torch_tensor_4_torch.float32> : tensor<4xf32>
    %cst_7 = arith.constant dense_resource<torch_tensor_4_12_1_1_torch.float32> : tensor<4x12x1x1xf32>
    %cst_8 = arith.constant dense_resource<torch_tensor_12_torch.float32_7> : tensor<12xf32>
    %cst_9 = arith.constant dense_resource<torch_tensor_12_torch.float32_6> : tensor<12xf32>
    %cst_10 = arith.constant dense_resource<torch_tensor_12_torch.float32_5> : tensor<12xf32>
    %cst_11 = arith.constant dense_resource<torch_tensor_12_torch.float32_4> : tensor<12xf32>
    %cst_12 = arith.constant dense_resource<torch_tensor_12_1_3_3_torch.float32> : tensor<12x1x3x3xf32>
    %cst_13 = arith.constant dense_resource<torch_tensor_12_torch.float32_3> : tensor<12xf32>
    %cst_14 = arith.constant dense_resource<torch_tensor_12_torch.float32_2> : tensor<12xf32>
    %cst_15 = arith.constant 1.000000e-05 : f64
    %cst_16 = arith.constant dense_resource<torch_tensor_12_torch.float32_1> : tensor<12xf32>
    %cst_17 = arith.constant dense_resource<torch_tensor_12_torch.float32> : tensor<12xf32>
    %cst_18 = arith.constant dense_resource<torch_tensor_12_4_1_1_torch.float32> : tensor<12x4x1x1xf32>
    %0 = tensor.empty() : tensor<1x12x6x6xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x12x6x6xf32>) -> tensor<1x12x6x6xf32>
    %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg0, %cst_18 : tensor<1x4x6x6xf32>, tensor<12x4x1x1xf32>) outs(%1 : tensor<1x12x6x6xf32>) -> tensor<1x12x6x6xf32>
    %3 = tensor.empty() : tensor<12xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_16 : tensor<12xf32>) outs(%3 : tensor<12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = arith.truncf %cst_15 : f64 to f32
      %36 = arith.addf %in, %35 : f32
      linalg.yield %36 : f32
    } -> tensor<12xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<12xf32>) outs(%3 : tensor<12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = math.sqrt %in : f32
      linalg.yield %35 : f32
    } -> tensor<12xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%5 : tensor<12xf32>) outs(%3 : tensor<12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = arith.cmpf one, %in, %cst : f32
      cf.assert %35, "unimplemented: tensor with zero element"
      %36 = arith.divf %cst_0, %in : f32
      linalg.yield %36 : f32
    } -> tensor<12xf32>
    %expanded = tensor.expand_shape %cst_17 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %expanded_19 = tensor.expand_shape %6 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %expanded : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.subf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %expanded_19 : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.mulf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %expanded_20 = tensor.expand_shape %cst_14 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %expanded_20 : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.mulf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %expanded_21 = tensor.expand_shape %cst_13 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9, %expanded_21 : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.addf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10, %cst_2 : tensor<1x12x6x6xf32>, tensor<f32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.cmpf ogt, %in, %in_30 : f32
      %36 = arith.select %35, %in, %in_30 : f32
      linalg.yield %36 : f32
    } -> tensor<1x12x6x6xf32>
    %12 = linalg.generic {indexing_maps = [#map3, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_1, %11 : tensor<f32>, tensor<1x12x6x6xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.cmpf olt, %in, %in_30 : f32
      %36 = arith.select %35, %in, %in_30 : f32
      linalg.yield %36 : f32
    } -> tensor<1x12x6x6xf32>
    %padded = tensor.pad %12 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x12x6x6xf32> to tensor<1x12x8x8xf32>
    %collapsed = tensor.collapse_shape %cst_12 [[0, 1], [2], [3]] : tensor<12x1x3x3xf32> into tensor<12x3x3xf32>
    %13 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %collapsed : tensor<1x12x8x8xf32>, tensor<12x3x3xf32>) outs(%1 : tensor<1x12x6x6xf32>) -> tensor<1x12x6x6xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_10 : tensor<12xf32>) outs(%3 : tensor<12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = arith.truncf %cst_15 : f64 to f32
      %36 = arith.addf %in, %35 : f32
      linalg.yield %36 : f32
    } -> tensor<12xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%14 : tensor<12xf32>) outs(%3 : tensor<12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = math.sqrt %in : f32
      linalg.yield %35 : f32
    } -> tensor<12xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%15 : tensor<12xf32>) outs(%3 : tensor<12xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = arith.cmpf one, %in, %cst : f32
      cf.assert %35, "unimplemented: tensor with zero element"
      %36 = arith.divf %cst_0, %in : f32
      linalg.yield %36 : f32
    } -> tensor<12xf32>
    %expanded_22 = tensor.expand_shape %cst_11 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %expanded_23 = tensor.expand_shape %16 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %17 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13, %expanded_22 : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.subf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %18 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %expanded_23 : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.mulf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %expanded_24 = tensor.expand_shape %cst_9 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %expanded_24 : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.mulf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %expanded_25 = tensor.expand_shape %cst_8 [[0, 1, 2]] output_shape [12, 1, 1] : tensor<12xf32> into tensor<12x1x1xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %expanded_25 : tensor<1x12x6x6xf32>, tensor<12x1x1xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.addf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x12x6x6xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %cst_2 : tensor<1x12x6x6xf32>, tensor<f32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.cmpf ogt, %in, %in_30 : f32
      %36 = arith.select %35, %in, %in_30 : f32
      linalg.yield %36 : f32
    } -> tensor<1x12x6x6xf32>
    %22 = linalg.generic {indexing_maps = [#map3, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_1, %21 : tensor<f32>, tensor<1x12x6x6xf32>) outs(%0 : tensor<1x12x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.cmpf olt, %in, %in_30 : f32
      %36 = arith.select %35, %in, %in_30 : f32
      linalg.yield %36 : f32
    } -> tensor<1x12x6x6xf32>
    %23 = tensor.empty() : tensor<1x4x6x6xf32>
    %24 = linalg.fill ins(%cst : f32) outs(%23 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %25 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%22, %cst_7 : tensor<1x12x6x6xf32>, tensor<4x12x1x1xf32>) outs(%24 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %26 = tensor.empty() : tensor<4xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_5 : tensor<4xf32>) outs(%26 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = arith.truncf %cst_15 : f64 to f32
      %36 = arith.addf %in, %35 : f32
      linalg.yield %36 : f32
    } -> tensor<4xf32>
    %28 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%27 : tensor<4xf32>) outs(%26 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = math.sqrt %in : f32
      linalg.yield %35 : f32
    } -> tensor<4xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%28 : tensor<4xf32>) outs(%26 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %35 = arith.cmpf one, %in, %cst : f32
      cf.assert %35, "unimplemented: tensor with zero element"
      %36 = arith.divf %cst_0, %in : f32
      linalg.yield %36 : f32
    } -> tensor<4xf32>
    %expanded_26 = tensor.expand_shape %cst_6 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %expanded_27 = tensor.expand_shape %29 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %30 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%25, %expanded_26 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%23 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.subf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x4x6x6xf32>
    %31 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%30, %expanded_27 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%23 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.mulf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x4x6x6xf32>
    %expanded_28 = tensor.expand_shape %cst_4 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %32 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%31, %expanded_28 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%23 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.mulf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x4x6x6xf32>
    %expanded_29 = tensor.expand_shape %cst_3 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %33 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32, %expanded_29 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%23 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.addf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x4x6x6xf32>
    %34 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %33 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) outs(%23 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_30: f32, %out: f32):
      %35 = arith.addf %in, %in_30 : f32
      linalg.yield %35 : f32
    } -> tensor<1x4x6x6xf32>
    return %34 : tensor<1x4x6x6xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_torch.float32_3: "0x040000001649C23DBAFA583D107CB2BDED990CBE",
      torch_tensor_4_torch.float32_2: "0x040000007BD37C3F881F883F2C176A3F34DA793F",
      torch_tensor_4_torch.float32_1: "0x04000000B3F3843FB2518C3F0CF48D3F97CD8F3F",
      torch_tensor_4_torch.float32: "0x0400000020DBD03C4FF813BE4D9E5EBE8B9F683D",
      torch_tensor_4_12_1_1_torch.float32: "0x04000000FB33493EFA9B4B3E13A44ABEE51EBBBDD14443BECE37993DCE8306BE3C965EBDD52C08BEAE5B893E575A72BE751B12BD72DE4F3EB5CF5E3E7D9716BECE83D6BD388B88BD6A367DBEFE940CBEC86F8B3E4651903E5BE681BEC703D63D976AAE3D069E8E3E63EF8DBE0F78783ED59745BE9FDFEDBD3582E0BDAB4F44BE16491F3E585A7C3E961E90BE789B83BE3CDA853E60B0DCBD3AAED8BC3177A13D49829DBCF6758FBE667A81BE8762143E101E2DBEE13992BED8C4833CF58E633EE941643E",
      torch_tensor_12_torch.float32_7: "0x04000000EFFC94BDF1D2C03D50B0BBBC67B1AD3D1BAF4C3DE3C4923C90E4FD3C3F03BF3D08DCA23CFCE2ACBDE7965A3E976A0E3D",
      torch_tensor_12_torch.float32_6: "0x04000000C134613FB070883F4EF0663F45E4533F7298753FCCD7793FEBF0603F5E6A953F0E6D5A3F3C24523FDF7B6C3FB5A4803F",
      torch_tensor_12_torch.float32_5: "0x04000000EDC9833F2947963F83388A3FEBD18D3FDF76933F366F923FF0B1873F914C923F66B88C3F7B84883F64A0873F08A9933F",
      torch_tensor_12_torch.float32_4: "0x040000005E198ABE45ABB73DB79889BD893542BEA55FD73D2C7B08BE8F1BEA3CDBCBFB3D0C0A2BBE836BDBBD356776BC63A0013E",
      torch_tensor_12_1_3_3_torch.float32: "0x0400000063963BBEC0338E3CEEBF7EBEF4498DBE36AA243D7698EEBD6E3C83BE14F1A5BE1BE9B3BDA690423E68FC423E809B8CBEBE6903BEC0D325BD8C45933E967722BDC03021BE5601AFBBF33C7CBE56C008BD78767CBEAB6B89BBDB6CFDBDE856243E323C833E1856243EAB1DC73DF69C5CBEAB47BCBB6B6C61BE9BEA6CBE8E741CBE8FE8893EA8ED13BED639F33C7BF9F4BD3F5DA4BEDE0927BEDC4088BEF3E163BED6FFC8BD54A48A3EBB384CBEDAEE97BEF83A4A3EFC04883EFE6F293E4005E1BD50AD8CBEE0D62DBD5E59803E56579EBB2626203E886A09BEC05327BDA0805EBDCB22753E902A3A3E33CAA43E2BA9BBBCAE6F773E0BD56FBEF0474C3E8E2721BE5662073DBE9D523ED629B2BC50233DBE26BB41BE16CE663D66710EBE127D943E06FEC0BD6647B9BD96CAA43EDBC6C4BD6087253D2BC4FEBC589C7F3EC3C1113E161D623E18E6233EA3B39CBEF47398BE00AD45BE4FC385BE66497BBEA676803E3E8E74BE5ED16D3E0004443D532C2ABE8B57983E2BD6373D1006FF3D10772ABEB64D843D576F973EEBFBE03CDBD540BE2B7560BC7390233E9B9C92BEB8AB8A3E4BAB623E569C6EBE3C6AA2BEC06634BD",
      torch_tensor_12_torch.float32_3: "0x04000000DF476CBD57B5633E10237A3D7EA51F3E63091EBD32DA18BEBBFD093E8F65983D324E823D6C1715BC3FCB373D97C2A9BD",
      torch_tensor_12_torch.float32_2: "0x040000007ACE4D3F370D803F5A176C3FE8B9783F85CD893FBFA1843FD834473F5D93793FECB1873F032F873F28AA413F34CE843F",
      torch_tensor_12_torch.float32_1: "0x04000000F6DB863F0DCB923FA0B4953FAAE78A3F67DE913F9739943F3007993F840D843F18B1913F2233953FDA26933FCE25873F",
      torch_tensor_12_torch.float32: "0x040000001B8E5DBE8080FBBC0DF078BC2C290CBE53AC01BEE307F5BC1E3A43BD6DF426BC9591893D3F95083E9572433D01BA00BE",
      torch_tensor_12_4_1_1_torch.float32: "0x040000006AA6A93EE053673D0CAEED3E00A0B4BA049F3C3E34379EBE5A42EBBE981D8DBDB44FBA3E40318D3E78C4C8BEC4FEC43E5A97FC3EDE2499BE921AF3BE9833CE3D96D591BEB231DA3E68BFD03E24D3BEBE506EF8BE5833D9BD3C09E13E10674ABDB062E5BDDC17CE3E2EE9993E001A11BBA2CEEABE6CAB1A3E90CFB7BEA4ACDD3E8856FEBDEA4ADF3E18D4903EA2D5B3BE007F41BD3028A1BDD0175BBE88708CBE38521BBE004C643B68A5FBBDDA2EE8BE3A7DD13E60669D3C74261CBE38CF9E3E"
    }
  }
#-}
