// Section 55, a weight argument read in place inside column blocks (GPT-2's Conv1D layout,
// `x @ W + b`): B's 64 x 96 panel exceeds half of an 8 KiB L2 (given: --cache-sizes), so the
// 4 x 24 register tile (256 bits) sweeps the columns one tile at a time (%jc by 24). W is an
// argument: its rows lie 384 bytes apart. At the head of each column block the block's 64 x 24
// window of W is copied into one contiguous 64 x 24 panel (vectors of 8), which the 4 row tiles
// of the block read at [k, j - jc]; nothing else reads W.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 1K,8K,64K --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @conv1d(%A: memref<16x64xf32>, %W: memref<64x96xf32>, %b: memref<96xf32>, %C: memref<16x96xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 96 {
      %r = affine.for %k = 0 to 64 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<16x64xf32>
        %w = affine.load %W[%k, %j] : memref<64x96xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      %bj = affine.load %b[%j] : memref<96xf32>
      %o = arith.addf %r, %bj : f32
      affine.store %o, %C[%i, %j] : memref<16x96xf32>
    }
  }
  return
}
// REMARK: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; columns in blocks of 24
// REMARK: [PACK PANEL] argument %arg1 (64 x 96) is copied per column block of 24 into one contiguous 64 x 24 panel (6 KiB), read by 4 row tiles per copy
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x24xf32>
// CHECK: affine.for %[[JC:.*]] = 0 to 96 step 24 {
// CHECK-NEXT: affine.for %[[R:.*]] = 0 to 64 {
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 24 step 8 {
// CHECK-NEXT: %[[V:.*]] = affine.vector_load %arg1[%[[R]], %[[C]] + %[[JC]]] : memref<64x96xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[V]], %[[P]][%[[R]], %[[C]]] : memref<64x24xf32>, vector<8xf32>
// CHECK: affine.for %{{.*}} = 0 to 16 step 4 {
// CHECK: affine.for %[[J:.*]] = #{{map[0-9]*}}(%[[JC]]) to #{{map[0-9]*}}(%[[JC]], %[[JC]]) step 24 {
// CHECK: affine.for %[[K:.*]] = 0 to 64 iter_args
// CHECK-NOT: %arg1[
// CHECK: affine.vector_load %[[P]][%[[K]], %[[J]] - %[[JC]]] : memref<64x24xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %[[P]][%[[K]], %{{.*}} - %[[JC]]] : memref<64x24xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %[[P]][%[[K]], %{{.*}} - %[[JC]]] : memref<64x24xf32>, vector<8xf32>
// CHECK: memref.dealloc %[[P]] : memref<64x24xf32>
// CHECK-NOT: %arg1[
// CHECK: return
