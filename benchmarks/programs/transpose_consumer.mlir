// transpose_consumer: a producer nest and a consumer that reads the intermediate transposed, 2048 x 2048 f32
// bench.tags: transpose
func.func @transpose_consumer(%a: memref<2048x2048xf32>, %b: memref<2048x2048xf32>, %out: memref<2048x2048xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %t = memref.alloc() : memref<2048x2048xf32>
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 2048 {
      %x = affine.load %a[%i, %j] : memref<2048x2048xf32>
      %y0 = arith.mulf %x, %c15 : f32
      %y = arith.addf %y0, %c025 : f32
      affine.store %y, %t[%i, %j] : memref<2048x2048xf32>
    }
  }
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 2048 {
      %x = affine.load %t[%j, %i] : memref<2048x2048xf32>
      %y = affine.load %b[%i, %j] : memref<2048x2048xf32>
      %z = arith.addf %x, %y : f32
      affine.store %z, %out[%i, %j] : memref<2048x2048xf32>
    }
  }
  memref.dealloc %t : memref<2048x2048xf32>
  return
}
