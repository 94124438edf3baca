// CLASS 3: an llvm.store with no memref operand between the loops writes %t[0] through a
// pointer made by memref.extract_aligned_pointer_as_index + llvm.inttoptr (before loop 1).
// WRONG: fusing loop 2 into loop 1 (they share the placed %s and %t) moves the read of %t[0]
// above the llvm.store.
// KERNEL: llvm_store_inttoptr [null, null]
func.func @llvm_store_inttoptr(%a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  %five = arith.constant 5.0 : f32
  %t = memref.alloc() : memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  %p = memref.extract_aligned_pointer_as_index %t : memref<64xf32> -> index
  %pi = arith.index_cast %p : index to i64
  %ptr = llvm.inttoptr %pi : i64 to !llvm.ptr
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %t[%i] : memref<64xf32>
    affine.store %v, %s[%i] : memref<64xf32>
  }
  llvm.store %five, %ptr : f32, !llvm.ptr
  affine.for %i = 0 to 64 {
    %v = affine.load %t[%i] : memref<64xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
