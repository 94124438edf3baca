// Section 53: a 1-D convolution C[o, w] = b[o] + sum_{c, t} W[o, c, t] X[c, w + t]. B's panel counts
// every loop of the reduction band (16 channels x 5 taps x 3328 columns, f32: 1040 KiB, over half
// the 2 MiB L2 given), so the columns come in blocks of one tile; the bias, loaded in the row loop
// from a buffer nothing in it writes, is loaded again in every block. Written in the row loop
// (@bias_written), its load would read another block's store: no blocks, and the remark says which op.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 48K,2M,32M --remarks -o %t.5.mlir 2> %t.5.remarks && %cat %t.5.remarks %t.5.mlir | filecheck %s
// RUN: mlir-opt %t.5.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @bias(%W: memref<8x16x5xf32>, %X: memref<16x3332xf32>, %b: memref<8xf32>, %C: memref<8x3328xf32>) {
  affine.for %o = 0 to 8 {
    %bias = affine.load %b[%o] : memref<8xf32>
    affine.for %w = 0 to 3328 {
      %r = affine.for %c = 0 to 16 iter_args(%acc = %bias) -> (f32) {
        %s = affine.for %t = 0 to 5 iter_args(%a2 = %acc) -> (f32) {
          %x = affine.load %X[%c, %w + %t] : memref<16x3332xf32>
          %y = affine.load %W[%o, %c, %t] : memref<8x16x5xf32>
          %p = arith.mulf %x, %y : f32
          %q = arith.addf %a2, %p : f32
          affine.yield %q : f32
        }
        affine.yield %s : f32
      }
      affine.store %r, %C[%o, %w] : memref<8x3328xf32>
    }
  }
  return
}

func.func @bias_written(%W: memref<8x16x5xf32>, %X: memref<16x3332xf32>, %b: memref<8xf32>, %C: memref<8x3328xf32>) {
  affine.for %o = 0 to 8 {
    %bias = affine.load %b[%o] : memref<8xf32>
    affine.for %w = 0 to 3328 {
      %r = affine.for %c = 0 to 16 iter_args(%acc = %bias) -> (f32) {
        %s = affine.for %t = 0 to 5 iter_args(%a2 = %acc) -> (f32) {
          %x = affine.load %X[%c, %w + %t] : memref<16x3332xf32>
          %y = affine.load %W[%o, %c, %t] : memref<8x16x5xf32>
          %p = arith.mulf %x, %y : f32
          %q = arith.addf %a2, %p : f32
          affine.yield %q : f32
        }
        affine.yield %s : f32
      }
      affine.store %r, %C[%o, %w] : memref<8x3328xf32>
    }
    %bb = arith.addf %bias, %bias : f32
    affine.store %bb, %b[%o] : memref<8xf32>
  }
  return
}

// CHECK: column-block-band.mlir:12:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; columns in blocks of 24 (B's panel exceeds half of L2: each micro-panel serves every row tile); the 16 columns the whole tiles leave over in one step of 2 vectors (in @bias)
// CHECK-NEXT: column-block-band.mlir:32:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; the 16 columns the whole tiles leave over in one step of 2 vectors (in @bias_written)
// CHECK-NEXT: column-block-band.mlir:32:5: missed: [STOP COLUMN BLOCKS] an op beside the product in the loop around it would run once per block (in @bias_written) [affine.load at {{.*}}column-block-band.mlir:31:13 reads memory that the loop writes]

// Blocks of 24 columns (one tile) around the row tiles, each block loading its rows' bias; the
// band (c, t) inside the block's tile; the columns left over after the blocks.
// CHECK-LABEL: func.func @bias
// CHECK: affine.for %[[J:.*]] = 0 to 3312 step 24 {
// CHECK-NEXT: affine.for %[[R:.*]] = 0 to 8 step 4 {
// CHECK: affine.load %arg2[%[[R]]] : memref<8xf32>
// CHECK: affine.for %{{.*}} = #map{{[0-9]*}}(%[[J]]) to #map{{[0-9]*}}(%[[J]], %[[J]]) step 24 {
// CHECK: affine.for %{{.*}} = 0 to 16 iter_args
// CHECK-NEXT: affine.for %{{.*}} = 0 to 5 iter_args
// CHECK: affine.for %{{.*}} = 3312 to 3328 step 16 {

// No blocks: the rows outside, each loading its bias once before its sweep of all the columns.
// CHECK-LABEL: func.func @bias_written
// CHECK: affine.for %[[I:.*]] = 0 to 8 step 4 {
// CHECK: affine.load %arg2[%[[I]]] : memref<8xf32>
// CHECK: affine.for %{{.*}} = 0 to 3312 step 24 {
