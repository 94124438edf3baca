// softmax_rows_l3: row-wise softmax of a 512 x 1024 f32 matrix: row max, exp, row sum, divide (four nests)
// bench.tags: rows
func.func @softmax_rows_l3(%x: memref<512x1024xf32>, %out: memref<512x1024xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %mx = memref.alloc() : memref<512xf32>
  %e = memref.alloc() : memref<512x1024xf32>
  %sum = memref.alloc() : memref<512xf32>
  affine.for %i = 0 to 512 {
    affine.store %ninf, %mx[%i] : memref<512xf32>
    affine.for %j = 0 to 1024 {
      %v = affine.load %x[%i, %j] : memref<512x1024xf32>
      %m = affine.load %mx[%i] : memref<512xf32>
      %m2 = arith.maximumf %m, %v : f32
      affine.store %m2, %mx[%i] : memref<512xf32>
    }
  }
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 1024 {
      %v = affine.load %x[%i, %j] : memref<512x1024xf32>
      %m = affine.load %mx[%i] : memref<512xf32>
      %d = arith.subf %v, %m : f32
      %ex = math.exp %d : f32
      affine.store %ex, %e[%i, %j] : memref<512x1024xf32>
    }
  }
  affine.for %i = 0 to 512 {
    affine.store %zero, %sum[%i] : memref<512xf32>
    affine.for %j = 0 to 1024 {
      %v = affine.load %e[%i, %j] : memref<512x1024xf32>
      %s = affine.load %sum[%i] : memref<512xf32>
      %s2 = arith.addf %s, %v : f32
      affine.store %s2, %sum[%i] : memref<512xf32>
    }
  }
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 1024 {
      %v = affine.load %e[%i, %j] : memref<512x1024xf32>
      %s = affine.load %sum[%i] : memref<512xf32>
      %r = arith.divf %v, %s : f32
      affine.store %r, %out[%i, %j] : memref<512x1024xf32>
    }
  }
  memref.dealloc %mx : memref<512xf32>
  memref.dealloc %e : memref<512x1024xf32>
  memref.dealloc %sum : memref<512xf32>
  return
}
