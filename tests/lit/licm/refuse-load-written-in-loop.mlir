// The loop writes %s[] (an accumulator): the load is not invariant and LICM leaves it (trn1).
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s

func.func @accumulate(%a: memref<64xf32>, %s: memref<f32>) {
  affine.for %i = 0 to 64 {
    %acc = affine.load %s[] : memref<f32>
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %acc, %x : f32
    affine.store %y, %s[] : memref<f32>
  }
  return
}

// CHECK: {{.*}}.mlir:6:12: missed: [LICM] not hoisted: %{{[a-z0-9_]+}} is written in the loop (affine.store) (in @accumulate)
// CHECK-NOT: [LICM]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @accumulate
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[S:[a-z0-9_]+]]: memref<f32>)
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load %[[S]][]
// CHECK-NEXT: affine.load %[[A]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[S]][]

// On cpu, scalar replacement (before LICM) moves the accumulator into iter_args instead.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=CPU
// CPU: {{.*}}.mlir:6:12: passed: [SCALAR REPLACEMENT] accumulator at a loop-invariant address promoted to iter_args (in @accumulate)
// CPU-NOT: [LICM]
// CPU-LABEL: func.func @accumulate
// CPU-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[S:[a-z0-9_]+]]: memref<f32>)
// CPU-NEXT: %[[INIT:[a-z0-9_]+]] = affine.load %[[S]][]
// CPU-NEXT: %[[R:[a-z0-9_]+]] = affine.for {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (f32) {
// CPU-NEXT: affine.load %[[A]]
// CPU-NEXT: arith.addf %[[ACC]]
// CPU-NEXT: affine.yield
// CPU-NEXT: }
// CPU-NEXT: affine.store %[[R]], %[[S]][]
