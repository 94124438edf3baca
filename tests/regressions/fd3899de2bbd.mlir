// loopopt regression: guards the unmodelled-op barrier (fusion legality) on trn1: the first loop calls @bump(), which has no operand and rewrites the global the second loop reads; fusing them reads g before later trips' calls (the trn1 copy of 4c85de29d738: on cpu the vectorization guard now refuses this pair first)
// options: --target=trn1 --loop-opt-distance-threshold=8 --enable-loop-distribution=true --enable-profitable-loop-fusion=true --enable-licm=false
// func: kernel
// sizes: -
// seed: 0
module {
  memref.global "private" @g : memref<8xf32> = dense<1.0>
  func.func private @bump() {
    %g = memref.get_global @g : memref<8xf32>
    %one = arith.constant 1.0 : f32
    affine.for %k = 0 to 8 {
      %v = affine.load %g[%k] : memref<8xf32>
      %w = arith.addf %v, %one : f32
      affine.store %w, %g[%k] : memref<8xf32>
    }
    return
  }
  func.func @kernel(%in: memref<8xf32>, %out: memref<8xf32>) {
    %t = memref.alloc() : memref<8xf32>
    %g = memref.get_global @g : memref<8xf32>
    affine.for %i = 0 to 8 {
      %v = affine.load %in[%i] : memref<8xf32>
      affine.store %v, %t[%i] : memref<8xf32>
      func.call @bump() : () -> ()
    }
    affine.for %i = 0 to 8 {
      %a = affine.load %t[%i] : memref<8xf32>
      %b = affine.load %g[%i] : memref<8xf32>
      %s = arith.addf %a, %b : f32
      affine.store %s, %out[%i] : memref<8xf32>
    }
    memref.dealloc %t : memref<8xf32>
    return
  }
}
