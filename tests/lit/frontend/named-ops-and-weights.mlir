// Named ops and weights: linalg.batch_matmul, linalg.matmul, linalg.transpose and linalg.fill
// become affine nests; a dense_resource constant (an nn.Module parameter) becomes a
// memref.global read through memref.get_global. The result is an expand_shape view of a
// temporary, so its copy into the out-parameter is kept, written as a loop nest
// (loopopt-copies-to-loops) that reads the temporary through the folded view.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s
// RUN: loopopt-lower %s | mlir-opt > /dev/null
// REQUIRES: mlir-opt

func.func @named(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %w: tensor<6x4xf32>) -> tensor<2x4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %w_t = arith.constant dense_resource<weights> : tensor<4x6xf32>
  %e = tensor.empty() : tensor<2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%f : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2]] : tensor<2x4x4xf32> into tensor<8x4xf32>
  %et = tensor.empty() : tensor<4x6xf32>
  %wt = linalg.transpose ins(%w : tensor<6x4xf32>) outs(%et : tensor<4x6xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<8x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x6xf32>) -> tensor<8x6xf32>
  %m = linalg.matmul ins(%c, %wt : tensor<8x4xf32>, tensor<4x6xf32>) outs(%f2 : tensor<8x6xf32>) -> tensor<8x6xf32>
  %m2 = linalg.matmul ins(%c, %w_t : tensor<8x4xf32>, tensor<4x6xf32>) outs(%m : tensor<8x6xf32>) -> tensor<8x6xf32>
  %r = tensor.expand_shape %m2 [[0, 1], [2]] output_shape [2, 4, 6] : tensor<8x6xf32> into tensor<2x4x6xf32>
  return %r : tensor<2x4x6xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}

// CHECK: lowering: loopopt-results-into-out-params: {{.*}}; copy kept for argument 3 of @named (its value is not a buffer the function allocates)
// CHECK: lowering: loopopt-copies-to-loops: {{.*}}; 1 memref.copy rewritten as loop nests
// CHECK: memref.global "private" constant @[[W:.*]] : memref<4x6xf32> = dense_resource<weights>
// CHECK-LABEL: func.func @named(%arg0: memref<2x4x8xf32>, %arg1: memref<2x8x4xf32>, %arg2: memref<6x4xf32>, %arg3: memref<2x4x6xf32>)
// CHECK:         %[[G:.*]] = memref.get_global @[[W]] : memref<4x6xf32>
// batch_matmul: b, i, j, k (after the fill of its accumulator)
// CHECK:         affine.store %cst, %{{.*}} : memref<2x4x4xf32>
// CHECK:         affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:        affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT:          affine.for %[[K:.*]] = 0 to 8 {
// CHECK-NEXT:            affine.load %arg0[%[[B]], %[[I]], %[[K]]] : memref<2x4x8xf32>
// CHECK-NEXT:            affine.load %arg1[%[[B]], %[[K]], %[[J]]] : memref<2x8x4xf32>
// transpose
// CHECK:         affine.load %arg2[%[[T1:.*]], %[[T0:.*]]] : memref<6x4xf32>
// CHECK-NEXT:    affine.store %{{.*}}, %{{.*}}[%[[T0]], %[[T1]]] : memref<4x6xf32>
// the matmuls read the batch_matmul's result through the collapse: floordiv and mod
// CHECK:         affine.load %{{.*}}[%[[R:.*]] floordiv 4, %[[R]] mod 4, %{{.*}}] : memref<2x4x4xf32>
// CHECK:         affine.load %[[G]][%{{.*}}, %{{.*}}] : memref<4x6xf32>
// the kept copy, through the expand view
// CHECK:         affine.load %{{.*}}[%[[P:.*]] * 4 + %[[Q:.*]], %[[S:.*]]] : memref<8x6xf32>
// CHECK-NEXT:    affine.store %{{.*}}, %arg3[%[[P]], %[[Q]], %[[S]]] : memref<2x4x6xf32>
// CHECK-NOT:     memref.copy
// CHECK-NOT:     shape
// CHECK:         return
