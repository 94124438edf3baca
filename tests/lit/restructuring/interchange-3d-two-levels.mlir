// The consumer nest runs (k, i, j) over the (i, j, k) intermediate: interchanged at level 0
// (1:0:2) and again one level down (1:0), the nests fuse at all three levels and the
// intermediate becomes a scalar. %a is still loaded twice per iteration (nothing merges loads).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @batched_3d_chain(%a: memref<8x8x8xf32>, %out: memref<8x8x8xf32>) {
  %half = arith.constant 0.5 : f32
  %t = memref.alloc() : memref<8x8x8xf32>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.for %k = 0 to 8 {
        %x = affine.load %a[%i, %j, %k] : memref<8x8x8xf32>
        %y = arith.mulf %x, %half : f32
        affine.store %y, %t[%i, %j, %k] : memref<8x8x8xf32>
      }
    }
  }
  affine.for %k = 0 to 8 {
    affine.for %i = 0 to 8 {
      affine.for %j = 0 to 8 {
        %y = affine.load %t[%i, %j, %k] : memref<8x8x8xf32>
        %x = affine.load %a[%i, %j, %k] : memref<8x8x8xf32>
        %z = arith.addf %y, %x : f32
        affine.store %z, %out[%i, %j, %k] : memref<8x8x8xf32>
      }
    }
  }
  memref.dealloc %t : memref<8x8x8xf32>
  return
}

// CHECK: :18:3: passed: [LOOP INTERCHANGE] 1:0:2 (in @batched_3d_chain)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:9:3 and {{.*}}.mlir:18:3 profit = 4096 (in @batched_3d_chain)
// CHECK-NEXT: :18:3: passed: [LOOP INTERCHANGE] 1:0 (in @batched_3d_chain)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:10:5 and {{.*}}.mlir:18:3 profit = 4096 (in @batched_3d_chain)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 2 fused {{.*}}.mlir:11:7 and {{.*}}.mlir:18:3 profit = 6144 (in @batched_3d_chain)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:8:8 replaced by its stored values; buffer removed (in @batched_3d_chain)
// CHECK-NEXT: :11:7: passed: [FLAT LOOPS] the loops over 8 rows and 8 columns run as one loop of 64 columns through a view joining the buffers' last two dimensions (in @batched_3d_chain)
// CHECK-NEXT: analysis: numLoopsFused = 3

// The fused (j, k) pair, rows of whole vectors, then runs as one loop of 64 (flat-loops, section 41).
// CHECK-LABEL: func.func @batched_3d_chain
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8x8x8xf32>, %[[OUT:[a-z0-9_]+]]: memref<8x8x8xf32>)
// CHECK-NEXT: %[[HALF:[a-z0-9_]+]] = arith.constant 5.0{{.*}}e-01
// CHECK-NEXT: %[[AV:[a-z0-9_]+]] = memref.collapse_shape %[[A]] {{\[\[}}0], [1, 2]] : memref<8x8x8xf32> into memref<8x64xf32>
// CHECK-NEXT: %[[OV:[a-z0-9_]+]] = memref.collapse_shape %[[OUT]] {{\[\[}}0], [1, 2]] : memref<8x8x8xf32> into memref<8x64xf32>
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[JK:[a-z0-9_]+]] = 0 to 64 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[AV]][%[[I]], %[[JK]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.mulf %[[X]], %[[HALF]]
// CHECK-NEXT: %[[X2:[a-z0-9_]+]] = affine.load %[[AV]][%[[I]], %[[JK]]]
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = arith.addf %[[Y]], %[[X2]]
// CHECK-NEXT: affine.store %[[Z]], %[[OV]][%[[I]], %[[JK]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
