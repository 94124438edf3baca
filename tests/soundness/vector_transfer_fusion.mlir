// CLASS 6: vector.transfer_write / vector.transfer_read (in bounds). Loop 1 writes elements
// i..i+7 of %t; loop 2 reads %t[i+4..i+11] (both step 8), overlapping the NEXT iteration's
// write. WRONG: fusing (they share the placed %s) reads %t[i+8..i+11] too early.
// KERNEL: vector_transfer_fusion [null, null, null]
func.func @vector_transfer_fusion(%in: memref<72xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %pad = arith.constant 0.0 : f32
  %two = arith.constant dense<2.0> : vector<8xf32>
  %t = memref.alloc() : memref<72xf32>
  %s = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<72xf32> to memref<72xf32>
  affine.for %i = 0 to 64 step 8 {
    %v = vector.transfer_read %a[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
    %w = arith.mulf %v, %two : vector<8xf32>
    vector.transfer_write %w, %t[%i] {in_bounds = [true]} : vector<8xf32>, memref<72xf32>
    vector.transfer_write %v, %s[%i] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  }
  affine.for %i = 0 to 64 step 8 {
    %j = affine.apply affine_map<(d0) -> (d0 + 4)>(%i)
    %x = vector.transfer_read %t[%j], %pad {in_bounds = [true]} : memref<72xf32>, vector<8xf32>
    %y = vector.transfer_read %s[%i], %pad {in_bounds = [true]} : memref<64xf32>, vector<8xf32>
    %q = arith.addf %x, %y : vector<8xf32>
    vector.transfer_write %q, %out[%i] {in_bounds = [true]} : vector<8xf32>, memref<64xf32>
  }
  memref.dealloc %t : memref<72xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
