// Seed 003 exp B: constant bounds over dynamic memref<?x?xf64> buffers allocated from %n and %m (run with n=4, m=6); upstream fusion fires.
func.func @exp_B(%lhs: memref<?x?xf64>, %rhs: memref<?x?xf64>, %n: index, %m: index) -> memref<?x?xf64> {
  %tmp = memref.alloc(%n, %m) : memref<?x?xf64>
  %res = memref.alloc(%m, %n) : memref<?x?xf64>
  affine.for %r = 0 to 4 {
    affine.for %c = 0 to 6 {
      %u = affine.load %lhs[%r, %c] : memref<?x?xf64>
      %v = affine.load %rhs[%r, %c] : memref<?x?xf64>
      %sum = arith.addf %u, %v : f64
      affine.store %sum, %tmp[%r, %c] : memref<?x?xf64>
    }
  }
  affine.for %r = 0 to 6 {
    affine.for %c = 0 to 4 {
      %w = affine.load %tmp[%c, %r] : memref<?x?xf64>
      affine.store %w, %res[%r, %c] : memref<?x?xf64>
    }
  }
  return %res : memref<?x?xf64>
}
