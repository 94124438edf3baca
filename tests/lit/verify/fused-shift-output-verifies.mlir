// REQUIRES: mlir-opt
// The shifted fusion of `0 to %n` and `1 to %n + 1` verifies in mlir-opt; canonicalization
// folds the shift (apply then `- 1`) back into a plain %i index, which shows the
// affine.apply loopopt leaves is redundant.
// RUN: loopopt %s --target cpu --vector-bits 256 | mlir-opt | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 | mlir-opt --canonicalize | filecheck %s --check-prefix=CANON

func.func @shift(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<?xf32>
  }
  affine.for %i = 1 to affine_map<()[s0] -> (s0 + 1)>()[%n] {
    %x = affine.load %t[%i - 1] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out[%i - 1] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}

// CHECK-LABEL: func.func @shift
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to %{{[a-z0-9_]+}} {
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = affine.apply #{{map[0-9]*}}(%[[I]])
// CHECK: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[S]] - 1]

// CANON-LABEL: func.func @shift
// CANON-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to %{{[a-z0-9_]+}} {
// CANON-NOT: affine.apply
// CANON: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%[[I]]]
