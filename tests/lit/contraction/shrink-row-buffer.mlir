// The row loops fuse, the column loops do not (the consumer reads the row reversed), so the
// 16x32 intermediate cannot become scalars; but each row iteration owns its row: it shrinks
// to 1x32 and every access indexes row 0.
// RUN: loopopt %s --target cpu --vector-bits 256 --exact-math false --remarks 2>&1 | filecheck %s

func.func @rows(%a: memref<16x32xf32>, %out: memref<16x32xf32>) {
  %t = memref.alloc() : memref<16x32xf32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %a[%i, %j] : memref<16x32xf32>
      %e = math.exp %x : f32
      affine.store %e, %t[%i, %j] : memref<16x32xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 32 {
      %x = affine.load %t[%i, 31 - %j] : memref<16x32xf32>
      affine.store %x, %out[%i, %j] : memref<16x32xf32>
    }
  }
  memref.dealloc %t : memref<16x32xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:15:3 profit = 4096 (in @rows)
// CHECK-NEXT: {{.*}}.mlir:9:5: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:9:5 and {{.*}}.mlir:16:5, level = 1, profit = 4096 (in @rows) [RAW on memref.alloc ({{.*}}:7:8), distances {{.*}}]
// CHECK-NEXT: passed: [CONTRACTION] buffer at {{.*}}.mlir:7:8 shrunk from 16x32 to 1x32: each iteration of the loop at {{.*}}.mlir:8:3 owns its slice (in @rows)
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<16x32xf32>, %[[OUT:[a-z0-9_]+]]: memref<16x32xf32>)
// CHECK-NEXT: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<1x32xf32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 16 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: affine.load %[[A]][%[[I]], %[[J]]]
// CHECK-NEXT: math.exp
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[T]][0, %[[J]]] : memref<1x32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[K:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[T]][0, -%[[K]] + 31] : memref<1x32xf32>
// CHECK-NEXT: affine.store %[[X]], %[[OUT]][%[[I]], %[[K]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[T]] : memref<1x32xf32>
// CHECK-NEXT: return
