// A later loop reads rows 256..383 of %t: the producer's tail is live, so it keeps its 384
// iterations and (on cpu) the pair is refused for unmatched trip counts.
// RUN: loopopt %s --target cpu --remarks 2>&1 | filecheck %s

func.func @live_tail(%a: memref<384x4xf32>, %y: memref<256x4xf32>, %z: memref<384x4xf32>) {
  %t = memref.alloc() : memref<384x4xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 4 {
      %v = affine.load %a[%i, %j] : memref<384x4xf32>
      %w = arith.mulf %v, %v : f32
      affine.store %w, %t[%i, %j] : memref<384x4xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      affine.store %w, %y[%i, %j] : memref<256x4xf32>
    }
  }
  affine.for %i = 256 to 384 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      affine.store %w, %z[%i, %j] : memref<384x4xf32>
    }
  }
  memref.dealloc %t : memref<384x4xf32>
  return
}

// CHECK-NOT: [DEAD ITERATIONS]
// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:7:3 and {{.*}}.mlir:14:3, level = 0, profit = 12288 (in @live_tail)
// CHECK-NOT: [DEAD ITERATIONS]
// CHECK: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @live_tail
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 384 {
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 256 {
// CHECK: affine.for %{{[a-z0-9_]+}} = 256 to 384 {
