// CLASS 6: vector.store / vector.load (vector dialect, index from affine.apply). Loop 1 stores
// elements i..i+7 of %t; loop 2 loads %t[i+4..i+11] (both step 8), overlapping the NEXT
// iteration's store. WRONG: fusing (they share the placed %s) reads %t[i+8..i+11] too early.
// KERNEL: vector_dialect_load_store_fusion [null, null, null]
func.func @vector_dialect_load_store_fusion(%in: memref<72xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant dense<2.0> : vector<8xf32>
  %t = memref.alloc() : memref<72xf32>
  %s = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<72xf32> to memref<72xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = vector.load %a[%i] : memref<64xf32>, vector<8xf32>
    %w = arith.mulf %v, %two : vector<8xf32>
    vector.store %w, %t[%i] : memref<72xf32>, vector<8xf32>
    vector.store %v, %s[%i] : memref<64xf32>, vector<8xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %j = affine.apply affine_map<(d0) -> (d0 + 4)>(%i)
    %x = vector.load %t[%j] : memref<72xf32>, vector<8xf32>
    %y = vector.load %s[%i] : memref<64xf32>, vector<8xf32>
    %q = arith.addf %x, %y : vector<8xf32>
    vector.store %q, %out[%i] : memref<64xf32>, vector<8xf32>
  }
  memref.dealloc %t : memref<72xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
