// triad: out = a * 1.5 + b over 8M f32 (32 MiB per array, the chains' size and read/write mix); measures bandwidth
// bench.tags: bandwidth
func.func @triad(%a: memref<8388608xf32>, %b: memref<8388608xf32>, %out: memref<8388608xf32>) {
  %c15 = arith.constant 1.5 : f32
  affine.for %i = 0 to 8388608 {
    %x = affine.load %a[%i] : memref<8388608xf32>
    %y = affine.load %b[%i] : memref<8388608xf32>
    %s = arith.mulf %x, %c15 : f32
    %z = arith.addf %s, %y : f32
    affine.store %z, %out[%i] : memref<8388608xf32>
  }
  return
}
