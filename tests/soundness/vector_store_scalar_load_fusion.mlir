// CLASS 6: loop 1 stores vector<8xf32> at %t[i] (elements i..i+7, step 8); loop 2 (step 8)
// loads the scalar %t[i + 12], which only the range of loop 1's NEXT iteration covers (points
// 8k vs 8k + 12 never meet). WRONG: fusing (they share the placed %s) reads it too early.
// KERNEL: vector_store_scalar_load_fusion [null, null, null]
func.func @vector_store_scalar_load_fusion(%in: memref<80xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant dense<2.0> : vector<8xf32>
  %t = memref.alloc() : memref<80xf32>
  %s = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<80xf32> to memref<80xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<8xf32>
    %w = arith.mulf %v, %two : vector<8xf32>
    affine.vector_store %w, %t[%i] : memref<80xf32>, vector<8xf32>
    affine.vector_store %v, %s[%i] : memref<64xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %x = affine.load %t[%i + 12] : memref<80xf32>
    %y = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %x, %y : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<80xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
