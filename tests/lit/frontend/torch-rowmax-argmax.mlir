// torch.max(x, dim=-1) as torch-mlir exports it (benchmarks/models/blocks/rowmax_small.mlir): one
// linalg.generic with two results (the f32 max and its i64 argmax, from linalg.index) becomes one
// nest writing two out-parameters, in result order; linalg.index is the loop's induction variable.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/rowmax_small.mlir | filecheck %s

// CHECK-LABEL: func.func @rowmax_small(%arg0: memref<8x32xf32>, %arg1: memref<8xf32>, %arg2: memref<8xi64>)
// CHECK-NOT:     memref.alloc
// CHECK:         affine.store %c0_i64, %arg2[%{{.*}}] : memref<8xi64>
// CHECK:         affine.store %cst, %arg1[%{{.*}}] : memref<8xf32>
// CHECK:         affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT:      affine.for %[[J:.*]] = 0 to 32 {
// CHECK-NEXT:        %[[X:.*]] = affine.load %arg0[%[[I]], %[[J]]] : memref<8x32xf32>
// CHECK-NEXT:        %[[M:.*]] = affine.load %arg1[%[[I]]] : memref<8xf32>
// CHECK-NEXT:        %[[A:.*]] = affine.load %arg2[%[[I]]] : memref<8xi64>
// CHECK-NEXT:        %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:        %[[MAX:.*]] = arith.maximumf %[[X]], %[[M]] : f32
// CHECK-NEXT:        %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[M]] : f32
// CHECK-NEXT:        %[[SEL:.*]] = arith.select %[[GT]], %[[J64]], %[[A]] : i64
// CHECK-NEXT:        affine.store %[[MAX]], %arg1[%[[I]]] : memref<8xf32>
// CHECK-NEXT:        affine.store %[[SEL]], %arg2[%[[I]]] : memref<8xi64>
// CHECK-NOT:     memref.copy
// CHECK:         return
