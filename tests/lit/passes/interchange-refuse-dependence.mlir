// a[i][j] = a[i - 1][j + 1]: the dependence has direction (+1, -1); swapping the loops would
// reverse it, so the interchange is refused and the nest stays.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes interchange=1:0 --remarks 2>&1 | filecheck %s

func.func @skewed(%a: memref<17x17xf32>) {
  affine.for %i = 1 to 17 {
    affine.for %j = 0 to 16 {
      %x = affine.load %a[%i - 1, %j + 1] : memref<17x17xf32>
      affine.store %x, %a[%i, %j] : memref<17x17xf32>
    }
  }
  return
}

// CHECK: :6:3: missed: [STOP INTERCHANGE] would reverse a dependence (in @skewed)
// CHECK-LABEL: func.func @skewed
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 1 to 17 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 16 {
// CHECK-NEXT: affine.load %{{[a-z0-9_]+}}[%[[I]] - 1, %[[J]] + 1]
