// PolyBench 2mm (all dims 16): D = alpha * A B C + beta * D, the product A B kept in a placed intermediate.
func.func @polybench_2mm(%alpha: f32, %beta: f32, %A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>, %D: memref<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<16x16xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      affine.store %zero, %tmp[%i, %j] : memref<16x16xf32>
      affine.for %k = 0 to 16 {
        %a = affine.load %A[%i, %k] : memref<16x16xf32>
        %aa = arith.mulf %alpha, %a : f32
        %b = affine.load %B[%k, %j] : memref<16x16xf32>
        %p = arith.mulf %aa, %b : f32
        %t = affine.load %tmp[%i, %j] : memref<16x16xf32>
        %s = arith.addf %t, %p : f32
        affine.store %s, %tmp[%i, %j] : memref<16x16xf32>
      }
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %d = affine.load %D[%i, %j] : memref<16x16xf32>
      %db = arith.mulf %d, %beta : f32
      affine.store %db, %D[%i, %j] : memref<16x16xf32>
      affine.for %k = 0 to 16 {
        %t = affine.load %tmp[%i, %k] : memref<16x16xf32>
        %c = affine.load %C[%k, %j] : memref<16x16xf32>
        %p = arith.mulf %t, %c : f32
        %acc = affine.load %D[%i, %j] : memref<16x16xf32>
        %s = arith.addf %acc, %p : f32
        affine.store %s, %D[%i, %j] : memref<16x16xf32>
      }
    }
  }
  memref.dealloc %tmp : memref<16x16xf32>
  return
}
