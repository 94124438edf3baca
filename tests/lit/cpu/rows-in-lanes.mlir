// Issue 35, bit-exact affine input: a row loop around an ordered float sum runs 8 rows in the
// lanes of a vector<8xf32> (rows-in-lanes). Each row's 8 next elements are loaded as one vector,
// the 8 x 8 block is transposed by 24 vector.shuffle ops, and column k is added to every lane's
// sum in order: lane l keeps row i0 + l's own order (bit-exact). The columns left over (16 to 19)
// are gathered one at a time; the rows left over (16 to 20) run as written (here register tiling
// then gives them four scalar chains). A row loop whose rows read what an earlier row stored is
// left as it is, with the dependence named.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --reassociate --remarks 2>&1 | filecheck %s --check-prefix=FAST
func.func @row_sums(%x: memref<20x19xf32>, %w: memref<19xf32>, %out: memref<20xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 20 {
    %s = affine.for %j = 0 to 19 iter_args(%a = %zero) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<20x19xf32>
      %u = affine.load %w[%j] : memref<19xf32>
      %p = arith.mulf %v, %u : f32
      %a2 = arith.addf %a, %p : f32
      affine.yield %a2 : f32
    }
    %h = arith.mulf %s, %s : f32
    affine.store %h, %out[%i] : memref<20xf32>
  }
  return
}

func.func @carried(%x: memref<20x20xf32>, %v: memref<20xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 20 {
    %s = affine.for %j = 0 to 20 iter_args(%a = %zero) -> (f32) {
      %e = affine.load %x[%i, %j] : memref<20x20xf32>
      %u = affine.load %v[%j] : memref<20xf32>
      %p = arith.mulf %e, %u : f32
      %a2 = arith.addf %a, %p : f32
      affine.yield %a2 : f32
    }
    affine.store %s, %v[%i] : memref<20xf32>
  }
  return
}

// CHECK: rows-in-lanes.mlir:12:3: passed: [ROWS IN LANES] 8 rows in the lanes of vector<8xf32>: 1 reduction loop(s) (arith.addf) with each row's order kept, rows read 8 columns at a time and transposed in registers (in @row_sums)
// CHECK: rows-in-lanes.mlir:28:3: missed: [STOP ROWS IN LANES] running the rows side by side would reverse a dependence (in @carried) [a RAW dependence from affine.store at {{.*}}rows-in-lanes.mlir:36:5 in one row to affine.load at {{.*}}rows-in-lanes.mlir:31:12 in a later row of the strip]
// CHECK-LABEL: func.func @row_sums
// CHECK: affine.for %[[I0:.*]] = 0 to 16 step 8 {
// CHECK: %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: %[[BLK:.*]] = affine.for %[[J0:.*]] = 0 to 16 step 8 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<8xf32>) {
// CHECK-NEXT: %[[R0:.*]] = affine.vector_load %arg0[%[[I0]], %[[J0]]] : memref<20x19xf32>, vector<8xf32>
// CHECK-COUNT-7: affine.vector_load %arg0[%{{.*}}, %[[J0]]] : memref<20x19xf32>, vector<8xf32>
// CHECK-NEXT: %[[T0:.*]] = vector.shuffle %[[R0]], %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// CHECK-COUNT-23: vector.shuffle
// CHECK-NEXT: %[[W0:.*]] = affine.load %arg1[%[[J0]]] : memref<19xf32>
// CHECK-NEXT: %[[B0:.*]] = vector.broadcast %[[W0]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %{{.*}}, %[[B0]] : vector<8xf32>
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[ACC]], %[[P0]] : vector<8xf32>
// CHECK-COUNT-7: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: affine.yield %{{.*}} : vector<8xf32>
// CHECK: %[[REM:.*]] = affine.for %[[J:.*]] = 16 to 19 iter_args(%{{.*}} = %[[BLK]]) -> (vector<8xf32>) {
// CHECK-COUNT-8: affine.load %arg0[%{{.*}}, %[[J]]] : memref<20x19xf32>
// CHECK-NEXT: vector.from_elements
// CHECK: %[[H:.*]] = arith.mulf %[[REM]], %[[REM]] : vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[H]], %arg2[%[[I0]]] : memref<20xf32>, vector<8xf32>
// CHECK: affine.for %{{.*}} = 16 to 20 step 4 {
// CHECK-LABEL: func.func @carried
// CHECK-NOT: vector
// CHECK: return

// With --reassociate the sums may be reordered: LLVM vectorizes them along their own loop.
// FAST-NOT: ROWS IN LANES
// FAST-LABEL: func.func @row_sums
// FAST-NOT: vector.shuffle
// FAST: return
