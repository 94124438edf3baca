// LICM material: a load of a 0-d scale and arithmetic on it are invariant in both loops; the %w[%j] load is invariant in %i only.
func.func @licm_invariant(%a: memref<32x16xf32>, %w: memref<16xf32>, %scale: memref<f32>, %out: memref<32x16xf32>) {
  %three = arith.constant 3.0 : f32
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %s = affine.load %scale[] : memref<f32>
      %k = arith.mulf %s, %three : f32
      %k2 = arith.addf %k, %three : f32
      %wj = affine.load %w[%j] : memref<16xf32>
      %x = affine.load %a[%i, %j] : memref<32x16xf32>
      %y = arith.mulf %x, %k2 : f32
      %z = arith.addf %y, %wj : f32
      affine.store %z, %out[%i, %j] : memref<32x16xf32>
    }
  }
  return
}
