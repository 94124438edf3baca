// Equal symbolic trip counts written differently: `0 to %n` and `1 to %n + 1` (the consumer reads %t[%i - 1]).
#plus_one = affine_map<()[s0] -> (s0 + 1)>
func.func @sym_equal_tripcount(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %three = arith.constant 3.0 : f32
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %three : f32
    affine.store %y, %t[%i] : memref<?xf32>
  }
  affine.for %i = 1 to #plus_one()[%n] {
    %y = affine.load %t[%i - 1] : memref<?xf32>
    %x = affine.load %a[%i - 1] : memref<?xf32>
    %z = arith.subf %y, %x : f32
    affine.store %z, %out[%i - 1] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}
