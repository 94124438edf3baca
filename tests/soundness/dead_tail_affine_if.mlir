// CLASS 8: loop 1 runs 16 iterations, loop 2 only 12; %t[14] (written by an extra iteration of
// loop 1) is read after the loops inside an affine.if (taken when %flag >= 1; run with 1).
// WRONG: dead-iteration elimination that ignores reads nested in regions shrinks loop 1 to 12
// iterations to fuse it with loop 2, and the affine.if reads an unwritten element.
// KERNEL: dead_tail_affine_if [null, null, 1]
func.func @dead_tail_affine_if(%a: memref<16xf32>, %out: memref<16xf32>, %flag: index) {
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
  affine.if affine_set<()[s0] : (s0 - 1 >= 0)>()[%flag] {
    %v = affine.load %t[14] : memref<16xf32>
    affine.store %v, %out[15] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
