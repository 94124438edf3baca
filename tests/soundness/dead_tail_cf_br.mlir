// CLASS 8: loop 1 runs 16 iterations, loop 2 only 12; the elements %t[12..15] written by loop
// 1's extra iterations are read after a cf.br, in another block. WRONG: dead-iteration
// elimination that only scans the rest of the loops' block shrinks loop 1 to 12 iterations
// (to fuse it with loop 2) and the tail block reads unwritten memory.
// KERNEL: dead_tail_cf_br [null, null]
func.func @dead_tail_cf_br(%a: memref<16xf32>, %out: memref<16xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<16xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %t[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 12 {
    %v = affine.load %t[%i] : memref<16xf32>
    %w = arith.addf %v, %one : f32
    affine.store %w, %out[%i] : memref<16xf32>
  }
  cf.br ^tail
^tail:
  affine.for %i = 12 to 16 {
    %v = affine.load %t[%i] : memref<16xf32>
    affine.store %v, %out[%i] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
