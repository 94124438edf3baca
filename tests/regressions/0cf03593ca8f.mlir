// loopopt regression: fuzz (round 4): flat-loops joined the rows and columns of a copy out of a strided subview through a collapse_shape typed with the identity layout; the verifier wants the strided type ([INTERNAL] flat-loops rolled back); the view now takes the buffer's strides (flat_rows.collapsed_type). Found with 1x1x1 buffers, kept at 1x2x3 (one row is no longer joined)
// options: --target=cpu --loop-opt-distance-threshold=7 --enable-loop-distribution=true --enable-profitable-loop-fusion=false --enable-licm=true
// func: kernel
// sizes: arg2=0
// seed: 1828582435
module {
  func.func @kernel(%in2: memref<1x2x3xf32>, %out: memref<1x2x3xf32>, %n0: index) {
    %sv1 = memref.subview %in2[0, 0, 0] [1, 2, 3] [1, 1, 1] : memref<1x2x3xf32> to memref<1x2x3xf32, strided<[6, 3, 1], offset: 0>>
    affine.for %i1_0 = 0 to 1 {
      affine.for %i1_1 = 0 to 2 {
        affine.for %i1_2 = 0 to 3 {
          %v2 = affine.load %sv1[%i1_0, %i1_1, %i1_2] : memref<1x2x3xf32, strided<[6, 3, 1], offset: 0>>
          affine.store %v2, %out[%i1_0, %i1_1, %i1_2] : memref<1x2x3xf32>
        }
      }
    }
    return
  }
}
