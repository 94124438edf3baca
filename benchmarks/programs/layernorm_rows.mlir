// layernorm_rows: row-wise layer normalisation of a 8192 x 1024 f32 matrix with gamma and beta (three nests)
// bench.tags: rows
func.func @layernorm_rows(%x: memref<8192x1024xf32>, %gamma: memref<1024xf32>, %beta: memref<1024xf32>, %out: memref<8192x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 9.765625e-04 : f32
  %eps = arith.constant 1.0e-05 : f32
  %mean = memref.alloc() : memref<8192xf32>
  %rstd = memref.alloc() : memref<8192xf32>
  affine.for %i = 0 to 8192 {
    affine.store %zero, %mean[%i] : memref<8192xf32>
    affine.for %j = 0 to 1024 {
      %v = affine.load %x[%i, %j] : memref<8192x1024xf32>
      %s = affine.load %mean[%i] : memref<8192xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %mean[%i] : memref<8192xf32>
    }
    %tot = affine.load %mean[%i] : memref<8192xf32>
    %mu = arith.mulf %tot, %inv_n : f32
    affine.store %mu, %mean[%i] : memref<8192xf32>
  }
  affine.for %i = 0 to 8192 {
    affine.store %zero, %rstd[%i] : memref<8192xf32>
    affine.for %j = 0 to 1024 {
      %v = affine.load %x[%i, %j] : memref<8192x1024xf32>
      %mu = affine.load %mean[%i] : memref<8192xf32>
      %d = arith.subf %v, %mu : f32
      %d2 = arith.mulf %d, %d : f32
      %s = affine.load %rstd[%i] : memref<8192xf32>
      %s2 = arith.addf %s, %d2 : f32
      affine.store %s2, %rstd[%i] : memref<8192xf32>
    }
    %ss = affine.load %rstd[%i] : memref<8192xf32>
    %var = arith.mulf %ss, %inv_n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    affine.store %r, %rstd[%i] : memref<8192xf32>
  }
  affine.for %i = 0 to 8192 {
    affine.for %j = 0 to 1024 {
      %v = affine.load %x[%i, %j] : memref<8192x1024xf32>
      %mu = affine.load %mean[%i] : memref<8192xf32>
      %r = affine.load %rstd[%i] : memref<8192xf32>
      %g = affine.load %gamma[%j] : memref<1024xf32>
      %b = affine.load %beta[%j] : memref<1024xf32>
      %d = arith.subf %v, %mu : f32
      %n = arith.mulf %d, %r : f32
      %y0 = arith.mulf %n, %g : f32
      %y = arith.addf %y0, %b : f32
      affine.store %y, %out[%i, %j] : memref<8192x1024xf32>
    }
  }
  memref.dealloc %mean : memref<8192xf32>
  memref.dealloc %rstd : memref<8192xf32>
  return
}
