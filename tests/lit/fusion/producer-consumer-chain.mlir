// A three-loop elementwise chain through two placed intermediates fuses into one loop (greedy,
// most profitable pair first), and contraction then removes both intermediates.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @chain(%a: memref<64xf32>, %b: memref<64xf32>, %out: memref<64xf32>) {
  %t0 = memref.alloc() : memref<64xf32>
  %t1 = memref.alloc() : memref<64xf32>
  %c = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = affine.load %b[%i] : memref<64xf32>
    %z = arith.addf %x, %y : f32
    affine.store %z, %t0[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t0[%i] : memref<64xf32>
    %z = arith.mulf %x, %c : f32
    affine.store %z, %t1[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t1[%i] : memref<64xf32>
    %y = affine.load %t0[%i] : memref<64xf32>
    %z = arith.subf %x, %y : f32
    affine.store %z, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t0 : memref<64xf32>
  memref.dealloc %t1 : memref<64xf32>
  return
}

// The pair sharing both intermediates (profit 1024) fuses before the pair sharing one (512).
// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:15:3 and {{.*}}.mlir:20:3 profit = 1024 (in @chain)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:9:3 and {{.*}}.mlir:15:3 profit = 512 (in @chain)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:6:9 replaced by its stored values; buffer removed (in @chain)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:7:9 replaced by its stored values; buffer removed (in @chain)
// CHECK-NEXT: analysis: numLoopsFused = 2

// One loop; no buffer, load of an intermediate or index arithmetic is left.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[B:[a-z0-9_]+]]: memref<64xf32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: %[[C:[a-z0-9_]+]] = arith.constant 2.0
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = affine.load %[[B]][%[[I]]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[X]], %[[Y]]
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.mulf %[[S]], %[[C]]
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = arith.subf %[[M]], %[[S]]
// CHECK-NEXT: affine.store %[[D]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
