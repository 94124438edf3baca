// FPG demo: L1 reads t[i + 1] (a negative distance against L0: refused); L2 reads t[i] and fuses with L0 across L1.
func.func @refused_pair(%a: memref<64xf32>, %out: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<65xf32>
  %zero = arith.constant 0.0 : f32
  affine.store %zero, %t[64] : memref<65xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i + 1] : memref<65xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<65xf32>
    affine.store %x, %out2[%i] : memref<64xf32>
  }
  return
}
