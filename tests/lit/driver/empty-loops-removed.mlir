// An empty loop (its body only the terminator) computes nothing: the cleanup step erases it, and
// a nest of nothing but empty loops, on every target; a loop that carries values stays.
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
func.func @f(%a: memref<8xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
    }
  }
  %r = affine.for %k = 0 to 8 iter_args(%acc = %z) -> (f32) {
    affine.yield %acc : f32
  }
  return %r : f32
}

// (LICM may first hoist the inner loop out of the outer one: the order of the two remarks varies)
// CHECK-DAG: empty-loops-removed.mlir:8:5: passed: [CLEANUP] empty loop removed (in @f)
// CHECK-DAG: empty-loops-removed.mlir:7:3: passed: [CLEANUP] empty loop removed (in @f)
// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[Z:.*]] = arith.constant
// CHECK-NEXT: %[[R:.*]] = affine.for %{{.*}} = 0 to 8 iter_args(%{{.*}} = %[[Z]]) -> (f32) {
// CHECK-NOT: affine.for
// CHECK: return %[[R]] : f32
