// loopopt regression: internal: [INTERNAL] register-tile rolled back: RuntimeError: register tiling left a use of affine.load at <fuzz>:5:17
// options: --target=cpu --loop-opt-distance-threshold=8 --enable-loop-distribution=false --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: -
// seed: 1881899958
module {
  func.func @kernel(%in3: memref<2x1xf32>, %in4: memref<1x16xf32>, %out1: memref<2x16xf32>, %out2: memref<2xf32>, %out3: memref<2xf32>) {
    %mm4_z = arith.constant 0.0 : f32
    affine.for %mm4_i = 0 to 2 {
      %mm4_r0 = affine.load %out3[%mm4_i] : memref<2xf32>
      %mm4_row = affine.for %mm4_j = 0 to 16 iter_args(%mm4_acc = %mm4_r0) -> (f32) {
        %mm4_s = affine.for %mm4_k = 0 to 1 iter_args(%mm4_sum = %mm4_z) -> (f32) {
          %mm4_a = affine.load %in3[%mm4_i, %mm4_k] : memref<2x1xf32>
          %mm4_b = affine.load %in4[%mm4_k, %mm4_j] : memref<1x16xf32>
          %mm4_ab = arith.mulf %mm4_a, %mm4_b : f32
          %mm4_n = arith.addf %mm4_sum, %mm4_ab : f32
          affine.yield %mm4_n : f32
        }
        affine.store %mm4_s, %out1[%mm4_i, %mm4_j] : memref<2x16xf32>
        %mm4_m = arith.maximumf %mm4_acc, %mm4_s : f32
        affine.yield %mm4_m : f32
      }
      affine.store %mm4_row, %out3[%mm4_i] : memref<2xf32>
    }
    return
  }
}
