// Issue 35, B packed per column block: torch's Linear (x @ W^T, the weight transposed into a
// buffer first) with B's 128 x 320 panel over half of the L2 given here (256K), so the register
// tile runs column blocks of 64. The transposing copy moves to the head of each block, restricted
// to the block's 64 columns, into one 128 x 64 buffer every block reuses (`[r, e - jb]`); its
// tiles are then vector transposes. A copy that leaves the last block's columns unwritten (304 of
// 320) keeps the whole buffer (laid out in panels as before) and says why.
// RUN: loopopt %s --target cpu --vector-bits 512 --cache-sizes 32K,256K,8M --remarks -o %t.6.mlir 2> %t.6.remarks && %cat %t.6.remarks %t.6.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.6.mlir
// RUN: mlir-opt %t.6.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @packed(%x: memref<24x128xf32>, %w: memref<320x128xf32>, %y: memref<24x320xf32>) {
  %t = memref.alloc() : memref<128x320xf32>
  affine.for %a = 0 to 128 {
    affine.for %b = 0 to 320 {
      %v = affine.load %w[%b, %a] : memref<320x128xf32>
      affine.store %v, %t[%a, %b] : memref<128x320xf32>
    }
  }
  affine.for %i = 0 to 24 {
    affine.for %j = 0 to 320 {
      %c = affine.load %y[%i, %j] : memref<24x320xf32>
      %r = affine.for %q = 0 to 128 iter_args(%acc = %c) -> (f32) {
        %p = affine.load %x[%i, %q] : memref<24x128xf32>
        %s = affine.load %t[%q, %j] : memref<128x320xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }
      affine.store %r, %y[%i, %j] : memref<24x320xf32>
    }
  }
  memref.dealloc %t : memref<128x320xf32>
  return
}

func.func @partial(%x: memref<24x128xf32>, %w: memref<320x128xf32>, %y: memref<24x320xf32>) {
  %t = memref.alloc() : memref<128x320xf32>
  affine.for %a = 0 to 128 {
    affine.for %b = 0 to 304 {
      %v = affine.load %w[%b, %a] : memref<320x128xf32>
      affine.store %v, %t[%a, %b] : memref<128x320xf32>
    }
  }
  affine.for %i = 0 to 24 {
    affine.for %j = 0 to 320 {
      %c = affine.load %y[%i, %j] : memref<24x320xf32>
      %r = affine.for %q = 0 to 128 iter_args(%acc = %c) -> (f32) {
        %p = affine.load %x[%i, %q] : memref<24x128xf32>
        %s = affine.load %t[%q, %j] : memref<128x320xf32>
        %u = arith.mulf %p, %s : f32
        %v2 = arith.addf %acc, %u : f32
        affine.yield %v2 : f32
      }
      affine.store %r, %y[%i, %j] : memref<24x320xf32>
    }
  }
  memref.dealloc %t : memref<128x320xf32>
  return
}

// REMARK-DAG: pack-column-blocks.mlir:12:8: passed: [PACK B] the 128 x 320 transposed copy is made per column block of 64 at {{.*}}pack-column-blocks.mlir:20:5 into one 128 x 64 buffer (32 KiB): the source is read once, in the product's order, and the whole copy is gone (in @packed)
// REMARK-DAG: pack-column-blocks.mlir:37:8: missed: [STOP PACK B] the copy per block would not write exactly what the block reads (in @partial) [the copy per block would move an element the copy does not move]
// CHECK-LABEL: func.func @packed
// CHECK-NOT: memref<128x320xf32>
// CHECK: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<128x64xf32>
// CHECK: affine.for %[[JB:.*]] = 0 to 320 step 64 {
// CHECK-NEXT: affine.for %[[N:.*]] = 0 to 64 step 16 {
// CHECK-NEXT: %[[E:.*]] = affine.apply #{{.*}}(%[[N]], %[[JB]])
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 128 step 16 {
// CHECK: affine.vector_load %arg1[%{{.*}} + %[[E]], %{{.*}} + %[[K]]] : memref<320x128xf32>, vector<16xf32>
// CHECK: vector.shuffle
// CHECK: affine.vector_store %{{.*}}, %[[T]][%{{.*}} + %[[K]], %{{.*}} + %[[E]] - %[[JB]]] : memref<128x64xf32>, vector<16xf32>
// CHECK: affine.for %{{.*}} = 0 to 24 step 6 {
// CHECK: affine.for %[[J:.*]] = #{{.*}}(%[[JB]]) to #{{.*}}(%[[JB]], %[[JB]]) step 64 {
// CHECK: affine.vector_load %[[T]][%{{.*}}, %[[J]] - %[[JB]]] : memref<128x64xf32>, vector<16xf32>
// CHECK: memref.dealloc %[[T]] : memref<128x64xf32>
// CHECK-LABEL: func.func @partial
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<5x128x64xf32>
