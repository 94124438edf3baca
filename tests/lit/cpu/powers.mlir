// Issue 35: `math.fpowi` with a constant exponent becomes LLVM's own expansion of llvm.powi as
// multiplications (repeated squaring; 1.0 / it for a negative exponent, 1.0 for 0), bit for bit;
// `math.powf` by 2 or 3 only with --approximate-math (libm's powf is not the product on every
// input), and a variable exponent stays (codegen/cpu/powers.py).
// RUN: loopopt %s --target cpu --vector-bits 256 --passes powers --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: loopopt %s --target cpu --vector-bits 256 --passes powers --approximate-math -o - | filecheck %s --check-prefix=APPROX
// RUN: loopopt %s --target cpu --vector-bits 256 -o %t.mlir && mlir-opt %t.mlir -o /dev/null
// REQUIRES: mlir-opt
func.func @gelu_cube(%x: memref<64xf32>, %out: memref<5x64xf32>, %e: i32) {
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %cm2 = arith.constant -2 : i64
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %a = math.fpowi %v, %c3 : f32, i64
    %b = math.fpowi %v, %c4 : f32, i64
    %c = math.fpowi %v, %cm2 : f32, i64
    %d = math.powf %v, %two : f32
    %f = math.fpowi %v, %e : f32, i32
    affine.store %a, %out[0, %i] : memref<5x64xf32>
    affine.store %b, %out[1, %i] : memref<5x64xf32>
    affine.store %c, %out[2, %i] : memref<5x64xf32>
    affine.store %d, %out[3, %i] : memref<5x64xf32>
    affine.store %f, %out[4, %i] : memref<5x64xf32>
  }
  return
}

// CHECK-LABEL: func.func @gelu_cube
// CHECK: %[[V:.*]] = affine.load
// x^3 = x * (x * x)
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[A:.*]] = arith.mulf %[[V]], %[[S]] : f32
// x^4 = (x * x) * (x * x)
// CHECK-NEXT: %[[S2:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[B:.*]] = arith.mulf %[[S2]], %[[S2]] : f32
// x^-2 = 1.0 / (x * x)
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[S3:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[C:.*]] = arith.divf %[[ONE]], %[[S3]] : f32
// CHECK-NEXT: %[[D:.*]] = math.powf %[[V]], %{{.*}} : f32
// CHECK-NEXT: %[[F:.*]] = math.fpowi %[[V]], %{{.*}} : f32, i32
// CHECK-NEXT: affine.store %[[A]]
// CHECK-NEXT: affine.store %[[B]]
// CHECK-NEXT: affine.store %[[C]]
// CHECK-NEXT: affine.store %[[D]]
// CHECK-NEXT: affine.store %[[F]]
// CHECK-NOT: math.fpowi %{{.*}}, %c

// REMARK: powers.mlir:17:10: passed: [POWER] a constant integer power computed by multiplications: math.fpowi to the power 3 (the bits of LLVM's own expansion of llvm.powi) (in @gelu_cube)
// REMARK: powers.mlir:18:10: passed: [POWER] {{.*}} math.fpowi to the power 4
// REMARK: powers.mlir:19:10: passed: [POWER] {{.*}} math.fpowi to the power -2
// REMARK: powers.mlir:20:10: missed: [STOP POWER] a constant integer power kept as a libm call (in @gelu_cube) [math.powf to the power 2: libm's powf is not the product on every input (approximate_math is off)]
// REMARK-NOT: powers.mlir:21

// APPROX: %[[V:.*]] = affine.load
// APPROX: arith.divf
// APPROX-NEXT: %[[D:.*]] = arith.mulf %[[V]], %[[V]] : f32
// APPROX-NEXT: math.fpowi %[[V]], %{{.*}} : f32, i32
// APPROX-NOT: math.powf
// APPROX: affine.store %[[D]], %{{.*}}[3, %{{.*}}]
