// Section 62, row blocks around the column blocks of a weight argument (`x @ W + b`, W 1024 x 120):
// cache tiling cuts the 384 rows in blocks of 96 (A's 96 x 1024 block in half of a 768 KiB L2, the
// sum's whole 1024 x 24 micro-panel within an eighth of it: section 65), around the register
// tile's column blocks of 24. The four row blocks read the same windows of W, so the window is
// copied in the first row block only (affine.if on the row block's counter) into the whole panel
// layout P[jb floordiv 24, k, c] (5 panels of 1024 x 24), which the later row blocks read without
// copying; nothing in the tile reads W.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 32K,768K,8M --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @conv1d(%x: memref<384x1024xf32>, %w: memref<1024x120xf32>, %b: memref<120xf32>, %y: memref<384x120xf32>) {
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 120 {
      %c = affine.load %y[%i, %j] : memref<384x120xf32>
      %r = affine.for %q = 0 to 1024 iter_args(%acc = %c) -> (f32) {
        %p = affine.load %x[%i, %q] : memref<384x1024xf32>
        %s = affine.load %w[%q, %j] : memref<1024x120xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }
      %bj = affine.load %b[%j] : memref<120xf32>
      %o = arith.addf %r, %bj : f32
      affine.store %o, %y[%i, %j] : memref<384x120xf32>
    }
  }
  return
}
// REMARK: [CACHE TILING] 384 x 120 x 1024 product (4 x 24 register tile): rows in blocks of 96
// REMARK: [PACK PANEL] argument %arg1 (1024 x 120) is copied per column block of 24 into one contiguous 1024 x 24 panel (96 KiB), read by 24 row tiles per copy, in the first row block only, into a whole layout of 5 panels (480 KiB) that later row blocks read
// CHECK: #[[FIRST:.+]] = affine_set<(d0) : (d0 == 0)>
// CHECK-LABEL: func.func @conv1d
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<5x1024x24xf32>
// CHECK: affine.for %[[IB:.+]] = 0 to 384 step 96 {
// CHECK-NEXT: affine.for %[[JB:.+]] = 0 to 120 step 24 {
// CHECK-NEXT: affine.if #[[FIRST]](%[[IB]]) {
// CHECK-NEXT: affine.for %[[R:.+]] = 0 to 1024 {
// CHECK-NEXT: affine.for %[[C:.+]] = 0 to 24 step 8 {
// CHECK-NEXT: %[[V:.+]] = affine.vector_load %arg1[%[[R]], %[[C]] + %[[JB]]] : memref<1024x120xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[V]], %[[P]][%[[JB]] floordiv 24, %[[R]], %[[C]]] : memref<5x1024x24xf32>, vector<8xf32>
// CHECK: affine.vector_load %[[P]][%[[JB]] floordiv 24, %{{.+}}, %{{.+}} - %[[JB]]] : memref<5x1024x24xf32>, vector<8xf32>
// CHECK-NOT: %arg1[
// CHECK: memref.dealloc %[[P]] : memref<5x1024x24xf32>
