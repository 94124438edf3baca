// A Gram matrix as torch-mlir writes einsum("bchw,bdhw->bcd", x, x): the second operand is a
// linalg.transpose of x expanded by a trailing unit dimension (2x64x8x8x1 -> 2x8x8x64x1), which
// linalg-fold-unit-extent-dims leaves (a named op). The buffer it fills loses that dimension, and
// the product's read of it walks the channels along the last dimension (docs/cpu_codegen.md
// section 37). The out-parameter keeps its type.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @gram(%x: tensor<2x64x8x8xf32>) -> tensor<2x64x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %a = tensor.collapse_shape %x [[0], [1], [2, 3]] : tensor<2x64x8x8xf32> into tensor<2x64x64xf32>
  %u = tensor.expand_shape %x [[0], [1], [2], [3, 4]] output_shape [2, 64, 8, 8, 1] : tensor<2x64x8x8xf32> into tensor<2x64x8x8x1xf32>
  %e = tensor.empty() : tensor<2x8x8x64x1xf32>
  %t = linalg.transpose ins(%u : tensor<2x64x8x8x1xf32>) outs(%e : tensor<2x8x8x64x1xf32>) permutation = [0, 2, 3, 1, 4]
  %b = tensor.collapse_shape %t [[0], [1, 2], [3, 4]] : tensor<2x8x8x64x1xf32> into tensor<2x64x64xf32>
  %e2 = tensor.empty() : tensor<2x64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %g = linalg.batch_matmul ins(%a, %b : tensor<2x64x64xf32>, tensor<2x64x64xf32>) outs(%f : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  return %g : tensor<2x64x64xf32>
}

// CHECK: lowering: loopopt-drop-trailing-unit-dims: {{.*}}; 1 buffer(s) lost 1 trailing unit dimension(s)
// CHECK-LABEL: func.func @gram(%arg0: memref<2x64x8x8xf32>, %arg1: memref<2x64x64xf32>)
// CHECK:         %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x8x64xf32>
// CHECK:           affine.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x8x64xf32>
// CHECK:         affine.store %cst, %arg1
// CHECK:         affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 64 {
// CHECK-NEXT:        affine.for %[[J:.*]] = 0 to 64 {
// CHECK-NEXT:          affine.for %[[K:.*]] = 0 to 64 {
// CHECK-NEXT:            affine.load %arg0[%[[B]], %[[I]], %[[K]] floordiv 8, %[[K]] mod 8] : memref<2x64x8x8xf32>
// CHECK-NEXT:            affine.load %[[T]][%[[B]], %[[K]] floordiv 8, %[[K]] mod 8, %[[J]]] : memref<2x8x8x64xf32>
// CHECK:         memref.dealloc %[[T]] : memref<2x8x8x64xf32>
// CHECK-NOT:     x1xf32
