// A non-loop memref.store between producer and consumer overwrites %t[0], so the consumer must see it after the producer.
func.func @store_between(%a: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 100.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  memref.store %big, %t[%c0] : memref<64xf32>
  affine.for %i = 0 to 64 {
    %y = affine.load %t[%i] : memref<64xf32>
    %x = affine.load %a[%i] : memref<64xf32>
    %z = arith.addf %y, %x : f32
    affine.store %z, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
