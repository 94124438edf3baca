// Five-loop 1-d f32 chain through four stack-placed intermediates (memref.alloca, no dealloc).
func.func @chain5_1d(%a: memref<32xf32>, %out: memref<32xf32>) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %t0 = memref.alloca() : memref<32xf32>
  %t1 = memref.alloca() : memref<32xf32>
  %t2 = memref.alloca() : memref<32xf32>
  %t3 = memref.alloca() : memref<32xf32>
  affine.for %i = 0 to 32 {
    %x = affine.load %a[%i] : memref<32xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %t0[%i] : memref<32xf32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t0[%i] : memref<32xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t1[%i] : memref<32xf32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t1[%i] : memref<32xf32>
    %a_i = affine.load %a[%i] : memref<32xf32>
    %y = arith.subf %x, %a_i : f32
    affine.store %y, %t2[%i] : memref<32xf32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t2[%i] : memref<32xf32>
    %y = arith.maximumf %x, %zero : f32
    affine.store %y, %t3[%i] : memref<32xf32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t3[%i] : memref<32xf32>
    %y = arith.mulf %x, %half : f32
    affine.store %y, %out[%i] : memref<32xf32>
  }
  return
}
