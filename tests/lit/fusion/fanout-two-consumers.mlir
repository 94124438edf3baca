// One producer, two consumers of its buffer: the producer fuses with each consumer in turn,
// the buffer disappears and both outputs are stored from the one fused loop.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @fanout_two_consumers(%a: memref<48xf32>, %o1: memref<48xf32>, %o2: memref<48xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<48xf32>
  affine.for %i = 0 to 48 {
    %x = affine.load %a[%i] : memref<48xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %t[%i] : memref<48xf32>
  }
  affine.for %i = 0 to 48 {
    %y = affine.load %t[%i] : memref<48xf32>
    %z = arith.mulf %y, %y : f32
    affine.store %z, %o1[%i] : memref<48xf32>
  }
  affine.for %i = 0 to 48 {
    %y = affine.load %t[%i] : memref<48xf32>
    %z = arith.subf %y, %one : f32
    affine.store %z, %o2[%i] : memref<48xf32>
  }
  memref.dealloc %t : memref<48xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:13:3 profit = 384 (in @fanout_two_consumers)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:18:3 profit = 384 (in @fanout_two_consumers)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:7:8 replaced by its stored values; buffer removed (in @fanout_two_consumers)
// CHECK-NEXT: analysis: numLoopsFused = 2

// CHECK-LABEL: func.func @fanout_two_consumers
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<48xf32>, %[[O1:[a-z0-9_]+]]: memref<48xf32>, %[[O2:[a-z0-9_]+]]: memref<48xf32>)
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = arith.constant 1.0
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 48 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.addf %[[X]], %[[ONE]]
// CHECK-NEXT: %[[SQ:[a-z0-9_]+]] = arith.mulf %[[Y]], %[[Y]]
// CHECK-NEXT: affine.store %[[SQ]], %[[O1]][%[[I]]]
// CHECK-NEXT: %[[D:[a-z0-9_]+]] = arith.subf %[[Y]], %[[ONE]]
// CHECK-NEXT: affine.store %[[D]], %[[O2]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
