// loopopt regression: mismatch: @kernel: output 2 (memref argument %arg2) differs (seed 1812386902, scalar args {}): first difference at index [0, 0]: before=np.int32(-20) after=np.int32(-8) (128 of 192 elements differ)
// options: --target=cpu --loop-opt-distance-threshold=0 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 1812386902
module {
  memref.global "private" constant @w3 : memref<1x96xi32> = dense<5>
  memref.global "private" constant @w3_panels64 : memref<3x4x64xi32> = dense<2>
  func.func @kernel(%in2: memref<2x1xi32>, %in3: memref<8xi32>, %out2: memref<2x96xi32>, %out3: memref<8xi32>, %out4: memref<1xi32>) {
    %gg4 = memref.get_global @w3 : memref<1x96xi32>
    %mm2_g0 = memref.get_global @w3_panels64 : memref<3x4x64xi32>
    %mm2_v0 = affine.load %mm2_g0[0, 0, 0] : memref<3x4x64xi32>
    affine.store %mm2_v0, %out4[0] : memref<1xi32>
    %mm2_z = arith.constant 0 : i32
    affine.for %mm2_i = 0 to 2 {
      affine.for %mm2_j = 0 to 96 {
        %mm2_s = affine.for %mm2_k = 0 to 1 iter_args(%mm2_sum = %mm2_z) -> (i32) {
          %mm2_a = affine.load %in2[%mm2_i, %mm2_k] : memref<2x1xi32>
          %mm2_b = affine.load %gg4[%mm2_k, %mm2_j] : memref<1x96xi32>
          %mm2_ab = arith.muli %mm2_a, %mm2_b : i32
          %mm2_n = arith.addi %mm2_sum, %mm2_ab : i32
          affine.yield %mm2_n : i32
        }
        affine.store %mm2_s, %out2[%mm2_i, %mm2_j] : memref<2x96xi32>
      }
    }
    return
  }
}
