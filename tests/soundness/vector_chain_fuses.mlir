// CLASS 6 (positive): a chain already vectorized the way affine-super-vectorize emits it (step 8,
// vector<8xf32> load/store at the same index %i). Each iteration of loop 2 reads exactly what the
// same iteration of loop 1 wrote, so fusing is legal and profitable (placed %t). It MUST fuse.
// KERNEL: vector_chain_fuses [null, null]
// EXPECT: fewer-loops
func.func @vector_chain_fuses(%a: memref<64xf32>, %out: memref<64xf32>) {
  %one = arith.constant dense<1.0> : vector<8xf32>
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<8xf32>
    %w = arith.mulf %v, %v : vector<8xf32>
    affine.vector_store %w, %t[%i] : memref<64xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %x = affine.vector_load %t[%i] : memref<64xf32>, vector<8xf32>
    %q = arith.addf %x, %one : vector<8xf32>
    affine.vector_store %q, %out[%i] : memref<64xf32>, vector<8xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
