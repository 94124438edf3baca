// CLASS 5 (LICM): lower bound max(0, %n) with step 3; with %n = 1 the loop visits 1, 4, 7, ...
// Every iteration reads %t[4] and writes %t[i]; iteration 4 changes %t[4]. WRONG: anchoring the
// grid at 0 makes %t[4] look never written, and hoisting its load changes iterations 7, 10, ...
// KERNEL: max_lb_step_licm [null, null, null, 1]
// KERNEL: max_lb_step_licm [null, null, null, 0]
#lb = affine_map<()[s0] -> (0, s0)>
func.func @max_lb_step_licm(%in: memref<64xf32>, %a: memref<64xf32>, %out: memref<64xf32>, %n: index) {
  %t = memref.alloc() : memref<64xf32>
  memref.copy %in, %t : memref<64xf32> to memref<64xf32>
  affine.for %i = max #lb()[%n] to 64 step 3 {
    %x = affine.load %t[4] : memref<64xf32>
    %y = affine.load %a[%i] : memref<64xf32>
    %q = arith.addf %x, %y : f32
    affine.store %q, %t[%i] : memref<64xf32>
  }
  memref.copy %t, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %t : memref<64xf32>
  return
}
