// After fusion each load of the stack buffer reads the value stored just before it in the same
// iteration: the loads take the stored value and the memref.alloca disappears.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @alloca_chain(%a: memref<32xi32>, %out: memref<32xi32>) {
  %t = memref.alloca() : memref<32xi32>
  %c3 = arith.constant 3 : i32
  affine.for %i = 0 to 32 {
    %x = affine.load %a[%i] : memref<32xi32>
    %y = arith.muli %x, %c3 : i32
    affine.store %y, %t[%i] : memref<32xi32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t[%i] : memref<32xi32>
    %y = arith.addi %x, %x : i32
    affine.store %y, %out[%i] : memref<32xi32>
  }
  return
}

// CHECK: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:13:3 profit = 256 (in @alloca_chain)
// CHECK-NEXT: {{.*}}.mlir:6:8: passed: [CONTRACTION] memref.alloca at {{.*}}.mlir:6:8 replaced by its stored values; buffer removed (in @alloca_chain)
// CHECK-NEXT: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @alloca_chain
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<32xi32>, %[[OUT:[a-z0-9_]+]]: memref<32xi32>)
// CHECK-NEXT: %[[C3:[a-z0-9_]+]] = arith.constant 3 : i32
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 32 {
// CHECK-NEXT: %[[X:[a-z0-9_]+]] = affine.load %[[A]][%[[I]]]
// CHECK-NEXT: %[[Y:[a-z0-9_]+]] = arith.muli %[[X]], %[[C3]]
// CHECK-NEXT: %[[Z:[a-z0-9_]+]] = arith.addi %[[Y]], %[[Y]]
// CHECK-NEXT: affine.store %[[Z]], %[[OUT]][%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
