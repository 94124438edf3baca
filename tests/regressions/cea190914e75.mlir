// loopopt regression: fuzz (issue 24): register tiling remainder loops started at lb + ((ub - lb) floordiv step) * step, below lb when the loop runs zero times (1 to %n, %n = 0): they ran iterations the original never ran (out of bounds); now max(lb, that)
// options: --target=cpu --loop-opt-distance-threshold=3 --enable-loop-distribution=false --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg1=0
// seed: 1637104708
module {
  func.func @kernel(%in0: memref<8x3x9xf32>, %n0: index) {
    %cst3 = arith.constant 0.25 : f32
    %f1 = affine.load %in0[0, 0, 0] : memref<8x3x9xf32>
    %z2 = arith.constant 0.0 : f32
    %b3 = arith.cmpf ogt, %f1, %z2 : f32
    %fw1 = scf.if %b3 -> (memref<8x3x9xf32>) {
      scf.yield %in0 : memref<8x3x9xf32>
    } else {
      scf.yield %in0 : memref<8x3x9xf32>
    }
    %s3 = affine.load %fw1[2, 2, 1] : memref<8x3x9xf32>
    %s4 = arith.mulf %s3, %cst3 : f32
    %t5 = memref.alloc() : memref<8x3x4xf32>
    %t6 = memref.alloc() : memref<8x3x4xf32>
    affine.for %i4_0 = 0 to 8 {
      affine.for %i4_1 = 0 to 3 {
        affine.for %i4_2 = 0 to 4 step 4 {
          %v5 = affine.vector_load %fw1[%i4_0, %i4_1, %i4_2 + 5] : memref<8x3x9xf32>, vector<4xf32>
          affine.vector_store %v5, %t5[%i4_0, %i4_1, %i4_2] : memref<8x3x4xf32>, vector<4xf32>
          %v6 = affine.vector_load %fw1[%i4_0, %i4_1, %i4_2 + 5] : memref<8x3x9xf32>, vector<4xf32>
          affine.vector_store %v6, %t6[%i4_0, %i4_1, %i4_2] : memref<8x3x4xf32>, vector<4xf32>
        }
      }
    }
    affine.for %i7_0 = 1 to %n0 {
      %red7 = affine.for %i7_1 = 0 to 1 iter_args(%acc7 = %s3) -> (f32) {
        %v8 = affine.load %t6[%i7_0, %i7_1, 1] : memref<8x3x4xf32>
        %v9 = arith.addf %acc7, %v8 : f32
        affine.yield %v9 : f32
      }
      affine.store %red7, %t6[%i7_0, 2, 1] : memref<8x3x4xf32>
    }
    return
  }
}
