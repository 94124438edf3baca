// CLASS 3 (LICM): inside the loop, a func.call with no operands writes @G[0] after the load of
// @G[0]. WRONG: hoisting the load (no visible store to @G in the loop) makes every iteration
// see the value from before the loop.
// KERNEL: licm_call_no_args_global [null, null, null]
memref.global "private" @G : memref<64xf32> = dense<0.0>

func.func private @bump0() {
  %one = arith.constant 1.0 : f32
  %g = memref.get_global @G : memref<64xf32>
  %v = affine.load %g[0] : memref<64xf32>
  %w = arith.addf %v, %one : f32
  affine.store %w, %g[0] : memref<64xf32>
  return
}

func.func @licm_call_no_args_global(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %g = memref.get_global @G : memref<64xf32>
  memref.copy %in, %g : memref<64xf32> to memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %g[0] : memref<64xf32>
    %w = affine.load %a[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
    func.call @bump0() : () -> ()
  }
  return
}
