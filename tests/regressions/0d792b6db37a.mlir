// loopopt regression: MLIR bug pattern: in-place producer followed by a consumer reading T[i+1]
// options: --target=trn1 --loop-opt-distance-threshold=8 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 0
module {
  func.func @kernel(%T: memref<17xf32>, %B: memref<16xf32>) {
    %two = arith.constant 2.0 : f32
    affine.for %i = 0 to 17 {
      %v = affine.load %T[%i] : memref<17xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %T[%i] : memref<17xf32>
    }
    affine.for %i = 0 to 16 {
      %v = affine.load %T[%i + 1] : memref<17xf32>
      affine.store %v, %B[%i] : memref<16xf32>
    }
    return
  }
}
