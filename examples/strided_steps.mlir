// Loops with non-unit steps and non-zero lower bounds: the producer writes even slots, the consumer reads them at step 2 from 2.
func.func @strided_steps(%a: memref<64xf32>, %out: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloca() : memref<64xf32>
  affine.for %i = 0 to 64 step 2 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  affine.for %i = 2 to 64 step 2 {
    %y = affine.load %t[%i] : memref<64xf32>
    %p = affine.load %t[%i - 2] : memref<64xf32>
    %s = arith.addf %y, %p : f32
    affine.store %s, %out[%i] : memref<64xf32>
  }
  return
}
