// `0 to %n` may run zero times: hoisting the load would execute an access that never happened.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @maybe_empty(%a: memref<?xf32>, %s: memref<f32>, %out: memref<?xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %k = affine.load %s[] : memref<f32>
    %x = affine.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %k : f32
    affine.store %y, %out[%i] : memref<?xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:6:10: missed: [LICM] not hoisted: loop may run zero times (in @maybe_empty)
// CHECK-NOT: [LICM]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @maybe_empty
// CHECK-SAME: %[[S:[a-z0-9_]+]]: memref<f32>
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load %[[S]][]
