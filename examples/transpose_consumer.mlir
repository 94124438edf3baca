// Transposed consumer: the producer writes %t[%i, %j], the consumer reads %t[%j, %i] (out = transpose((a + 1) * 2)).
func.func @transpose_consumer(%a: memref<16x32xf32>, %out: memref<32x16xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<16x32xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      %y = arith.addf %x, %one : f32
      affine.store %y, %t[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %y = affine.load %t[%j, %i] : memref<16x32xf32>
      %z = arith.mulf %y, %two : f32
      affine.store %z, %out[%i, %j] : memref<32x16xf32>
    }
  }
  memref.dealloc %t : memref<16x32xf32>
  return
}
