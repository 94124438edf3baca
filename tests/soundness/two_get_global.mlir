// CLASS 2: two memref.get_global of one symbol in one function.
// Loop 1 accumulates into @G through %g1; loop 2 reads @G[i + 1] through %g2, which the NEXT
// iteration of loop 1 updates. WRONG: treating %g1 and %g2 as different buffers and fusing the
// loops (they share the placed %s) reads @G[i + 1] before it is updated.
// KERNEL: two_get_global [null, null, null]
memref.global "private" @G : memref<65xf32> = dense<0.0>

func.func @two_get_global(%in: memref<65xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  %g1 = memref.get_global @G : memref<65xf32>
  memref.copy %in, %g1 : memref<65xf32> to memref<65xf32>
  %s = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %s[%i] : memref<64xf32>
    %o = affine.load %g1[%i] : memref<65xf32>
    %n = arith.addf %o, %v : f32
    affine.store %n, %g1[%i] : memref<65xf32>
  }
  %g2 = memref.get_global @G : memref<65xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %g2[%i + 1] : memref<65xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %s : memref<64xf32>
  return
}
