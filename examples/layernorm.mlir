// Layer normalisation over the rows of a 16x32 matrix: mean and variance by iter_args reductions, then scale by gamma and shift by beta.
func.func @layernorm(%x: memref<16x32xf32>, %gamma: memref<32xf32>, %beta: memref<32xf32>, %out: memref<16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 0.03125 : f32
  %eps = arith.constant 1.0e-5 : f32
  %mean = memref.alloc() : memref<16xf32>
  %rstd = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %s = affine.for %j = 0 to 32 iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<16x32xf32>
      %a = arith.addf %acc, %v : f32
      affine.yield %a : f32
    }
    %mu = arith.mulf %s, %inv_n : f32
    affine.store %mu, %mean[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    %mu = affine.load %mean[%i] : memref<16xf32>
    %ss = affine.for %j = 0 to 32 iter_args(%acc = %zero) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<16x32xf32>
      %d = arith.subf %v, %mu : f32
      %d2 = arith.mulf %d, %d : f32
      %a = arith.addf %acc, %d2 : f32
      affine.yield %a : f32
    }
    %var = arith.mulf %ss, %inv_n : f32
    %ve = arith.addf %var, %eps : f32
    %sd = math.sqrt %ve : f32
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %sd : f32
    affine.store %r, %rstd[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %v = affine.load %x[%i, %j] : memref<16x32xf32>
      %mu = affine.load %mean[%i] : memref<16xf32>
      %r = affine.load %rstd[%i] : memref<16xf32>
      %g = affine.load %gamma[%j] : memref<32xf32>
      %b = affine.load %beta[%j] : memref<32xf32>
      %d = arith.subf %v, %mu : f32
      %n = arith.mulf %d, %r : f32
      %sc = arith.mulf %n, %g : f32
      %o = arith.addf %sc, %b : f32
      affine.store %o, %out[%i, %j] : memref<16x32xf32>
    }
  }
  memref.dealloc %rstd : memref<16xf32>
  memref.dealloc %mean : memref<16xf32>
  return
}
