// CLASS 10 (buffer shrinking): %t is allocated before a loop made of blocks (cf.cond_br back
// edge); each trip's nest reads row %t[i] as the previous trip left it and rewrites it. WRONG:
// shrinking %t to the one row an %i iteration owns (ignoring the cf loop around the nest).
// KERNEL: shrink_cf_loop [null, null]
func.func @shrink_cf_loop(%a: memref<8x4xf32>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<8x4xf32>
  cf.br ^trip(%c0 : index)
^trip(%k: index):
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
  %more = arith.cmpi slt, %k1, %c3 : index
  cf.cond_br %more, ^trip(%k1 : index), ^done
^done:
  memref.dealloc %t : memref<8x4xf32>
  return
}
