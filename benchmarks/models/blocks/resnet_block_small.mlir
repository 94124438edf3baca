// resnet_block_small: ResNet basic block: conv3x3 4->4, BN (eval), ReLU, conv3x3, BN, + x, ReLU on 1x4x6x6. Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
module {
  func.func @resnet_block_small(%arg0: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant dense_resource<torch_tensor_4_torch.float32_7> : tensor<4xf32>
    %cst_2 = arith.constant dense_resource<torch_tensor_4_torch.float32_6> : tensor<4xf32>
    %cst_3 = arith.constant dense_resource<torch_tensor_4_torch.float32_5> : tensor<4xf32>
    %cst_4 = arith.constant dense_resource<torch_tensor_4_torch.float32_4> : tensor<4xf32>
    %cst_5 = arith.constant dense_resource<torch_tensor_4_4_3_3_torch.float32_1> : tensor<4x4x3x3xf32>
    %cst_6 = arith.constant dense_resource<torch_tensor_4_torch.float32_3> : tensor<4xf32>
    %cst_7 = arith.constant dense_resource<torch_tensor_4_torch.float32_2> : tensor<4xf32>
    %cst_8 = arith.constant 1.000000e-05 : f64
    %cst_9 = arith.constant dense_resource<torch_tensor_4_torch.float32_1> : tensor<4xf32>
    %cst_10 = arith.constant dense_resource<torch_tensor_4_torch.float32> : tensor<4xf32>
    %cst_11 = arith.constant dense_resource<torch_tensor_4_4_3_3_torch.float32> : tensor<4x4x3x3xf32>
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
    %0 = tensor.empty() : tensor<1x4x6x6xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %cst_11 : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) outs(%1 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %3 = tensor.empty() : tensor<4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_9 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.truncf %cst_8 : f64 to f32
      %23 = arith.addf %in, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<4xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.sqrt %in : f32
      linalg.yield %22 : f32
    } -> tensor<4xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%5 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.cmpf one, %in, %cst : f32
      cf.assert %22, "unimplemented: tensor with zero element"
      %23 = arith.divf %cst_0, %in : f32
      linalg.yield %23 : f32
    } -> tensor<4xf32>
    %expanded = tensor.expand_shape %cst_10 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %expanded_12 = tensor.expand_shape %6 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %expanded : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.subf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %expanded_12 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.mulf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %expanded_13 = tensor.expand_shape %cst_7 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %expanded_13 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.mulf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %expanded_14 = tensor.expand_shape %cst_6 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9, %expanded_14 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.addf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x4x6x6xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.cmpf ugt, %in, %cst : f32
      %23 = arith.select %22, %in, %cst : f32
      linalg.yield %23 : f32
    } -> tensor<1x4x6x6xf32>
    %padded_15 = tensor.pad %11 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
    %12 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_15, %cst_5 : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) outs(%1 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_3 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.truncf %cst_8 : f64 to f32
      %23 = arith.addf %in, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<4xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%13 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.sqrt %in : f32
      linalg.yield %22 : f32
    } -> tensor<4xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%14 : tensor<4xf32>) outs(%3 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.cmpf one, %in, %cst : f32
      cf.assert %22, "unimplemented: tensor with zero element"
      %23 = arith.divf %cst_0, %in : f32
      linalg.yield %23 : f32
    } -> tensor<4xf32>
    %expanded_16 = tensor.expand_shape %cst_4 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %expanded_17 = tensor.expand_shape %15 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %16 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12, %expanded_16 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.subf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %17 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %expanded_17 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.mulf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %expanded_18 = tensor.expand_shape %cst_2 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %18 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %expanded_18 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.mulf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %expanded_19 = tensor.expand_shape %cst_1 [[0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %expanded_19 : tensor<1x4x6x6xf32>, tensor<4x1x1xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.addf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %arg0 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %in_20: f32, %out: f32):
      %22 = arith.addf %in, %in_20 : f32
      linalg.yield %22 : f32
    } -> tensor<1x4x6x6xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20 : tensor<1x4x6x6xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.cmpf ugt, %in, %cst : f32
      %23 = arith.select %22, %in, %cst : f32
      linalg.yield %23 : f32
    } -> tensor<1x4x6x6xf32>
    return %21 : tensor<1x4x6x6xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_4_torch.float32_7: "0x0400000085BA58BCE6DA9BBD677B21BD0B11493D",
      torch_tensor_4_torch.float32_6: "0x04000000F8518B3F9577863F726E8C3FE1137C3F",
      torch_tensor_4_torch.float32_5: "0x04000000FFD7893FE8D5813F6EB6863F25E0983F",
      torch_tensor_4_torch.float32_4: "0x0400000076D9B33D8C92083E9392C93D28FD71BE",
      torch_tensor_4_4_3_3_torch.float32_1: "0x04000000D6FF48BD54A40A3EBB38CCBDDAEE17BEF83ACA3DFC04083EFE6FA93D400561BD50AD0CBEE0D6ADBC5E59003E56571EBB2626A03D886A89BDC053A7BCA080DEBCCB22F53D902ABA3D33CA243E2BA93BBCAE6FF73D0BD5EFBDF047CC3D8E27A1BD5662873CBE9DD23DD62932BC5023BDBD26BBC1BD16CEE63C66718EBD127D143E06FE40BD664739BD96CA243EDBC644BD6087A53C2BC47EBC589CFF3DC3C1913D161DE23D18E6A33DA3B31CBEF47318BE00ADC5BD4FC305BE6649FBBDA676003E3E8EF4BD5ED1ED3D0004C43C532CAABD8B57183E2BD6B73C10067F3D1077AABDB64D043D576F173EEBFB603CDBD5C0BD2B75E0BB7390A33D9B9C12BEB8AB0A3E4BABE23D569CEEBD3C6A22BEC066B4BCEE85CE3DEB3E0E3DAA031A3E56944BBB3BA6E33D7FC725BE2BA5BFBBBB0AF5BD3BF6183E0ED3BA3D1A2A26BE68FC123E53BD1BBEAF9804BE7B7F163D5B574A3DB7561B3EBB37013E1682B0BDA8A8983DE8E480BD164F31BCEBCB2C3C9E7B8D3D44220F3EF600EA3C202DA8BCAB27AEBDABAAF1BC5849B6BDB7011DBEC8FA06BE7256023E406F003CDBC8F4BDD0AC123EB72D22BEC6F0D0BDB4521ABE3BC8B0BDE0DBBCBD36429A3C43EB8FBD3B260F3E08DCAC3DA608123E30203BBD602FAA3C803A993C869432BD46C000BEE360D83DBB945EBDD6AD6EBCC707253E6B21AF3C1025123D70641EBD4047023D563919BC606F98BD4B13AA3D1672BB3C56A173BBCA34193E509D133DD0C09E3DE09EBB3D36BA93BD2617F4BD1888D0BD5699FCBD9E4CF0BDFBBEFC3D708F09BD6B99593C",
      torch_tensor_4_torch.float32_3: "0x040000004518EE3D9DD0FD3C57D15B3DD7E0E23C",
      torch_tensor_4_torch.float32_2: "0x0400000034D1643F467D833F05F2823F3478823F",
      torch_tensor_4_torch.float32_1: "0x040000000279803F3B89863FBC94823F2041843F",
      torch_tensor_4_torch.float32: "0x040000000D42843DB0B1F4BCE35A2B3C4A08BF3D",
      torch_tensor_4_4_3_3_torch.float32: "0x040000003833E23DEB379A3C08741E3E56D5F0B9B07E7B3D46F4D2BDE7D61CBE7627BCBC466AF83DAB41BC3D50D805BE8354033EE764283E2831CCBDB71122BEBB77093D1E72C2BD7776113E462A0B3EDB6EFEBDE09E25BEE6CC10BD2806163E60EF86BC76EC18BD3E65093EE836CD3D007841BAC2891CBEE6394E3DC014F5BD6EC8133E068F29BD9CDC143ECB1AC13D83C7EFBD56FF80BC40E0D6BCE00F92BDB640BBBD4B184FBDAB32983A9BC327BDE7C91ABED2A80B3ED6DDD13B463350BDF6BED33DB0F17F3D70E20BBE06B3113DE6B3673D2BA397BC56B5C7BA2B1B463C80FC12BD00A8363DDBB9A2BD0047E6BD26AD4A3DB8CDD3BDCE799E3D8BC838BD5BEE44BD5633A33BB0156DBD866C1EBEBE79D93D40D87B3D8021C7BD7B90A63D00F7973CE6630C3E8B971DBD20DC36BD56663C3BAA21083E6B48A43C43A9953D968DF83C2B2646BCD6F3C83DEBAA903DB8BBFA3DCE84B13DD3EFDD3D6B92903D56AEF13B9398ACBDA449153E54B422BECB1EB23C885E233E431BD33D005D1BBEC66F0DBD466BD3BD6E82C5BD16EB03BECECD8DBD165658BDCE8200BE9619D13CE668D93D7026833D0A48213E4811863D8211073E7BC3163E2EEA193E7B8D17BDAB2C073EF8A9B93D388E06BE36FD0DBE9B734E3DF897EF3D9F4B293E8463193E56E1B5BDAB6B9EBD66D19F3D607BED3D0024CABCB32A873DBBFFC53D7B0A233E4342E9BD8072823D3BFEDF3D6061A93D83BA96BD6396BBBDC0330E3CEEBFFEBDF4490DBE36AAA43C76986EBD6E3C03BE14F125BE1BE933BDA690C23D68FCC23D809B0CBE"
    }
  }
#-}
