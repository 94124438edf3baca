// Two-loop 1-d f32 chain: producer fills a placed intermediate (alloc + dealloc) that the consumer reads at the same index.
func.func @chain2_1d(%a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    %y = affine.load %a[%i] : memref<64xf32>
    %z = arith.addf %x, %y : f32
    affine.store %z, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
