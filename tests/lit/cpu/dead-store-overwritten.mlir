// docs/cpu_codegen.md section 23: a store whose element a later store of the same block writes
// again, with no use of the buffer between them, is dead (codegen/cpu/dead_stores.py:
// overwritten_before_read). Here a row's argmax is stored into a buffer the same row iteration
// then overwrites with the target (bufferization reuses one i64 buffer so in lm_logprobs); the
// store goes, the argmax is then a dead carried value, and the row maximum is an exact reduction
// the cpu plan vectorizes.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes scalar-replacement,dead-stores,dead-carried --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
func.func @rows(%x: memref<8x100xf32>, %t: memref<8xi64>, %m: memref<8xf32>, %out: memref<8xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %idx = memref.alloc() : memref<8xi64>
  affine.for %i = 0 to 8 {
    affine.store %c0, %idx[%i] : memref<8xi64>
  }
  affine.for %i = 0 to 8 {
    %r:2 = affine.for %j = 0 to 100 iter_args(%mx = %ninf, %ix = %c0) -> (f32, i64) {
      %v = affine.load %x[%i, %j] : memref<8x100xf32>
      %jj = arith.index_cast %j : index to i64
      %nm = arith.maximumf %v, %mx : f32
      %gt = arith.cmpf ogt, %v, %mx : f32
      %ni = arith.select %gt, %jj, %ix : i64
      affine.yield %nm, %ni : f32, i64
    }
    affine.store %r#0, %m[%i] : memref<8xf32>
    affine.store %r#1, %idx[%i] : memref<8xi64>
    
    %tv = affine.load %t[%i] : memref<8xi64>
    affine.store %tv, %idx[%i] : memref<8xi64>
  }
  affine.for %i = 0 to 8 {
    %v = affine.load %idx[%i] : memref<8xi64>
    %o = affine.load %out[%i] : memref<8xi64>
    %v1 = arith.addi %v, %one : i64
    %w = arith.addi %v1, %o : i64
    affine.store %w, %out[%i] : memref<8xi64>
  }
  memref.dealloc %idx : memref<8xi64>
  return
}

// CHECK-LABEL: func.func @rows
// CHECK: affine.for %[[I:.*]] = 0 to 8 {
// CHECK: affine.for %[[I:.*]] = 0 to 8 {
// CHECK-NEXT: %[[M:.*]] = affine.for %{{.*}} = 0 to 100 iter_args(%[[A:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: affine.load
// CHECK-NEXT: %[[N:.*]] = arith.maximumf %{{.*}}, %[[A]] : f32
// CHECK-NEXT: affine.yield %[[N]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: affine.store %[[M]], %arg2[%[[I]]] : memref<8xf32>
// CHECK-NEXT: %[[T:.*]] = affine.load %arg1[%[[I]]] : memref<8xi64>
// CHECK-NEXT: affine.store %[[T]], %alloc[%[[I]]] : memref<8xi64>
// CHECK-NEXT: }

// REMARK: dead-store-overwritten.mlir:27:5: passed: [DEAD STORE] store removed: nothing that runs after it reads what it writes
// REMARK: dead-store-overwritten.mlir:18:12: passed: [DEAD VALUE] a value carried by the loop is never used: removed (3 ops)
