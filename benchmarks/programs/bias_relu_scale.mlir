// bias_relu_scale: out = relu(x + bias[col]) * scale[col] as three nests, 8192 x 2048 f32, two placed intermediates
// bench.tags: memory
func.func @bias_relu_scale(%x: memref<8192x2048xf32>, %bias: memref<2048xf32>, %scale: memref<2048xf32>, %out: memref<8192x2048xf32>) {
  %zero = arith.constant 0.0 : f32
  %t0 = memref.alloc() : memref<8192x2048xf32>
  %t1 = memref.alloc() : memref<8192x2048xf32>
  affine.for %i = 0 to 8192 {
    affine.for %j = 0 to 2048 {
      %v = affine.load %x[%i, %j] : memref<8192x2048xf32>
      %b = affine.load %bias[%j] : memref<2048xf32>
      %s = arith.addf %v, %b : f32
      affine.store %s, %t0[%i, %j] : memref<8192x2048xf32>
    }
  }
  affine.for %i = 0 to 8192 {
    affine.for %j = 0 to 2048 {
      %v = affine.load %t0[%i, %j] : memref<8192x2048xf32>
      %r = arith.maximumf %v, %zero : f32
      affine.store %r, %t1[%i, %j] : memref<8192x2048xf32>
    }
  }
  affine.for %i = 0 to 8192 {
    affine.for %j = 0 to 2048 {
      %v = affine.load %t1[%i, %j] : memref<8192x2048xf32>
      %s = affine.load %scale[%j] : memref<2048xf32>
      %r = arith.mulf %v, %s : f32
      affine.store %r, %out[%i, %j] : memref<8192x2048xf32>
    }
  }
  memref.dealloc %t0 : memref<8192x2048xf32>
  memref.dealloc %t1 : memref<8192x2048xf32>
  return
}
