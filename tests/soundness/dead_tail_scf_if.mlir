// CLASS 8: loop 1 runs 16 iterations, loop 2 only 12; %t[13] (written by an extra iteration of
// loop 1) is read after the loops inside an scf.if region (taken when %flag > 0; run with 1).
// WRONG: dead-iteration elimination that ignores reads nested in regions shrinks loop 1 to 12
// iterations to fuse it with loop 2, and the scf.if reads an unwritten element.
// KERNEL: dead_tail_scf_if [null, null, 1]
func.func @dead_tail_scf_if(%a: memref<16xf32>, %out: memref<16xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %c13 = arith.constant 13 : index
  %c15 = arith.constant 15 : index
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
  %cond = arith.cmpi sgt, %flag, %c0 : index
  scf.if %cond {
    %v = memref.load %t[%c13] : memref<16xf32>
    memref.store %v, %out[%c15] : memref<16xf32>
  }
  memref.dealloc %t : memref<16xf32>
  return
}
