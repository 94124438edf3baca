// A row written by a 2-deep nest and read back inside a 3-deep nest (MLIR's
// loop-fusion-2.mlir @affine_add_mm_fused, small, N symbolic). On cpu the second nest reads,
// in each fused row iteration, only elements the first has just written there (the footprint
// rule of codegen/cpu/plan/sibling_reuse.py), so the rows fuse and then the column loops: 5 -> 3 loops,
// as mlir-opt. trn1 keeps the seed's profit (no placed intermediate): refuse-no-benefit-trn1.mlir.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion --remarks 2>&1 | filecheck %s

func.func @add_mm(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %d: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %c, %c0 : memref<?x?xf32>
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %n {
      %x = affine.load %d[%i, %j] : memref<?x?xf32>
      %y = affine.load %c[%i, %j] : memref<?x?xf32>
      %s = arith.addf %y, %x : f32
      affine.store %s, %c[%i, %j] : memref<?x?xf32>
    }
  }
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %n {
      affine.for %k = 0 to %n {
        %p = affine.load %b[%k, %j] : memref<?x?xf32>
        %q = affine.load %a[%i, %k] : memref<?x?xf32>
        %m = arith.mulf %q, %p : f32
        %o = affine.load %c[%i, %j] : memref<?x?xf32>
        %s = arith.addf %o, %m : f32
        affine.store %s, %c[%i, %j] : memref<?x?xf32>
      }
    }
  }
  return
}

// CHECK: {{.*}}.mlir:11:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:11:3 and {{.*}}.mlir:19:3 profit = {{.*}} (in @add_mm) [%arg2 written, then read back in the same fused iteration (from the cache)]
// CHECK-NEXT: {{.*}}.mlir:12:5: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:12:5 and {{.*}}.mlir:20:5 profit = {{.*}} (in @add_mm) [%arg2 written, then read back in the same fused iteration (from the cache)]
// CHECK-NEXT: analysis: numLoopsFused = 2

// In one (i, j) iteration: c[i, j] += d[i, j], then the reduction into c[i, j].
// CHECK-LABEL: func.func @add_mm
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<?x?xf32>, %[[B:[a-z0-9_]+]]: memref<?x?xf32>, %[[C:[a-z0-9_]+]]: memref<?x?xf32>, %[[D:[a-z0-9_]+]]: memref<?x?xf32>)
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to %{{.*}} {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to %{{.*}} {
// CHECK-NEXT: affine.load %[[D]][%[[I]], %[[J]]]
// CHECK-NEXT: affine.load %[[C]][%[[I]], %[[J]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{.*}}, %[[C]][%[[I]], %[[J]]]
// CHECK-NEXT: affine.for %[[K:[a-z0-9_]+]] = 0 to %{{.*}} {
// CHECK-NEXT: affine.load %[[B]][%[[K]], %[[J]]]
// CHECK-NEXT: affine.load %[[A]][%[[I]], %[[K]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: affine.load %[[C]][%[[I]], %[[J]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{.*}}, %[[C]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
