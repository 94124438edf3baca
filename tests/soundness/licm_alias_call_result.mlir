// CLASS 1 (LICM): %x = call @pick(%b) is %b. The loop writes %b[i] through %x and reads %b[0]
// every iteration; iteration 0 changes %b[0]. WRONG: hoisting the load of %b[0] out of the loop.
// KERNEL: licm_alias_call_result [null, null, null]
func.func private @pick(%m: memref<64xf32>) -> memref<64xf32> {
  return %m : memref<64xf32>
}

func.func @licm_alias_call_result(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %b = memref.alloc() : memref<64xf32>
  memref.copy %in, %b : memref<64xf32> to memref<64xf32>
  %x = func.call @pick(%b) : (memref<64xf32>) -> memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %b[0] : memref<64xf32>
    %w = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %v, %w : f32
    affine.store %n, %x[%i] : memref<64xf32>
  }
  memref.copy %b, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}
