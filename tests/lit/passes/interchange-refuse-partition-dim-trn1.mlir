// On trn1 the loop moved outermost must walk the partition dim (dim 0): here the inner %j walks
// dim 1 only, so interchange=1:0 is refused with the seed's verbatim text. On cpu it applies.
// RUN: loopopt %s --target trn1 --passes interchange=1:0 --remarks 2>&1 | filecheck %s --check-prefix=TRN1
// RUN: loopopt %s --target cpu --vector-bits 256 --passes interchange=1:0 --remarks 2>&1 | filecheck %s --check-prefix=CPU

func.func @rows(%a: memref<16x32xf32>, %out: memref<16x32xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      affine.store %x, %out[%i, %j] : memref<16x32xf32>
    }
  }
  return
}

// TRN1: :7:3: missed: invalid b/c not on partition dim (in @rows)
// TRN1-NOT: [LOOP INTERCHANGE]
// TRN1-LABEL: func.func @rows
// TRN1-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// TRN1-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 32 {

// CPU: :7:3: passed: [LOOP INTERCHANGE] 1:0 (in @rows)
// CPU-LABEL: func.func @rows
// CPU-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 32 {
// CPU-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 {
// CPU-NEXT: affine.load %{{[a-z0-9_]+}}[%[[I]], %[[J]]]
