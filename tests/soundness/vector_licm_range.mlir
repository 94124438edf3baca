// CLASS 6 (LICM): the loop (step 8) stores the scalar %t[i] and loads vector<8xf32> at %t[4]
// (elements 4..11). Point 4 is never a store index (0, 8, 16, ...), but the range covers %t[8],
// stored at i = 8. WRONG: hoisting the vector load out of the loop.
// KERNEL: vector_licm_range [null, null, null, null]
func.func @vector_licm_range(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>, %tout: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<64xf32> to memref<64xf32>
  affine.for %i = 0 to 64 step 8 {
    %x = affine.vector_load %t[4] : memref<64xf32>, vector<8xf32>
    affine.vector_store %x, %out[%i] : memref<64xf32>, vector<8xf32>
    %y = affine.load %a[%i] : memref<64xf32>
    affine.store %y, %t[%i] : memref<64xf32>
  }
  memref.copy %t, %tout : memref<64xf32> to memref<64xf32>
  memref.dealloc %t : memref<64xf32>
  return
}
