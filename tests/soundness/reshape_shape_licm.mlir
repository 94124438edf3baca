// CLASS 7 (LICM): memref.reshape reads its shape operand at run time. Each trip of the loop
// writes a new shape ([4, 16], then [8, 8]) and reshapes %t with it; r[1][0] is %t[16], then
// %t[8]. WRONG: treating the reshape as a pure view and hoisting it (its operands are loop
// invariant) reshapes with the shape written before the loop ([2, 32]: r[1][0] is %t[32]).
// KERNEL: reshape_shape_licm [null, null]
func.func @reshape_shape_licm(%t: memref<64xf32>, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %shape = memref.alloc() : memref<2xindex>
  memref.store %c2, %shape[%c0] : memref<2xindex>
  memref.store %c32, %shape[%c1] : memref<2xindex>
  affine.for %k = 0 to 2 {
    %d0 = affine.apply affine_map<(d0) -> (d0 * 4 + 4)>(%k)
    %d1 = affine.apply affine_map<(d0) -> (16 - d0 * 8)>(%k)
    affine.store %d0, %shape[0] : memref<2xindex>
    affine.store %d1, %shape[1] : memref<2xindex>
    %r = memref.reshape %t(%shape) : (memref<64xf32>, memref<2xindex>) -> memref<?x?xf32>
    %v = memref.load %r[%c1, %c0] : memref<?x?xf32>
    affine.store %v, %out[%k] : memref<2xf32>
  }
  memref.dealloc %shape : memref<2xindex>
  return
}
