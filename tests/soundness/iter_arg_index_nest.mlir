// CLASS 12: a nest whose column index is an iter_arg %k (= %j at run time, advanced with
// affine.apply). Iteration (i, j) reads A[i][k + 1] and updates A[i + 1][k]: a dependence of
// distance (1, -1), so swapping the two loops reverses it. WRONG: taking %k as a loop-invariant
// symbol (A[i + 1][k] and A[i][k + 1] then never meet) and interchanging this nest to align it
// with the producer nest, which writes the placed %T column by column.
// KERNEL: iter_arg_index_nest [null, null, null]
func.func @iter_arg_index_nest(%in: memref<9x9xf32>, %b: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %A = memref.alloc() : memref<9x9xf32>
  %T = memref.alloc() : memref<8x8xf32>
  memref.copy %in, %A : memref<9x9xf32> to memref<9x9xf32>
  affine.for %j = 0 to 8 {
    affine.for %i = 0 to 8 {
      %v = affine.load %b[%i, %j] : memref<8x8xf32>
      %w = arith.mulf %v, %half : f32
      affine.store %w, %T[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 8 {
    %kf = affine.for %j = 0 to 8 iter_args(%k = %c0) -> (index) {
      %k1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%k)
      %ip1 = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)
      %v = memref.load %A[%i, %k1] : memref<9x9xf32>
      %t = affine.load %T[%i, %j] : memref<8x8xf32>
      %w = arith.addf %v, %t : f32
      %o = memref.load %A[%ip1, %k] : memref<9x9xf32>
      %n = arith.addf %o, %w : f32
      memref.store %n, %A[%ip1, %k] : memref<9x9xf32>
      affine.store %n, %out[%i, %j] : memref<8x8xf32>
      affine.yield %k1 : index
    }
  }
  memref.dealloc %A : memref<9x9xf32>
  memref.dealloc %T : memref<8x8xf32>
  return
}
