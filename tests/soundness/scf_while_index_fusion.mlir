// CLASS 12: indices that are scf.while region arguments. In iteration %i of each loop, an
// scf.while walks %k over [i, i + 1) (one trip, %k = %i); loop 1 writes %t[k], loop 2 reads
// %t[k + 1], which the NEXT iteration of loop 1 writes. WRONG: taking the region argument %k as
// a loop-invariant symbol and fusing the loops (they share the placed %s).
// KERNEL: scf_while_index_fusion [null, null, null]
func.func @scf_while_index_fusion(%in: memref<17xf32>, %a: memref<16xf32>, %out: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<17xf32>
  %s = memref.alloc() : memref<16xf32>
  memref.copy %in, %t : memref<17xf32> to memref<17xf32>
  affine.for %i = 0 to 16 {
    %v = affine.load %a[%i] : memref<16xf32>
    affine.store %v, %s[%i] : memref<16xf32>
    %w = arith.mulf %v, %two : f32
    %end = arith.addi %i, %c1 : index
    %kf = scf.while (%k = %i) : (index) -> index {
      %c = arith.cmpi slt, %k, %end : index
      scf.condition(%c) %k : index
    } do {
    ^bb0(%k: index):
      memref.store %w, %t[%k] : memref<17xf32>
      %k1 = arith.addi %k, %c1 : index
      scf.yield %k1 : index
    }
  }
  affine.for %i = 0 to 16 {
    %y = affine.load %s[%i] : memref<16xf32>
    %end = arith.addi %i, %c1 : index
    %kf = scf.while (%k = %i) : (index) -> index {
      %c = arith.cmpi slt, %k, %end : index
      scf.condition(%c) %k : index
    } do {
    ^bb0(%k: index):
      %k1 = arith.addi %k, %c1 : index
      %x = memref.load %t[%k1] : memref<17xf32>
      %q = arith.addf %x, %y : f32
      memref.store %q, %out[%k] : memref<16xf32>
      scf.yield %k1 : index
    }
  }
  memref.dealloc %t : memref<17xf32>
  memref.dealloc %s : memref<16xf32>
  return
}
