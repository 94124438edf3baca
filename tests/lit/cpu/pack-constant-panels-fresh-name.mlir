// Issue 33: the module already has a global named as the panel global pack-constant-panels would
// make (@b_panels32, holding other data, read by @g). The panels get a fresh name (@b_panels32_1);
// @b_panels32 keeps its data and its reader. Before the fix, @f read @b_panels32's data instead
// of the panels (a wrong result).
// RUN: loopopt %s --target cpu --vector-bits 256 --passes pack-constant-panels --remarks -o %t.4.mlir 2> %t.4.remarks && %cat %t.4.remarks %t.4.mlir | filecheck %s
// RUN: mlir-opt %t.4.mlir > /dev/null
// REQUIRES: mlir-opt
module {
  memref.global "private" constant @b : memref<8x128xf32> = dense<1.5> {alignment = 64 : i64}
  memref.global "private" constant @b_panels32 : memref<4x8x32xf32> = dense<-4.0> {alignment = 64 : i64}
  func.func @g(%out: memref<4xf32>) {
    %p = memref.get_global @b_panels32 : memref<4x8x32xf32>
    affine.for %i = 0 to 4 {
      %v = affine.load %p[%i, 3, 5] : memref<4x8x32xf32>
      affine.store %v, %out[%i] : memref<4xf32>
    }
    return
  }
  func.func @f(%out: memref<4x128xf32>) {
    %b = memref.get_global @b : memref<8x128xf32>
    %z = arith.constant dense<0.0> : vector<8xf32>
    affine.for %j = 0 to 96 step 32 {
      %s = affine.for %k = 0 to 8 iter_args(%acc = %z) -> (vector<8xf32>) {
        %v = affine.vector_load %b[%k, %j + 8] : memref<8x128xf32>, vector<8xf32>
        %a = arith.addf %acc, %v : vector<8xf32>
        affine.yield %a : vector<8xf32>
      }
      affine.vector_store %s, %out[0, %j + 8] : memref<4x128xf32>, vector<8xf32>
    }
    return
  }
}

// CHECK: passed: [PACK CONSTANT] 1 load(s) of @b (8 x 128) read column panels of 32: @b_panels32_1 (4 x 8 x 32), one contiguous 8 x 32 block per iteration of this loop (in @f)
// CHECK-NOT: @b :
// CHECK: memref.global "private" constant @b_panels32_1 : memref<4x8x32xf32> = dense<1.500000e+00> {alignment = 64 : i64}
// CHECK-NEXT: memref.global "private" constant @b_panels32 : memref<4x8x32xf32> = dense<-4.000000e+00> {alignment = 64 : i64}
// CHECK-LABEL: func.func @g
// CHECK: memref.get_global @b_panels32 : memref<4x8x32xf32>
// CHECK-LABEL: func.func @f
// CHECK: %[[P:.*]] = memref.get_global @b_panels32_1 : memref<4x8x32xf32>
// CHECK: affine.vector_load %[[P]][%{{.*}} floordiv 32, %{{.*}}, 8] : memref<4x8x32xf32>, vector<8xf32>
