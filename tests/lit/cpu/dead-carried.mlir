// Issue 35: a value a loop carries that nothing uses but its own update is dropped with the ops that
// compute it, on every target (transforms/dead_carried.py, step `dead-carried`). @rowmax: the first
// index of the row maximum (torch's aten.max.dim) is never used; without it the loop over columns
// carries only the maximum, an exact reduction the cpu plan vectorizes. @stored: the index is stored
// into a buffer nobody reads: dropped with its store. @kept: the index is an output: kept.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes dead-carried --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: loopopt %s --target trn1 --passes dead-carried -o - | filecheck %s --check-prefix=TRN1
// RUN: loopopt %s --target cpu --vector-bits 256 --passes dead-carried,vectorize --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=VEC
func.func @rowmax(%X: memref<8x64xf32>, %M: memref<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  affine.for %i = 0 to 8 {
    %m:2 = affine.for %j = 0 to 64 iter_args(%mx = %ninf, %ix = %c0) -> (f32, i64) {
      %x = affine.load %X[%i, %j] : memref<8x64xf32>
      %jj = arith.index_cast %j : index to i64
      %nm = arith.maximumf %x, %mx : f32
      %gt = arith.cmpf ogt, %x, %mx : f32
      %ni = arith.select %gt, %jj, %ix : i64
      affine.yield %nm, %ni : f32, i64
    }
    affine.store %m#0, %M[%i] : memref<8xf32>
  }
  return
}

func.func @stored(%X: memref<8x64xf32>, %M: memref<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %idx = memref.alloc() : memref<8xi64>
  affine.for %i = 0 to 8 {
    %m:2 = affine.for %j = 0 to 64 iter_args(%mx = %ninf, %ix = %c0) -> (f32, i64) {
      %x = affine.load %X[%i, %j] : memref<8x64xf32>
      %jj = arith.index_cast %j : index to i64
      %nm = arith.maximumf %x, %mx : f32
      %gt = arith.cmpf ogt, %x, %mx : f32
      %ni = arith.select %gt, %jj, %ix : i64
      affine.yield %nm, %ni : f32, i64
    }
    affine.store %m#0, %M[%i] : memref<8xf32>
    affine.store %m#1, %idx[%i] : memref<8xi64>
  }
  memref.dealloc %idx : memref<8xi64>
  return
}

func.func @kept(%X: memref<8x64xf32>, %M: memref<8xf32>, %I: memref<8xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  affine.for %i = 0 to 8 {
    %m:2 = affine.for %j = 0 to 64 iter_args(%mx = %ninf, %ix = %c0) -> (f32, i64) {
      %x = affine.load %X[%i, %j] : memref<8x64xf32>
      %jj = arith.index_cast %j : index to i64
      %nm = arith.maximumf %x, %mx : f32
      %gt = arith.cmpf ogt, %x, %mx : f32
      %ni = arith.select %gt, %jj, %ix : i64
      affine.yield %nm, %ni : f32, i64
    }
    affine.store %m#0, %M[%i] : memref<8xf32>
    affine.store %m#1, %I[%i] : memref<8xi64>
  }
  return
}

// CHECK-LABEL: func.func @rowmax
// CHECK: %[[M:.*]] = affine.for %{{.*}} = 0 to 64 iter_args(%[[MX:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = affine.load
// CHECK-NEXT: %[[NM:.*]] = arith.maximumf %[[X]], %[[MX]] : f32
// CHECK-NEXT: affine.yield %[[NM]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: affine.store %[[M]]
// CHECK-LABEL: func.func @stored
// CHECK: affine.for %{{.*}} = 0 to 64 iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK-NOT: index_cast
// CHECK-NOT: memref<8xi64>, i64
// CHECK: affine.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<8xf32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func @kept
// CHECK: affine.for %{{.*}} = 0 to 64 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, i64) {
// CHECK: arith.select

// REMARK: dead-carried.mlir:14:12: passed: [DEAD VALUE] a value carried by the loop is never used: removed (3 ops) (in @rowmax)
// REMARK: dead-carried.mlir:32:12: passed: [DEAD VALUE] a value carried by the loop is never used: removed (3 ops) (in @stored)
// REMARK-NOT: @kept

// TRN1-LABEL: func.func @rowmax
// TRN1: affine.for %{{.*}} = 0 to 64 iter_args(%{{.*}} = %{{.*}}) -> (f32) {

// VEC: dead-carried.mlir:14:12: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8 (in @rowmax)
