// mm2 (PolyBench 2mm): tmp = alpha A B; D = beta D0 + tmp C, all 400 x 400 f32; tmp is a placed intermediate
// bench.tags: polybench
func.func @mm2(%A: memref<400x400xf32>, %B: memref<400x400xf32>, %C: memref<400x400xf32>, %D0: memref<400x400xf32>, %D: memref<400x400xf32>) {
  %zero = arith.constant 0.0 : f32
  %alpha = arith.constant 1.5 : f32
  %beta = arith.constant 1.2 : f32
  %tmp = memref.alloc() : memref<400x400xf32>
  affine.for %i = 0 to 400 {
    affine.for %j = 0 to 400 {
      affine.store %zero, %tmp[%i, %j] : memref<400x400xf32>
      affine.for %k = 0 to 400 {
        %a = affine.load %A[%i, %k] : memref<400x400xf32>
        %b = affine.load %B[%k, %j] : memref<400x400xf32>
        %aa = arith.mulf %alpha, %a : f32
        %p = arith.mulf %aa, %b : f32
        %t = affine.load %tmp[%i, %j] : memref<400x400xf32>
        %t2 = arith.addf %t, %p : f32
        affine.store %t2, %tmp[%i, %j] : memref<400x400xf32>
      }
    }
  }
  affine.for %i = 0 to 400 {
    affine.for %j = 0 to 400 {
      %d0 = affine.load %D0[%i, %j] : memref<400x400xf32>
      %d = arith.mulf %d0, %beta : f32
      affine.store %d, %D[%i, %j] : memref<400x400xf32>
      affine.for %k = 0 to 400 {
        %t = affine.load %tmp[%i, %k] : memref<400x400xf32>
        %c = affine.load %C[%k, %j] : memref<400x400xf32>
        %p = arith.mulf %t, %c : f32
        %s = affine.load %D[%i, %j] : memref<400x400xf32>
        %s2 = arith.addf %s, %p : f32
        affine.store %s2, %D[%i, %j] : memref<400x400xf32>
      }
    }
  }
  memref.dealloc %tmp : memref<400x400xf32>
  return
}
