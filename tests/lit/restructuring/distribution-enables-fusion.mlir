// The consumer's second statement reads t[i + 1] (negative distance). The driver splits the
// consumer into its two statement groups and fuses the first group with the producer; with
// --enable-loop-distribution=false the pair is only refused.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --enable-loop-distribution=false --remarks 2>&1 | filecheck %s --check-prefix=OFF

func.func @split(%a: memref<65xf32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %t = memref.alloc() : memref<65xf32>
  %c = arith.constant 0.0 : f32
  affine.store %c, %t[64] : memref<65xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<65xf32>
    affine.store %x, %t[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<65xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out1[%i] : memref<64xf32>
    %z = affine.load %t[%i + 1] : memref<65xf32>
    affine.store %z, %out2[%i] : memref<64xf32>
  }
  return
}

// The distribution remark is logged while the refused pair is restructured, before the refusal.
// CHECK: :15:3: passed: [LOOP DISTRIBUTION] into 2 loops (in @split)
// CHECK-NEXT: {{.*}}.mlir:11:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:11:3 and {{.*}}.mlir:15:3, level = 0, profit = 520 (in @split)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:11:3 and {{.*}}.mlir:15:3 profit = 520 (in @split)
// CHECK: analysis: numLoopsFused = 1

// The producer and the first statement group share a loop (the reload of t[i] takes the stored
// value: scalar replacement); the t[i + 1] reader runs after it.
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<65xf32>, %[[O1:[a-z0-9_]+]]: memref<64xf32>, %[[O2:[a-z0-9_]+]]: memref<64xf32>)
// CHECK: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<65xf32>
// CHECK: affine.store %{{[a-z0-9_]+}}, %[[T]][64]
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: affine.store %[[X]], %[[T]][%[[I]]]
// CHECK-NEXT: arith.addf %[[X]], %[[X]]
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[O1]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = affine.load %[[T]][%[[J]] + 1]
// CHECK-NEXT: affine.store %[[Z]], %[[O2]][%[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: return

// OFF-NOT: [LOOP DISTRIBUTION]
// OFF: {{.*}}.mlir:11:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:11:3 and {{.*}}.mlir:15:3, level = 0, profit = 520 (in @split)
// OFF-NEXT: analysis: numLoopsFused = 0
// OFF-LABEL: func.func @split
// OFF: affine.for
// OFF: affine.for
// OFF-NEXT: affine.load
// OFF-NEXT: arith.addf
// OFF-NEXT: affine.store
// OFF-NEXT: affine.load
// OFF-NEXT: affine.store
// OFF-NEXT: }
