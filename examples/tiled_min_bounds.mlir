// Two tiled nests with symbolic bounds: tile loops `0 to %n step 4`, point loops `%i to min(%i + 4, %n)`, linked by a placed buffer.
#lb = affine_map<(d0) -> (d0)>
#ub = affine_map<(d0)[s0] -> (d0 + 4, s0)>
func.func @tiled_min_bounds(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n step 4 {
    affine.for %j = #lb(%i) to min #ub(%i)[%n] {
      %x = affine.load %a[%j] : memref<?xf32>
      %y = arith.addf %x, %one : f32
      affine.store %y, %t[%j] : memref<?xf32>
    }
  }
  affine.for %i = 0 to %n step 4 {
    affine.for %j = #lb(%i) to min #ub(%i)[%n] {
      %y = affine.load %t[%j] : memref<?xf32>
      %z = arith.mulf %y, %y : f32
      affine.store %z, %out[%j] : memref<?xf32>
    }
  }
  memref.dealloc %t : memref<?xf32>
  return
}
