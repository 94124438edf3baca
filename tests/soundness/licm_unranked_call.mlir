// CLASS 4 (LICM): inside the loop, @bump0 receives %t as memref<*xf32> (cast before the loop)
// and increments element 0 after the load of %t[0]. WRONG: hoisting the load of %t[0].
// KERNEL: licm_unranked_call [null, null, null]
func.func private @bump0(%u: memref<*xf32>) {
  %one = arith.constant 1.0 : f32
  %m = memref.cast %u : memref<*xf32> to memref<64xf32>
  %v = affine.load %m[0] : memref<64xf32>
  %w = arith.addf %v, %one : f32
  affine.store %w, %m[0] : memref<64xf32>
  return
}

func.func @licm_unranked_call(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<64xf32> to memref<64xf32>
  %u = memref.cast %t : memref<64xf32> to memref<*xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %t[0] : memref<64xf32>
    %w = affine.load %a[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
    func.call @bump0(%u) : (memref<*xf32>) -> ()
  }
  memref.dealloc %t : memref<64xf32>
  return
}
