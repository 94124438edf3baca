// Seed 003 control: static 4x6 add nest feeding a transpose nest through a placed buffer; returns the 6x4 result (fuses 4 loops -> 2).
func.func @exp_C(%lhs: memref<4x6xf64>, %rhs: memref<4x6xf64>) -> memref<6x4xf64> {
  %tmp = memref.alloc() : memref<4x6xf64>
  %res = memref.alloc() : memref<6x4xf64>
  affine.for %r = 0 to 4 {
    affine.for %c = 0 to 6 {
      %u = affine.load %lhs[%r, %c] : memref<4x6xf64>
      %v = affine.load %rhs[%r, %c] : memref<4x6xf64>
      %sum = arith.addf %u, %v : f64
      affine.store %sum, %tmp[%r, %c] : memref<4x6xf64>
    }
  }
  affine.for %r = 0 to 6 {
    affine.for %c = 0 to 4 {
      %w = affine.load %tmp[%c, %r] : memref<4x6xf64>
      affine.store %w, %res[%r, %c] : memref<6x4xf64>
    }
  }
  return %res : memref<6x4xf64>
}
