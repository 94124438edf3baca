// Three-point stencil consumer reading %t[%i - 1], %t[%i] and %t[%i + 1] of a placed producer buffer.
func.func @stencil_shift(%a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  %third = arith.constant 0.333333343 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %two : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  affine.for %i = 1 to 63 {
    %l = affine.load %t[%i - 1] : memref<64xf32>
    %c = affine.load %t[%i] : memref<64xf32>
    %r = affine.load %t[%i + 1] : memref<64xf32>
    %s0 = arith.addf %l, %c : f32
    %s1 = arith.addf %s0, %r : f32
    %m = arith.mulf %s1, %third : f32
    affine.store %m, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
