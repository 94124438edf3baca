// mvt: o1 = x1 + A y1 and o2 = x2 + A^T y2, PolyBench-style, A 4000 x 4000 f32 (the second product walks A by columns)
// bench.tags: polybench
func.func @mvt(%A: memref<4000x4000xf32>, %x1: memref<4000xf32>, %x2: memref<4000xf32>, %y1: memref<4000xf32>, %y2: memref<4000xf32>, %o1: memref<4000xf32>, %o2: memref<4000xf32>) {
  affine.for %i = 0 to 4000 {
    %v = affine.load %x1[%i] : memref<4000xf32>
    affine.store %v, %o1[%i] : memref<4000xf32>
  }
  affine.for %i = 0 to 4000 {
    affine.for %j = 0 to 4000 {
      %a = affine.load %A[%i, %j] : memref<4000x4000xf32>
      %y = affine.load %y1[%j] : memref<4000xf32>
      %o = affine.load %o1[%i] : memref<4000xf32>
      %p = arith.mulf %a, %y : f32
      %o2v = arith.addf %o, %p : f32
      affine.store %o2v, %o1[%i] : memref<4000xf32>
    }
  }
  affine.for %i = 0 to 4000 {
    %v = affine.load %x2[%i] : memref<4000xf32>
    affine.store %v, %o2[%i] : memref<4000xf32>
  }
  affine.for %i = 0 to 4000 {
    affine.for %j = 0 to 4000 {
      %a = affine.load %A[%j, %i] : memref<4000x4000xf32>
      %y = affine.load %y2[%j] : memref<4000xf32>
      %o = affine.load %o2[%i] : memref<4000xf32>
      %p = arith.mulf %a, %y : f32
      %o2v = arith.addf %o, %p : f32
      affine.store %o2v, %o2[%i] : memref<4000xf32>
    }
  }
  return
}
