// CLASS 11 (LICM): `37 mod s0` divides by the symbol %s; the loop runs %s times, so with %s = 0
// the division is never executed and the program is well defined. WRONG: hoisting the
// loop-invariant affine.apply out of the loop executes 37 mod 0 (x86: SIGFPE). The value also
// leaves the loop through iter_args, so LLVM cannot sink a hoisted division back under the
// loop's guard and the trap is visible natively.
// KERNEL: licm_mod_symbol [null, null, null, 0]
// KERNEL: licm_mod_symbol [null, null, null, 5]
func.func @licm_mod_symbol(%a: memref<64xf32>, %out: memref<64xf32>, %last: memref<1xindex>, %s: index) {
  %c0 = arith.constant 0 : index
  %res = affine.for %i = 0 to %s iter_args(%acc = %c0) -> (index) {
    %r = affine.apply affine_map<()[s0] -> (37 mod s0)>()[%s]
    %v = affine.load %a[%r] : memref<64xf32>
    affine.store %v, %out[%i] : memref<64xf32>
    affine.yield %r : index
  }
  affine.store %res, %last[0] : memref<1xindex>
  return
}
