// CLASS 5 (buffer shrinking): the outer loop runs from max(0, %n) step 3 (with %n = 1: 1, 4, ...,
// 61); row %i of %t is written by the inner loop and read back at %t[i][j] and at %t[i][1].
// Every access stays in row i, so a correct shrink keeps one row. WRONG: a footprint computed
// from a grid anchored at 0, or an index rewrite that drops the anchor, misplaces the reads.
// KERNEL: max_lb_step_shrink [null, null, 1]
#lb = affine_map<()[s0] -> (0, s0)>
func.func @max_lb_step_shrink(%in: memref<64x8xf32>, %out: memref<64x8xf32>, %n: index) {
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64x8xf32>
  affine.for %i = max #lb()[%n] to 64 step 3 {
    affine.for %j = 0 to 8 {
      %v = affine.load %in[%i, %j] : memref<64x8xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %t[%i, %j] : memref<64x8xf32>
    }
    affine.for %j = 0 to 8 {
      %x = affine.load %t[%i, %j] : memref<64x8xf32>
      %y = affine.load %t[%i, 1] : memref<64x8xf32>
      %q = arith.addf %x, %y : f32
      affine.store %q, %out[%i, %j] : memref<64x8xf32>
    }
  }
  memref.dealloc %t : memref<64x8xf32>
  return
}
