// Two-loop 2-d f32 chain over a 32x16 placed intermediate allocated on the heap and never freed.
func.func @chain2_2d(%a: memref<32x16xf32>, %b: memref<32x16xf32>, %out: memref<32x16xf32>) {
  %t = memref.alloc() : memref<32x16xf32>
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%i, %j] : memref<32x16xf32>
      %y = affine.load %b[%i, %j] : memref<32x16xf32>
      %p = arith.mulf %x, %y : f32
      affine.store %p, %t[%i, %j] : memref<32x16xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %p = affine.load %t[%i, %j] : memref<32x16xf32>
      %x = affine.load %a[%i, %j] : memref<32x16xf32>
      %s = arith.addf %p, %x : f32
      affine.store %s, %out[%i, %j] : memref<32x16xf32>
    }
  }
  return
}
