// Issue 35, gpt2_layer's causal mask: a load of i1 on a register tile's lanes is gathered, one
// scalar load per lane and `vector.from_elements` (a vector of i1 is bit-packed, the buffer holds
// a byte per element: never an affine.vector_load of i1), so the masked product is tiled.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
func.func @k(%Q: memref<16x8xf32>, %K: memref<8x32xf32>, %mask: memref<16x32xi1>, %S: memref<16x32xf32>,
             %R: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  %low = arith.constant -3.0e+38 : f32
  %ninf = arith.constant 0xFF800000 : f32
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %s = affine.for %r = 0 to 8 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %Q[%i, %r] : memref<16x8xf32>
        %b = affine.load %K[%r, %j] : memref<8x32xf32>
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %acc, %p : f32
        affine.yield %t : f32
      }
      %keep = affine.load %mask[%i, %j] : memref<16x32xi1>
      %v = arith.select %keep, %s, %low : f32
      affine.store %v, %S[%i, %j] : memref<16x32xf32>
    }
  }
  return
}

// CHECK: register-tile-i1-mask.mlir:11:5: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order
// CHECK-LABEL: func.func @k
// CHECK-NOT: vector_load {{.*}}xi1>
// CHECK: affine.for %[[I:.*]] = 0 to 12 step 6 {
// CHECK: affine.for %[[J:.*]] = 0 to 32 step 16 {
// CHECK: affine.for %{{.*}} = 0 to 8 iter_args(
// CHECK: affine.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[M0:.*]] = affine.load %arg2[%[[I]], %[[J]]] : memref<16x32xi1>
// CHECK-NEXT: %[[M1:.*]] = affine.load %arg2[%[[I]], %[[J]] + 1] : memref<16x32xi1>
// CHECK-NEXT: %[[M2:.*]] = affine.load %arg2[%[[I]], %[[J]] + 2] : memref<16x32xi1>
// CHECK-NEXT: %[[M3:.*]] = affine.load %arg2[%[[I]], %[[J]] + 3] : memref<16x32xi1>
// CHECK-NEXT: %[[M4:.*]] = affine.load %arg2[%[[I]], %[[J]] + 4] : memref<16x32xi1>
// CHECK-NEXT: %[[M5:.*]] = affine.load %arg2[%[[I]], %[[J]] + 5] : memref<16x32xi1>
// CHECK-NEXT: %[[M6:.*]] = affine.load %arg2[%[[I]], %[[J]] + 6] : memref<16x32xi1>
// CHECK-NEXT: %[[M7:.*]] = affine.load %arg2[%[[I]], %[[J]] + 7] : memref<16x32xi1>
// CHECK-NEXT: %[[V:.*]] = vector.from_elements %[[M0]], %[[M1]], %[[M2]], %[[M3]], %[[M4]], %[[M5]], %[[M6]], %[[M7]] : vector<8xi1>
// CHECK: arith.select %[[V]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK-NOT: vector_load {{.*}}xi1>
// CHECK: return
