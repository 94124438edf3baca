// chain2_sym_2d: 2-loop elementwise chain, 2-d 2048 x 4096 f32, symbolic bounds, 1 placed intermediate(s)
// stages: y = x*1.5 + 0.25; y = x * b
// bench.let: M = 2048, N = 4096
// bench.args: M, N, [M, N], [M, N], [M, N]
// bench.tags: memory, symbolic
func.func @chain2_sym_2d(%m: index, %n: index, %a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %c0f = arith.constant 0.0 : f32
  %c05 = arith.constant 0.5 : f32
  %t0 = memref.alloc(%m, %n) : memref<?x?xf32>
  affine.for %i = 0 to %m {
    affine.for %j = 0 to %n {
      %x0 = affine.load %a[%i, %j] : memref<?x?xf32>
      %y00 = arith.mulf %x0, %c15 : f32
      %y0 = arith.addf %y00, %c025 : f32
      affine.store %y0, %t0[%i, %j] : memref<?x?xf32>
    }
  }
  affine.for %i = 0 to %m {
    affine.for %j = 0 to %n {
      %x1 = affine.load %t0[%i, %j] : memref<?x?xf32>
      %y1b = affine.load %b[%i, %j] : memref<?x?xf32>
      %y1 = arith.mulf %x1, %y1b : f32
      affine.store %y1, %out[%i, %j] : memref<?x?xf32>
    }
  }
  memref.dealloc %t0 : memref<?x?xf32>
  return
}
