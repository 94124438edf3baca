// Two siblings that only share an external input: on cpu reading %a once is rewarded (our
// extension), so they fuse; the two stores stay, in program order.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @siblings(%a: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out2[%i] : memref<64xf32>
  }
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:6:3 and {{.*}}.mlir:11:3 profit = 256 (in @siblings)
// CHECK-NEXT: analysis: numLoopsFused = 1

// The second body follows the first; %a is still loaded twice (nothing here merges the loads).
// CHECK-LABEL: func.func @siblings
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[O1:[a-z0-9_]+]]: memref<64xf32>, %[[O2:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.mulf %[[X]], %[[X]]
// CHECK-NEXT: affine.store %[[M]], %[[O1]][%[[I]]]
// CHECK-NEXT: %[[X2:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[X2]], %[[X2]]
// CHECK-NEXT: affine.store %[[S]], %[[O2]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
