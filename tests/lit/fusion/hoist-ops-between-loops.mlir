// The second loop needs a scalar computed between the loops (a load and a mulf that do not
// depend on the first loop): both move above the first loop and the pair fuses.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @between(%a: memref<64xf32>, %s: memref<f32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  %k = affine.load %s[] : memref<f32>
  %k2 = arith.mulf %k, %k : f32
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    %y = arith.addf %x, %k2 : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:13:3 profit = 512 (in @between)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:6:8 replaced by its stored values; buffer removed (in @between)
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @between
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[S:[a-z0-9_]+]]: memref<f32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = affine.load %[[S]][]
// CHECK-NEXT: %[[K2:[a-z0-9_]+]] = arith.mulf %[[K]], %[[K]]
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.addf %[[X]], %[[K2]]
// CHECK-NEXT: affine.store %[[Y]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
