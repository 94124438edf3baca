// loopopt regression: internal: [INTERNAL] register-tile rolled back: <ir>:13:17: error: 'arith.index_cast' op requires the same shape for all operands and results
// options: --target=cpu --loop-opt-distance-threshold=0 --enable-loop-distribution=true --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: arg5=3
// seed: 724386848
module {
  func.func @kernel(%in2: memref<2x1xf32>, %in3: memref<1x16xf32>, %in4: memref<2xf32>, %out2: memref<2x16xf32>, %out3: memref<2xf32>, %n0: index) {
    %mm2_z = arith.constant 0.0 : f32
    affine.for %mm2_i = 0 to 2 {
      affine.for %mm2_j = 0 to 16 {
        %mm2_s = affine.for %mm2_k = 0 to 1 iter_args(%mm2_sum = %mm2_z) -> (f32) {
          %mm2_a = affine.load %in2[%mm2_i, %mm2_k] : memref<2x1xf32>
          %mm2_b = affine.load %in3[%mm2_k, %mm2_j] : memref<1x16xf32>
          %mm2_ab = arith.mulf %mm2_a, %mm2_b : f32
          %mm2_n = arith.addf %mm2_sum, %mm2_ab : f32
          affine.yield %mm2_n : f32
        }
        %ivc1 = arith.index_cast %mm2_j : index to i32
        %ivf2 = arith.sitofp %ivc1 : i32 to f32
        %mm2_sj = arith.addf %mm2_s, %ivf2 : f32
        affine.store %mm2_sj, %out2[%mm2_i, %mm2_j] : memref<2x16xf32>
      }
    }
    return
  }
}
