// Five-loop 2-d f32 chain using math ops, four heap-placed 16x16 intermediates freed at the end.
func.func @chain5_2d(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %out: memref<16x16xf32>) {
  %eps = arith.constant 1.0e-3 : f32
  %t0 = memref.alloc() : memref<16x16xf32>
  %t1 = memref.alloc() : memref<16x16xf32>
  %t2 = memref.alloc() : memref<16x16xf32>
  %t3 = memref.alloc() : memref<16x16xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%i, %j] : memref<16x16xf32>
      %y = affine.load %b[%i, %j] : memref<16x16xf32>
      %d = arith.subf %x, %y : f32
      affine.store %d, %t0[%i, %j] : memref<16x16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %d = affine.load %t0[%i, %j] : memref<16x16xf32>
      %m = math.absf %d : f32
      affine.store %m, %t1[%i, %j] : memref<16x16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %m = affine.load %t1[%i, %j] : memref<16x16xf32>
      %e = arith.addf %m, %eps : f32
      %r = math.sqrt %e : f32
      affine.store %r, %t2[%i, %j] : memref<16x16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %r = affine.load %t2[%i, %j] : memref<16x16xf32>
      %d = affine.load %t0[%i, %j] : memref<16x16xf32>
      %q = arith.divf %d, %r : f32
      affine.store %q, %t3[%i, %j] : memref<16x16xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %q = affine.load %t3[%i, %j] : memref<16x16xf32>
      %x = affine.load %a[%i, %j] : memref<16x16xf32>
      %s = arith.addf %q, %x : f32
      affine.store %s, %out[%i, %j] : memref<16x16xf32>
    }
  }
  memref.dealloc %t0 : memref<16x16xf32>
  memref.dealloc %t1 : memref<16x16xf32>
  memref.dealloc %t2 : memref<16x16xf32>
  memref.dealloc %t3 : memref<16x16xf32>
  return
}
