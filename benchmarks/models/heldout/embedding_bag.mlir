// embedding_bag: embedding lookup (vocab 30522, dim 256) of 64x256 i64 ids (modulo 30522), mean over the sequence, Linear 256->4; weights are inputs (ids, table, w, b). Exported by benchmarks/models/export_torch.py (torch 2.13.0+cpu, torch-mlir 20261001, seed 26).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map4 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @embedding_bag(%arg0: tensor<64x256xi64>, %arg1: tensor<30522x256xf32>, %arg2: tensor<4x256xf32>, %arg3: tensor<4xf32>) -> tensor<64x4xf32> {
    %c30522_i64 = arith.constant 30522 : i64
    %c0_i64 = arith.constant 0 : i64
    %c30522 = arith.constant 30522 : index
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 2.560000e+02 : f32
    %0 = tensor.empty() : tensor<64x256xi64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x256xi64>) outs(%0 : tensor<64x256xi64>) {
    ^bb0(%in: i64, %out: i64):
      %13 = arith.remsi %in, %c30522_i64 : i64
      %14 = arith.cmpi ne, %13, %c0_i64 : i64
      %15 = arith.cmpi slt, %13, %c0_i64 : i64
      %16 = arith.andi %14, %15 : i1
      %17 = arith.addi %13, %c30522_i64 : i64
      %18 = arith.select %16, %17, %13 : i64
      linalg.yield %18 : i64
    } -> tensor<64x256xi64>
    %2 = tensor.empty() : tensor<64x256x256xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<64x256xi64>) outs(%2 : tensor<64x256x256xf32>) {
    ^bb0(%in: i64, %out: f32):
      %13 = arith.index_cast %in : i64 to index
      %14 = linalg.index 2 : index
      %15 = arith.cmpi slt, %13, %c30522 : index
      cf.assert %15, "index must be smaller than dim size"
      %16 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %16, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg1[%13, %14] : tensor<30522x256xf32>
      linalg.yield %extracted : f32
    } -> tensor<64x256x256xf32>
    %4 = tensor.empty() : tensor<64x256xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "reduction", "parallel"]} ins(%3 : tensor<64x256x256xf32>) outs(%5 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.addf %in, %out : f32
      linalg.yield %13 : f32
    } -> tensor<64x256xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<64x256xf32>) outs(%4 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.divf %in, %cst_0 : f32
      linalg.yield %13 : f32
    } -> tensor<64x256xf32>
    %8 = tensor.empty() : tensor<256x4xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<4x256xf32>) outs(%8 : tensor<256x4xf32>) permutation = [1, 0] 
    %9 = tensor.empty() : tensor<64x4xf32>
    %10 = linalg.fill ins(%cst : f32) outs(%9 : tensor<64x4xf32>) -> tensor<64x4xf32>
    %11 = linalg.matmul ins(%7, %transposed : tensor<64x256xf32>, tensor<256x4xf32>) outs(%10 : tensor<64x4xf32>) -> tensor<64x4xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %arg3 : tensor<64x4xf32>, tensor<4xf32>) outs(%9 : tensor<64x4xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.addf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<64x4xf32>
    return %12 : tensor<64x4xf32>
  }
}
