// gesummv: y = alpha A x + beta B x, PolyBench-style but written as three nests, A and B 4000 x 4000 f32
// bench.let: N = 4000
// bench.args: [N, N], [N, N], [N], [N], 1.5, 1.2
// bench.tags: polybench
func.func @gesummv(%A: memref<4000x4000xf32>, %B: memref<4000x4000xf32>, %x: memref<4000xf32>, %y: memref<4000xf32>, %alpha: f32, %beta: f32) {
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<4000xf32>
  %u = memref.alloc() : memref<4000xf32>
  affine.for %i = 0 to 4000 {
    affine.store %zero, %tmp[%i] : memref<4000xf32>
    affine.for %j = 0 to 4000 {
      %a = affine.load %A[%i, %j] : memref<4000x4000xf32>
      %v = affine.load %x[%j] : memref<4000xf32>
      %p = arith.mulf %a, %v : f32
      %t = affine.load %tmp[%i] : memref<4000xf32>
      %t2 = arith.addf %t, %p : f32
      affine.store %t2, %tmp[%i] : memref<4000xf32>
    }
  }
  affine.for %i = 0 to 4000 {
    affine.store %zero, %u[%i] : memref<4000xf32>
    affine.for %j = 0 to 4000 {
      %b = affine.load %B[%i, %j] : memref<4000x4000xf32>
      %v = affine.load %x[%j] : memref<4000xf32>
      %p = arith.mulf %b, %v : f32
      %t = affine.load %u[%i] : memref<4000xf32>
      %t2 = arith.addf %t, %p : f32
      affine.store %t2, %u[%i] : memref<4000xf32>
    }
  }
  affine.for %i = 0 to 4000 {
    %t = affine.load %tmp[%i] : memref<4000xf32>
    %v = affine.load %u[%i] : memref<4000xf32>
    %at = arith.mulf %alpha, %t : f32
    %bv = arith.mulf %beta, %v : f32
    %s = arith.addf %at, %bv : f32
    affine.store %s, %y[%i] : memref<4000xf32>
  }
  memref.dealloc %tmp : memref<4000xf32>
  memref.dealloc %u : memref<4000xf32>
  return
}
