// loopopt regression: MLIR bug pattern: in-place producer followed by a consumer reading T[i+1]
// options: --target=cpu --loop-opt-distance-threshold=1 --enable-loop-distribution=false --enable-profitable-loop-fusion=false --enable-licm=true
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
