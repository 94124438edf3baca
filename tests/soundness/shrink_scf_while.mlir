// CLASS 10 (buffer shrinking): %t is allocated outside an scf.while loop; each trip's inner
// nest reads row %t[i] as the previous trip left it and rewrites it. Within one trip no two
// iterations of %i share an element, but the buffer carries values from trip to trip. WRONG:
// shrinking %t to the one row an %i iteration owns (ignoring the enclosing scf.while).
// KERNEL: shrink_scf_while [null, null]
func.func @shrink_scf_while(%a: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8x4xf32>
  %r = scf.while (%k = %c0) : (index) -> index {
    %c = arith.cmpi slt, %k, %c3 : index
    scf.condition(%c) %k : index
  } do {
  ^bb0(%k: index):
    %first = arith.cmpi eq, %k, %c0 : index
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 4 {
        %v = scf.if %first -> (f32) {
          %x = affine.load %a[%i, %j] : memref<8x4xf32>
          scf.yield %x : f32
        } else {
          %x = affine.load %t[%i, %j] : memref<8x4xf32>
          scf.yield %x : f32
        }
        %w = arith.addf %v, %one : f32
        affine.store %w, %t[%i, %j] : memref<8x4xf32>
        affine.store %w, %out[%i, %j] : memref<8x4xf32>
      }
    }
    %k1 = arith.addi %k, %c1 : index
    scf.yield %k1 : index
  }
  memref.dealloc %t : memref<8x4xf32>
  return
}
