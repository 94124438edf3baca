// layernorm_small: nn.LayerNorm(32) on 8x32 (f64 variance). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @layernorm_small(%arg0: tensor<8x32xf32>) -> tensor<8x32xf32> {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense_resource<torch_tensor_32_torch.float32_1> : tensor<32xf32>
    %cst_2 = arith.constant dense_resource<torch_tensor_32_torch.float32> : tensor<32xf32>
    %cst_3 = arith.constant 1.000000e-05 : f64
    %cst_4 = arith.constant 3.200000e+01 : f64
    %cst_5 = arith.constant 3.200000e+01 : f32
    %0 = tensor.empty() : tensor<8x32xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x32xf32>) outs(%0 : tensor<8x32xf64>) {
    ^bb0(%in: f32, %out: f64):
      %22 = arith.extf %in : f32 to f64
      linalg.yield %22 : f64
    } -> tensor<8x32xf64>
    %2 = tensor.empty() : tensor<8x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<8x1xf64>) -> tensor<8x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x32xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.addf %in, %out : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.divf %in, %cst_4 : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %5 : tensor<8x32xf64>, tensor<8x1xf64>) outs(%0 : tensor<8x32xf64>) {
    ^bb0(%in: f64, %in_6: f64, %out: f64):
      %22 = arith.subf %in, %in_6 : f64
      linalg.yield %22 : f64
    } -> tensor<8x32xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %6 : tensor<8x32xf64>, tensor<8x32xf64>) outs(%0 : tensor<8x32xf64>) {
    ^bb0(%in: f64, %in_6: f64, %out: f64):
      %22 = arith.mulf %in, %in_6 : f64
      linalg.yield %22 : f64
    } -> tensor<8x32xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<8x32xf64>) outs(%3 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.addf %in, %out : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<8x1xf64>) outs(%2 : tensor<8x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.divf %in, %cst_4 : f64
      linalg.yield %22 : f64
    } -> tensor<8x1xf64>
    %10 = tensor.empty() : tensor<8x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<8x1xf64>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %22 = arith.truncf %in : f64 to f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<8x1xf32>) -> tensor<8x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x32xf32>) outs(%12 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.addf %in, %out : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.divf %in, %cst_5 : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.truncf %cst_3 : f64 to f32
      %23 = arith.addf %in, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<8x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<8x1xf32>) outs(%10 : tensor<8x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.rsqrt %in : f32
      linalg.yield %22 : f32
    } -> tensor<8x1xf32>
    %17 = tensor.empty() : tensor<8x32xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %14 : tensor<8x32xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %22 = arith.subf %in, %in_6 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%18, %16 : tensor<8x32xf32>, tensor<8x1xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %22 = arith.mulf %in, %in_6 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %cst_2 : tensor<8x32xf32>, tensor<32xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %22 = arith.mulf %in, %in_6 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%20, %cst_1 : tensor<8x32xf32>, tensor<32xf32>) outs(%17 : tensor<8x32xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %22 = arith.addf %in, %in_6 : f32
      linalg.yield %22 : f32
    } -> tensor<8x32xf32>
    return %21 : tensor<8x32xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_32_torch.float32_1: "0x04000000CA5566BD951F70BE1B3A00BE009D5E3D273CBD3DEBA5D4BDCA5A41BD5F4CD83C4416A23D4C36A8BB52B1F93D7FF7853C200073BDC0604EBC508A893DD32388BDDD58D0BD0B0E50BBFBEB913DB594B5BDF729243D2F9256BC827FA7BDA7207CBD0BB5E8BDD49A313D30BAEE3D30DBF4BD4555CE3D030AEEBDD7CEBE3DB3EBA03D",
      torch_tensor_32_torch.float32: "0x040000001BD88F3F83A1823F77BB993F60448B3FE16A933FE387823F96A2833F58126A3F078C5B3F73C85F3F28B7943F6F126C3FE05F7E3FA1F0873F8494803F71EC6F3FCD69723F01E9973F73BC883F68A4723F8722823FC713713F2D2E933FC4C88C3FFFC3853F22675E3F71EA4A3FCA17803F6F91803FAE2C6B3F7A7B973F378B743F"
    }
  }
#-}
