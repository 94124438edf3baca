// Sum of squares accumulated in memory: every iteration loads and stores the same 0-d scalar, a loop-carried dependence.
func.func @reduce_scalar_memref(%a: memref<64xf32>, %sq: memref<64xf32>, %out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %p = arith.mulf %x, %x : f32
    affine.store %p, %sq[%i] : memref<64xf32>
  }
  affine.store %zero, %out[] : memref<f32>
  affine.for %i = 0 to 64 {
    %acc = affine.load %out[] : memref<f32>
    %p = affine.load %sq[%i] : memref<64xf32>
    %s = arith.addf %acc, %p : f32
    affine.store %s, %out[] : memref<f32>
  }
  return
}
