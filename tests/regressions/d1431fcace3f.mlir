// loopopt regression: fuzz (issue 24): register tiling kept a sum in memory in a register although a load through a memref.cast of the same buffer read it in the reduction loop (the stray-access check compared memref values, not buffers)
// options: --target=cpu --loop-opt-distance-threshold=6 --enable-loop-distribution=false --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg1=9 arg2=4
// seed: 984475082
module {
  func.func @kernel(%out0: memref<2x4x2xf32>, %n0: index, %n1: index) {
    %cv6 = memref.cast %out0 : memref<2x4x2xf32> to memref<?x?x?xf32>
    affine.for %i1_0 = 0 to 2 {
      affine.for %i1_1 = 0 to 2 {
        affine.for %i1_2 = 0 to 3 {
          %v2 = affine.load %cv6[%i1_0, %i1_2, %i1_1] : memref<?x?x?xf32>
          %v3 = affine.load %out0[%i1_1, %i1_0 + 2, 0] : memref<2x4x2xf32>
          %v4 = arith.addf %v3, %v2 : f32
          affine.store %v4, %out0[%i1_1, %i1_0 + 2, 0] : memref<2x4x2xf32>
        }
      }
    }
    return
  }
}
