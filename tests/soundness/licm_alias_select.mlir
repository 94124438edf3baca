// CLASS 1 (LICM): the loop writes %b[i] through %x = arith.select(%flag > 0, %b, %u) and reads
// %b[0] every iteration; iteration 0 changes %b[0]. WRONG: hoisting the load of %b[0] out of
// the loop (no store "to %b" is visible) makes every iteration see the old %b[0].
// KERNEL: licm_alias_select [null, null, null, 1]
func.func @licm_alias_select(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %b = memref.alloc() : memref<64xf32>
  %u = memref.alloc() : memref<64xf32>
  memref.copy %in, %b : memref<64xf32> to memref<64xf32>
  memref.copy %in, %u : memref<64xf32> to memref<64xf32>
  %cond = arith.cmpi sgt, %flag, %c0 : index
  %x = arith.select %cond, %b, %u : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %b[0] : memref<64xf32>
    %w = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %v, %w : f32
    affine.store %n, %x[%i] : memref<64xf32>
  }
  memref.copy %b, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %u : memref<64xf32>
  return
}
