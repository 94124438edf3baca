// bicg_two_nests: s = A^T r and q = A p written as two nests that both walk A row by row, A 4000 x 4000 f32 (sibling fusion of the row loops reads A once)
// bench.tags: polybench
func.func @bicg_two_nests(%A: memref<4000x4000xf32>, %r: memref<4000xf32>, %p: memref<4000xf32>, %s: memref<4000xf32>, %q: memref<4000xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %j = 0 to 4000 {
    affine.store %zero, %s[%j] : memref<4000xf32>
  }
  affine.for %i = 0 to 4000 {
    affine.for %j = 0 to 4000 {
      %a = affine.load %A[%i, %j] : memref<4000x4000xf32>
      %ri = affine.load %r[%i] : memref<4000xf32>
      %sj = affine.load %s[%j] : memref<4000xf32>
      %m1 = arith.mulf %ri, %a : f32
      %sj2 = arith.addf %sj, %m1 : f32
      affine.store %sj2, %s[%j] : memref<4000xf32>
    }
  }
  affine.for %i = 0 to 4000 {
    affine.store %zero, %q[%i] : memref<4000xf32>
    affine.for %j = 0 to 4000 {
      %a = affine.load %A[%i, %j] : memref<4000x4000xf32>
      %pj = affine.load %p[%j] : memref<4000xf32>
      %qi = affine.load %q[%i] : memref<4000xf32>
      %m2 = arith.mulf %a, %pj : f32
      %qi2 = arith.addf %qi, %m2 : f32
      affine.store %qi2, %q[%i] : memref<4000xf32>
    }
  }
  return
}
