// CLASS 11 (LICM): `d0 floordiv s0` divides by the symbol %s; the loop runs %s times, so with
// %s = 0 the division never executes. WRONG: hoisting the loop-invariant affine.apply out of the
// loop divides by 0 (x86: SIGFPE; the value leaves the loop through iter_args so LLVM cannot
// sink the division back under the loop's guard).
// KERNEL: licm_floordiv_symbol [null, null, null, 0, 0]
// KERNEL: licm_floordiv_symbol [null, null, null, 5, 63]
func.func @licm_floordiv_symbol(%a: memref<64xf32>, %out: memref<64xf32>, %last: memref<1xindex>, %s: index, %d: index) {
  %c0 = arith.constant 0 : index
  %res = affine.for %i = 0 to %s iter_args(%acc = %c0) -> (index) {
    %r = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%d)[%s]
    %v = affine.load %a[%r] : memref<64xf32>
    affine.store %v, %out[%i] : memref<64xf32>
    affine.yield %r : index
  }
  affine.store %res, %last[0] : memref<1xindex>
  return
}
