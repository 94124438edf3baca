// chain3_2d: 3-loop elementwise chain, 2-d 2048 x 4096 f32, 2 placed intermediate(s)
// stages: y = x*1.5 + 0.25; y = max(x, 0); y = x * b
// bench.tags: memory
func.func @chain3_2d(%a: memref<2048x4096xf32>, %b: memref<2048x4096xf32>, %out: memref<2048x4096xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %c0f = arith.constant 0.0 : f32
  %c05 = arith.constant 0.5 : f32
  %t0 = memref.alloc() : memref<2048x4096xf32>
  %t1 = memref.alloc() : memref<2048x4096xf32>
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
      %y2b = affine.load %b[%i, %j] : memref<2048x4096xf32>
      %y2 = arith.mulf %x2, %y2b : f32
      affine.store %y2, %out[%i, %j] : memref<2048x4096xf32>
    }
  }
  memref.dealloc %t0 : memref<2048x4096xf32>
  memref.dealloc %t1 : memref<2048x4096xf32>
  return
}
