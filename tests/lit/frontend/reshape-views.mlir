// Views that survive bufferization are folded into the accesses, exactly: a slice
// (extract_slice -> subview), a split into heads (expand_shape 8x16 -> 8x2x8) and a merge of heads
// (collapse_shape 2x8x8 -> 16x8) become offsets, `h * 8 + d`, and `floordiv`/`mod` on the viewed
// buffer; no view op is left for the analysis to guess at. Two results: two out-parameters.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @split_heads(%x: tensor<8x48xf32>) -> (tensor<2x8x8xf32>, tensor<8x16xf32>) {
  %q = tensor.extract_slice %x[0, 16] [8, 16] [1, 1] : tensor<8x48xf32> to tensor<8x16xf32>
  %h = tensor.expand_shape %q [[0], [1, 2]] output_shape [8, 2, 8] : tensor<8x16xf32> into tensor<8x2x8xf32>
  %e = tensor.empty() : tensor<2x8x8xf32>
  %t = linalg.transpose ins(%h : tensor<8x2x8xf32>) outs(%e : tensor<2x8x8xf32>) permutation = [1, 0, 2]
  %m = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x8x8xf32> into tensor<16x8xf32>
  %e3 = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<16x8xf32>) outs(%e3 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %t, %r : tensor<2x8x8xf32>, tensor<8x16xf32>
}

// CHECK: lowering: loopopt-fold-reshape-views: {{.*}}; memref.collapse_shape -1, memref.expand_shape -1, memref.subview -1; 2 access(es) re-indexed, 3 view(s) erased
// CHECK-LABEL: func.func @split_heads(%arg0: memref<8x48xf32>, %arg1: memref<2x8x8xf32>, %arg2: memref<8x16xf32>)
// CHECK-NOT:     memref.subview
// CHECK-NOT:     memref.expand_shape
// CHECK:         affine.for %[[H:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT:        affine.for %[[D:.*]] = 0 to 8 {
// CHECK-NEXT:          %[[V:.*]] = affine.load %arg0[%[[I]], %[[H]] * 8 + %[[D]] + 16] : memref<8x48xf32>
// CHECK-NEXT:          affine.store %[[V]], %arg1[%[[H]], %[[I]], %[[D]]] : memref<2x8x8xf32>
// CHECK:         affine.for %[[R:.*]] = 0 to 8 {
// CHECK-NEXT:      affine.for %[[C:.*]] = 0 to 16 {
// CHECK-NEXT:        affine.load %arg1[%[[C]] floordiv 8, %[[C]] mod 8, %[[R]]] : memref<2x8x8xf32>
// CHECK-NOT:     memref.collapse_shape
// CHECK:         return
