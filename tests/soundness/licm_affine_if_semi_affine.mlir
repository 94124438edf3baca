// CLASS 11 (LICM): the affine.if condition `37 floordiv s0 - 3 >= 0` divides by the symbol %s;
// the if is loop invariant and yields a value, but the loop runs %s times, so with %s = 0 the
// condition is never evaluated. WRONG: hoisting the affine.if evaluates 37 floordiv 0.
// KERNEL: licm_affine_if_semi_affine [null, 0]
// KERNEL: licm_affine_if_semi_affine [null, 5]
func.func @licm_affine_if_semi_affine(%out: memref<64xf32>, %s: index) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  affine.for %i = 0 to %s {
    %v = affine.if affine_set<()[s0] : (37 floordiv s0 - 3 >= 0)>()[%s] -> f32 {
      affine.yield %one : f32
    } else {
      affine.yield %two : f32
    }
    affine.store %v, %out[%i] : memref<64xf32>
  }
  return
}
