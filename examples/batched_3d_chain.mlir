// Three-deep nests (8x8x8) linked by a placed 3-d buffer, the consumer iterating in (k, i, j) order: interchange-before-fusion material.
func.func @batched_3d_chain(%a: memref<8x8x8xf32>, %out: memref<8x8x8xf32>) {
  %half = arith.constant 0.5 : f32
  %t = memref.alloc() : memref<8x8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.for %k = 0 to 8 {
        %x = affine.load %a[%i, %j, %k] : memref<8x8x8xf32>
        %y = arith.mulf %x, %half : f32
        affine.store %y, %t[%i, %j, %k] : memref<8x8x8xf32>
      }
    }
  }
  affine.for %k = 0 to 8 {
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %y = affine.load %t[%i, %j, %k] : memref<8x8x8xf32>
        %x = affine.load %a[%i, %j, %k] : memref<8x8x8xf32>
        %z = arith.addf %y, %x : f32
        affine.store %z, %out[%i, %j, %k] : memref<8x8x8xf32>
      }
    }
  }
  memref.dealloc %t : memref<8x8x8xf32>
  return
}
