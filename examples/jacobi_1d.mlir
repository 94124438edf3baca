// PolyBench-style jacobi-1d: 4 time steps of two 3-point sweeps A -> B -> A inside an outer time loop.
func.func @jacobi_1d(%A: memref<32xf32>, %B: memref<32xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %t = 0 to 4 {
    affine.for %i = 1 to 31 {
      %l = affine.load %A[%i - 1] : memref<32xf32>
      %c = affine.load %A[%i] : memref<32xf32>
      %r = affine.load %A[%i + 1] : memref<32xf32>
      %s0 = arith.addf %l, %c : f32
      %s1 = arith.addf %s0, %r : f32
      %m = arith.mulf %s1, %third : f32
      affine.store %m, %B[%i] : memref<32xf32>
    }
    affine.for %i = 1 to 31 {
      %l = affine.load %B[%i - 1] : memref<32xf32>
      %c = affine.load %B[%i] : memref<32xf32>
      %r = affine.load %B[%i + 1] : memref<32xf32>
      %s0 = arith.addf %l, %c : f32
      %s1 = arith.addf %s0, %r : f32
      %m = arith.mulf %s1, %third : f32
      affine.store %m, %A[%i] : memref<32xf32>
    }
  }
  return
}
