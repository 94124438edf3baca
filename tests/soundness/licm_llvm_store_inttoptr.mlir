// CLASS 3 (LICM): each iteration loads %t[0] and then writes %t[0] + %a[i] back with an
// llvm.store through a pointer made by memref.extract_aligned_pointer_as_index + llvm.inttoptr.
// WRONG: hoisting the load of %t[0] (no visible store to %t in the loop).
// KERNEL: licm_llvm_store_inttoptr [null, null, null]
func.func @licm_llvm_store_inttoptr(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<64xf32> to memref<64xf32>
  %p = memref.extract_aligned_pointer_as_index %t : memref<64xf32> -> index
  %pi = arith.index_cast %p : index to i64
  %ptr = llvm.inttoptr %pi : i64 to !llvm.ptr
  affine.for %i = 0 to 64 {
    %v = affine.load %t[0] : memref<64xf32>
    %w = affine.load %a[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %v, %out[%i] : memref<64xf32>
    llvm.store %q, %ptr : f32, !llvm.ptr
  }
  memref.dealloc %t : memref<64xf32>
  return
}
