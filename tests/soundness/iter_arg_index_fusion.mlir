// CLASS 12: indices carried by affine.for iter_args. In both loops %k equals %i at run time;
// loop 1 writes %t[k], loop 2 reads %t[k + 1], which the NEXT iteration of loop 1 writes. WRONG:
// taking %k as a loop-invariant symbol (then %t[k] and %t[k + 1] never meet) and fusing the
// loops (they share the placed %s) reads %t[i + 1] too early.
// KERNEL: iter_arg_index_fusion [null, null, null]
func.func @iter_arg_index_fusion(%in: memref<17xf32>, %a: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<17xf32>
  %s = memref.alloc() : memref<16xf32>
  memref.copy %in, %t : memref<17xf32> to memref<17xf32>
  %r1 = affine.for %i = 0 to 16 iter_args(%k = %c0) -> (index) {
    %v = affine.load %a[%i] : memref<16xf32>
    affine.store %v, %s[%i] : memref<16xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %t[%k] : memref<17xf32>
    %k1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%k)
    affine.yield %k1 : index
  }
  %r2 = affine.for %i = 0 to 16 iter_args(%k = %c0) -> (index) {
    %k1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%k)
    %x = memref.load %t[%k1] : memref<17xf32>
    %y = affine.load %s[%i] : memref<16xf32>
    %q = arith.addf %x, %y : f32
    affine.store %q, %out[%i] : memref<16xf32>
    affine.yield %k1 : index
  }
  memref.dealloc %t : memref<17xf32>
  memref.dealloc %s : memref<16xf32>
  return
}
