// CLASS 2 (LICM): the loop writes @G[i] through %g2 and reads @G[0] through %g1 every
// iteration; iteration 0 changes @G[0]. WRONG: hoisting the load of %g1[0] out of the loop.
// KERNEL: licm_two_get_global [null, null, null]
memref.global "private" @G : memref<64xf32> = dense<0.0>

func.func @licm_two_get_global(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %g1 = memref.get_global @G : memref<64xf32>
  %g2 = memref.get_global @G : memref<64xf32>
  memref.copy %in, %g1 : memref<64xf32> to memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %g1[0] : memref<64xf32>
    %w = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %v, %w : f32
    affine.store %n, %g2[%i] : memref<64xf32>
  }
  memref.copy %g1, %out : memref<64xf32> to memref<64xf32>
  return
}
