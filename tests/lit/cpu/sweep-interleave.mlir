// Issue 35: a sweep without shifted loads whose body is one long chain of dependent ops (here a
// Horner polynomial of 26 ops; in models the polynomials of exp, tanh and sigmoid) runs at the
// latency of that chain under LLVM's vectorizer, one vector per iteration. sweep-vectors writes it
// in blocks of 4 vectors of 8, each op of the body written for the 4 vectors before the next op,
// so 4 chains overlap; then whole vectors, the ends masked. Each lane computes its element with
// the same ops in the same order (bit-exact). A short chain is left to LLVM (said only in the
// explained form, with its length).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --passes sweep-vectors --remarks 2>&1 | filecheck %s --check-prefix=EXPLAINED
func.func @chain(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {
  %c = arith.constant 0.25 : f32
  affine.for %i = 0 to %n {
    %x = affine.load %A[%i] : memref<?xf32>
    %v0 = arith.mulf %x, %x : f32
    %v1 = arith.addf %v0, %c : f32
    %v2 = arith.mulf %v1, %x : f32
    %v3 = arith.addf %v2, %c : f32
    %v4 = arith.mulf %v3, %x : f32
    %v5 = arith.addf %v4, %c : f32
    %v6 = arith.mulf %v5, %x : f32
    %v7 = arith.addf %v6, %c : f32
    %v8 = arith.mulf %v7, %x : f32
    %v9 = arith.addf %v8, %c : f32
    %v10 = arith.mulf %v9, %x : f32
    %v11 = arith.addf %v10, %c : f32
    %v12 = arith.mulf %v11, %x : f32
    %v13 = arith.addf %v12, %c : f32
    %v14 = arith.mulf %v13, %x : f32
    %v15 = arith.addf %v14, %c : f32
    %v16 = arith.mulf %v15, %x : f32
    %v17 = arith.addf %v16, %c : f32
    %v18 = arith.mulf %v17, %x : f32
    %v19 = arith.addf %v18, %c : f32
    %v20 = arith.mulf %v19, %x : f32
    %v21 = arith.addf %v20, %c : f32
    %v22 = arith.mulf %v21, %x : f32
    %v23 = arith.addf %v22, %c : f32
    %v24 = arith.mulf %v23, %x : f32
    %v25 = arith.addf %v24, %c : f32
    affine.store %v25, %B[%i] : memref<?xf32>
  }
  return
}

func.func @short(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {
  %c = arith.constant 0.25 : f32
  affine.for %i = 0 to %n {
    %x = affine.load %A[%i] : memref<?xf32>
    %v0 = arith.mulf %x, %x : f32
    %v1 = arith.addf %v0, %c : f32
    affine.store %v1, %B[%i] : memref<?xf32>
  }
  return
}

// CHECK: sweep-interleave.mlir:12:3: passed: [SWEEP VECTORS] vectors of 8 in blocks of 4, interleaved op by op: a chain of 26 ops overlapped 4 times; ends peeled (in @chain)
// CHECK-NOT: SWEEP VECTORS
// CHECK-DAG: #[[BLOCKS:.*]] = affine_map<(d0, d1) -> (d0 + ((d1 - d0) floordiv 32) * 32)>
// CHECK-DAG: #[[PLUS8:.*]] = affine_map<(d0) -> (d0 + 8)>
// CHECK-DAG: #[[PLUS16:.*]] = affine_map<(d0) -> (d0 + 16)>
// CHECK-DAG: #[[PLUS24:.*]] = affine_map<(d0) -> (d0 + 24)>
// CHECK-LABEL: func.func @chain
// CHECK: vector.maskedstore
// CHECK: %[[VE:.*]] = affine.apply #[[BLOCKS]](
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[A:.*]] = %{{.*}} to %[[VE]] step %[[C32]] {
// CHECK-NEXT: %[[A8:.*]] = affine.apply #[[PLUS8]](%[[A]])
// CHECK-NEXT: %[[A16:.*]] = affine.apply #[[PLUS16]](%[[A]])
// CHECK-NEXT: %[[A24:.*]] = affine.apply #[[PLUS24]](%[[A]])
// CHECK: %[[X0:.*]] = vector.load %arg1[%{{.*}}] : memref<?xf32>, vector<8xf32>
// CHECK: %[[X1:.*]] = vector.load %arg1[%{{.*}}] : memref<?xf32>, vector<8xf32>
// CHECK: %[[X2:.*]] = vector.load %arg1[%{{.*}}] : memref<?xf32>, vector<8xf32>
// CHECK: %[[X3:.*]] = vector.load %arg1[%{{.*}}] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT: %[[M0:.*]] = arith.mulf %[[X0]], %[[X0]] : vector<8xf32>
// CHECK-NEXT: %[[M1:.*]] = arith.mulf %[[X1]], %[[X1]] : vector<8xf32>
// CHECK-NEXT: %[[M2:.*]] = arith.mulf %[[X2]], %[[X2]] : vector<8xf32>
// CHECK-NEXT: %[[M3:.*]] = arith.mulf %[[X3]], %[[X3]] : vector<8xf32>
// CHECK-NEXT: %[[C:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: arith.addf %[[M0]], %[[C]] : vector<8xf32>
// CHECK-NEXT: arith.addf %[[M1]], %[[C]] : vector<8xf32>
// CHECK-COUNT-4: vector.store %{{.*}}, %arg2[%{{.*}}] : memref<?xf32>, vector<8xf32>
// CHECK: scf.for %{{.*}} = %[[VE]] to %{{.*}} step %{{.*}} {
// CHECK: vector.maskedstore
// CHECK-LABEL: func.func @short
// CHECK: affine.for
// CHECK-NOT: vector.

// EXPLAINED: passed: [SWEEP VECTORS] vectors of 8 in blocks of 4{{.*}}(in @chain)
// EXPLAINED: missed: [STOP SWEEP VECTORS] no buffer is read at two offsets along the loop and no long chain of ops: nothing to share or overlap (in @short) [the loop at {{.*}} (its longest chain: 2 ops)]
