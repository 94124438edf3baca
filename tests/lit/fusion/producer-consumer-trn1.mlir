// On trn1 a 2-D producer/consumer pair that walks the partition dim (dim 0) outermost fuses at
// both levels: one nest, one inner loop, the intermediate gone.
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s

func.func @nest(%a: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %t = memref.alloc() : memref<16x32xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      %y = math.exp %x : f32
      affine.store %y, %t[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t[%i, %j] : memref<16x32xf32>
      %y = arith.addf %x, %x : f32
      affine.store %y, %out[%i, %j] : memref<16x32xf32>
    }
  }
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:14:3 profit = 4096 (in @nest)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:8:5 and {{.*}}.mlir:15:5 profit = 4096 (in @nest)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:6:8 replaced by its stored values; buffer removed (in @nest)
// CHECK-NEXT: analysis: numLoopsFused = 2

// CHECK-LABEL: func.func @nest
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<16x32xf32>, %[[OUT:[a-z0-9_]+]]: memref<16x32xf32>)
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[E:[a-z0-9_]+]] = math.exp %[[X]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[E]], %[[E]]
// CHECK-NEXT: affine.store %[[S]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
