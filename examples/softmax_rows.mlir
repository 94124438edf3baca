// Row softmax of a 16x32 matrix: row max and row sum are iter_args reductions; exp(x - max) goes through a placed 2-d buffer.
func.func @softmax_rows(%x: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rowmax = memref.alloc() : memref<16xf32>
  %e = memref.alloc() : memref<16x32xf32>
  %rowsum = memref.alloc() : memref<16xf32>
  affine.for %i = 0 to 16 {
    %m = affine.for %j = 0 to 32 iter_args(%acc = %neg_inf) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<16x32xf32>
      %mx = arith.maximumf %acc, %v : f32
      affine.yield %mx : f32
    }
    affine.store %m, %rowmax[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %v = affine.load %x[%i, %j] : memref<16x32xf32>
      %m = affine.load %rowmax[%i] : memref<16xf32>
      %d = arith.subf %v, %m : f32
      %ex = math.exp %d : f32
      affine.store %ex, %e[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    %s = affine.for %j = 0 to 32 iter_args(%acc = %zero) -> (f32) {
      %ex = affine.load %e[%i, %j] : memref<16x32xf32>
      %sum = arith.addf %acc, %ex : f32
      affine.yield %sum : f32
    }
    affine.store %s, %rowsum[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %ex = affine.load %e[%i, %j] : memref<16x32xf32>
      %s = affine.load %rowsum[%i] : memref<16xf32>
      %p = arith.divf %ex, %s : f32
      affine.store %p, %out[%i, %j] : memref<16x32xf32>
    }
  }
  memref.dealloc %rowsum : memref<16xf32>
  memref.dealloc %e : memref<16x32xf32>
  memref.dealloc %rowmax : memref<16xf32>
  return
}
