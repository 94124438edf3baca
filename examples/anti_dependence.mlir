// Fusion-illegal by anti-dependence: the first loop reads %a[%i - 1], the second overwrites %a[%i]; fused, iteration i would clobber what i + 1 reads.
func.func @anti_dependence(%a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  affine.for %i = 1 to 64 {
    %x = affine.load %a[%i - 1] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  affine.for %i = 1 to 64 {
    %z = affine.load %out[%i] : memref<64xf32>
    affine.store %z, %a[%i] : memref<64xf32>
  }
  return
}
