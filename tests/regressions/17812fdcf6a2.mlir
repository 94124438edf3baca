// loopopt regression: crash: SegmentationFault: the checking process died of SIGSEGV (exit 139)
// options: --target=cpu --loop-opt-distance-threshold=4 --enable-loop-distribution=false --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: arg2=4
// seed: 1965198860
module {
  func.func @kernel(%in2: memref<1xi32>, %out2: memref<3xi32>, %n0: index) {
    %t1 = memref.alloc() : memref<3xindex>
    affine.for %i1_0 = 0 to 3 {
      affine.store %i1_0, %t1[%i1_0] : memref<3xindex>
    }
    affine.for %i2_0 = 0 to 3 {
      %v3 = affine.load %t1[%i2_0 * -1 + 2] : memref<3xindex>
      %ivc4 = arith.index_cast %v3 : index to i32
      affine.store %ivc4, %out2[%i2_0] : memref<3xi32>
    }
    return
  }
}
