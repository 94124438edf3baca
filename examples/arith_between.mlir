// Pure arith ops between two loops: a scalar computed from the f32 argument %alpha sits between producer and consumer and feeds the consumer.
func.func @arith_between(%a: memref<64xf32>, %alpha: f32, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.mulf %x, %alpha : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  %k = arith.mulf %alpha, %alpha : f32
  %bias = arith.addf %k, %alpha : f32
  affine.for %i = 0 to 64 {
    %y = affine.load %t[%i] : memref<64xf32>
    %z = arith.addf %y, %bias : f32
    affine.store %z, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
