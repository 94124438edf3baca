// loopopt regression: fuzz (issue 24): register tiling remainder loops started at lb + ((ub - lb) floordiv step) * step, below lb when the loop runs zero times (1 to %n, %n = 0): they ran iterations the original never ran (out of bounds); now max(lb, that)
// options: --target=cpu --loop-opt-distance-threshold=9 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg2=0
// seed: 1432662518
module {
  func.func @kernel(%in0: memref<9x3x2xf32>, %in1: memref<3xf32>, %n0: index) {
    %cst0 = arith.constant 0.0 : f32
    %cv7 = memref.cast %in0 : memref<9x3x2xf32> to memref<?x?x?xf32>
    %t10 = memref.alloca() : memref<8x3xf32>
    %t11 = memref.alloca() : memref<8x3xf32>
    affine.for %i1_0 = 0 to 8 {
      affine.for %i1_1 = 0 to 3 {
        %v2 = affine.load %in1[%i1_1] : memref<3xf32>
        affine.store %v2, %t10[%i1_0, %i1_1] : memref<8x3xf32>
        %v3 = affine.load %cv7[%i1_0 + 1, %i1_1, 1] : memref<?x?x?xf32>
        affine.store %v3, %t11[%i1_0, %i1_1] : memref<8x3xf32>
      }
    }
    %cv12 = memref.cast %t10 : memref<8x3xf32> to memref<?x3xf32>
    affine.for %i4_0 = 1 to %n0 {
      %red4 = affine.for %i4_1 = 0 to 2 iter_args(%acc4 = %cst0) -> (f32) {
        %v5 = affine.load %cv12[%i4_0, %i4_1] : memref<?x3xf32>
        %v6 = arith.addf %acc4, %v5 : f32
        affine.yield %v6 : f32
      }
      affine.store %red4, %cv12[%i4_0, 2] : memref<?x3xf32>
    }
    return
  }
}
