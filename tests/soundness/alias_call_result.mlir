// CLASS 1: alias made by a func.call result: @pick returns its argument, so %x is %b.
// Loop 1 accumulates into %b through %x; loop 2 reads %b[i + 1], which the NEXT iteration of
// loop 1 updates. WRONG: fusing the loops (they share the placed %s) reads %b[i + 1] before it
// is updated.
// KERNEL: alias_call_result [null, null, null]
func.func private @pick(%m: memref<65xf32>) -> memref<65xf32> {
  return %m : memref<65xf32>
}

func.func @alias_call_result(%in: memref<65xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  %b = memref.alloc() : memref<65xf32>
  %s = memref.alloc() : memref<64xf32>
  memref.copy %in, %b : memref<65xf32> to memref<65xf32>
  %x = func.call @pick(%b) : (memref<65xf32>) -> memref<65xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %s[%i] : memref<64xf32>
    %o = affine.load %x[%i] : memref<65xf32>
    %n = arith.addf %o, %v : f32
    affine.store %n, %x[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %b[%i + 1] : memref<65xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %b : memref<65xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
