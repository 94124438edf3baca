// PolyBench atax (M=32, N=16): tmp = A x, then y = A^T tmp, with both inner loops inside one i loop.
func.func @polybench_atax(%A: memref<32x16xf32>, %x: memref<16xf32>, %y: memref<16xf32>, %tmp: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    affine.store %zero, %y[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 32 {
    affine.store %zero, %tmp[%i] : memref<32xf32>
    affine.for %j = 0 to 16 {
      %t = affine.load %tmp[%i] : memref<32xf32>
      %a = affine.load %A[%i, %j] : memref<32x16xf32>
      %v = affine.load %x[%j] : memref<16xf32>
      %p = arith.mulf %a, %v : f32
      %s = arith.addf %t, %p : f32
      affine.store %s, %tmp[%i] : memref<32xf32>
    }
    affine.for %j = 0 to 16 {
      %yj = affine.load %y[%j] : memref<16xf32>
      %a = affine.load %A[%i, %j] : memref<32x16xf32>
      %t = affine.load %tmp[%i] : memref<32xf32>
      %p = arith.mulf %a, %t : f32
      %s = arith.addf %yj, %p : f32
      affine.store %s, %y[%j] : memref<16xf32>
    }
  }
  return
}
