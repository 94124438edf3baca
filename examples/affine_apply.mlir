// affine.apply results used as subscripts (even/odd gather), plus floordiv/mod subscripts that fold a 1-d loop onto a 2-d buffer.
#even = affine_map<(d0) -> (d0 * 2)>
#odd = affine_map<(d0) -> (d0 * 2 + 1)>
func.func @affine_apply(%a: memref<64xf32>, %pairs: memref<32xf32>, %grid: memref<8x4xf32>) {
  affine.for %i = 0 to 32 {
    %e = affine.apply #even(%i)
    %o = affine.apply #odd(%i)
    %x = affine.load %a[%e] : memref<64xf32>
    %y = affine.load %a[%o] : memref<64xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %pairs[%i] : memref<32xf32>
  }
  affine.for %i = 0 to 32 {
    %s = affine.load %pairs[%i] : memref<32xf32>
    affine.store %s, %grid[%i floordiv 4, %i mod 4] : memref<8x4xf32>
  }
  return
}
