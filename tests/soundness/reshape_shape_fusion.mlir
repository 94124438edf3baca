// CLASS 7: loop 1 writes the shape buffer ([2, 32] becomes [8, 8]); the reshape between the loops
// reads it at run time; loop 2 reads r[k][1] (%t[1], %t[9]). WRONG: treating the reshape as a
// pure view and fusing (the loops share the placed %s) moves the reshape above loop 1, so it
// sees [2, 32] (r[1][1] is %t[33]).
// KERNEL: reshape_shape_fusion [null, null, null]
func.func @reshape_shape_fusion(%t: memref<64xf32>, %a: memref<2xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %shape = memref.alloc() : memref<2xindex>
  %s = memref.alloc() : memref<2xf32>
  memref.store %c2, %shape[%c0] : memref<2xindex>
  memref.store %c32, %shape[%c1] : memref<2xindex>
  affine.for %k = 0 to 2 {
    affine.store %c8, %shape[%k] : memref<2xindex>
    %v = affine.load %a[%k] : memref<2xf32>
    affine.store %v, %s[%k] : memref<2xf32>
  }
  %r = memref.reshape %t(%shape) : (memref<64xf32>, memref<2xindex>) -> memref<?x?xf32>
  affine.for %k = 0 to 2 {
    %x = memref.load %r[%k, %c1] : memref<?x?xf32>
    %y = affine.load %s[%k] : memref<2xf32>
    %q = arith.addf %x, %y : f32
    affine.store %q, %out[%k] : memref<2xf32>
  }
  memref.dealloc %shape : memref<2xindex>
  memref.dealloc %s : memref<2xf32>
  return
}
