// One producer, two consumer loops of the same placed buffer, each writing its own output (fan-out fusion candidates).
func.func @fanout_two_consumers(%a: memref<48xf32>, %o1: memref<48xf32>, %o2: memref<48xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<48xf32>
  affine.for %i = 0 to 48 {
    %x = affine.load %a[%i] : memref<48xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %t[%i] : memref<48xf32>
  }
  affine.for %i = 0 to 48 {
    %y = affine.load %t[%i] : memref<48xf32>
    %z = arith.mulf %y, %y : f32
    affine.store %z, %o1[%i] : memref<48xf32>
  }
  affine.for %i = 0 to 48 {
    %y = affine.load %t[%i] : memref<48xf32>
    %z = arith.subf %y, %one : f32
    affine.store %z, %o2[%i] : memref<48xf32>
  }
  memref.dealloc %t : memref<48xf32>
  return
}
