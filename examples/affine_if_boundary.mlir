// Boundary handling with affine.if: interior points average their neighbours, the two edge points copy (an if with results).
#interior = affine_set<(d0) : (d0 - 1 >= 0, 62 - d0 >= 0)>
func.func @affine_if_boundary(%a: memref<64xf32>, %out: memref<64xf32>) {
  %half = arith.constant 0.5 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.if #interior(%i) -> f32 {
      %l = affine.load %t[%i - 1] : memref<64xf32>
      %r = affine.load %t[%i + 1] : memref<64xf32>
      %s = arith.addf %l, %r : f32
      %m = arith.mulf %s, %half : f32
      affine.yield %m : f32
    } else {
      %c = affine.load %t[%i] : memref<64xf32>
      affine.yield %c : f32
    }
    affine.store %v, %out[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    affine.if affine_set<(d0) : (d0 mod 2 == 0)>(%i) {
      %v = affine.load %out[%i] : memref<64xf32>
      %n = arith.negf %v : f32
      affine.store %n, %out[%i] : memref<64xf32>
    }
  }
  memref.dealloc %t : memref<64xf32>
  return
}
