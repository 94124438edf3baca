// loopopt regression: mismatch: @kernel: output 3 (memref argument %arg3) differs (seed 1807842361, scalar args {}): first difference at index [0]: before=np.float32(-4.7284703) after=np.float32(-23.881762) (2 of 2 elements differ)
// options: --target=cpu --loop-opt-distance-threshold=8 --enable-loop-distribution=true --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: -
// seed: 1807842361
module {
  func.func @kernel(%in1: memref<2x64xf32>, %in2: memref<64x4160xf32>, %out1: memref<2x4160xf32>, %out2: memref<2xf32>) {
    %mm1_z = arith.constant 0.0 : f32
    affine.for %mm1_i = 0 to 2 {
      %mm1_pc = affine.load %out1[%mm1_i, 0] : memref<2x4160xf32>
      affine.for %mm1_j = 0 to 4160 {
        %mm1_s = affine.for %mm1_k = 0 to 64 iter_args(%mm1_sum = %mm1_z) -> (f32) {
          %mm1_a = affine.load %in1[%mm1_i, %mm1_k] : memref<2x64xf32>
          %mm1_b = affine.load %in2[%mm1_k, %mm1_j] : memref<64x4160xf32>
          %mm1_ab = arith.mulf %mm1_a, %mm1_b : f32
          %mm1_n = arith.addf %mm1_sum, %mm1_ab : f32
          affine.yield %mm1_n : f32
        }
        affine.store %mm1_s, %out1[%mm1_i, %mm1_j] : memref<2x4160xf32>
      }
      %mm1_d = affine.load %out2[%mm1_i] : memref<2xf32>
      %mm1_last = affine.load %out1[%mm1_i, 4157] : memref<2x4160xf32>
      %mm1_d0 = arith.addf %mm1_d, %mm1_last : f32
      %mm1_d1 = arith.addf %mm1_d0, %mm1_pc : f32
      affine.store %mm1_d1, %out2[%mm1_i] : memref<2xf32>
    }
    return
  }
}
