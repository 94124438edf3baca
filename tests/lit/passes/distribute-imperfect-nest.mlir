// An imperfect nest is split at its top level: the store to %r and the inner loop are two
// independent groups, so they become two loops over %i (the constant goes with its user).
// RUN: loopopt %s --passes distribute --remarks 2>&1 | filecheck %s

func.func @imperfect(%a: memref<8x8xf32>, %r: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %z = arith.constant 0.0 : f32
    affine.store %z, %r[%i] : memref<8xf32>
    affine.for %j = 0 to 8 {
      %x = affine.load %a[%i, %j] : memref<8x8xf32>
      affine.store %x, %a[%j, %i] : memref<8x8xf32>
    }
  }
  return
}

// CHECK: {{.*}}.mlir:6:3: passed: [LOOP DISTRIBUTION] into 2 loops (in @imperfect)
// CHECK-LABEL: func.func @imperfect
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8x8xf32>, %[[R:[a-z0-9_]+]]: memref<8xf32>)
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = arith.constant 0.0
// CHECK-NEXT: affine.store %[[Z]], %[[R]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[I2:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I2]], %[[J]]]
// CHECK-NEXT: affine.store %[[X]], %[[A]][%[[J]], %[[I2]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
