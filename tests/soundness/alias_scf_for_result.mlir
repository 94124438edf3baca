// CLASS 1: alias made by scf.for results (iter_args that swap two buffers each trip).
// After %flag = 1 trip, %r#0 is %b. Loop 1 accumulates into %b through %r#0; loop 2 reads
// %b[i + 1], which the NEXT iteration of loop 1 updates. WRONG: fusing the loops (they share
// the placed %s) reads %b[i + 1] before it is updated.
// KERNEL: alias_scf_for_result [null, null, null, 1]
func.func @alias_scf_for_result(%in: memref<65xf32>, %a: memref<64xf32>, %out: memref<64xf32>, %flag: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %b = memref.alloc() : memref<65xf32>
  %u = memref.alloc() : memref<65xf32>
  %s = memref.alloc() : memref<64xf32>
  memref.copy %in, %b : memref<65xf32> to memref<65xf32>
  memref.copy %in, %u : memref<65xf32> to memref<65xf32>
  %r:2 = scf.for %k = %c0 to %flag step %c1 iter_args(%m = %u, %n = %b) -> (memref<65xf32>, memref<65xf32>) {
    scf.yield %n, %m : memref<65xf32>, memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %s[%i] : memref<64xf32>
    %o = affine.load %r#0[%i] : memref<65xf32>
    %n = arith.addf %o, %v : f32
    affine.store %n, %r#0[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %b[%i + 1] : memref<65xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %v, %w : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %b : memref<65xf32>
  memref.dealloc %u : memref<65xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
