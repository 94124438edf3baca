// PolyBench bicg (N=32, M=16): s = A^T r and q = A p computed together in one nest.
func.func @polybench_bicg(%A: memref<32x16xf32>, %s: memref<16xf32>, %q: memref<32xf32>, %p: memref<16xf32>, %r: memref<32xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    affine.store %zero, %s[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 32 {
    affine.store %zero, %q[%i] : memref<32xf32>
    affine.for %j = 0 to 16 {
      %sj = affine.load %s[%j] : memref<16xf32>
      %ri = affine.load %r[%i] : memref<32xf32>
      %a = affine.load %A[%i, %j] : memref<32x16xf32>
      %ra = arith.mulf %ri, %a : f32
      %sn = arith.addf %sj, %ra : f32
      affine.store %sn, %s[%j] : memref<16xf32>
      %qi = affine.load %q[%i] : memref<32xf32>
      %pj = affine.load %p[%j] : memref<16xf32>
      %ap = arith.mulf %a, %pj : f32
      %qn = arith.addf %qi, %ap : f32
      affine.store %qn, %q[%i] : memref<32xf32>
    }
  }
  return
}
