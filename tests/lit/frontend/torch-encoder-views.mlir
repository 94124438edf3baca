// A transformer encoder layer as torch-mlir exports it (encoder_small.mlir): q, k, v are slices
// of one qkv buffer (subviews), split into heads (expand_shape), merged back (collapse_shape).
// Every access through those views is re-indexed onto the qkv buffer and the attention output
// (offsets, h * 8 + d, floordiv/mod); no view op is left.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %S/../../../benchmarks/models/blocks/encoder_small.mlir --report 2>&1 | filecheck %s

// CHECK: lowering: loopopt-fold-reshape-views: {{.*}}; memref.collapse_shape -1, memref.expand_shape -3, memref.subview -3; 4 access(es) re-indexed, 7 view(s) erased
// CHECK-LABEL: func.func @encoder_small(%arg0: memref<8x16xf32>, %arg1: memref<8x16xf32>)
// CHECK-NOT:     memref.subview
// CHECK-NOT:     memref.expand_shape
// CHECK:         affine.load %[[QKV:.*]][%{{.*}}, %[[H:.*]] * 8 + %[[D:.*]]] : memref<8x48xf32>
// CHECK:         affine.load %[[QKV]][%{{.*}}, %{{.*}} * 8 + %{{.*}} + 32] : memref<8x48xf32>
// CHECK:         affine.load %[[QKV]][%{{.*}}, %{{.*}} * 8 + %{{.*}} + 16] : memref<8x48xf32>
// CHECK:         affine.load %{{.*}}[%{{.*}}, %[[C:.*]] floordiv 8, %[[C]] mod 8] : memref<8x2x8xf32>
// CHECK-NOT:     memref.collapse_shape
// CHECK-NOT:     memref.copy
// CHECK:         return
