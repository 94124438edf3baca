// The inner loop reads %w, which the outer loop writes afterwards: moving the inner loop out
// would read values before the writes of earlier iterations.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @inner_read(%w: memref<8xf32>, %out: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    %sum = affine.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %w[%k] : memref<8xf32>
      %n = arith.addf %acc, %v : f32
      affine.yield %n : f32
    }
    affine.store %sum, %out[%i] : memref<16xf32>
    affine.store %sum, %w[0] : memref<8xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:8:12: missed: [LICM] not hoisted: affine.for reads memory: %{{[a-z0-9_]+}} is written in the loop (affine.store) (in @inner_read)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @inner_read
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// CHECK-NEXT: %[[SUM:[a-z0-9_]+]] = affine.for %{{[a-z0-9_]+}} = 0 to 8 iter_args
