// CLASS 10 (buffer shrinking): iteration i writes row %t[i][*] and reads the diagonal %t[i][i]
// and the row. Only row i is used per iteration, so %t may shrink to 1x8, but the diagonal read
// must become %t'[0][i]. WRONG: rewriting every occurrence of %i (also the column index) to 0,
// which reads %t'[0][0] instead.
// KERNEL: shrink_diagonal [null, null]
func.func @shrink_diagonal(%a: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %v = affine.load %a[%i, %j] : memref<8x8xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %t[%i, %j] : memref<8x8xf32>
    }
    %d = affine.load %t[%i, %i] : memref<8x8xf32>
    affine.for %j = 0 to 8 {
      %x = affine.load %t[%i, %j] : memref<8x8xf32>
      %q = arith.subf %x, %d : f32
      affine.store %q, %out[%i, %j] : memref<8x8xf32>
    }
  }
  memref.dealloc %t : memref<8x8xf32>
  return
}
