// An inner loop whose operands are all invariant but that stores: it may not move as a whole.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @inner_store(%w: memref<8xf32>, %v: f32, %n: index) {
  affine.for %i = 0 to 16 {
    affine.for %k = 0 to 8 {
      affine.store %v, %w[%k] : memref<8xf32>
    }
  }
  return
}

// CHECK: {{.*}}.mlir:6:5: missed: [LICM] not hoisted: affine.for contains affine.store (in @inner_store)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @inner_store
// CHECK-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// CHECK-NEXT: affine.for %[[K:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[K]]]
