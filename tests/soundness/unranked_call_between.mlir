// CLASS 4: %t is cast to memref<*xf32> before loop 1 and passed to @triple (which casts it back
// and triples every element) between the loops. WRONG: fusing loop 2 into loop 1 (they share
// the placed %s and %t) moves the reads of %t above the call.
// KERNEL: unranked_call_between [null, null]
func.func private @triple(%u: memref<*xf32>) {
  %three = arith.constant 3.0 : f32
  %m = memref.cast %u : memref<*xf32> to memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %m[%i] : memref<64xf32>
    %w = arith.mulf %v, %three : f32
    affine.store %w, %m[%i] : memref<64xf32>
  }
  return
}

func.func @unranked_call_between(%a: memref<64xf32>, %out: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  %u = memref.cast %t : memref<64xf32> to memref<*xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.addf %v, %one : f32
    affine.store %w, %t[%i] : memref<64xf32>
    affine.store %v, %s[%i] : memref<64xf32>
  }
  func.call @triple(%u) : (memref<*xf32>) -> ()
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
