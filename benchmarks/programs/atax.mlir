// atax: y = A^T (A x), PolyBench-style, A 5000 x 5000 f32; tmp is a placed intermediate
// bench.tags: polybench
func.func @atax(%A: memref<5000x5000xf32>, %x: memref<5000xf32>, %y: memref<5000xf32>) {
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<5000xf32>
  affine.for %i = 0 to 5000 {
    affine.store %zero, %y[%i] : memref<5000xf32>
  }
  affine.for %i = 0 to 5000 {
    affine.store %zero, %tmp[%i] : memref<5000xf32>
    affine.for %j = 0 to 5000 {
      %a = affine.load %A[%i, %j] : memref<5000x5000xf32>
      %v = affine.load %x[%j] : memref<5000xf32>
      %p = arith.mulf %a, %v : f32
      %t = affine.load %tmp[%i] : memref<5000xf32>
      %t2 = arith.addf %t, %p : f32
      affine.store %t2, %tmp[%i] : memref<5000xf32>
    }
    affine.for %j = 0 to 5000 {
      %a = affine.load %A[%i, %j] : memref<5000x5000xf32>
      %t = affine.load %tmp[%i] : memref<5000xf32>
      %p = arith.mulf %a, %t : f32
      %s = affine.load %y[%j] : memref<5000xf32>
      %s2 = arith.addf %s, %p : f32
      affine.store %s2, %y[%j] : memref<5000xf32>
    }
  }
  memref.dealloc %tmp : memref<5000xf32>
  return
}
