// Dot product reduced through iter_args and written once into a 0-d memref (a scalar result).
func.func @reduce_scalar(%a: memref<64xf32>, %b: memref<64xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %dot = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = affine.load %b[%i] : memref<64xf32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    affine.yield %s : f32
  }
  affine.store %dot, %out[] : memref<f32>
  return
}
