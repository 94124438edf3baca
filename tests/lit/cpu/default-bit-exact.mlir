// Issue 24: the default cpu pipeline leaves the order of reductions as written (approximate_math
// and reassociate are off: every result stays bit-exact); with exact_math off too (its default
// depends on the host's libm: exact-exp.mlir) math calls stay as written and the vectorize step
// does not run (register tiling, which keeps every result, has nothing to tile here); the
// Neuron targets never run either.
// MUTANT-N: skip
// RUN: loopopt %s --target cpu --vector-bits 256 --exact-math false --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target trn1 --passes vectorize,math-approx,vector-reductions --remarks 2>&1 | filecheck %s --check-prefix=TRN1
func.func @softmax_row(%x: memref<512xf32>, %out: memref<512xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<1xf32>
  affine.store %zero, %sum[0] : memref<1xf32>
  affine.for %i = 0 to 512 {
    %v = affine.load %x[%i] : memref<512xf32>
    %e = math.exp %v : f32
    affine.store %e, %out[%i] : memref<512xf32>
  }
  affine.for %i = 0 to 512 {
    %v = affine.load %out[%i] : memref<512xf32>
    %s = affine.load %sum[0] : memref<1xf32>
    %s2 = arith.addf %s, %v : f32
    affine.store %s2, %sum[0] : memref<1xf32>
  }
  memref.dealloc %sum : memref<1xf32>
  return
}

// CHECK-NOT: [VECTORIZE]
// CHECK-NOT: [STOP VECTORIZE]
// CHECK-LABEL: func.func @softmax_row
// CHECK: math.exp
// CHECK-NOT: fastmath
// CHECK: return
// TRN1-NOT: VECTORIZE
// TRN1-LABEL: func.func @softmax_row
// TRN1: math.exp
// TRN1-NOT: fastmath
// TRN1: return
