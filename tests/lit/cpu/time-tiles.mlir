// Issue 35, bit-exact affine input: jacobi_1d's time loop and its two sweeps are tiled together
// (time-tiles): blocks of 10 time steps (all of them here), each swept by tiles 2048 points wide
// in the plane skewed by one point per sweep, so every point is computed from the same values in
// the same order (checked with isl against every dependence; bit-exact) while a tile's data stays
// in L1. The L2 budget is lowered so that this small program counts as streaming. A time loop in
// which every point reads the last point of the step before cannot be tiled by any skew: refused,
// with the dependence. (The step alone: sweep-vectors then rewrites the tiles' sweeps, which
// tests/lit/cpu/sweep-vectors.mlir checks.)
// RUN: loopopt %s --target cpu --vector-bits 256 --loop-opt-sb-size 1024 --passes time-tiles --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=FITS
// RUN: loopopt %s --target cpu --vector-bits 256 --passes time-tiles --remarks 2>&1 | filecheck %s --check-prefix=EXPLAINED
func.func @jacobi(%A: memref<16384xf32>, %B: memref<16384xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %t = 0 to 10 {
    affine.for %i = 1 to 16383 {
      %l = affine.load %A[%i - 1] : memref<16384xf32>
      %c = affine.load %A[%i] : memref<16384xf32>
      %r = affine.load %A[%i + 1] : memref<16384xf32>
      %s0 = arith.addf %l, %c : f32
      %s = arith.addf %s0, %r : f32
      %v = arith.mulf %third, %s : f32
      affine.store %v, %B[%i] : memref<16384xf32>
    }
    affine.for %i = 1 to 16383 {
      %l = affine.load %B[%i - 1] : memref<16384xf32>
      %c = affine.load %B[%i] : memref<16384xf32>
      %r = affine.load %B[%i + 1] : memref<16384xf32>
      %s0 = arith.addf %l, %c : f32
      %s = arith.addf %s0, %r : f32
      %v = arith.mulf %third, %s : f32
      affine.store %v, %A[%i] : memref<16384xf32>
    }
  }
  return
}

func.func @last_point(%A: memref<16384xf32>, %B: memref<16384xf32>) {
  affine.for %t = 0 to 6 {
    affine.for %i = 0 to 16383 {
      %a = affine.load %A[%i] : memref<16384xf32>
      %l = affine.load %A[16383] : memref<16384xf32>
      %s = arith.addf %a, %l : f32
      affine.store %s, %B[%i] : memref<16384xf32>
    }
    affine.for %i = 1 to 16384 {
      %b = affine.load %B[%i - 1] : memref<16384xf32>
      affine.store %b, %A[%i] : memref<16384xf32>
    }
  }
  return
}

// CHECK: time-tiles.mlir:14:3: passed: [TIME TILING] 2 sweep(s) in tiles of 10 time steps x 2048 points, skewed by 1: each tile's data stays in L1 across its time steps (in @jacobi)
// CHECK: time-tiles.mlir:38:3: missed: [STOP TIME TILING] the tiled order would reverse a dependence (in @last_point) [with every skew up to 4, e.g. unskewed: a {{.*}} dependence from {{.*}}]
// CHECK-DAG: #[[XLO:.*]] = affine_map<(d0) -> (d0 * 2 + 1)>
// CHECK-DAG: #[[XHI:.*]] = affine_map<(d0) -> (d0 * 2 + 16403)>
// CHECK-DAG: #[[TLO:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[THI:.*]] = affine_map<(d0) -> (d0 + 10, 10)>
// CHECK-DAG: #[[ILO0:.*]] = affine_map<(d0, d1) -> (1, d0 - d1 * 2)>
// CHECK-DAG: #[[IHI0:.*]] = affine_map<(d0, d1) -> (16383, d0 - d1 * 2 + 2048)>
// CHECK-DAG: #[[ILO1:.*]] = affine_map<(d0, d1) -> (1, d0 - d1 * 2 - 1)>
// CHECK-DAG: #[[IHI1:.*]] = affine_map<(d0, d1) -> (16383, d0 - d1 * 2 + 2047)>
// CHECK-LABEL: func.func @jacobi
// CHECK: affine.for %[[TT:.*]] = 0 to 10 step 10 {
// CHECK-NEXT: affine.for %[[XX:.*]] = #[[XLO]](%[[TT]]) to #[[XHI]](%[[TT]]) step 2048 {
// CHECK-NEXT: affine.for %[[T:.*]] = #[[TLO]](%[[TT]]) to min #[[THI]](%[[TT]]) {
// CHECK-NEXT: affine.for %[[I:.*]] = max #[[ILO0]](%[[XX]], %[[T]]) to min #[[IHI0]](%[[XX]], %[[T]]) {
// CHECK-NEXT: affine.load %arg0[%[[I]] - 1]
// CHECK: affine.store %{{.*}}, %arg1[%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[I1:.*]] = max #[[ILO1]](%[[XX]], %[[T]]) to min #[[IHI1]](%[[XX]], %[[T]]) {
// CHECK-NEXT: affine.load %arg1[%[[I1]] - 1]
// CHECK: affine.store %{{.*}}, %arg0[%[[I1]]]
// CHECK-LABEL: func.func @last_point
// CHECK-NEXT: affine.for %{{.*}} = 0 to 6 {

// With the cpu target's 2 MiB budget the 128 KiB of this program stay in L2: left as written,
// and only the explained form says so.
// FITS-NOT: TIME TILING
// FITS-LABEL: func.func @jacobi
// FITS-NEXT: %{{.*}} = arith.constant
// FITS-NEXT: affine.for %{{.*}} = 0 to 10 {
// EXPLAINED: time-tiles.mlir:14:3: missed: [STOP TIME TILING] the arrays fit in the L2 budget: nothing to gain (in @jacobi) [131072 bytes, budget 2097152]
