// Loops bounded by the same symbol %n fuse (MLIR's --affine-loop-fusion declines symbolic
// bounds); the fused loop reads the producer's value directly, no affine.apply is needed.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @sym(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %x = affine.load %t[%i] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out[%i] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:12:3 profit = 8192 (in @sym)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:6:8 replaced by its stored values; buffer removed (in @sym)
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @sym
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<?xf32>, %[[OUT:[a-z0-9_]+]]: memref<?xf32>, %[[N:[a-z0-9_]+]]: index)
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to %[[N]] {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.mulf %[[X]], %[[X]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[M]], %[[M]]
// CHECK-NEXT: affine.store %[[S]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
