// bicg written as two nests that both walk A row by row (benchmarks/programs/bicg_two_nests.mlir,
// small). On cpu the row loops fuse (A read by both), then the inner loops: the q loop only
// accumulates into q[i] (a register after scalar replacement), so the vectorization guard lets
// the parallel s loop join it, and A is streamed once: 5 -> 3 loops. The init of s stays out.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion --remarks 2>&1 | filecheck %s

func.func @bicg2(%A: memref<40x40xf32>, %r: memref<40xf32>, %p: memref<40xf32>, %s: memref<40xf32>, %q: memref<40xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %j = 0 to 40 {
    affine.store %zero, %s[%j] : memref<40xf32>
  }
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 40 {
      %a = affine.load %A[%i, %j] : memref<40x40xf32>
      %ri = affine.load %r[%i] : memref<40xf32>
      %sj = affine.load %s[%j] : memref<40xf32>
      %m1 = arith.mulf %ri, %a : f32
      %sj2 = arith.addf %sj, %m1 : f32
      affine.store %sj2, %s[%j] : memref<40xf32>
    }
  }
  affine.for %i = 0 to 40 {
    affine.store %zero, %q[%i] : memref<40xf32>
    affine.for %j = 0 to 40 {
      %a = affine.load %A[%i, %j] : memref<40x40xf32>
      %pj = affine.load %p[%j] : memref<40xf32>
      %qi = affine.load %q[%i] : memref<40xf32>
      %m2 = arith.mulf %a, %pj : f32
      %qi2 = arith.addf %qi, %m2 : f32
      affine.store %qi2, %q[%i] : memref<40xf32>
    }
  }
  return
}

// CHECK: {{.*}}.mlir:12:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:12:3 and {{.*}}.mlir:22:3 profit = 6400 (in @bicg2) [%arg0 read by both loops in one fused iteration (read once from memory)]
// CHECK-NEXT: {{.*}}.mlir:9:3: missed: [STOP FUSION] no fusion benefit: {{.*}}.mlir:9:3 and {{.*}}.mlir:12:3, level = 0, profit = 0 (in @bicg2)
// CHECK-NEXT: {{.*}}.mlir:13:5: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:13:5 and {{.*}}.mlir:24:5 profit = 6400 (in @bicg2) [%arg0 read by both loops in one fused iteration (read once from memory)]
// CHECK-NEXT: analysis: numLoopsFused = 2

// The q init moved above the fused inner loop; one inner loop reads A twice at [i, j].
// CHECK-LABEL: func.func @bicg2
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<40x40xf32>, %{{[a-z0-9_]+}}: memref<40xf32>, %{{[a-z0-9_]+}}: memref<40xf32>, %[[S:[a-z0-9_]+]]: memref<40xf32>, %[[Q:[a-z0-9_]+]]: memref<40xf32>)
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 40 {
// CHECK-NEXT: affine.store %{{.*}}, %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 40 {
// CHECK-NEXT: affine.store %{{.*}}, %[[Q]][%[[I]]]
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 40 {
// CHECK-NEXT: affine.load %[[A]][%[[I]], %[[J]]]
// CHECK: affine.store %{{.*}}, %[[S]][%[[J]]]
// CHECK-NEXT: affine.load %[[A]][%[[I]], %[[J]]]
// CHECK: affine.store %{{.*}}, %[[Q]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
