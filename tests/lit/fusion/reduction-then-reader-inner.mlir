// Inside the %i loop, tmp[i] is accumulated by every %j of the first inner loop and read by
// every %j of the second: the same index text, but not distance 0 (the atax pattern). The inner
// loops must not fuse; all three loops stay.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefixes=CHECK,CPU
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s --check-prefixes=CHECK,TRN1

func.func @atax_like(%A: memref<8x16xf32>, %y: memref<16xf32>, %tmp: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %t = affine.load %tmp[%i] : memref<8xf32>
      %a = affine.load %A[%i, %j] : memref<8x16xf32>
      %s = arith.addf %t, %a : f32
      affine.store %s, %tmp[%i] : memref<8xf32>
    }
    affine.for %j = 0 to 16 {
      %t = affine.load %tmp[%i] : memref<8xf32>
      %yj = affine.load %y[%j] : memref<16xf32>
      %s = arith.addf %yj, %t : f32
      affine.store %s, %y[%j] : memref<16xf32>
    }
  }
  return
}

// CHECK: {{.*}}.mlir:9:5: missed: [STOP FUSION] no fusion benefit: {{.*}}.mlir:9:5 and {{.*}}.mlir:15:5, level = 1, profit = 0 (in @atax_like)
// CHECK-NOT: [LOOP FUSION]
// CHECK: {{.*}}.mlir:16:12: passed: [LICM] Moving inst affine.load to a new insertion point (in @atax_like)
// CHECK: analysis: numLoopsFused = 0

// Two inner loops remain; the read of tmp[i] now sits between them.
// CHECK-LABEL: func.func @atax_like
// CHECK-SAME: %[[TMP:[a-z0-9_]+]]: memref<8xf32>)
// TRN1-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 8 {
// TRN1-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// TRN1: affine.store %{{[a-z0-9_]+}}, %[[TMP]][%[[I]]]
// TRN1-NEXT: }
// TRN1-NEXT: %[[T:[a-z0-9_]+]] = affine.load %[[TMP]][%[[I]]]
// TRN1-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// TRN1-NEXT: affine.load
// TRN1-NEXT: arith.addf %{{[a-z0-9_]+}}, %[[T]]
// On cpu the accumulator tmp[i] is carried in iter_args, the stored value forwarded to the read
// of y's update, and (issue 35) the rows run 8 at a time: the sums in vector lanes from tmp's
// vector, stored once; the loop over the 8 rows, one iteration of 8, is replaced by its body, and
// the update of y is jammed: each y[j] gets the 8 rows' values in row order (bit for bit).
// CPU-NEXT: %[[C0:[a-z0-9_]+]] = arith.constant 0 : index
// CPU-NEXT: %[[INIT:[a-z0-9_]+]] = affine.vector_load %[[TMP]][%[[C0]]] : memref<8xf32>, vector<8xf32>
// CPU-NEXT: %[[R:[a-z0-9_]+]] = affine.for %{{[a-z0-9_]+}} = 0 to 16 step 8 iter_args(%{{[a-z0-9_]+}} = %[[INIT]]) -> (vector<8xf32>) {
// CPU: affine.yield
// CPU-NEXT: }
// CPU-NEXT: affine.vector_store %[[R]], %[[TMP]][%[[C0]]] : memref<8xf32>, vector<8xf32>
// CPU-NEXT: %[[T0:[a-z0-9_]+]] = vector.extract %[[R]][0] : f32 from vector<8xf32>
// CPU: %[[T7:[a-z0-9_]+]] = vector.extract %[[R]][7] : f32 from vector<8xf32>
// CPU-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// CPU-NEXT: affine.load
// CPU-NEXT: arith.addf %{{[a-z0-9_]+}}, %[[T0]]
// CPU: arith.addf %{{[a-z0-9_]+}}, %[[T7]]
// CPU-NEXT: affine.store
// CPU-NEXT: }
// CPU-NEXT: return
