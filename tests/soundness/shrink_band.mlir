// CLASS 10 (buffer shrinking): iteration i writes the band %t[i..i+3] (inner loop from %i to
// %i + 4) and first reads %t[i], written by iteration i - 1. Iterations share elements, so %t
// must keep its full size. WRONG: shrinking %t to the 4 elements one iteration writes (the
// band bounds taken as if constant) makes iteration i read a slot overwritten by iteration i-1.
// KERNEL: shrink_band [null, null]
#id = affine_map<(d0) -> (d0)>
#p4 = affine_map<(d0) -> (d0 + 4)>
func.func @shrink_band(%a: memref<20xf32>, %out: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<20xf32>
  affine.for %i = 0 to 16 {
    %acc = affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%i) -> f32 {
      %v = affine.load %t[%i] : memref<20xf32>
      affine.yield %v : f32
    } else {
      affine.yield %zero : f32
    }
    affine.store %acc, %out[%i] : memref<16xf32>
    affine.for %j = #id(%i) to #p4(%i) {
      %x = affine.load %a[%j] : memref<20xf32>
      %y = arith.addf %x, %acc : f32
      affine.store %y, %t[%j] : memref<20xf32>
    }
  }
  memref.dealloc %t : memref<20xf32>
  return
}
