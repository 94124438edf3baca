// README demo: three-loop f32 elementwise chain out = (a + b)^2 - a through two placed intermediates %t0 and %t1.
func.func @chain3(%a: memref<64xf32>, %b: memref<64xf32>, %out: memref<64xf32>) {
  %t0 = memref.alloc() : memref<64xf32>
  %t1 = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = affine.load %b[%i] : memref<64xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %t0[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %s = affine.load %t0[%i] : memref<64xf32>
    %sq = arith.mulf %s, %s : f32
    affine.store %sq, %t1[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %sq = affine.load %t1[%i] : memref<64xf32>
    %x = affine.load %a[%i] : memref<64xf32>
    %d = arith.subf %sq, %x : f32
    affine.store %d, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t1 : memref<64xf32>
  memref.dealloc %t0 : memref<64xf32>
  return
}
