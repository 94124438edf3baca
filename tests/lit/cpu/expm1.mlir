// math.expm1 becomes Kahan's (exp(x) - 1) * (x / log(exp(x))), with x where exp(x) is 1, -1
// where exp(x) - 1 is, and exp(x) where it is inf: MLIR's own lowering, exp(x) - 1, gives 0 for
// expm1(1e-10) (codegen/cpu/expm1.py). Scalars and vectors, f32 and f64; the neuron targets keep it.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes expm1 --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: loopopt %s -o - | filecheck %s --check-prefix=NEURON
// RUN: loopopt %s --target cpu --vector-bits 256 -o %t.mlir && mlir-opt %t.mlir -o /dev/null
// REQUIRES: mlir-opt
func.func @elu(%x: memref<64xf32>, %y: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %e = math.expm1 %v : f32
    affine.store %e, %y[%i] : memref<64xf32>
  }
  return
}
// CHECK-LABEL: func.func @elu
// CHECK-NOT: math.expm1
// CHECK: %[[U:.*]] = math.exp %[[X:.*]] : f32
// CHECK: %[[UM1:.*]] = arith.subf %[[U]], %{{.*}} : f32
// CHECK: %[[L:.*]] = math.log %[[U]] : f32
// CHECK: %[[Q:.*]] = arith.divf %[[X]], %[[L]] : f32
// CHECK: %[[K:.*]] = arith.mulf %[[UM1]], %[[Q]] : f32
// CHECK: %[[ONE:.*]] = arith.cmpf oeq, %[[U]], %{{.*}} : f32
// CHECK: %[[Y1:.*]] = arith.select %[[ONE]], %[[X]], %[[K]] : f32
// CHECK: %[[M1:.*]] = arith.cmpf oeq, %[[UM1]], %{{.*}} : f32
// CHECK: %[[Y2:.*]] = arith.select %[[M1]], %{{.*}}, %[[Y1]] : f32
// CHECK: %[[INF:.*]] = arith.cmpf oeq, %[[U]], %{{.*}} : f32
// CHECK: arith.select %[[INF]], %[[U]], %[[Y2]] : f32

func.func @elu_vec(%x: memref<64xf64>, %y: memref<64xf64>) {
  affine.for %i = 0 to 64 step 4 {
    %v = affine.vector_load %x[%i] : memref<64xf64>, vector<4xf64>
    %e = math.expm1 %v : vector<4xf64>
    affine.vector_store %e, %y[%i] : memref<64xf64>, vector<4xf64>
  }
  return
}
// CHECK-LABEL: func.func @elu_vec
// CHECK-NOT: math.expm1
// CHECK: arith.constant dense<1.000000e+00> : vector<4xf64>
// CHECK: math.exp %{{.*}} : vector<4xf64>
// CHECK: math.log %{{.*}} : vector<4xf64>
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : vector<4xf64>

// REMARK-COUNT-2: [EXPM1] math.expm1 computed as (exp(x) - 1) * (x / log(exp(x))), exact near 0
// NEURON-COUNT-2: math.expm1
