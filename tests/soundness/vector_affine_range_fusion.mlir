// CLASS 6: loop 1 stores vector<8xf32> at %t[i] (elements i..i+7), loop 2 loads vector<8xf32>
// at %t[i + 4] (elements i+4..i+11); both step 8. As single points the accesses never meet
// (8k vs 8k + 4), but the ranges do: iteration i of loop 2 reads %t[i+8..i+11], written by the
// NEXT iteration of loop 1. WRONG: fusing (they share the placed %s) reads them too early.
// KERNEL: vector_affine_range_fusion [null, null, null]
func.func @vector_affine_range_fusion(%in: memref<72xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant dense<2.0> : vector<8xf32>
  %t = memref.alloc() : memref<72xf32>
  %s = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<72xf32> to memref<72xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = affine.vector_load %a[%i] : memref<64xf32>, vector<8xf32>
    %w = arith.mulf %v, %two : vector<8xf32>
    affine.vector_store %w, %t[%i] : memref<72xf32>, vector<8xf32>
    affine.vector_store %v, %s[%i] : memref<64xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %x = affine.vector_load %t[%i + 4] : memref<72xf32>, vector<8xf32>
    %y = affine.vector_load %s[%i] : memref<64xf32>, vector<8xf32>
    %q = arith.addf %x, %y : vector<8xf32>
    affine.vector_store %q, %out[%i] : memref<64xf32>, vector<8xf32>
  }
  memref.dealloc %t : memref<72xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
