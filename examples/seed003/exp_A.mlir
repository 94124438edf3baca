// Seed 003 exp A: both nests bounded by the symbols %n and %m over static buffers (run with n=4, m=6); upstream fusion declines.
func.func @exp_A(%lhs: memref<4x6xf64>, %rhs: memref<4x6xf64>, %n: index, %m: index) -> memref<6x4xf64> {
  %tmp = memref.alloc() : memref<4x6xf64>
  %res = memref.alloc() : memref<6x4xf64>
  affine.for %r = 0 to %n {
    affine.for %c = 0 to %m {
      %u = affine.load %lhs[%r, %c] : memref<4x6xf64>
      %v = affine.load %rhs[%r, %c] : memref<4x6xf64>
      %sum = arith.addf %u, %v : f64
      affine.store %sum, %tmp[%r, %c] : memref<4x6xf64>
    }
  }
  affine.for %r = 0 to %m {
    affine.for %c = 0 to %n {
      %w = affine.load %tmp[%c, %r] : memref<4x6xf64>
      affine.store %w, %res[%r, %c] : memref<6x4xf64>
    }
  }
  return %res : memref<6x4xf64>
}
