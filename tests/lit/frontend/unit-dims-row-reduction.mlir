// A row reduction into tensor<4x1xf32> (as torch-mlir keeps it) loses its unit dim
// (linalg-fold-unit-extent-dims): the reduction buffer is memref<4xf32>, read by the consumer
// directly; no expand_shape/collapse_shape view survives.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s | filecheck %s

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
func.func @row_mean_sub(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 8.0 : f32
  %e1 = tensor.empty() : tensor<4x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x1xf32>) -> tensor<4x1xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %mean = arith.divf %m, %n : f32
    %d = arith.subf %a, %mean : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @row_mean_sub(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>)
// CHECK-NOT:     expand_shape
// CHECK-NOT:     collapse_shape
// CHECK:         %[[SUM:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK:         affine.store %cst, %[[SUM]][%{{.*}}] : memref<4xf32>
// CHECK:         affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 8 {
// CHECK-NEXT:        affine.load %arg0[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        affine.load %[[SUM]][%[[I]]] : memref<4xf32>
// CHECK-NEXT:        arith.addf
// CHECK-NEXT:        affine.store %{{.*}}, %[[SUM]][%[[I]]] : memref<4xf32>
// CHECK:         affine.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<4x8xf32>
// CHECK-NOT:     expand_shape
// CHECK:         memref.dealloc %[[SUM]] : memref<4xf32>
