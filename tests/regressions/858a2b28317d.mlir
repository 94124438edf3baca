// loopopt regression: mismatch: @kernel: output 4 (memref argument %arg4) differs (seed 342364223, scalar args {'arg5': 0}): first difference at index [0]: before=np.float32(-11.898792) after=np.float32(-8.263349) (2 of 2 elements differ)
// options: --target=cpu --loop-opt-distance-threshold=10 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg5=0
// seed: 342364223
module {
  func.func @kernel(%in3: memref<2x64xf32>, %in4: memref<64x4160xf32>, %in5: memref<2xf32>, %out2: memref<2x4160xf32>, %out3: memref<2xf32>, %n0: index) {
    %mm6_z = arith.constant 0.0 : f32
    affine.for %mm6_i = 0 to 2 {
      %mm6_pc = affine.load %out2[%mm6_i, 2] : memref<2x4160xf32>
      affine.for %mm6_j = 0 to 4160 {
        %mm6_s = affine.for %mm6_k = 0 to 64 iter_args(%mm6_sum = %mm6_z) -> (f32) {
          %mm6_a = affine.load %in3[%mm6_i, %mm6_k] : memref<2x64xf32>
          %mm6_b = affine.load %in4[%mm6_k, %mm6_j] : memref<64x4160xf32>
          %mm6_ab = arith.mulf %mm6_a, %mm6_b : f32
          %mm6_n = arith.addf %mm6_sum, %mm6_ab : f32
          affine.yield %mm6_n : f32
        }
        affine.store %mm6_s, %out2[%mm6_i, %mm6_j] : memref<2x4160xf32>
      }
      %mm6_d = affine.load %out3[%mm6_i] : memref<2xf32>
      %mm6_last = affine.load %out2[%mm6_i, 4158] : memref<2x4160xf32>
      %mm6_d0 = arith.addf %mm6_d, %mm6_last : f32
      %mm6_d1 = arith.addf %mm6_d0, %mm6_pc : f32
      affine.store %mm6_d1, %out3[%mm6_i] : memref<2xf32>
    }
    return
  }
}
