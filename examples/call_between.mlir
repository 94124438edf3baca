// A func.call between producer and consumer hands the intermediate buffer to another function that rewrites it in place.
func.func @scale_in_place(%buf: memref<64xf32>) {
  %three = arith.constant 3.0 : f32
  affine.for %i = 0 to 64 {
    %x = affine.load %buf[%i] : memref<64xf32>
    %y = arith.mulf %x, %three : f32
    affine.store %y, %buf[%i] : memref<64xf32>
  }
  return
}

func.func @call_between(%a: memref<64xf32>, %out: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %one : f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  func.call @scale_in_place(%t) : (memref<64xf32>) -> ()
  affine.for %i = 0 to 64 {
    %y = affine.load %t[%i] : memref<64xf32>
    %z = arith.mulf %y, %y : f32
    affine.store %z, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  return
}
