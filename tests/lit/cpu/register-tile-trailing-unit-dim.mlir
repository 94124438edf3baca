// The Gram matrix of tests/lit/frontend/drop-trailing-unit-dims.mlir through the cpu target: its
// product reads the transposed operand along the channels, now its last dimension, so the lanes
// run along them (before loopopt-drop-trailing-unit-dims and section 38: a 4 x 3 tile of scalar copies,
// "lanes refused: affine.load ... moves by [0, 0, 0, 1, 0] elements per iteration"; section 37).
// tests/test_unit_dims.py runs it natively against the step-less lowering, bit for bit.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks --lowering 'builtin.module(loopopt-check-input,func.func(linalg-fold-unit-extent-dims,canonicalize,cse),loopopt-recompute-gathered-elements,loopopt-skip-inserted-zeros,loopopt-duplicate-shared-fills,eliminate-empty-tensors,empty-tensor-to-alloc-tensor,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{modify-public-functions=true},loopopt-results-into-out-params,ownership-based-buffer-deallocation,buffer-deallocation-simplification,bufferization-lower-deallocations,canonicalize,func.func(convert-linalg-to-affine-loops),fold-memref-alias-ops,loopopt-copies-to-loops,loopopt-fold-reshape-views,loopopt-unify-dynamic-sizes,canonicalize,cse,loopopt-check-lowered)' -o - 2>&1 | filecheck %s --check-prefix=BEFORE
// REQUIRES: mlir-opt

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

// CHECK: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), acc + x * y as one fused multiply-add; the 16 columns the whole tiles leave over in one step of 2 vectors (in @gram)
// CHECK-LABEL: func.func @gram(
// CHECK:         memref.alloc() : memref<2x8x8x64xf32>
// CHECK:         affine.vector_load %{{.*}} : memref<2x8x8x64xf32>, vector<8xf32>
// CHECK:         math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// Without the step the register tile's own lane test leaves the trailing unit dimension out (section 38): the
// same vector tile, its lane loads through a collapse_shape of the 2x8x8x64x1 buffer.
// BEFORE: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>)
// BEFORE: memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2], [3, 4]] : memref<2x8x8x64x1xf32> into memref<2x8x8x64xf32>
// BEFORE: affine.vector_load %{{.*}} : memref<2x8x8x64xf32>, vector<8xf32>
