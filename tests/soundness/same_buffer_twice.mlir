// CLASS 9: the private @k is called (from the public entry, in this module) with one buffer as
// both %x and %y. Loop 1 accumulates into %x; loop 2 reads %y[i + 1], which the NEXT iteration of
// loop 1 updates. WRONG: assuming the arguments of @k do not alias (all its call sites are
// visible, and one passes %b twice) and fusing its loops (they share the placed %s).
// KERNEL: same_buffer_twice [null, null, null]
func.func private @k(%x: memref<65xf32>, %y: memref<65xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %two = arith.constant 2.0 : f32
  %s = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %s[%i] : memref<64xf32>
    %o = affine.load %x[%i] : memref<65xf32>
    %n = arith.addf %o, %v : f32
    affine.store %n, %x[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %y[%i + 1] : memref<65xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %s : memref<64xf32>
  return
}

func.func @same_buffer_twice(%in: memref<65xf32>, %a: memref<64xf32>, %out: memref<64xf32>) {
  %b = memref.alloc() : memref<65xf32>
  memref.copy %in, %b : memref<65xf32> to memref<65xf32>
  func.call @k(%b, %b, %a, %out) : (memref<65xf32>, memref<65xf32>, memref<64xf32>, memref<64xf32>) -> ()
  memref.dealloc %b : memref<65xf32>
  return
}
