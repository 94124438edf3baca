// loopopt regression: internal: [INTERNAL] rows-in-lanes rolled back: IndexError: attempt to access out of bounds block
// options: --target=cpu --loop-opt-distance-threshold=7 --enable-loop-distribution=true --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: -
// seed: 2030042825
module {
  func.func @kernel(%in0: memref<1x1x1xf32>, %out0: memref<8x8xf32>, %out1: memref<3x3x8xf32>) {
    %cst5 = arith.constant 0.25 : f32
    %a1:2 = affine.for %a1_k = 0 to 3 iter_args(%a1_p = %out1, %a1_q = %out1) -> (memref<3x3x8xf32>, memref<3x3x8xf32>) {
      affine.yield %a1_q, %a1_p : memref<3x3x8xf32>, memref<3x3x8xf32>
    }
    %t5 = memref.alloc() : memref<8x8xf32>
    affine.for %i1_0 = 0 to 8 {
      affine.for %i1_1 = 0 to 8 {
        %v2 = affine.load %out0[%i1_0, %i1_1] : memref<8x8xf32>
        affine.store %v2, %t5[%i1_0, %i1_1] : memref<8x8xf32>
      }
    }
    %cv6 = memref.cast %t5 : memref<8x8xf32> to memref<?x8xf32>
    %t8 = memref.alloc() : memref<8x8xf32>
    affine.for %i3_0 = 0 to 8 {
      affine.for %i3_1 = 0 to 8 {
        %v4 = affine.load %cv6[%i3_0, %i3_1] : memref<?x8xf32>
        affine.store %v4, %t8[%i3_0, %i3_1] : memref<8x8xf32>
      }
    }
    %s9 = affine.load %a1#0[2, 0, 1] : memref<3x3x8xf32>
    %s10 = arith.addf %s9, %cst5 : f32
    affine.for %i5_0 = 0 to 8 {
      affine.for %i5_1 = 0 to 2 {
        %red5 = affine.for %i5_2 = 0 to 3 iter_args(%acc5 = %s10) -> (f32) {
          %v6 = affine.load %t8[%i5_1 * 2, %i5_0] : memref<8x8xf32>
          %v7 = arith.addf %acc5, %v6 : f32
          affine.yield %v7 : f32
        }
        affine.store %red5, %out0[%i5_0, %i5_1 + 2] : memref<8x8xf32>
      }
    }
    affine.for %i8_0 = 0 to 8 {
      %red8 = affine.for %i8_1 = 0 to 8 iter_args(%acc8 = %s10) -> (f32) {
        %v9 = affine.load %t8[%i8_0, %i8_1] : memref<8x8xf32>
        %v10 = arith.addf %acc8, %v9 : f32
        affine.yield %v10 : f32
      }
      affine.store %red8, %out1[2, 2, %i8_0] : memref<3x3x8xf32>
    }
    return
  }
}
