// loopopt regression: mismatch: @kernel: output 1 (memref argument %arg1) differs (seed 569479676, scalar args {}): first difference at index [1, 2, 0]: before=np.float32(-0.74267465) after=np.float32(3.4091253) (2 of 12 elements differ)
// options: --target=cpu --loop-opt-distance-threshold=9 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 569479676
module {
  func.func @kernel(%in0: memref<11x3x6xf32>, %out0: memref<4x3x1xf32>) {
    %s1 = affine.load %out0[1, 1, 0] : memref<4x3x1xf32>
    %t3 = memref.alloc() : memref<11x3x4xf32>
    %t4 = memref.alloc() : memref<11x3x4xf32>
    affine.for %i1_0 = 0 to 11 {
      affine.for %i1_1 = 0 to 3 {
        affine.for %i1_2 = 0 to 4 step 4 {
          %v2 = affine.vector_load %in0[%i1_0, %i1_1, %i1_2 + 2] : memref<11x3x6xf32>, vector<4xf32>
          affine.vector_store %v2, %t3[%i1_0, %i1_1, %i1_2] : memref<11x3x4xf32>, vector<4xf32>
          %v3 = affine.vector_load %in0[%i1_0, %i1_1, %i1_2 + 2] : memref<11x3x6xf32>, vector<4xf32>
          affine.vector_store %v3, %t4[%i1_0, %i1_1, %i1_2] : memref<11x3x4xf32>, vector<4xf32>
        }
      }
    }
    %sv5 = memref.subview %t3[2, 1, 0] [9, 2, 3] [1, 1, 1] : memref<11x3x4xf32> to memref<9x2x3xf32, strided<[12, 4, 1], offset: 28>>
    %t6 = memref.alloc() : memref<9x2xf32>
    affine.for %i4_0 = 0 to 9 {
      affine.for %i4_1 = 0 to 2 {
        %v5 = affine.load %sv5[%i4_0, %i4_1, 2] : memref<9x2x3xf32, strided<[12, 4, 1], offset: 28>>
        affine.store %v5, %t6[%i4_0, %i4_1] : memref<9x2xf32>
      }
    }
    affine.for %i6_0 = 0 to 9 {
      affine.for %i6_1 = 0 to 2 {
        affine.for %i6_2 = 0 to 1 {
          %v7 = affine.load %t6[%i6_1, %i6_2 + 1] : memref<9x2xf32>
          affine.store %v7, %t6[%i6_0, %i6_1] : memref<9x2xf32>
        }
      }
    }
    affine.for %i8_0 = 1 to 3 {
      %v9 = affine.load %t6[2, 0] : memref<9x2xf32>
      affine.store %v9, %out0[%i8_0 * 2 - 1, 2, 0] : memref<4x3x1xf32>
    }
    return
  }
}
