// An affine nest whose body holds an scf.for reduction (memref.load on the scf induction variable) and scf.if branches.
func.func @scf_inside(%a: memref<16x8xf32>, %out: memref<16xf32>, %sign: memref<16xi32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pos = arith.constant 1 : i32
  %neg = arith.constant -1 : i32
  affine.for %i = 0 to 16 {
    %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<16x8xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    %gt = arith.cmpf ogt, %r, %zero : f32
    %v = scf.if %gt -> (f32) {
      scf.yield %r : f32
    } else {
      %n = arith.negf %r : f32
      scf.yield %n : f32
    }
    affine.store %v, %out[%i] : memref<16xf32>
    scf.if %gt {
      affine.store %pos, %sign[%i] : memref<16xi32>
    } else {
      affine.store %neg, %sign[%i] : memref<16xi32>
    }
  }
  return
}
