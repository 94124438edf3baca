// loopopt regression: crash: SegmentationFault: the checking process died of SIGSEGV (exit 139)
// options: --target=cpu --loop-opt-distance-threshold=9 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 1480089367
module {
  func.func @kernel(%in1: memref<1xf32>, %out1: memref<5xf32>) {
    %t1 = memref.alloc() : memref<5xindex>
    affine.for %i1_0 = 0 to 5 {
      affine.store %i1_0, %t1[%i1_0] : memref<5xindex>
    }
    affine.for %i2_0 = 0 to 5 {
      %v3 = affine.load %t1[%i2_0 * -1 + 4] : memref<5xindex>
      %ivc4 = arith.index_cast %v3 : index to i32
      %ivf5 = arith.sitofp %ivc4 : i32 to f32
      affine.store %ivf5, %out1[%i2_0] : memref<5xf32>
    }
    return
  }
}
