// loopopt regression: MLIR bug pattern: transposing producer with an in-place consumer
// options: --target=trn1 --loop-opt-distance-threshold=8 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 0
module {
  func.func @kernel(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
    %one = arith.constant 1.0 : f32
    %T = memref.alloc() : memref<8x8xf32>
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %v = affine.load %A[%i, %j] : memref<8x8xf32>
        affine.store %v, %T[%j, %i] : memref<8x8xf32>
      }
    }
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %v = affine.load %T[%i, %j] : memref<8x8xf32>
        %w = arith.addf %v, %one : f32
        affine.store %w, %T[%i, %j] : memref<8x8xf32>
      }
    }
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %v = affine.load %T[%i, %j] : memref<8x8xf32>
        affine.store %v, %B[%i, %j] : memref<8x8xf32>
      }
    }
    memref.dealloc %T : memref<8x8xf32>
    return
  }
}
