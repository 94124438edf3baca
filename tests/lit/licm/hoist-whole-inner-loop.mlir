// The inner loop computes a sum of %w that does not depend on %i and writes nothing: the whole
// loop (with its iter_args) moves out of the %i loop and runs once.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @inner(%w: memref<8xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    %sum = affine.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %w[%k] : memref<8xf32>
      %n = arith.addf %acc, %v : f32
      affine.yield %n : f32
    }
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %sum : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:8:12: passed: [LICM] Moving inst affine.for to a new insertion point (in @inner)
// CHECK-NOT: [LICM]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @inner
// CHECK-SAME: (%[[W:[a-z0-9_]+]]: memref<8xf32>, %[[A:[a-z0-9_]+]]: memref<64xf32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: %[[ZERO:[a-z0-9_]+]] = arith.constant 0.0
// CHECK-NEXT: %[[SUM:[a-z0-9_]+]] = affine.for %[[K:[a-z0-9_]+]] = 0 to 8 iter_args(%[[ACC:[a-z0-9_]+]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: affine.load %[[W]][%[[K]]]
// CHECK-NEXT: arith.addf %[[ACC]]
// CHECK-NEXT: affine.yield
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.mulf %[[X]], %[[SUM]]
// CHECK-NEXT: affine.store %[[Y]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
