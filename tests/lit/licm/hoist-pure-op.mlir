// An arith op whose operands come from outside the loop moves to just before the loop.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @pure(%a: memref<64xf32>, %out: memref<64xf32>, %s: f32) {
  affine.for %i = 0 to 64 {
    %k = arith.mulf %s, %s : f32
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %k : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:6:10: passed: [LICM] Moving inst arith.mulf to a new insertion point (in @pure)
// CHECK-NOT: [LICM]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @pure
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>, %[[S:[a-z0-9_]+]]: f32)
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = arith.mulf %[[S]], %[[S]] : f32
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.addf %[[X]], %[[K]]
// CHECK-NEXT: affine.store %[[Y]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
