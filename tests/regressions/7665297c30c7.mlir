// loopopt regression: fuzz (issue 25): a loop with unknown effects (a store through an scf.if memref) that reads the private %t2 sat between %t2's init and a reader; it was moved above the init because its known read of %t2 was not checked once it had unknown effects
// options: --target=inf2 --loop-opt-distance-threshold=6 --enable-loop-distribution=false --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg3=1 arg4=7
// seed: 1867751290
module {
  func.func @kernel(%in0: memref<2xf32>, %out0: memref<2x1xf32>, %out1: memref<3x1x2xf32>, %n0: index, %n1: index) {
    %cst0 = arith.constant 0.0 : f32
    %cst2 = arith.constant 1.0 : f32
    %cst5 = arith.constant 0.5 : f32
    %t2 = memref.alloc() : memref<1xf32>
    affine.for %i1_0 = 0 to 1 {
      affine.store %cst2, %t2[%i1_0] : memref<1xf32>
    }
    %f2 = affine.load %in0[0] : memref<2xf32>
    %z3 = arith.constant 0.0 : f32
    %b4 = arith.cmpf ogt, %f2, %z3 : f32
    %a3 = scf.if %b4 -> (memref<2x1xf32>) {
      scf.yield %out0 : memref<2x1xf32>
    } else {
      scf.yield %out0 : memref<2x1xf32>
    }
    affine.for %i5_0 = 0 to 1 {
      affine.for %i5_1 = 0 to 1 {
        %red5 = affine.for %i5_2 = 0 to 1 iter_args(%acc5 = %cst0) -> (f32) {
          %v6 = affine.load %t2[%i5_0] : memref<1xf32>
          %v7 = arith.addf %acc5, %v6 : f32
          affine.yield %v7 : f32
        }
        affine.store %red5, %a3[%i5_1 + 1, %i5_1] : memref<2x1xf32>
      }
    }
    %s4 = affine.load %out1[0, 0, 1] : memref<3x1x2xf32>
    %cv6 = memref.cast %in0 : memref<2xf32> to memref<?xf32>
    %s7 = affine.load %cv6[1] : memref<?xf32>
    %s8 = arith.subf %s7, %cst5 : f32
    affine.for %i8_0 = 0 to 1 {
      affine.for %i8_1 = 1 to 2 {
        affine.for %i8_2 = 1 to 2 {
          %v9 = affine.load %t2[%i8_0] : memref<1xf32>
          affine.store %v9, %out1[%i8_1 + 1, %i8_0, %i8_2] : memref<3x1x2xf32>
        }
      }
    }
    return
  }
}
