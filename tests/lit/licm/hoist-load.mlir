// A load of a buffer no write in the loop touches, in a loop that runs at least once, moves out.
// The store to %out stays (a write never moves).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @load(%a: memref<64xf32>, %s: memref<f32>, %out: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %k = affine.load %s[] : memref<f32>
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %k : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:7:10: passed: [LICM] Moving inst affine.load to a new insertion point (in @load)
// CHECK-NOT: [LICM]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @load
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[S:[a-z0-9_]+]]: memref<f32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = affine.load %[[S]][] : memref<f32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.mulf %[[X]], %[[K]]
// CHECK-NEXT: affine.store %[[Y]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
