// Distribution material: one loop body holds two independent statement groups, x from a and y from b, with no def-use edge between them.
func.func @distribute_two_groups(%a: memref<64xf32>, %b: memref<64xf32>, %x: memref<64xf32>, %y: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {
    %va = affine.load %a[%i] : memref<64xf32>
    %xa = arith.mulf %va, %two : f32
    affine.store %xa, %x[%i] : memref<64xf32>
    %vb = affine.load %b[%i] : memref<64xf32>
    %yb = arith.addf %vb, %one : f32
    %yy = arith.mulf %yb, %vb : f32
    affine.store %yy, %y[%i] : memref<64xf32>
  }
  return
}
