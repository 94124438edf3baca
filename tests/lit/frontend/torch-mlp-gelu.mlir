// An MLP with GELU as torch-mlir exports it (mlp_gelu_small.mlir): each F.linear materializes
// W^T (linalg.transpose of a dense_resource weight) and runs fill + matmul + bias add; GELU is
// math.erf. Three temporaries (two W^T and the hidden layer); the second linear writes the
// out-parameter.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/mlp_gelu_small.mlir | filecheck %s
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/mlp_gelu_small.mlir | mlir-opt > /dev/null
// REQUIRES: mlir-opt

// CHECK-COUNT-4: memref.global "private" constant
// CHECK-LABEL:   func.func @mlp_gelu_small(%arg0: memref<8x16xf32>, %arg1: memref<8x16xf32>)
// CHECK-COUNT-4:   memref.get_global
// CHECK:           %[[WT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK:           affine.load %arg0[%[[I:.*]], %[[K:.*]]] : memref<8x16xf32>
// CHECK-NEXT:      affine.load %[[WT]][%[[K]], %{{.*}}] : memref<16x32xf32>
// CHECK:           math.erf
// CHECK:           memref.alloc() {alignment = 64 : i64} : memref<32x16xf32>
// CHECK:           affine.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<8x16xf32>
// CHECK-NOT:       memref.copy
// CHECK-COUNT-3:   memref.dealloc
// CHECK-NEXT:      return
