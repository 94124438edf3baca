// Issue 24: with exact_math (on by default where the host's expf is glibc's algorithm, which
// loopopt checks), math.exp on f32 in a vectorizable loop becomes that algorithm in f64/i64 ops
// LLVM's loop vectorizer widens: a 32-entry table of 2^(i/32) as a private constant global, read
// at `ki & 31` (always inside it), two FMAs for the reduction, three for the polynomial, selects
// for overflow, underflow and NaN. Every result keeps libm's bits (tests/test_cpu_exact_math.py
// checks all 2^32 inputs natively). The sum loop stays in order (reassociate is off); trn1
// never runs the step.
// RUN: loopopt %s --target cpu --vector-bits 256 --exact-math --remarks -o %t.7.mlir 2> %t.7.remarks && %cat %t.7.remarks %t.7.mlir | filecheck %s
// RUN: mlir-opt %t.7.mlir > /dev/null
// RUN: loopopt %s --target trn1 --exact-math | filecheck %s --check-prefix=TRN1
// REQUIRES: mlir-opt
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

// CHECK: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8
// CHECK: [EXACT MATH] replaced by libm's own algorithm in vectorizable ops: math.exp
// CHECK-NOT: [STOP VECTORIZE]
// CHECK: memref.global "private" constant @loopopt_expf_table : memref<32xi64> = dense<[4607182418800017408, 4607140297302181236,
// CHECK-LABEL: func.func @softmax_row
// CHECK: %[[TAB:.*]] = memref.get_global @loopopt_expf_table : memref<32xi64>
// CHECK: affine.for
// CHECK: %[[XD:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[KDS:.*]] = math.fma %{{.*}}, %[[XD]], %{{.*}} : f64
// CHECK: %[[KI:.*]] = arith.bitcast %[[KDS]] : f64 to i64
// CHECK: %[[KD:.*]] = arith.subf %[[KDS]], %{{.*}} : f64
// CHECK: %[[NKD:.*]] = arith.negf %[[KD]] : f64
// CHECK: %[[R:.*]] = math.fma %{{.*}}, %[[XD]], %[[NKD]] : f64
// CHECK: %[[LOW:.*]] = arith.andi %[[KI]], %{{.*}} : i64
// CHECK: %[[IDX:.*]] = arith.index_cast %[[LOW]] : i64 to index
// CHECK: memref.load %[[TAB]][%[[IDX]]] : memref<32xi64>
// CHECK: arith.shli %[[KI]]
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf uno
// CHECK-NOT: math.exp
// CHECK: arith.addf
// CHECK-NOT: fastmath
// CHECK: return
// TRN1-NOT: loopopt_expf_table
// TRN1-LABEL: func.func @softmax_row
// TRN1: math.exp
// TRN1: return
