// CLASS 11 (LICM): `(d0 * 16 + 15) floordiv s0` divides by the symbol %s and is invariant in
// the inner loop, which runs %s times; with %s = 0 it never executes. WRONG: hoisting it into
// the outer loop body divides by 0. (Natively LLVM may sink such a division back under the
// inner loop's guard; the reference interpreter reports the division by zero.)
// KERNEL: licm_floordiv_symbol_nested [null, null, null, 0]
// KERNEL: licm_floordiv_symbol_nested [null, null, null, 5]
func.func @licm_floordiv_symbol_nested(%a: memref<64xf32>, %out: memref<64xf32>, %last: memref<4xindex>, %s: index) {
  %c0 = arith.constant 0 : index
  affine.for %o = 0 to 4 {
    %res = affine.for %i = 0 to %s iter_args(%acc = %c0) -> (index) {
      %r = affine.apply affine_map<(d0)[s0] -> ((d0 * 16 + 15) floordiv s0)>(%o)[%s]
      %v = affine.load %a[%r] : memref<64xf32>
      affine.store %v, %out[%o * 16 + %i] : memref<64xf32>
      affine.yield %r : index
    }
    affine.store %res, %last[%o] : memref<4xindex>
  }
  return
}
