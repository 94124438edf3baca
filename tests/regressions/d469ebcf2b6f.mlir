// loopopt regression: guards the untraced-memref barrier (effects): %a7 = select(out0, a global) is written after out0's loop; without the barrier the loops fuse around it and out0 changes (mutation check; found by the fuzzer on a mutated copy, seed 7 case 1032)
// options: --target=cpu --loop-opt-distance-threshold=7 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 1408594099
module {
  memref.global "private" @g1 : memref<2xi32> = dense<2>
  func.func @kernel(%in0: memref<1x1xi32>, %out0: memref<4xi32>) {
    %cst4 = arith.constant -1 : i32
    %c0_idx = arith.constant 0 : index
    %c1_idx = arith.constant 1 : index
    %gg2 = memref.get_global @g1 : memref<2xi32>
    %t5 = memref.alloc() : memref<3x4x2xi32>
    affine.for %i1_0 = 0 to 3 {
      affine.for %i1_1 = 0 to 4 {
        affine.for %i1_2 = 0 to 2 {
          affine.store %cst4, %t5[%i1_0, %i1_1, %i1_2] : memref<3x4x2xi32>
        }
      }
    }
    %dyn2 = memref.cast %out0 : memref<4xi32> to memref<?xi32>
    %dyn3 = memref.cast %gg2 : memref<2xi32> to memref<?xi32>
    %f4 = affine.load %in0[0, 0] : memref<1x1xi32>
    %z5 = arith.constant 0 : i32
    %b6 = arith.cmpi sgt, %f4, %z5 : i32
    %a7 = arith.select %b6, %dyn2, %dyn3 : memref<?xi32>
    %t8 = memref.alloc() : memref<1x1x1xi32>
    affine.for %i7_0 = 0 to 1 {
      affine.for %i7_1 = 0 to 1 {
        affine.for %i7_2 = 0 to 1 {
          %v8 = affine.load %a7[%i7_0] : memref<?xi32>
          affine.store %v8, %t8[%i7_0, %i7_1, %i7_2] : memref<1x1x1xi32>
        }
      }
    }
    affine.for %i9_0 = 0 to 4 {
      affine.for %i9_1 = 0 to 1 {
        %v10 = affine.load %t5[%i9_1 + 2, %i9_0, 1] : memref<3x4x2xi32>
        affine.store %v10, %out0[%i9_0] : memref<4xi32>
      }
    }
    %rs11_shp = memref.alloca() : memref<1xindex>
    memref.store %c1_idx, %rs11_shp[%c0_idx] : memref<1xindex>
    affine.for %rs11_k = 0 to 1 {
      affine.store %c1_idx, %rs11_shp[%rs11_k] : memref<1xindex>
    }
    %rs11 = memref.reshape %t8(%rs11_shp) : (memref<1x1x1xi32>, memref<1xindex>) -> memref<1xi32>
    affine.for %i11_0 = 0 to 2 {
      affine.for %i11_1 = 0 to 1 {
        affine.for %i11_2 = 0 to 1 {
          %v12 = affine.load %rs11[%i11_1] : memref<1xi32>
          affine.store %v12, %a7[%i11_0] : memref<?xi32>
        }
      }
    }
    return
  }
}
