// Calling convention: a tensor result becomes a trailing out-parameter memref with the identity
// layout, written straight into (no memref.copy, no temporary for it); the function keeps its name.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s | filecheck %s
// RUN: loopopt-lower %s | mlir-opt > /dev/null
// REQUIRES: mlir-opt

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale_add(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.mulf %s, %s : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @scale_add(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>, %arg2: memref<4x8xf32>) {
// CHECK-NOT:     memref.alloc
// CHECK:         affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 8 {
// CHECK-NEXT:        %[[A:.*]] = affine.load %arg0[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[B:.*]] = affine.load %arg1[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:        %[[T:.*]] = arith.mulf %[[S]], %[[S]] : f32
// CHECK-NEXT:        affine.store %[[T]], %arg2[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NOT:     memref.copy
// CHECK:         return
