// CLASS 9 (LICM): the private @k is called with one buffer as both %x and %y. Its loop writes
// %x[i] and reads %y[0] every iteration; iteration 0 changes %y[0]. WRONG: assuming %x and %y
// do not alias and hoisting the load of %y[0].
// KERNEL: licm_same_buffer_twice [null, null, null]
func.func private @k(%x: memref<64xf32>, %y: memref<64xf32>, %a: memref<64xf32>) {
  affine.for %i = 0 to 64 {
    %v = affine.load %y[0] : memref<64xf32>
    %w = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %v, %w : f32
    affine.store %n, %x[%i] : memref<64xf32>
  }
  return
}

func.func @licm_same_buffer_twice(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  memref.copy %in, %out : memref<64xf32> to memref<64xf32>
  func.call @k(%out, %out, %a) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  return
}
