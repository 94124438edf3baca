// chain2_1d: 2-loop elementwise chain, 1-d 8388608 f32, 1 placed intermediate(s)
// stages: y = x*1.5 + 0.25; y = x * b
// bench.tags: memory
func.func @chain2_1d(%a: memref<8388608xf32>, %b: memref<8388608xf32>, %out: memref<8388608xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %c0f = arith.constant 0.0 : f32
  %c05 = arith.constant 0.5 : f32
  %t0 = memref.alloc() : memref<8388608xf32>
  affine.for %i = 0 to 8388608 {
    %x0 = affine.load %a[%i] : memref<8388608xf32>
    %y00 = arith.mulf %x0, %c15 : f32
    %y0 = arith.addf %y00, %c025 : f32
    affine.store %y0, %t0[%i] : memref<8388608xf32>
  }
  affine.for %i = 0 to 8388608 {
    %x1 = affine.load %t0[%i] : memref<8388608xf32>
    %y1b = affine.load %b[%i] : memref<8388608xf32>
    %y1 = arith.mulf %x1, %y1b : f32
    affine.store %y1, %out[%i] : memref<8388608xf32>
  }
  memref.dealloc %t0 : memref<8388608xf32>
  return
}
