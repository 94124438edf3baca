// 64 against 32 iterations, all live (the longer loop writes %a): not shrunk, refused (trn1).
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=CPU

func.func @unmatched(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
    affine.store %x, %a[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK-NOT: [DEAD ITERATIONS]
// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:7:3 and {{.*}}.mlir:12:3, level = 1, profit = 256 (in @unmatched)
// CHECK-NOT: [DEAD ITERATIONS]
// CHECK-NOT: [LOOP SPLIT]
// CHECK: analysis: numLoopsFused = 1

// The longer loop also writes the argument %a, so dead-iteration elimination cannot shrink it.
// trn1 refuses the pair at the point loops after GCD tiling. On cpu the loop is split
// instead, and its 32-iteration head fuses ([LOOP SPLIT]).
// CPU-NOT: [DEAD ITERATIONS]
// CPU: {{.*}}.mlir:7:3: passed: [LOOP SPLIT] split the loop at iteration 32: the head fuses, the tail keeps the rest (in @unmatched)
// CPU-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:12:3 profit = 256 (in @unmatched)
// CPU: analysis: numLoopsFused = 1
// CPU-LABEL: func.func @unmatched
// CPU-SAME: (%[[A:[a-z0-9_]+]]: memref<64xf32>, %[[OUT:[a-z0-9_]+]]: memref<64xf32>)
// CPU-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 32 {
// CPU-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CPU-NEXT: affine.store %[[X]], %[[A]][%[[I]]]
// CPU-NEXT: affine.store %[[X]], %[[OUT]][%[[I]]]
// CPU-NEXT: }
// CPU-NEXT: affine.for %[[K:[a-z0-9_]+]] = 32 to 64 {
// CPU-NEXT: %[[Y:[a-z0-9_]+]] = affine.load %[[A]][%[[K]]]
// CPU-NEXT: affine.store %[[Y]], %[[A]][%[[K]]]
// CPU-NEXT: }
// CPU-NEXT: return
