// Three-loop symbolic chain over memref<?xf32> with two stack-placed intermediates sized by %n (alloca, no dealloc).
func.func @sym_chain3(%a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %t0 = memref.alloca(%n) : memref<?xf32>
  %t1 = memref.alloca(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %y = affine.load %b[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %t0[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %s = affine.load %t0[%i] : memref<?xf32>
    %y = affine.load %b[%i] : memref<?xf32>
    %p = arith.mulf %s, %y : f32
    affine.store %p, %t1[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %p = affine.load %t1[%i] : memref<?xf32>
    %s = affine.load %t0[%i] : memref<?xf32>
    %d = arith.subf %p, %s : f32
    affine.store %d, %out[%i] : memref<?xf32>
  }
  return
}
