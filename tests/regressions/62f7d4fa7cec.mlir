// loopopt regression: MLIR bug pattern: tiled dynamic nests (min bounds over %n) must stay valid IR
// options: --target=cpu --loop-opt-distance-threshold=1 --enable-loop-distribution=false --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: arg2=13
// seed: 0
module {
  func.func @kernel(%A: memref<64xf32>, %B: memref<64xf32>, %n: index) {
    %one = arith.constant 1.0 : f32
    %T = memref.alloc() : memref<64xf32>
    affine.for %ii = 0 to %n step 4 {
      affine.for %i = affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%ii)[%n] {
        %v = affine.load %A[%i] : memref<64xf32>
        %w = arith.addf %v, %one : f32
        affine.store %w, %T[%i] : memref<64xf32>
      }
    }
    affine.for %ii = 0 to %n step 4 {
      affine.for %i = affine_map<(d0) -> (d0)>(%ii) to min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%ii)[%n] {
        %v = affine.load %T[%i] : memref<64xf32>
        %w = arith.mulf %v, %v : f32
        affine.store %w, %B[%i] : memref<64xf32>
      }
    }
    memref.dealloc %T : memref<64xf32>
    return
  }
}
