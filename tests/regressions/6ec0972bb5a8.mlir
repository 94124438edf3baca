// loopopt regression: internal: [INTERNAL] register-tile rolled back: <ir>:22:17: error: 'arith.index_cast' op requires the same shape for all operands and results
// options: --target=cpu --loop-opt-distance-threshold=1 --enable-loop-distribution=false --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg5=0
// seed: 1609180997
module {
  memref.global "private" constant @w3 : memref<48x1xf32> = dense<-0.5>
  func.func @kernel(%in4: memref<2x1xf32>, %in5: memref<8xf32>, %out2: memref<2x48xf32>, %out3: memref<8xf32>, %out4: memref<1xf32>, %n0: index) {
    %gg4 = memref.get_global @w3 : memref<48x1xf32>
    %t5 = memref.alloc() : memref<1x48xf32>
    affine.for %i1_0 = 0 to 1 {
      affine.for %i1_1 = 0 to 48 {
        %v2 = affine.load %gg4[%i1_1, %i1_0] : memref<48x1xf32>
        affine.store %v2, %t5[%i1_0, %i1_1] : memref<1x48xf32>
      }
    }
    %mm2_z = arith.constant 0.0 : f32
    affine.for %mm2_i = 0 to 2 {
      affine.for %mm2_j = 0 to 48 {
        %mm2_s = affine.for %mm2_k = 0 to 1 iter_args(%mm2_sum = %mm2_z) -> (f32) {
          %mm2_a = affine.load %in4[%mm2_i, %mm2_k] : memref<2x1xf32>
          %mm2_b = affine.load %t5[%mm2_k, %mm2_j] : memref<1x48xf32>
          %mm2_ab = arith.mulf %mm2_a, %mm2_b : f32
          %mm2_n = arith.addf %mm2_sum, %mm2_ab : f32
          affine.yield %mm2_n : f32
        }
        %ivc3 = arith.index_cast %mm2_j : index to i32
        %ivf4 = arith.sitofp %ivc3 : i32 to f32
        %mm2_sj = arith.addf %mm2_s, %ivf4 : f32
        affine.store %mm2_sj, %out2[%mm2_i, %mm2_j] : memref<2x48xf32>
      }
    }
    return
  }
}
