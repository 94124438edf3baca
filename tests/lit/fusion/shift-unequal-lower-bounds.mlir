// `0 to %n` and `1 to %n + 1` run equally often: the second body moves onto the first loop's IV
// shifted by one (a single affine.apply at the top of the fused body).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @shift(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %x = affine.load %a[%i] : memref<?xf32>
    %y = arith.mulf %x, %x : f32
    affine.store %y, %t[%i] : memref<?xf32>
  }
  affine.for %i = 1 to affine_map<()[s0] -> (s0 + 1)>()[%n] {
    %x = affine.load %t[%i - 1] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out[%i - 1] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:7:3 and {{.*}}.mlir:12:3 profit = 8192 (in @shift)
// CHECK-NEXT: passed: [CONTRACTION] memref.alloc at {{.*}}.mlir:6:8 replaced by its stored values; buffer removed (in @shift)
// CHECK-NEXT: analysis: numLoopsFused = 1

// The shift is one affine.apply (iv + 1) at the top of the body; the moved store indexes with
// it minus one (not folded back into %i; the loads of the first body use %i directly).
// CHECK: #[[SHIFT:map[0-9]*]] = affine_map<(d0) -> (d0 + 1)>
// CHECK-LABEL: func.func @shift
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<?xf32>, %[[OUT:[a-z0-9_]+]]: memref<?xf32>, %[[N:[a-z0-9_]+]]: index)
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to %[[N]] {
// CHECK-NEXT: %[[I2:[a-z0-9_]+]] = affine.apply #[[SHIFT]](%[[I]])
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[M:[a-z0-9_]+]] = arith.mulf %[[X]], %[[X]]
// CHECK-NEXT: %[[S:[a-z0-9_]+]] = arith.addf %[[M]], %[[M]]
// CHECK-NEXT: affine.store %[[S]], %[[OUT]][%[[I2]] - 1]
// CHECK-NEXT: }
// CHECK-NEXT: return
