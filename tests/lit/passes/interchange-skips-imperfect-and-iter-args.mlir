// interchange=1:0 only looks at perfect bands at least 2 deep, cut above a loop carrying
// iter_args: an imperfect nest and a nest whose inner loop yields a value are left alone, and
// no remark says so.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes interchange=1:0 --remarks 2>&1 | filecheck %s

func.func @imperfect(%a: memref<8x8xf32>, %r: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.store %z, %r[%i] : memref<8xf32>
    affine.for %j = 0 to 8 {
      affine.store %z, %a[%j, %i] : memref<8x8xf32>
    }
  }
  return
}

func.func @inner_carries(%a: memref<8x8xf32>, %r: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    %s = affine.for %j = 0 to 8 iter_args(%acc = %z) -> (f32) {
      %x = affine.load %a[%j, %i] : memref<8x8xf32>
      %n = arith.addf %acc, %x : f32
      affine.yield %n : f32
    }
    affine.store %s, %r[%i] : memref<8xf32>
  }
  return
}

func.func @control(%a: memref<8x8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.store %z, %a[%j, %i] : memref<8x8xf32>
    }
  }
  return
}

// Only the perfect band of @control is interchanged (one remark).
// CHECK-NOT: INTERCHANGE]{{.*}}(in @imperfect)
// CHECK-NOT: INTERCHANGE]{{.*}}(in @inner_carries)
// CHECK: passed: [LOOP INTERCHANGE] 1:0 (in @control)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @imperfect
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[I]]]
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[J]], %[[I]]]
// CHECK-LABEL: func.func @inner_carries
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 8 iter_args
// CHECK-NEXT: affine.load %{{[a-z0-9_]+}}[%[[J]], %[[I]]]
// CHECK-LABEL: func.func @control
// CHECK: affine.for %[[J:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[J]], %[[I]]]
