// Aliasing views: a placed buffer written through a memref.cast to memref<?x?xf32> and updated through a strided memref.subview.
func.func @cast_subview_alias(%a: memref<32x16xf32>, %out: memref<32x16xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<32x16xf32>
  %dyn = memref.cast %t : memref<32x16xf32> to memref<?x?xf32>
  %mid = memref.subview %t[8, 0] [16, 16] [1, 1] : memref<32x16xf32> to memref<16x16xf32, strided<[16, 1], offset: 128>>
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%i, %j] : memref<32x16xf32>
      %y = arith.mulf %x, %two : f32
      affine.store %y, %dyn[%i, %j] : memref<?x?xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %y = affine.load %mid[%i, %j] : memref<16x16xf32, strided<[16, 1], offset: 128>>
      %z = arith.addf %y, %one : f32
      affine.store %z, %mid[%i, %j] : memref<16x16xf32, strided<[16, 1], offset: 128>>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 16 {
      %z = affine.load %t[%i, %j] : memref<32x16xf32>
      affine.store %z, %out[%i, %j] : memref<32x16xf32>
    }
  }
  memref.dealloc %t : memref<32x16xf32>
  return
}
