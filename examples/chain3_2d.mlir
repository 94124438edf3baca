// Three-loop 2-d f32 chain through two stack-placed 16x32 intermediates (memref.alloca).
func.func @chain3_2d(%a: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %c3 = arith.constant 3.0 : f32
  %t0 = memref.alloca() : memref<16x32xf32>
  %t1 = memref.alloca() : memref<16x32xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      %y = arith.mulf %x, %c3 : f32
      affine.store %y, %t0[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t0[%i, %j] : memref<16x32xf32>
      %y = arith.negf %x : f32
      affine.store %y, %t1[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t1[%i, %j] : memref<16x32xf32>
      %y = affine.load %t0[%i, %j] : memref<16x32xf32>
      %z = arith.mulf %x, %y : f32
      affine.store %z, %out[%i, %j] : memref<16x32xf32>
    }
  }
  return
}
