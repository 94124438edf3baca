// loopopt regression: fuzz (issue 24): loop order planned a perfect band inside an imperfect one and the imperfect one with its ops sunk; applying the inner plan first left the outer plan a band of erased loops ([INTERNAL] loop-order rolled back); the outer plan now supersedes the inner
// options: --target=cpu --loop-opt-distance-threshold=8 --enable-loop-distribution=false --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg2=5 arg3=9
// seed: 1036558639
module {
  func.func @kernel(%in0: memref<1x1xf32>, %out0: memref<1xf32>, %n0: index, %n1: index) {
    %c1_idx = arith.constant 1 : index
    %c2_idx = arith.constant 2 : index
    affine.for %r4 = 0 to 2 {
      %cv5 = memref.cast %out0 : memref<1xf32> to memref<?xf32>
      %t6 = memref.alloc() : memref<1x1x1xf32>
      affine.for %i1_0 = 0 to 1 {
        affine.for %i1_1 = 0 to 1 {
          affine.for %i1_2 = 0 to 1 {
            %v2 = affine.load %in0[%i1_2, %i1_1] : memref<1x1xf32>
            affine.store %v2, %t6[%i1_0, %i1_1, %i1_2] : memref<1x1x1xf32>
          }
        }
      }
    }
    return
  }
}
