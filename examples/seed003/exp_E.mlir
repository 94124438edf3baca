// Seed 003 exp E: the control with only the producer's outer bound made symbolic (0 to %n, run with n=4); upstream fusion declines.
func.func @exp_E(%lhs: memref<4x6xf64>, %rhs: memref<4x6xf64>, %n: index) -> memref<6x4xf64> {
  %tmp = memref.alloc() : memref<4x6xf64>
  %res = memref.alloc() : memref<6x4xf64>
  affine.for %r = 0 to %n {
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
