// CLASS 3: a func.call with no operands between the loops; the callee writes @G, which loop 2
// reads. WRONG: fusing loop 2 into loop 1 (they share the placed %s) moves the reads of @G
// above the call, so they miss the callee's update.
// KERNEL: call_no_args_global [null, null, null]
memref.global "private" @G : memref<64xf32> = dense<0.0>

func.func private @bump() {
  %one = arith.constant 1.0 : f32
  %g = memref.get_global @G : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %g[%i] : memref<64xf32>
    %w = arith.addf %v, %one : f32
    affine.store %w, %g[%i] : memref<64xf32>
  }
  return
}

func.func @call_no_args_global(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  %g = memref.get_global @G : memref<64xf32>
  memref.copy %in, %g : memref<64xf32> to memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %s[%i] : memref<64xf32>
  }
  func.call @bump() : () -> ()
  affine.for %i = 0 to 64 {
    %v = affine.load %g[%i] : memref<64xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %s : memref<64xf32>
  return
}
