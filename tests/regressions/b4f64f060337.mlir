// loopopt regression: internal: [INTERNAL] fusion rolled back: RuntimeError: the operation has been invalidated (trn1 tile-and-interchange trial on a scratch copy, pair inside an outer loop)
// options: --target=trn1 --loop-opt-distance-threshold=8 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=true
// func: kernel
// sizes: -
// seed: 1631082110
func.func @kernel(%in: memref<4xf32>, %out: memref<4xf32>) {
  affine.for %r = 0 to 3 {
    %t = memref.alloc() : memref<4x4xf32>
    affine.for %i = 0 to 4 {
      affine.for %j = 0 to 4 {
        %v = affine.load %in[%j] : memref<4xf32>
        affine.store %v, %t[%i, %j] : memref<4x4xf32>
      }
    }
    affine.for %i = 0 to 2 {
      %v = affine.load %t[%i, 0] : memref<4x4xf32>
      affine.store %v, %out[%i] : memref<4xf32>
    }
  }
  return
}
