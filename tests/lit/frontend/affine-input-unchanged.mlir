// An affine program needs no lowering: it is recognised and printed back unchanged, no step runs.
// MUTANT-N: skip (the lowering alone: no `loopopt %s` line)
// RUN: loopopt-lower %s --report 2>&1 | filecheck %s

func.func @copy(%a: memref<16xf32>, %b: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %x = affine.load %a[%i] : memref<16xf32>
    affine.store %x, %b[%i] : memref<16xf32>
  }
  return
}

// CHECK-NOT: lowering:
// CHECK-LABEL: func.func @copy(%arg0: memref<16xf32>, %arg1: memref<16xf32>)
// CHECK-NEXT:    affine.for %[[I:.*]] = 0 to 16 {
// CHECK-NEXT:      %[[X:.*]] = affine.load %arg0[%[[I]]] : memref<16xf32>
// CHECK-NEXT:      affine.store %[[X]], %arg1[%[[I]]] : memref<16xf32>
