// arith.remf on f32 becomes an exact reduction by |y| 2^(24 j) in ops every vector form takes
// (codegen/cpu/remf.py, docs/cpu_codegen.md section 78): per step q = floor(a / b_j), the exact
// remainder fma(q, -b_j, a), b_j added back where the quotient was one too large; a computed
// divisor takes 12 steps, each keeping a where q = 0 (b_j overflowed); a constant one only the
// steps whose b_j is finite (1.5 and 0.1: 6); then a's sign from x and glibc's (x*y)/(x*y) for
// NaN, infinite x and a zero divisor. f64 and a scalar outside loops keep the libm call, said why.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes remf --remarks -o %t.mlir 2>%t.remarks
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: loopopt %s -o - | filecheck %s --check-prefix=NEURON
// RUN: loopopt %s --target cpu --vector-bits 256 -o %t.all.mlir && mlir-opt %t.all.mlir -o /dev/null
// REQUIRES: mlir-opt
func.func @by_tensor(%x: memref<64xf32>, %y: memref<64xf32>, %r: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %x[%i] : memref<64xf32>
    %b = affine.load %y[%i] : memref<64xf32>
    %m = arith.remf %a, %b : f32
    affine.store %m, %r[%i] : memref<64xf32>
  }
  return
}
func.func @by_constant(%x: memref<64xf32>, %r: memref<64xf32>) {
  %c = arith.constant 1.5 : f32
  affine.for %i = 0 to 64 {
    %a = affine.load %x[%i] : memref<64xf32>
    %m = arith.remf %a, %c : f32
    affine.store %m, %r[%i] : memref<64xf32>
  }
  return
}
func.func @on_vectors(%x: memref<64xf32>, %r: memref<64xf32>) {
  %c = arith.constant dense<0.1> : vector<8xf32>
  affine.for %i = 0 to 64 step 8 {
    %a = affine.vector_load %x[%i] : memref<64xf32>, vector<8xf32>
    %m = arith.remf %a, %c : vector<8xf32>
    affine.vector_store %m, %r[%i] : memref<64xf32>, vector<8xf32>
  }
  return
}
func.func @kept(%x: memref<64xf64>, %a: f32, %b: f32) -> f32 {
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf64>
    %m = arith.remf %v, %v : f64
    affine.store %m, %x[%i] : memref<64xf64>
  }
  %s = arith.remf %a, %b : f32
  return %s : f32
}
// CHECK-LABEL: func.func @by_tensor
// CHECK-NOT: arith.remf
// CHECK: %[[A:.*]] = math.absf %[[X:.*]] : f32
// CHECK: %[[NB0:.*]] = arith.negf %{{.*}} : f32
// CHECK-NEXT: %{{.*}} = arith.mulf %[[NB0]], %{{.*}} : f32
// CHECK-COUNT-9: arith.mulf
// CHECK-NEXT: %[[NB11:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[B11:.*]] = arith.negf %[[NB11]] : f32
// CHECK: %[[Q:.*]] = arith.divf %[[A]], %[[B11]] : f32
// CHECK: %[[FQ:.*]] = math.floor %[[Q]] : f32
// CHECK: %[[R:.*]] = math.fma %[[FQ]], %[[NB11]], %[[A]] : f32
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[R]], %{{.*}} : f32
// CHECK: %[[UP:.*]] = arith.subf %[[R]], %[[NB11]] : f32
// CHECK: %[[R1:.*]] = arith.select %[[NEG]], %[[UP]], %[[R]] : f32
// CHECK: %[[Z:.*]] = arith.cmpf oeq, %[[FQ]], %{{.*}} : f32
// CHECK: arith.select %[[Z]], %[[A]], %[[R1]] : f32
// CHECK-COUNT-11: math.fma
// CHECK: %[[S:.*]] = math.copysign %{{.*}}, %[[X]] : f32
// CHECK: %[[N:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[XY:.*]] = arith.mulf %[[X]], %[[Y:.*]] : f32
// CHECK: %[[T:.*]] = arith.select %[[N]], %[[X]], %[[XY]] : f32
// CHECK: %[[INV:.*]] = arith.divf %[[T]], %[[T]] : f32
// CHECK: arith.cmpf uno, %[[X]], %[[Y]] : f32
// CHECK-LABEL: func.func @by_constant
// CHECK-NOT: arith.remf
// CHECK: %[[B5:.*]] = arith.constant 1.99384199E+36 : f32
// CHECK: %[[NB5:.*]] = arith.constant -1.99384199E+36 : f32
// CHECK: affine.for
// CHECK: %[[Q5:.*]] = arith.divf %{{.*}}, %[[B5]] : f32
// CHECK: math.fma %{{.*}}, %[[NB5]], %{{.*}} : f32
// CHECK-COUNT-5: math.fma
// CHECK-NOT: math.fma
// CHECK: math.copysign
// CHECK-LABEL: func.func @on_vectors
// CHECK-NOT: arith.remf
// CHECK: arith.constant dense<1.32922802E+35> : vector<8xf32>
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK-LABEL: func.func @kept
// CHECK: arith.remf %{{.*}}, %{{.*}} : f64
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32

// REMARK: [REMF] arith.remf computed exactly by a reduction in vector ops (C's fmodf, bit for bit): 12 steps, the divisor computed
// REMARK: [REMF] arith.remf computed exactly by a reduction in vector ops (C's fmodf, bit for bit): 6 steps, the divisor constant
// REMARK: [REMF] arith.remf computed exactly by a reduction in vector ops (C's fmodf, bit for bit): 6 steps, the divisor constant
// REMARK: [STOP REMF] arith.remf kept: a libm fmod call per element (in @kept) [f64: an exact reduction takes 40 steps
// REMARK: [STOP REMF] arith.remf kept: a libm fmod call per element (in @kept) [a scalar outside every loop
// NEURON-COUNT-5: arith.remf
