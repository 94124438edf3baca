// CLASS 5: lower bound max(0, %n) with step 3; with %n = 1 both loops visit 1, 4, 7, ..., 61.
// Loop 1 writes %t[i]; loop 2 reads %t[4], which loop 1 writes at i = 4. WRONG: anchoring the
// iteration grid at 0 (i = 0, 3, 6, ...) makes %t[4] look untouched by loop 1; fusing (they share
// the placed %s) then lets iteration i = 1 read %t[4] before it is written.
// KERNEL: max_lb_step_fusion [null, null, 1]
// KERNEL: max_lb_step_fusion [null, null, 0]
#lb = affine_map<()[s0] -> (0, s0)>
func.func @max_lb_step_fusion(%in: memref<64xf32>, %out: memref<64xf32>, %n: index) {
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<64xf32> to memref<64xf32>
  affine.for %i = max #lb()[%n] to 64 step 3 {
    %v = affine.load %in[%i] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    affine.store %w, %t[%i] : memref<64xf32>
    affine.store %v, %s[%i] : memref<64xf32>
  }
  affine.for %i = max #lb()[%n] to 64 step 3 {
    %x = affine.load %t[4] : memref<64xf32>
    %y = affine.load %s[%i] : memref<64xf32>
    %q = arith.addf %x, %y : f32
    affine.store %q, %out[%i] : memref<64xf32>
  }
  memref.dealloc %t : memref<64xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
