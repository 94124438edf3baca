// Two nests whose partition (dim 0) extents differ, 384 and 256 rows of 4, sharing a placed buffer: GCD-tiling material (gcd = 128).
func.func @partition_extents(%a: memref<384x4xf32>, %b: memref<256x4xf32>, %x: memref<384x4xf32>, %y: memref<256x4xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<384x4xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 4 {
      %v = affine.load %a[%i, %j] : memref<384x4xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %t[%i, %j] : memref<384x4xf32>
      %w1 = arith.addf %w, %one : f32
      affine.store %w1, %x[%i, %j] : memref<384x4xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      %u = affine.load %b[%i, %j] : memref<256x4xf32>
      %s = arith.addf %w, %u : f32
      affine.store %s, %y[%i, %j] : memref<256x4xf32>
    }
  }
  memref.dealloc %t : memref<384x4xf32>
  return
}
