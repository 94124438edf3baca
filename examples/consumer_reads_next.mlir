// Fusion-illegal pair: the consumer reads %t[%i + 1], which a fused producer would not yet have written.
func.func @consumer_reads_next(%a: memref<64xf32>, %out: memref<63xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 63 {
    %y = affine.load %t[%i + 1] : memref<64xf32>
    %x = affine.load %a[%i] : memref<64xf32>
    %z = arith.mulf %y, %x : f32
    affine.store %z, %out[%i] : memref<63xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
