// Issue 24: `--passes vector-reductions` lets a floating-point sum or product in iter_args be
// reassociated (its combining op gets fastmath<reassoc>: LLVM then keeps vector partial sums).
// max/min are exact in any order and stay as written; a partial sum that is observed is no
// reduction and keeps its order.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes vector-reductions --remarks 2>&1 | filecheck %s
func.func @sums(%v: memref<1024xf32>, %prefix: memref<1024xf32>) -> (f32, f32, f32) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %s:2 = affine.for %i = 0 to 1024 iter_args(%acc = %zero, %prod = %one) -> (f32, f32) {
    %x = affine.load %v[%i] : memref<1024xf32>
    %t = arith.addf %acc, %x : f32
    %p = arith.mulf %prod, %x fastmath<contract> : f32
    affine.yield %t, %p : f32, f32
  }
  %m = affine.for %i = 0 to 1024 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %v[%i] : memref<1024xf32>
    %t = arith.maximumf %acc, %x : f32
    affine.yield %t : f32
  }
  %q = affine.for %i = 0 to 1024 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %v[%i] : memref<1024xf32>
    %t = arith.addf %acc, %x : f32
    affine.store %t, %prefix[%i] : memref<1024xf32>
    affine.yield %t : f32
  }
  return %s#0, %m, %q : f32, f32, f32
}

// CHECK: vector-reductions.mlir:9:10: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8 (in @sums)
// CHECK: vector-reductions.mlir:11:10: passed: [VECTOR REDUCTION] reduction may be reassociated into vector partial sums: arith.addf (in @sums)
// CHECK: vector-reductions.mlir:12:10: passed: [VECTOR REDUCTION] reduction may be reassociated into vector partial sums: arith.mulf (in @sums)
// CHECK: vector-reductions.mlir:15:8: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8 (in @sums)
// CHECK: vector-reductions.mlir:20:8: missed: [STOP VECTORIZE] a value carried in iter_args is not a reduction (in @sums) [the partial result of arith.addf is used outside the yield]
// CHECK-LABEL: func.func @sums
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: affine.store
