// Two-nest symbolic 2-d chain: bounds %n x %m over memref<?x?xf32>, intermediate allocated as (%n, %m).
func.func @sym_chain_2d(%a: memref<?x?xf32>, %out: memref<?x?xf32>, %n: index, %m: index) {
  %half = arith.constant 0.5 : f32
  %t = memref.alloc(%n, %m) : memref<?x?xf32>
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %x = affine.load %a[%i, %j] : memref<?x?xf32>
      %y = arith.mulf %x, %half : f32
      affine.store %y, %t[%i, %j] : memref<?x?xf32>
    }
  }
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %y = affine.load %t[%i, %j] : memref<?x?xf32>
      %x = affine.load %a[%i, %j] : memref<?x?xf32>
      %z = arith.addf %y, %x : f32
      affine.store %z, %out[%i, %j] : memref<?x?xf32>
    }
  }
  memref.dealloc %t : memref<?x?xf32>
  return
}
