// chain3_sym_1d: 3-loop elementwise chain, 1-d 8388608 f32, symbolic bounds, 2 placed intermediate(s)
// stages: y = x*1.5 + 0.25; y = max(x, 0); y = x * b
// bench.let: N = 8388608
// bench.args: N, [N], [N], [N]
// bench.tags: memory, symbolic
func.func @chain3_sym_1d(%n: index, %a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %c0f = arith.constant 0.0 : f32
  %c05 = arith.constant 0.5 : f32
  %t0 = memref.alloc(%n) : memref<?xf32>
  %t1 = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x0 = affine.load %a[%i] : memref<?xf32>
    %y00 = arith.mulf %x0, %c15 : f32
    %y0 = arith.addf %y00, %c025 : f32
    affine.store %y0, %t0[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %x1 = affine.load %t0[%i] : memref<?xf32>
    %y1 = arith.maximumf %x1, %c0f : f32
    affine.store %y1, %t1[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %x2 = affine.load %t1[%i] : memref<?xf32>
    %y2b = affine.load %b[%i] : memref<?xf32>
    %y2 = arith.mulf %x2, %y2b : f32
    affine.store %y2, %out[%i] : memref<?xf32>
  }
  memref.dealloc %t0 : memref<?xf32>
  memref.dealloc %t1 : memref<?xf32>
  return
}
