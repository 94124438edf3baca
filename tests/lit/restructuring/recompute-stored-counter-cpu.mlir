// Issue 33: a producer that stores its own loop counter (an index buffer, T[i] = i; at depth,
// T[i, j] = i + j) is recomputed at each read with the counter remapped: the read's index names
// the producer iteration, so the recomputed value is an affine.apply of the consumer's IVs.
// Before the fix the counter was passed through unchanged and the producer erased: the consumer
// used a value of a freed loop and the process crashed (SIGSEGV, exit 139).
// RUN: loopopt %s --target cpu --vector-bits 256 --passes fuse --remarks -o %t.5.mlir 2> %t.5.remarks && %cat %t.5.remarks %t.5.mlir | filecheck %s
// RUN: mlir-opt %t.5.mlir > /dev/null
// REQUIRES: mlir-opt

func.func @index_buffer(%out: memref<16xindex>) {
  %t = memref.alloc() : memref<16xindex>
  affine.for %i = 0 to 16 {
    affine.store %i, %t[%i] : memref<16xindex>
  }
  affine.for %i = 0 to 16 {
    %x = affine.load %t[15 - %i] : memref<16xindex>
    affine.store %x, %out[%i] : memref<16xindex>
  }
  memref.dealloc %t : memref<16xindex>
  return
}

func.func @at_depth(%out: memref<8x4xi64>) {
  %t = memref.alloc() : memref<8x8xi64>
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      %s = arith.addi %i, %j : index
      %v = arith.index_cast %s : index to i64
      affine.store %v, %t[%i, %j] : memref<8x8xi64>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 4 {
      %x = affine.load %t[%i, 7 - %j] : memref<8x8xi64>
      affine.store %x, %out[%i, %j] : memref<8x4xi64>
    }
  }
  memref.dealloc %t : memref<8x8xi64>
  return
}

// CHECK: recompute-stored-counter-cpu.mlir:15:3: passed: [RECOMPUTE] producer's value recomputed in the consumer; intermediate removed (in @index_buffer)
// CHECK: recompute-stored-counter-cpu.mlir:25:3: passed: [LOOP FUSION] , level = 0 fused
// CHECK: recompute-stored-counter-cpu.mlir:33:5: passed: [RECOMPUTE] producer slice recomputed in the consumer at depth 1 (one producer iteration per read: (%iv@26:5) = (-%iv@33:5 + 7)); intermediate removed (in @at_depth)
// CHECK-NOT: [INTERNAL]
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0) -> (-d0 + 15)>
// CHECK-DAG: #[[REV2:.*]] = affine_map<(d0, d1) -> (-d1 + 7)>
// CHECK-LABEL: func.func @index_buffer
// CHECK-NOT: memref.alloc
// CHECK: affine.for %[[I:.*]] = 0 to 16 {
// CHECK-NEXT: %[[C:.*]] = affine.apply #[[REV]](%[[I]])
// CHECK-NEXT: affine.store %[[C]], %{{.*}}[%[[I]]] : memref<16xindex>
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-LABEL: func.func @at_depth
// CHECK-NOT: memref.alloc
// CHECK: affine.for %[[O:.*]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 4 {
// CHECK-NEXT: %[[JJ:.*]] = affine.apply #[[REV2]](%[[O]], %[[J]])
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[O]], %[[JJ]] : index
// CHECK-NEXT: %[[V:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK-NEXT: affine.store %[[V]], %{{.*}}[%[[O]], %[[J]]] : memref<8x4xi64>
