// Two reductions over one column, each carrying its value in iter_args, fuse into one loop
// that carries both (loop_optimization/iter_args_fusion.py); each result is remapped to its slot.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fusion --remarks 2>&1 | filecheck %s

func.func @sum_and_product(%a: memref<8x8xf32>, %o1: memref<8xf32>, %o2: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  affine.for %j = 0 to 8 {
    %s = affine.for %k = 0 to 8 iter_args(%acc = %zero) -> f32 {
      %x = affine.load %a[%k, %j] : memref<8x8xf32>
      %n = arith.addf %acc, %x : f32
      affine.yield %n : f32
    }
    %p = affine.for %k = 0 to 8 iter_args(%acc = %one) -> f32 {
      %x = affine.load %a[%k, %j] : memref<8x8xf32>
      %n = arith.mulf %acc, %x : f32
      affine.yield %n : f32
    }
    affine.store %s, %o1[%j] : memref<8xf32>
    affine.store %p, %o2[%j] : memref<8xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:9:10: passed: [LOOP FUSION] , level = 1 fused {{.*}}.mlir:9:10 and {{.*}}.mlir:14:10 profit = 256 (in @sum_and_product) [the fused loop carries the iter_args of both loops (1 + 1), results remapped; %arg0 read by both loops in one fused iteration (read once from memory)]
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @sum_and_product
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<8x8xf32>, %[[O1:[a-z0-9_]+]]: memref<8xf32>, %[[O2:[a-z0-9_]+]]: memref<8xf32>)
// CHECK: %[[ZERO:[a-z0-9_]+]] = arith.constant 0.0
// CHECK-NEXT: %[[ONE:[a-z0-9_]+]] = arith.constant 1.0
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: %[[R:[0-9]+]]:2 = affine.for %[[K:[a-z0-9_]+]] = 0 to 8 iter_args(%[[S:[a-z0-9_]+]] = %[[ZERO]], %[[P:[a-z0-9_]+]] = %[[ONE]]) -> (f32, f32) {
// CHECK-NEXT: %[[X:[0-9]+]] = affine.load %[[A]][%[[K]], %[[J]]]
// CHECK-NEXT: %[[S2:[0-9]+]] = arith.addf %[[S]], %[[X]]
// CHECK-NEXT: %[[Y:[0-9]+]] = affine.load %[[A]][%[[K]], %[[J]]]
// CHECK-NEXT: %[[P2:[0-9]+]] = arith.mulf %[[P]], %[[Y]]
// CHECK-NEXT: affine.yield %[[S2]], %[[P2]] : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: affine.store %[[R]]#0, %[[O1]][%[[J]]]
// CHECK-NEXT: affine.store %[[R]]#1, %[[O2]][%[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
