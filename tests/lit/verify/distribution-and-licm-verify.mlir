// REQUIRES: mlir-opt
// Distribution inside fusion, then LICM of the invariant scale: the result verifies in
// mlir-opt and keeps the shape (the scale load hoisted above both loops).
// RUN: loopopt %s --target cpu --vector-bits 256 | mlir-opt | filecheck %s

func.func @split(%a: memref<65xf32>, %s: memref<f32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<65xf32>
  %c = arith.constant 0.0 : f32
  affine.store %c, %t[64] : memref<65xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<65xf32>
    affine.store %x, %t[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %k = affine.load %s[] : memref<f32>
    %x = affine.load %t[%i] : memref<65xf32>
    %y = arith.mulf %x, %k : f32
    affine.store %y, %out1[%i] : memref<64xf32>
    %z = affine.load %t[%i + 1] : memref<65xf32>
    affine.store %z, %out2[%i] : memref<64xf32>
  }
  return
}

// The reload of t[i] after the store takes the stored value (scalar replacement, cpu).
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<65xf32>, %[[S:[a-z0-9_]+]]: memref<f32>, %[[O1:[a-z0-9_]+]]: memref<64xf32>, %[[O2:[a-z0-9_]+]]: memref<64xf32>)
// CHECK: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<65xf32>
// CHECK: affine.store %{{[a-z0-9_]+}}, %[[T]][64]
// CHECK-NEXT: %[[K:[a-z0-9_]+]] = affine.load %[[S]][]
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: affine.store %[[X]], %[[T]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.mulf %[[X]], %[[K]]
// CHECK-NEXT: affine.store %[[Y]], %[[O1]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: affine.load %[[T]][%[[J]] + 1]
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[O2]][%[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
