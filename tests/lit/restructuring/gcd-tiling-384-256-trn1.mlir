// Partition extents 384 and 256 (the seed 001 case; the 384-row loop also writes %x, so its
// tail is live): on trn1 both partition loops are tiled by gcd = 128, each nest is interchanged
// so its 128 point iterations run outermost, and the nests fuse on that loop; the intermediate
// then shrinks to the 3x4 slice one partition needs. On cpu: no tiling, a split.
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=CPU

func.func @partition_extents(%a: memref<384x4xf32>, %b: memref<256x4xf32>, %x: memref<384x4xf32>, %y: memref<256x4xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<384x4xf32>
  affine.for %i = 0 to 384 {
    affine.for %j = 0 to 4 {
      %v = affine.load %a[%i, %j] : memref<384x4xf32>
      %w = arith.mulf %v, %two : f32
      affine.store %w, %t[%i, %j] : memref<384x4xf32>
      %w1 = arith.addf %w, %one : f32
      affine.store %w1, %x[%i, %j] : memref<384x4xf32>
    }
  }
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 4 {
      %w = affine.load %t[%i, %j] : memref<384x4xf32>
      %u = affine.load %b[%i, %j] : memref<256x4xf32>
      %s = arith.addf %w, %u : f32
      affine.store %s, %y[%i, %j] : memref<256x4xf32>
    }
  }
  memref.dealloc %t : memref<384x4xf32>
  return
}

// CHECK: :12:3: passed: [LOOP TILING] by 128 (in @partition_extents)
// CHECK-NEXT: :12:3: passed: [LOOP INTERCHANGE] 1:0:2 (in @partition_extents)
// CHECK-NEXT: :21:3: passed: [LOOP INTERCHANGE] 1:0:2 (in @partition_extents)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:12:3 and {{.*}}.mlir:21:3 profit = 8192 (in @partition_extents)
// CHECK-NEXT: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:12:3 and {{.*}}.mlir:21:3, level = 1, profit = 8192 (in @partition_extents)
// CHECK-NEXT: passed: [CONTRACTION] buffer at {{.*}}.mlir:11:8 shrunk from 384x4 to 3x4: each iteration of the loop at {{.*}}.mlir:12:3 owns its slice (in @partition_extents)
// CHECK-NEXT: analysis: numLoopsFused = 1

// One outer loop over the 128 partitions; inside it the producer's 3 tiles, then the
// consumer's 2 tiles, sharing a 3x4 buffer.
// CHECK-LABEL: func.func @partition_extents
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<384x4xf32>, %[[B:[a-z0-9_]+]]: memref<256x4xf32>, %[[X:[a-z0-9_]+]]: memref<384x4xf32>, %[[Y:[a-z0-9_]+]]: memref<256x4xf32>)
// CHECK: %[[T:[a-z0-9_]+]] = memref.alloc() : memref<3x4xf32>
// CHECK-NEXT: affine.for %[[P:[a-z0-9_]+]] = 0 to 128 {
// CHECK-NEXT: affine.for %[[T1:[a-z0-9_]+]] = 0 to 384 step 128 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 4 {
// CHECK-NEXT: affine.load %[[A]][%[[P]] + %[[T1]], %[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[T]][{{.*}}floordiv 128, %[[J]]] : memref<3x4xf32>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[X]][%[[P]] + %[[T1]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[T2:[a-z0-9_]+]] = 0 to 256 step 128 {
// CHECK-NEXT: affine.for %[[K:[a-z0-9_]+]] = 0 to 4 {
// CHECK-NEXT: affine.load %[[T]][{{.*}}floordiv 128, %[[K]]] : memref<3x4xf32>
// CHECK-NEXT: affine.load %[[B]][%[[P]] + %[[T2]], %[[K]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: affine.store %{{[a-z0-9_]+}}, %[[Y]][%[[P]] + %[[T2]], %[[K]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[T]] : memref<3x4xf32>

// On cpu the 384-row loop is split (its tail writes %x) and the 256-row head fuses.
// CPU-NOT: [LOOP TILING]
// CPU: {{.*}}.mlir:12:3: passed: [LOOP SPLIT] split the loop at iteration 256: the head fuses, the tail keeps the rest (in @partition_extents)
// CPU-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:12:3 and {{.*}}.mlir:21:3 profit = 8192 (in @partition_extents)
// CPU-NOT: [LOOP TILING]
// CPU: analysis: numLoopsFused = 2
// CPU-LABEL: func.func @partition_extents
// CPU-NOT: memref.alloc
// CPU: affine.for %{{[a-z0-9_]+}} = 0 to 256 {
// CPU: affine.for %{{[a-z0-9_]+}} = 256 to 384 {
