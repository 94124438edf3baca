// Rows 256..383 of %t are written but never read: the 384-row producer shrinks to 256 rows and
// then fuses with the consumer directly, without tiling (on both targets).
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @dead_tail(%a: memref<384x4xf32>, %y: memref<256x4xf32>) {
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
  memref.dealloc %t : memref<384x4xf32>
  return
}

// CHECK: {{.*}}.mlir:8:3: passed: [DEAD ITERATIONS] shrink loop to the iterations whose writes are read (in @dead_tail)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:15:3 profit = 8192 (in @dead_tail)
// CHECK-NEXT: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:9:5 and {{.*}}.mlir:16:5 profit = 8192 (in @dead_tail)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:7:8 replaced by its stored values; buffer removed (in @dead_tail)
// CHECK-NEXT: analysis: numLoopsFused = 2

// CHECK-LABEL: func.func @dead_tail
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<384x4xf32>, %[[Y:[a-z0-9_]+]]: memref<256x4xf32>)
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 256 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 4 {
// CHECK-NEXT: %[[V:[a-z0-9_]+]] = affine.load %[[A]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[W:[a-z0-9_]+]] = arith.mulf %[[V]], %[[V]]
// CHECK-NEXT: affine.store %[[W]], %[[Y]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
