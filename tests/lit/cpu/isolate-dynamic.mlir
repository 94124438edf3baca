// Issue 26: a matrix product fused with other work inside a loop over a dynamic batch (what
// fusion leaves of mlp_dynamic: one hidden row per batch row, contracted to 1 x 20). Product
// isolation expands the row buffer by the batch loop with a dynamic size (the batch's
// `memref.dim`: one copy per row, counted at run time) and splits the loop, so each product
// gets a nest of its own over the whole batch (register tiling then jams its rows). A batch loop
// from 1 sizes the buffer with `affine.max(n - 1, 0)`; a bounded symbolic trip count
// (`min(n, 6)`) gets a static buffer of isl's maximum; an index argument as the trip count is
// refused, and the remark says which buffer and why.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes isolate-products | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --passes isolate-products --remarks -o %t 2>&1 | filecheck %s --check-prefix=REMARK

// REMARK: isolate-dynamic.mlir:46:3: passed: [PRODUCT ISOLATION] loop split into 3 loops: a matrix product in a nest of its own (buffer expanded per iteration to ?x20) (in @batch)
// REMARK: isolate-dynamic.mlir:81:3: passed: [PRODUCT ISOLATION] loop split into 3 loops: a matrix product in a nest of its own (buffer expanded per iteration to ?x20) (in @from_one)
// REMARK: isolate-dynamic.mlir:116:3: passed: [PRODUCT ISOLATION] loop split into 3 loops: a matrix product in a nest of its own (buffer expanded per iteration to 6x20) (in @bounded)
// REMARK: isolate-dynamic.mlir:151:3: missed: [STOP PRODUCT ISOLATION] the matrix product stays in the loop fusion put it in: the buffer at {{.*}}isolate-dynamic.mlir:150:8 cannot have a copy per iteration: the trip count is unknown at compile time and not a dimension of an argument (in @index_bound)
// REMARK-NOT: PRODUCT ISOLATION

// CHECK: #[[FROM1:map[0-9]*]] = affine_map<()[s0] -> (s0 - 1, 0)>
// CHECK-LABEL: func.func @batch(
// CHECK: %[[N:.*]] = memref.dim %arg0
// CHECK-NEXT: %[[H:.*]] = memref.alloc(%[[N]]) : memref<?x20xf32>
// CHECK: affine.for %[[I:.*]] = 0 to %[[N]] {
// CHECK: affine.store %cst, %arg3[%[[I]], %{{.*}}] : memref<?x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[I1:.*]] = 0 to %[[N]] {
// CHECK: affine.store %{{.*}}, %[[H]][%[[I1]], %{{.*}}] : memref<?x20xf32>
// CHECK: affine.for %[[I2:.*]] = 0 to %[[N]] {
// CHECK: affine.load %[[H]][%[[I2]], %{{.*}}] : memref<?x20xf32>
// CHECK: memref.dealloc %[[H]] : memref<?x20xf32>
// CHECK-LABEL: func.func @from_one(
// CHECK: %[[C:.*]] = affine.max #[[FROM1]]()[%[[N1:.*]]]
// CHECK-NEXT: %[[H1:.*]] = memref.alloc(%[[C]]) : memref<?x20xf32>
// CHECK: affine.store %{{.*}}, %[[H1]][%{{.*}} - 1, %{{.*}}] : memref<?x20xf32>
// CHECK: affine.load %[[H1]][%{{.*}} - 1, %{{.*}}] : memref<?x20xf32>
// CHECK-LABEL: func.func @bounded(
// CHECK: memref.alloc() : memref<6x20xf32>
// CHECK-LABEL: func.func @index_bound(
// CHECK: memref.alloc() : memref<1x20xf32>
// CHECK-NOT: memref<?x20xf32>
func.func @batch(%X: memref<?x12xf32>, %W1: memref<12x20xf32>, %W2: memref<20x8xf32>, %Y: memref<?x8xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?x12xf32>
  %h = memref.alloc() : memref<1x20xf32>
  affine.for %i = 0 to %n {
    affine.for %d = 0 to 8 {
      affine.store %z, %Y[%i, %d] : memref<?x8xf32>
    }
    affine.for %j = 0 to 20 {
      %s = affine.for %k = 0 to 12 iter_args(%acc = %z) -> (f32) {
        %x = affine.load %X[%i, %k] : memref<?x12xf32>
        %w = affine.load %W1[%k, %j] : memref<12x20xf32>
        %p = arith.mulf %x, %w : f32
        %a = arith.addf %acc, %p : f32
        affine.yield %a : f32
      }
      %r = arith.maximumf %s, %z : f32
      affine.store %r, %h[0, %j] : memref<1x20xf32>
    }
    affine.for %j = 0 to 20 {
      affine.for %d = 0 to 8 {
        %a = affine.load %h[0, %j] : memref<1x20xf32>
        %w = affine.load %W2[%j, %d] : memref<20x8xf32>
        %y = affine.load %Y[%i, %d] : memref<?x8xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %y, %p : f32
        affine.store %s, %Y[%i, %d] : memref<?x8xf32>
      }
    }
  }
  memref.dealloc %h : memref<1x20xf32>
  return
}

func.func @from_one(%X: memref<?x12xf32>, %W1: memref<12x20xf32>, %W2: memref<20x8xf32>, %Y: memref<?x8xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?x12xf32>
  %h = memref.alloc() : memref<1x20xf32>
  affine.for %i = 1 to %n {
    affine.for %d = 0 to 8 {
      affine.store %z, %Y[%i, %d] : memref<?x8xf32>
    }
    affine.for %j = 0 to 20 {
      %s = affine.for %k = 0 to 12 iter_args(%acc = %z) -> (f32) {
        %x = affine.load %X[%i, %k] : memref<?x12xf32>
        %w = affine.load %W1[%k, %j] : memref<12x20xf32>
        %p = arith.mulf %x, %w : f32
        %a = arith.addf %acc, %p : f32
        affine.yield %a : f32
      }
      %r = arith.maximumf %s, %z : f32
      affine.store %r, %h[0, %j] : memref<1x20xf32>
    }
    affine.for %j = 0 to 20 {
      affine.for %d = 0 to 8 {
        %a = affine.load %h[0, %j] : memref<1x20xf32>
        %w = affine.load %W2[%j, %d] : memref<20x8xf32>
        %y = affine.load %Y[%i, %d] : memref<?x8xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %y, %p : f32
        affine.store %s, %Y[%i, %d] : memref<?x8xf32>
      }
    }
  }
  memref.dealloc %h : memref<1x20xf32>
  return
}

func.func @bounded(%X: memref<?x12xf32>, %W1: memref<12x20xf32>, %W2: memref<20x8xf32>, %Y: memref<?x8xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?x12xf32>
  %h = memref.alloc() : memref<1x20xf32>
  affine.for %i = 0 to min affine_map<()[s0] -> (s0, 6)>()[%n] {
    affine.for %d = 0 to 8 {
      affine.store %z, %Y[%i, %d] : memref<?x8xf32>
    }
    affine.for %j = 0 to 20 {
      %s = affine.for %k = 0 to 12 iter_args(%acc = %z) -> (f32) {
        %x = affine.load %X[%i, %k] : memref<?x12xf32>
        %w = affine.load %W1[%k, %j] : memref<12x20xf32>
        %p = arith.mulf %x, %w : f32
        %a = arith.addf %acc, %p : f32
        affine.yield %a : f32
      }
      %r = arith.maximumf %s, %z : f32
      affine.store %r, %h[0, %j] : memref<1x20xf32>
    }
    affine.for %j = 0 to 20 {
      affine.for %d = 0 to 8 {
        %a = affine.load %h[0, %j] : memref<1x20xf32>
        %w = affine.load %W2[%j, %d] : memref<20x8xf32>
        %y = affine.load %Y[%i, %d] : memref<?x8xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %y, %p : f32
        affine.store %s, %Y[%i, %d] : memref<?x8xf32>
      }
    }
  }
  memref.dealloc %h : memref<1x20xf32>
  return
}

func.func @index_bound(%X: memref<?x12xf32>, %W1: memref<12x20xf32>, %W2: memref<20x8xf32>, %Y: memref<?x8xf32>, %m: index) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?x12xf32>
  %h = memref.alloc() : memref<1x20xf32>
  affine.for %i = 0 to %m {
    affine.for %d = 0 to 8 {
      affine.store %z, %Y[%i, %d] : memref<?x8xf32>
    }
    affine.for %j = 0 to 20 {
      %s = affine.for %k = 0 to 12 iter_args(%acc = %z) -> (f32) {
        %x = affine.load %X[%i, %k] : memref<?x12xf32>
        %w = affine.load %W1[%k, %j] : memref<12x20xf32>
        %p = arith.mulf %x, %w : f32
        %a = arith.addf %acc, %p : f32
        affine.yield %a : f32
      }
      %r = arith.maximumf %s, %z : f32
      affine.store %r, %h[0, %j] : memref<1x20xf32>
    }
    affine.for %j = 0 to 20 {
      affine.for %d = 0 to 8 {
        %a = affine.load %h[0, %j] : memref<1x20xf32>
        %w = affine.load %W2[%j, %d] : memref<20x8xf32>
        %y = affine.load %Y[%i, %d] : memref<?x8xf32>
        %p = arith.mulf %a, %w : f32
        %s = arith.addf %y, %p : f32
        affine.store %s, %Y[%i, %d] : memref<?x8xf32>
      }
    }
  }
  memref.dealloc %h : memref<1x20xf32>
  return
}

