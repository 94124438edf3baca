// Issue 35: a batched matrix product. Of the loops around the lanes loop (j), the rows are i's: the
// batch loop b moves both operands, its rows would share nothing.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.2.mlir 2> %t.2.remarks && %cat %t.2.remarks %t.2.mlir | filecheck %s
// RUN: mlir-opt %t.2.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%A: memref<2x6x9xf32>, %B: memref<2x9x8xf32>, %C: memref<2x6x8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %b = 0 to 2 {
    affine.for %i = 0 to 6 {
      affine.for %j = 0 to 8 {
        %r = affine.for %k = 0 to 9 iter_args(%u = %z) -> (f32) {
          %x = affine.load %A[%b, %i, %k] : memref<2x6x9xf32>
          %y = affine.load %B[%b, %k, %j] : memref<2x9x8xf32>
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %u, %p : f32
          affine.yield %s : f32
        }
        affine.store %r, %C[%b, %i, %j] : memref<2x6x8xf32>
      }
    }
  }
  return
}

// CHECK: passed: [REGISTER TILING] 6 x 8 tile of the reduction in 6 vector accumulators (vector<8xf32>), each sum kept in order (in @k)
// CHECK-LABEL: func.func @k
// CHECK: affine.for %[[B:[a-z0-9_]+]] = 0 to 2 {
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 6 step 6 {
// CHECK: affine.for %[[J:[a-z0-9_]+]] = 0 to 8 step 8 {
// CHECK: affine.for %[[K:[a-z0-9_]+]] = 0 to 9 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: affine.load %arg0[%[[B]], %[[I]], %[[K]]] : memref<2x6x9xf32>
// CHECK: affine.vector_load %arg1[%[[B]], %[[K]], %[[J]]] : memref<2x9x8xf32>, vector<8xf32>
