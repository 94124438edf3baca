// Two-loop symbolic chain: both loops run `0 to %n` over memref<?xf32>, the intermediate is allocated with %n elements.
func.func @sym_chain2(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %t[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %y = affine.load %t[%i] : memref<?xf32>
    %z = arith.mulf %y, %y : f32
    affine.store %z, %out[%i] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}
