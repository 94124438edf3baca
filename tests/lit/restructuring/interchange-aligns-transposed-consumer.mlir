// The consumer walks (j, i) over the (i, j) intermediate: interchanging the consumer aligns the
// nests, both levels fuse and the intermediate becomes a scalar (on both targets; cpu: fusion alone).
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion,contraction --remarks 2>&1 | filecheck %s

func.func @transpose_consumer(%a: memref<16x32xf32>, %out: memref<32x16xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<16x32xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      %y = arith.addf %x, %one : f32
      affine.store %y, %t[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %y = affine.load %t[%j, %i] : memref<16x32xf32>
      %z = arith.mulf %y, %two : f32
      affine.store %z, %out[%i, %j] : memref<32x16xf32>
    }
  }
  memref.dealloc %t : memref<16x32xf32>
  return
}

// CHECK: :17:3: passed: [LOOP INTERCHANGE] 1:0 (in @transpose_consumer)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:10:3 and {{.*}}.mlir:17:3 profit = 4096 (in @transpose_consumer)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:11:5 and {{.*}}.mlir:17:3 profit = 4096 (in @transpose_consumer)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:9:8 replaced by its stored values; buffer removed (in @transpose_consumer)
// CHECK: analysis: numLoopsFused = 2

// CHECK-LABEL: func.func @transpose_consumer
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<16x32xf32>, %[[OUT:[a-z0-9_]+]]: memref<32x16xf32>)
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = arith.constant 1.0
// CHECK-NEXT: %[[TWO:[a-z0-9_]+]] = arith.constant 2.0
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.addf %[[X]], %[[ONE]]
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = arith.mulf %[[Y]], %[[TWO]]
// CHECK-NEXT: affine.store %[[Z]], %[[OUT]][%[[J]], %[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
