// docs/cpu_codegen.md section 27: a store into an argument whose elements a later nest writes
// again is dead (codegen/cpu/dead_stores.py: overwriting_nest) only when no run-time check that
// may abort runs between the two writes (check_between): the argument is seen at an abort.
// @kept: the check between keeps %out's first write. @removed: the check runs before the first
// write, so every abort sees %out as it was, and the first write goes.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes dead-stores --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
func.func @kept(%x: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %c2 = arith.constant 2.0 : f32
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    affine.store %v, %out[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    %ok = arith.cmpf oge, %v, %c0 : f32
    cf.assert %ok, "negative input"
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    %w = arith.mulf %v, %c2 : f32
    affine.store %w, %out[%i] : memref<8xf32>
  }
  return
}

func.func @removed(%x: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %c2 = arith.constant 2.0 : f32
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    %ok = arith.cmpf oge, %v, %c0 : f32
    cf.assert %ok, "negative input"
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    affine.store %v, %out[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %x[%i] : memref<8xf32>
    %w = arith.mulf %v, %c2 : f32
    affine.store %w, %out[%i] : memref<8xf32>
  }
  return
}

// CHECK-LABEL: func.func @kept
// CHECK: affine.for
// CHECK-NEXT: %[[V:.*]] = affine.load %arg0
// CHECK-NEXT: affine.store %[[V]], %arg1
// CHECK: cf.assert
// CHECK: arith.mulf
// CHECK-NEXT: affine.store
// CHECK-LABEL: func.func @removed
// CHECK: cf.assert
// CHECK: affine.for
// CHECK-NEXT: affine.load %arg0
// CHECK-NEXT: }
// CHECK: arith.mulf
// CHECK-NEXT: affine.store

// REMARK: dead-store-check-between.mlir:13:5: missed: [DEAD STORE] store into an argument kept: the run-time check at {{.*}}dead-store-check-between.mlir:18:5 may abort between it and the store that writes its elements again, and the argument is seen at the abort (in @kept)
// REMARK: dead-store-check-between.mlir:38:5: passed: [DEAD STORE] store into an argument removed: every element it writes is written again before it is read (in @removed)
