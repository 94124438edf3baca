// --passes distribute: one loop holding two independent statement groups becomes two loops, each
// with the constants it needs (the constants stay outside, shared).
// RUN: loopopt %s --passes distribute --remarks 2>&1 | filecheck %s

func.func @two_groups(%a: memref<64xf32>, %b: memref<64xf32>, %x: memref<64xf32>, %y: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %va = affine.load %a[%i] : memref<64xf32>
    %xa = arith.mulf %va, %two : f32
    affine.store %xa, %x[%i] : memref<64xf32>
    %vb = affine.load %b[%i] : memref<64xf32>
    %yb = arith.addf %vb, %one : f32
    %yy = arith.mulf %yb, %vb : f32
    affine.store %yy, %y[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:8:3: passed: [LOOP DISTRIBUTION] into 2 loops (in @two_groups)
// CHECK-LABEL: func.func @two_groups
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[B:[a-z0-9_]+]]: memref<64xf32>, %[[X:[a-z0-9_]+]]: memref<64xf32>, %[[Y:[a-z0-9_]+]]: memref<64xf32>)
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = arith.constant 1.0
// CHECK-NEXT: %[[TWO:[a-z0-9_]+]] = arith.constant 2.0
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[VA:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[XA:[a-z0-9_]+]] = arith.mulf %[[VA]], %[[TWO]]
// CHECK-NEXT: affine.store %[[XA]], %[[X]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[VB:[a-z0-9_]+]] = affine.load %[[B]][%[[J]]]
// CHECK-NEXT: %[[YB:[a-z0-9_]+]] = arith.addf %[[VB]], %[[ONE]]
// CHECK-NEXT: %[[YY:[a-z0-9_]+]] = arith.mulf %[[YB]], %[[VB]]
// CHECK-NEXT: affine.store %[[YY]], %[[Y]][%[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
