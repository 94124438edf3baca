// Bias + ReLU + scale on a 32x16 activation: three 2-d nests over two placed intermediates, the bias indexed by column.
func.func @bias_relu_scale(%x: memref<32x16xf32>, %bias: memref<16xf32>, %out: memref<32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %biased = memref.alloc() : memref<32x16xf32>
  %relu = memref.alloc() : memref<32x16xf32>
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %v = affine.load %x[%i, %j] : memref<32x16xf32>
      %b = affine.load %bias[%j] : memref<16xf32>
      %s = arith.addf %v, %b : f32
      affine.store %s, %biased[%i, %j] : memref<32x16xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %s = affine.load %biased[%i, %j] : memref<32x16xf32>
      %r = arith.maximumf %s, %zero : f32
      affine.store %r, %relu[%i, %j] : memref<32x16xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %r = affine.load %relu[%i, %j] : memref<32x16xf32>
      %o = arith.mulf %r, %scale : f32
      affine.store %o, %out[%i, %j] : memref<32x16xf32>
    }
  }
  memref.dealloc %relu : memref<32x16xf32>
  memref.dealloc %biased : memref<32x16xf32>
  return
}
