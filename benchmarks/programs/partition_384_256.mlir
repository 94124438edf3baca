// partition_384_256: a producer over 384 partitions (rows) feeding a consumer over 256, 32768 columns f32
// The partition extents differ (GCD 128); only the consumer's 256 rows of the intermediate are live.
// bench.tags: partition
func.func @partition_384_256(%a: memref<384x32768xf32>, %b: memref<256x32768xf32>, %out: memref<256x32768xf32>) {
  %c2 = arith.constant 2.0 : f32
  %c1 = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<384x32768xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 32768 {
      %x = affine.load %a[%i, %j] : memref<384x32768xf32>
      %y0 = arith.mulf %x, %c2 : f32
      %y = arith.addf %y0, %c1 : f32
      affine.store %y, %t[%i, %j] : memref<384x32768xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 32768 {
      %x = affine.load %t[%i, %j] : memref<384x32768xf32>
      %y = affine.load %b[%i, %j] : memref<256x32768xf32>
      %z = arith.mulf %x, %y : f32
      affine.store %z, %out[%i, %j] : memref<256x32768xf32>
    }
  }
  memref.dealloc %t : memref<384x32768xf32>
  return
}
