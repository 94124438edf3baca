// affine.parallel: a 2-d parallel elementwise band, then a parallel sum with an addf reduction stored to a 0-d memref.
func.func @affine_parallel(%a: memref<16x32xf32>, %b: memref<16x32xf32>, %out: memref<16x32xf32>, %total: memref<f32>) {
  affine.parallel (%i, %j) = (0, 0) to (16, 32) {
    %x = affine.load %a[%i, %j] : memref<16x32xf32>
    %y = affine.load %b[%i, %j] : memref<16x32xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %out[%i, %j] : memref<16x32xf32>
  }
  %sum = affine.parallel (%i) = (0) to (16) reduce ("addf") -> (f32) {
    %x = affine.load %out[%i, 0] : memref<16x32xf32>
    affine.yield %x : f32
  }
  affine.store %sum, %total[] : memref<f32>
  return
}
