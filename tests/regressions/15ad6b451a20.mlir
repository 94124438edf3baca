// loopopt regression: MLIR bug pattern: a loop writes the intermediate through a memref.cast alias between producer and consumer
// options: --target=trn1 --loop-opt-distance-threshold=8 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 0
module {
  func.func @kernel(%A: memref<16xf32>, %B: memref<16xf32>) {
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %T = memref.alloc() : memref<16xf32>
    %Tc = memref.cast %T : memref<16xf32> to memref<?xf32>
    affine.for %i = 0 to 16 {
      %v = affine.load %A[%i] : memref<16xf32>
      affine.store %v, %T[%i] : memref<16xf32>
    }
    affine.for %i = 0 to 16 {
      %v = affine.load %Tc[%i] : memref<?xf32>
      %w = arith.mulf %v, %half : f32
      affine.store %w, %Tc[%i] : memref<?xf32>
    }
    affine.for %i = 0 to 16 {
      %v = affine.load %T[%i] : memref<16xf32>
      %w = arith.addf %v, %one : f32
      affine.store %w, %B[%i] : memref<16xf32>
    }
    memref.dealloc %T : memref<16xf32>
    return
  }
}
