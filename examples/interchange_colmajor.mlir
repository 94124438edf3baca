// Interchange material: the inner loop %j walks dim 0 (the partition dim) of both buffers, a column-major traversal.
func.func @interchange_colmajor(%a: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%j, %i] : memref<16x32xf32>
      %y = arith.mulf %x, %two : f32
      affine.store %y, %out[%j, %i] : memref<16x32xf32>
    }
  }
  return
}
