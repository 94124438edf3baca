// tiled_sym_chain: a 3-loop symbolic chain already tiled by 4 (tile loop step 4, point loop to min(ii + 4, n)), 8M f32
// bench.let: N = 8388608
// bench.args: N, [N], [N], [N]
// bench.tags: memory, symbolic
#lb = affine_map<(d0) -> (d0)>
#ub = affine_map<(d0)[s0] -> (d0 + 4, s0)>
func.func @tiled_sym_chain(%n: index, %a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>) {
  %c15 = arith.constant 1.5 : f32
  %c025 = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32
  %t0 = memref.alloc(%n) : memref<?xf32>
  %t1 = memref.alloc(%n) : memref<?xf32>
  affine.for %ii = 0 to %n step 4 {
    affine.for %i = #lb(%ii) to min #ub(%ii)[%n] {
      %x = affine.load %a[%i] : memref<?xf32>
      %y0 = arith.mulf %x, %c15 : f32
      %y = arith.addf %y0, %c025 : f32
      affine.store %y, %t0[%i] : memref<?xf32>
    }
  }
  affine.for %ii = 0 to %n step 4 {
    affine.for %i = #lb(%ii) to min #ub(%ii)[%n] {
      %x = affine.load %t0[%i] : memref<?xf32>
      %y = arith.maximumf %x, %zero : f32
      affine.store %y, %t1[%i] : memref<?xf32>
    }
  }
  affine.for %ii = 0 to %n step 4 {
    affine.for %i = #lb(%ii) to min #ub(%ii)[%n] {
      %x = affine.load %t1[%i] : memref<?xf32>
      %y = affine.load %b[%i] : memref<?xf32>
      %z = arith.mulf %x, %y : f32
      affine.store %z, %out[%i] : memref<?xf32>
    }
  }
  memref.dealloc %t0 : memref<?xf32>
  memref.dealloc %t1 : memref<?xf32>
  return
}
