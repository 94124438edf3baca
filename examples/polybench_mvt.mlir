// PolyBench mvt (N=32): x1 += A y1 (row-wise) and x2 += A^T y2 (column-wise, interchange material).
func.func @polybench_mvt(%A: memref<32x32xf32>, %x1: memref<32xf32>, %x2: memref<32xf32>, %y1: memref<32xf32>, %y2: memref<32xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %xi = affine.load %x1[%i] : memref<32xf32>
      %a = affine.load %A[%i, %j] : memref<32x32xf32>
      %y = affine.load %y1[%j] : memref<32xf32>
      %p = arith.mulf %a, %y : f32
      %s = arith.addf %xi, %p : f32
      affine.store %s, %x1[%i] : memref<32xf32>
    }
  }
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %xi = affine.load %x2[%i] : memref<32xf32>
      %a = affine.load %A[%j, %i] : memref<32x32xf32>
      %y = affine.load %y2[%j] : memref<32xf32>
      %p = arith.mulf %a, %y : f32
      %s = arith.addf %xi, %p : f32
      affine.store %s, %x2[%i] : memref<32xf32>
    }
  }
  return
}
