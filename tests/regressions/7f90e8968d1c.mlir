// loopopt regression: guards the iteration grid of a max(...) lower bound with a step (loops.Loop.constraints): anchored at the first bound result, the fused loops' dependence through a fixed element is missed (mutation check; found by the fuzzer on a mutated copy, seed 12 case 1807)
// options: --target=inf2 --loop-opt-distance-threshold=5 --enable-loop-distribution=true --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: arg4=2 arg5=8
// seed: 2112722748
module {
  func.func @kernel(%in0: memref<1xf32>, %in1: memref<1x1xf32>, %in2: memref<1xf32>, %out0: memref<3x1x1xf32>, %n0: index, %n1: index) {
    %cst1 = arith.constant 0.75 : f32
    %t2 = memref.alloca() : memref<7x2x1xf32>
    affine.for %i1_0 = 0 to 7 {
      affine.for %i1_1 = 0 to 2 {
        affine.for %i1_2 = 0 to 1 {
          affine.store %cst1, %t2[%i1_0, %i1_1, %i1_2] : memref<7x2x1xf32>
        }
      }
    }
    %cv3 = memref.cast %t2 : memref<7x2x1xf32> to memref<?x?x?xf32>
    affine.for %i2_0 = max affine_map<()[s0] -> (0, s0 - 1)>()[%n0] to 7 step 2 {
      affine.for %i2_1 = 0 to 1 {
        affine.for %i2_2 = 0 to 1 {
          %v3 = affine.load %in1[%i2_1, %i2_2] : memref<1x1xf32>
          affine.store %v3, %cv3[%i2_0, %i2_2 + 1, %i2_2] : memref<?x?x?xf32>
        }
      }
    }
    affine.for %i4_0 = max affine_map<()[s0] -> (0, s0 - 1)>()[%n0] to 7 step 2 {
      affine.for %i4_1 = 0 to 1 {
        affine.for %i4_2 = 0 to 1 {
          %v5 = affine.load %cv3[5, %i4_2 + 1, %i4_2] : memref<?x?x?xf32>
          affine.store %v5, %t2[%i4_0, %i4_1, %i4_2] : memref<7x2x1xf32>
        }
      }
    }
    affine.for %i6_0 = 0 to 3 {
      affine.for %i6_1 = 0 to 1 {
        affine.for %i6_2 = 0 to 1 {
          %v7 = affine.load %cv3[%i6_0, %i6_1, %i6_2] : memref<?x?x?xf32>
          affine.store %v7, %out0[%i6_0, %i6_1, %i6_2] : memref<3x1x1xf32>
        }
      }
    }
    return
  }
}
