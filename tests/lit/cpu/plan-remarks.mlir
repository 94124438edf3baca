// Issue 24: `--passes vectorize` plans every innermost loop on cpu. With both switches off it only
// explains: a loop LLVM's loop vectorizer takes as written gets a Passed remark with its width, every
// other one the code that keeps it scalar; the IR is unchanged.
// RUN: loopopt %s --target cpu --vector-bits 256 --exact-math false --passes vectorize --remarks 2>&1 | filecheck %s
func.func @plans(%a: memref<64x64xf32>, %v: memref<64xf32>, %out: memref<64xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant 1.5 : f32
  affine.for %i = 0 to 64 {
    %x = affine.load %v[%i] : memref<64xf32>
    %y = arith.mulf %x, %c : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %v[%i] : memref<64xf32>
    %e = math.exp %x : f32
    affine.store %e, %out[%i] : memref<64xf32>
  }
  %s = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %v[%i] : memref<64xf32>
    %t = arith.addf %acc, %x : f32
    affine.yield %t : f32
  }
  %m = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %v[%i] : memref<64xf32>
    %t = arith.maximumf %acc, %x : f32
    affine.yield %t : f32
  }
  affine.for %j = 0 to 64 {
    affine.for %i = 0 to 64 {
      %x = affine.load %a[%i, %j] : memref<64x64xf32>
      affine.store %x, %out[%i] : memref<64xf32>
    }
  }
  affine.for %i = 1 to 64 {
    %x = affine.load %out[%i - 1] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  %r = arith.addf %s, %m : f32
  return %r : f32
}

// CHECK: plan-remarks.mlir:8:3: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8 (in @plans)
// CHECK: plan-remarks.mlir:13:3: missed: [STOP VECTORIZE] a math function is a scalar libm call (approximate_math is off) (in @plans) [math.exp]
// CHECK: plan-remarks.mlir:18:8: missed: [STOP VECTORIZE] a floating-point reduction is kept in order (reassociate is off) (in @plans) [arith.addf]
// CHECK: plan-remarks.mlir:23:8: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8 (in @plans)
// CHECK: plan-remarks.mlir:29:5: missed: [STOP VECTORIZE] an access is not contiguous along the loop (in @plans) [affine.load at {{.*}}plan-remarks.mlir:30:12 moves by [1, 0] elements per iteration]
// CHECK: plan-remarks.mlir:34:3: missed: [STOP VECTORIZE] a memory dependence is carried by the loop (in @plans) [dependence on argument #2 across iterations]
// CHECK-LABEL: func.func @plans
// CHECK: math.exp
// CHECK-NOT: fastmath
// CHECK: return
