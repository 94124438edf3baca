// Issue 33, class 1: B's 64 x 4160 f32 panel (1040 KiB) exceeds half the L2 (2 MiB, given), so the
// columns come in blocks of one tile (section 18), and the blocks run the row loop's other ops once
// per block. Only pure ops may be copied so: a load of C[i, 0] before the product (which an earlier
// block has overwritten) makes the plan build the tile without column blocks and say which op; a
// value computed from the row's counter alone keeps the blocks. (A 32 MiB L3: no cache blocks.)
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 48K,2M,32M --remarks -o %t.5.mlir 2> %t.5.remarks && %cat %t.5.remarks %t.5.mlir | filecheck %s
// RUN: mlir-opt %t.5.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @load_before(%A: memref<8x64xf32>, %B: memref<64x4160xf32>, %C: memref<8x4160xf32>) {
  affine.for %i = 0 to 8 {
    %c0 = affine.load %C[%i, 0] : memref<8x4160xf32>
    affine.for %j = 0 to 4160 {
      %r = affine.for %k = 0 to 64 iter_args(%acc = %c0) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<8x64xf32>
        %b = affine.load %B[%k, %j] : memref<64x4160xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<8x4160xf32>
    }
  }
  return
}

func.func @pure_before(%A: memref<8x64xf32>, %B: memref<64x4160xf32>, %C: memref<8x4160xf32>) {
  affine.for %i = 0 to 8 {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    affine.for %j = 0 to 4160 {
      %r = affine.for %k = 0 to 64 iter_args(%acc = %fi) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<8x64xf32>
        %b = affine.load %B[%k, %j] : memref<64x4160xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<8x4160xf32>
    }
  }
  return
}

// CHECK: column-block-copies.mlir:12:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order (in @load_before)
// CHECK-NEXT: column-block-copies.mlir:12:5: missed: [STOP COLUMN BLOCKS] an op beside the product in the loop around it would run once per block (in @load_before) [affine.load at {{.*}}column-block-copies.mlir:11:11 reads memory that the loop writes]
// CHECK-NEXT: column-block-copies.mlir:30:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; columns in blocks of 24 (B's panel exceeds half of L2: each micro-panel serves every row tile) (in @pure_before)

// No blocks: each row's C[i, 0] is loaded once, before its sweep of all 4160 columns.
// CHECK-LABEL: func.func @load_before
// CHECK-NOT: step 4096
// CHECK: affine.for %[[I:.*]] = 0 to 8 step 4 {
// CHECK: %[[C0:.*]] = affine.load %arg2[%[[I]], 0] : memref<8x4160xf32>
// CHECK: affine.for %{{.*}} = 0 to 4152 step 24 {
// CHECK: vector.broadcast %[[C0]] : f32 to vector<8xf32>

// Blocks of 24 columns (one tile), the row's value recomputed in each block.
// CHECK-LABEL: func.func @pure_before
// CHECK: affine.for %[[J:.*]] = 0 to 4152 step 24 {
// CHECK: affine.for %[[R:.*]] = 0 to 8 step 4 {
// CHECK: arith.index_cast %[[R]] : index to i32
// CHECK: affine.for %{{.*}} = #map{{[0-9]*}}(%[[J]]) to #map{{[0-9]*}}(%[[J]], %[[J]]) step 24 {
