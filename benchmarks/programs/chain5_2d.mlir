// chain5_2d: 5-loop elementwise chain, 2-d 2048 x 4096 f32, 4 placed intermediate(s)
// stages: y = x*1.5 + 0.25; y = max(x, 0); y = x - 0.5*x*x; y = x + a; y = x * b
// bench.tags: memory
func.func @chain5_2d(%a: memref<2048x4096xf32>, %b: memref<2048x4096xf32>, %out: memref<2048x4096xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %c0f = arith.constant 0.0 : f32
  %c05 = arith.constant 0.5 : f32
  %t0 = memref.alloc() : memref<2048x4096xf32>
  %t1 = memref.alloc() : memref<2048x4096xf32>
  %t2 = memref.alloc() : memref<2048x4096xf32>
  %t3 = memref.alloc() : memref<2048x4096xf32>
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 4096 {
      %x0 = affine.load %a[%i, %j] : memref<2048x4096xf32>
      %y00 = arith.mulf %x0, %c15 : f32
      %y0 = arith.addf %y00, %c025 : f32
      affine.store %y0, %t0[%i, %j] : memref<2048x4096xf32>
    }
  }
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 4096 {
      %x1 = affine.load %t0[%i, %j] : memref<2048x4096xf32>
      %y1 = arith.maximumf %x1, %c0f : f32
      affine.store %y1, %t1[%i, %j] : memref<2048x4096xf32>
    }
  }
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 4096 {
      %x2 = affine.load %t1[%i, %j] : memref<2048x4096xf32>
      %y20 = arith.mulf %x2, %x2 : f32
      %y21 = arith.mulf %y20, %c05 : f32
      %y2 = arith.subf %x2, %y21 : f32
      affine.store %y2, %t2[%i, %j] : memref<2048x4096xf32>
    }
  }
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 4096 {
      %x3 = affine.load %t2[%i, %j] : memref<2048x4096xf32>
      %y3a = affine.load %a[%i, %j] : memref<2048x4096xf32>
      %y3 = arith.addf %x3, %y3a : f32
      affine.store %y3, %t3[%i, %j] : memref<2048x4096xf32>
    }
  }
  affine.for %i = 0 to 2048 {
    affine.for %j = 0 to 4096 {
      %x4 = affine.load %t3[%i, %j] : memref<2048x4096xf32>
      %y4b = affine.load %b[%i, %j] : memref<2048x4096xf32>
      %y4 = arith.mulf %x4, %y4b : f32
      affine.store %y4, %out[%i, %j] : memref<2048x4096xf32>
    }
  }
  memref.dealloc %t0 : memref<2048x4096xf32>
  memref.dealloc %t1 : memref<2048x4096xf32>
  memref.dealloc %t2 : memref<2048x4096xf32>
  memref.dealloc %t3 : memref<2048x4096xf32>
  return
}
