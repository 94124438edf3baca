// Issue 24: `--passes math-approx` replaces math.exp, log, tanh and erf on f32 in vectorizable
// loops by polynomials of arith/math ops that have vector instructions (codegen/cpu/math/math_approx.py);
// the constants go before the nest. f64 math and loops that stay scalar keep their libm calls.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes math-approx --remarks -o %t.3.mlir 2> %t.3.remarks && %cat %t.3.remarks %t.3.mlir | filecheck %s
// RUN: mlir-opt %t.3.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @act(%x: memref<256xf32>, %out: memref<4x256xf32>, %d: memref<256xf64>) {
  affine.for %i = 0 to 256 {
    %v = affine.load %x[%i] : memref<256xf32>
    %e = math.exp %v : f32
    %l = math.log %v : f32
    %t = math.tanh %v : f32
    %g = math.erf %v : f32
    affine.store %e, %out[0, %i] : memref<4x256xf32>
    affine.store %l, %out[1, %i] : memref<4x256xf32>
    affine.store %t, %out[2, %i] : memref<4x256xf32>
    affine.store %g, %out[3, %i] : memref<4x256xf32>
  }
  affine.for %i = 0 to 256 {
    %v = affine.load %d[%i] : memref<256xf64>
    %e = math.exp %v : f64
    affine.store %e, %d[%i] : memref<256xf64>
  }
  return
}

// CHECK: math-approx.mlir:8:3: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8 (in @act)
// CHECK: math-approx.mlir:10:10: passed: [MATH APPROX] replaced by a polynomial: math.exp (max error {{[0-9]}} ulp) (in @act)
// CHECK: math-approx.mlir:11:10: passed: [MATH APPROX] replaced by a polynomial: math.log (max error {{[0-9]}} ulp) (in @act)
// CHECK: math-approx.mlir:12:10: passed: [MATH APPROX] replaced by a polynomial: math.tanh (max error {{[0-9]}} ulp) (in @act)
// CHECK: math-approx.mlir:13:10: passed: [MATH APPROX] replaced by a polynomial: math.erf (max error {{[0-9]}} ulp) (in @act)
// CHECK: math-approx.mlir:19:3: missed: [STOP VECTORIZE] a math function has no vector form or approximation (in @act) [math.exp on f64: only f32 is approximated]
// CHECK-LABEL: func.func @act
// CHECK: arith.constant 88.7228394 : f32
// CHECK: affine.for
// CHECK-NOT: math.exp {{.*}} : f32
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK: math.floor
// CHECK: arith.bitcast {{.*}} : i32 to f32
// CHECK: affine.store {{.*}}[3, %arg3]
// CHECK: affine.for
// CHECK: math.exp {{.*}} : f64
