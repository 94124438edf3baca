// jacobi_1d: 100 time steps of the 3-point Jacobi stencil on 1M f32 (PolyBench-style), A and B start as copies of in
// bench.tags: polybench
func.func @jacobi_1d(%in: memref<1048576xf32>, %A: memref<1048576xf32>, %B: memref<1048576xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %i = 0 to 1048576 {
    %v = affine.load %in[%i] : memref<1048576xf32>
    affine.store %v, %A[%i] : memref<1048576xf32>
    affine.store %v, %B[%i] : memref<1048576xf32>
  }
  affine.for %t = 0 to 100 {
    affine.for %i = 1 to 1048575 {
      %l = affine.load %A[%i - 1] : memref<1048576xf32>
      %c = affine.load %A[%i] : memref<1048576xf32>
      %r = affine.load %A[%i + 1] : memref<1048576xf32>
      %s0 = arith.addf %l, %c : f32
      %s = arith.addf %s0, %r : f32
      %v = arith.mulf %third, %s : f32
      affine.store %v, %B[%i] : memref<1048576xf32>
    }
    affine.for %i = 1 to 1048575 {
      %l = affine.load %B[%i - 1] : memref<1048576xf32>
      %c = affine.load %B[%i] : memref<1048576xf32>
      %r = affine.load %B[%i + 1] : memref<1048576xf32>
      %s0 = arith.addf %l, %c : f32
      %s = arith.addf %s0, %r : f32
      %v = arith.mulf %third, %s : f32
      affine.store %v, %A[%i] : memref<1048576xf32>
    }
  }
  return
}
