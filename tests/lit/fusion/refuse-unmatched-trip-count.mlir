// 64 against 32 iterations, and every iteration of the longer loop is live (it also writes the
// argument %a), so dead-iteration elimination cannot shrink it: the pair is refused.
// RUN: loopopt %s --target cpu --remarks 2>&1 | filecheck %s

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

// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:7:3 and {{.*}}.mlir:12:3, level = 0, profit = 256 (in @unmatched)
// CHECK-NOT: [DEAD ITERATIONS]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @unmatched
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 64 {
// CHECK-COUNT-2: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %{{[a-z0-9_]+}} = 0 to 32 {
