// A later loop reads rows 256..383 of %t: the producer's tail is live, so it is not shrunk; on
// cpu it is split off ([LOOP SPLIT]) and the head fuses with the consumer (see the checks).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

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

// The tail moves after the consumer and fuses with the later loop; the stores to %t that
// forwarding left unread go, with the buffer.
// CHECK-NOT: [DEAD ITERATIONS]
// CHECK: {{.*}}.mlir:7:3: passed: [LOOP SPLIT] split the loop at iteration 256: the head fuses, the tail keeps the rest (in @live_tail)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:14:3 profit = 12288 (in @live_tail)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:20:3 profit = 4096 (in @live_tail)
// CHECK-NOT: [DEAD ITERATIONS]
// CHECK: {{.*}}.mlir:6:8: passed: [DEAD STORE] buffer removed: nothing reads it (in @live_tail)
// CHECK-NEXT: analysis: numLoopsFused = 4

// CHECK-LABEL: func.func @live_tail
// CHECK-NOT: memref.alloc
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 256 {
// CHECK: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] : memref<256x4xf32>
// CHECK: affine.for %{{[a-z0-9_]+}} = 256 to 384 {
// CHECK: affine.store
// CHECK-NOT: affine.store
// CHECK: return
