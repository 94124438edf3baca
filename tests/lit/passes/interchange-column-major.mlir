// --passes interchange=1:0 swaps a 2-deep nest: the column-major walk becomes row-major.
// RUN: loopopt %s --passes interchange=1:0 --remarks 2>&1 | filecheck %s

func.func @colmajor(%a: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%j, %i] : memref<16x32xf32>
      %y = arith.mulf %x, %two : f32
      affine.store %y, %out[%j, %i] : memref<16x32xf32>
    }
  }
  return
}

// CHECK: :6:3: passed: [LOOP INTERCHANGE] 1:0 (in @colmajor)
// CHECK-LABEL: func.func @colmajor
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<16x32xf32>, %[[OUT:[a-z0-9_]+]]: memref<16x32xf32>)
// CHECK-NEXT: %[[TWO:[a-z0-9_]+]] = arith.constant 2.0
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[J]], %[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.mulf %[[X]], %[[TWO]]
// CHECK-NEXT: affine.store %[[Y]], %[[OUT]][%[[J]], %[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
