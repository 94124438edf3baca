// A triangular nest: the inner bound uses %i, so %j cannot move outside %i.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes interchange=1:0 --remarks 2>&1 | filecheck %s

func.func @triangle(%a: memref<16x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      affine.store %z, %a[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// CHECK: :6:3: missed: [STOP INTERCHANGE] loop bounds use an induction variable that would move inside (in @triangle)
// CHECK-LABEL: func.func @triangle
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 {
// CHECK-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to #{{map[0-9]*}}(%[[I]]) {
