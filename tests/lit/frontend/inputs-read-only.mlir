// The inputs are never written: an op that updates its input tensor in place (outs(%a)) writes
// into the out-parameter, and the consumer reads it back from there; %arg0 is only loaded.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s | filecheck %s

#map = affine_map<(d0) -> (d0)>
func.func @inplace(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// CHECK-LABEL: func.func @inplace(%arg0: memref<8xf32>, %arg1: memref<8xf32>)
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         affine.load %arg0[%{{.*}}] : memref<8xf32>
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}] : memref<8xf32>
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         affine.load %arg1[%{{.*}}] : memref<8xf32>
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}] : memref<8xf32>
// CHECK-NOT:     affine.store %{{.*}}, %arg0
// CHECK:         return
