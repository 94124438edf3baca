// Issue 35, bit-exact affine input: a sweep reading one buffer at three offsets along the loop
// (sweep-vectors) loads one vector of 16 per block (two of this plan's 256-bit registers) and makes the shifted operand A[i + 1] by a
// shuffle of that vector and the one carried from the block before (A[i], aligned like the store
// B[i], is an aligned vector load of its own); the ends are peeled (a masked vector
// up to the store's first multiple of 16, the blocks while the next vector stays inside the
// elements the loop reads, whole vectors of three loads, a masked vector for the rest), each lane
// computing its point with the same ops in the same order. An in-place Gauss-Seidel sweep, whose
// shifted load reads what the iteration before stored, is refused with the dependence (said by
// default); a loop without shifted loads is left to LLVM and said only in the explained form.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --passes sweep-vectors --remarks 2>&1 | filecheck %s --check-prefix=EXPLAINED
func.func @sweep(%n: index, %A: memref<?xf32>, %B: memref<?xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
    %l = affine.load %A[%i - 1] : memref<?xf32>
    %c = affine.load %A[%i] : memref<?xf32>
    %r = affine.load %A[%i + 1] : memref<?xf32>
    %s0 = arith.addf %l, %c : f32
    %s = arith.addf %s0, %r : f32
    %v = arith.mulf %third, %s : f32
    affine.store %v, %B[%i] : memref<?xf32>
  }
  return
}

func.func @gauss_seidel(%n: index, %A: memref<?xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
    %l = affine.load %A[%i - 1] : memref<?xf32>
    %c = affine.load %A[%i] : memref<?xf32>
    %r = affine.load %A[%i + 1] : memref<?xf32>
    %s0 = arith.addf %l, %c : f32
    %s = arith.addf %s0, %r : f32
    %v = arith.mulf %third, %s : f32
    affine.store %v, %A[%i] : memref<?xf32>
  }
  return
}

func.func @add(%n: index, %A: memref<?xf32>, %C: memref<?xf32>, %B: memref<?xf32>) {
  affine.for %i = 0 to %n {
    %x = affine.load %A[%i] : memref<?xf32>
    %y = affine.load %C[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %B[%i] : memref<?xf32>
  }
  return
}

// CHECK: sweep-vectors.mlir:14:3: passed: [SWEEP VECTORS] vectors of 16, one load per window (3 offsets, 1 aligned loaded on its own), the shifted operands shuffled from it; ends peeled (in @sweep)
// CHECK: sweep-vectors.mlir:28:3: missed: [STOP SWEEP VECTORS] a load reads what an earlier iteration stored: the blocks would read it early (in @gauss_seidel) [affine.store at {{.*}}:35:5 writes what affine.load at {{.*}}:29:10 reads at a later iteration]
// CHECK-NOT: SWEEP VECTORS
// CHECK-DAG: #[[ALIGN:.*]] = affine_map<(d0, d1) -> (d0 + (-d1) mod 16)>
// CHECK-DAG: #[[COUNT:.*]] = affine_map<(d0, d1) -> (d1 - d0)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1) -> (d0, d0 + ((d1 - d0 - 14) floordiv 16) * 16)>
// CHECK-DAG: #[[WHOLE:.*]] = affine_map<(d0, d1) -> (d0 + ((d1 - d0) floordiv 16) * 16)>
// CHECK-LABEL: func.func @sweep
// CHECK: %[[LO:.*]] = affine.apply #{{.*}}()
// CHECK-NEXT: %[[HI:.*]] = affine.apply #{{.*}}()[%arg0]
// CHECK: %[[AL:.*]] = affine.apply #[[ALIGN]](%[[LO]],
// CHECK-NEXT: %[[P0:.*]] = affine.min #{{.*}}(%[[AL]], %[[HI]])
// CHECK-NEXT: %[[HEAD:.*]] = arith.cmpi sgt, %[[P0]], %[[LO]] : index
// CHECK-NEXT: scf.if %[[HEAD]] {
// CHECK-NEXT: %[[N0:.*]] = affine.apply #[[COUNT]](%[[LO]], %[[P0]])
// CHECK-NEXT: %[[M0:.*]] = vector.create_mask %[[N0]] : vector<16xi1>
// CHECK-COUNT-3: vector.maskedload %arg1[%{{.*}}], %[[M0]]
// CHECK: vector.maskedstore %arg2[%{{.*}}], %[[M0]]
// CHECK: %[[VE:.*]] = affine.max #[[LAST]](%[[P0]], %[[HI]])
// CHECK-NEXT: %[[GO:.*]] = arith.cmpi sgt, %[[VE]], %[[P0]] : index
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NEXT: %[[I0:.*]] = affine.apply #{{.*}}(%[[P0]])
// CHECK-NEXT: %[[V0:.*]] = vector.load %arg1[%[[I0]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT: scf.for %[[A:.*]] = %[[P0]] to %[[VE]] step %c16 iter_args(%[[PREV:.*]] = %[[V0]]) -> (vector<16xf32>) {
// CHECK-NEXT: affine.apply
// CHECK-NEXT: affine.apply
// CHECK-NEXT: %[[NEXT:.*]] = vector.load %arg1
// CHECK-NEXT: %[[AC:.*]] = affine.apply #[[ID:.*]](%[[A]])
// CHECK-NEXT: %[[C:.*]] = vector.load %arg1[%[[AC]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT: %[[R:.*]] = vector.shuffle %[[PREV]], %[[NEXT]] [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[PREV]], %[[C]] : vector<16xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[S0]], %[[R]] : vector<16xf32>
// CHECK-NEXT: %[[T:.*]] = vector.broadcast %cst : f32 to vector<16xf32>
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[T]], %[[S]] : vector<16xf32>
// CHECK-NEXT: %[[AI:.*]] = affine.apply #[[ID]](%[[A]])
// CHECK-NEXT: vector.store %[[V]], %arg2[%[[AI]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT: scf.yield %[[NEXT]] : vector<16xf32>
// CHECK: %[[TE:.*]] = affine.apply #[[WHOLE]](%[[VE]], %[[HI]])
// CHECK-NEXT: scf.for %{{.*}} = %[[VE]] to %[[TE]] step %c16 {
// CHECK-COUNT-3: vector.load %arg1
// CHECK: vector.store
// CHECK: %[[TAIL:.*]] = arith.cmpi sgt, %[[HI]], %[[TE]] : index
// CHECK-NEXT: scf.if %[[TAIL]] {
// CHECK-NEXT: %[[N1:.*]] = affine.apply #[[COUNT]](%[[TE]], %[[HI]])
// CHECK-NEXT: %[[M1:.*]] = vector.create_mask %[[N1]] : vector<16xi1>
// CHECK-COUNT-3: vector.maskedload %arg1[%{{.*}}], %[[M1]]
// CHECK: vector.maskedstore %arg2[%{{.*}}], %[[M1]]
// CHECK-LABEL: func.func @gauss_seidel
// CHECK-NEXT: arith.constant
// CHECK-NEXT: affine.for
// CHECK-LABEL: func.func @add
// CHECK-NEXT: affine.for

// EXPLAINED: sweep-vectors.mlir:41:3: missed: [STOP SWEEP VECTORS] no buffer is read at two offsets along the loop and no long chain of ops: nothing to share or overlap (in @add)
