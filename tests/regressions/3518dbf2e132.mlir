// loopopt regression: MLIR bug pattern: a call rewrites the intermediate between producer and consumer (stock --affine-loop-fusion fuses across it)
// options: --target=cpu --loop-opt-distance-threshold=1 --enable-loop-distribution=false --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: -
// seed: 0
module {
  func.func @rewrite(%b: memref<16xf32>) {
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    affine.for %i = 0 to 16 {
      %v = affine.load %b[%i] : memref<16xf32>
      %m = arith.mulf %v, %two : f32
      %a = arith.addf %m, %one : f32
      affine.store %a, %b[%i] : memref<16xf32>
    }
    return
  }
  func.func @kernel(%A: memref<16xf32>, %B: memref<16xf32>) {
    %one = arith.constant 1.0 : f32
    %three = arith.constant 3.0 : f32
    %T = memref.alloc() : memref<16xf32>
    affine.for %i = 0 to 16 {
      %v = affine.load %A[%i] : memref<16xf32>
      %w = arith.addf %v, %one : f32
      affine.store %w, %T[%i] : memref<16xf32>
    }
    func.call @rewrite(%T) : (memref<16xf32>) -> ()
    affine.for %i = 0 to 16 {
      %v = affine.load %T[%i] : memref<16xf32>
      %w = arith.mulf %v, %three : f32
      affine.store %w, %B[%i] : memref<16xf32>
    }
    memref.dealloc %T : memref<16xf32>
    return
  }
}
