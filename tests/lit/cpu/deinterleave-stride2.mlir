// docs/cpu_codegen.md section 35: stride 2 (deinterleave_min_stride 2, the default). @k: a
// depthwise 3x3 convolution of stride 2 (two channels, 2 x 16 outputs): the windows overlap (most
// columns are read by two taps), so the input is copied split by residue mod 2, one channel at a
// time, in vectors of 8 (two loads, one shuffle per residue: lanes 0, 2, .. and 1, 3, ..; the last
// column alone), and the nest reads Xs[2y + i, j mod 2, x + j floordiv 2]: contiguous along x.
// @p: a 2x2 sum pooling window of stride 2 reads each element once: the register tile's two loads
// and a shuffle per vector are what the copy would do, which would only add a store per element;
// refused (TRAFFIC: 96 vector ops without the copy, 128 with it), the tile reads the input itself.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// RUN: loopopt %s --target cpu --vector-bits 256 --passes deinterleave-strided --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=REFUSED
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x2x5x33xf32>, %W: memref<2x3x3xf32>, %O: memref<1x2x2x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %c = 0 to 2 {
    affine.for %y = 0 to 2 {
      affine.for %x = 0 to 16 {
        %s1 = affine.for %i = 0 to 3 iter_args(%a1 = %z) -> (f32) {
          %s2 = affine.for %j = 0 to 3 iter_args(%a2 = %a1) -> (f32) {
            %u = affine.load %X[0, %c, %y * 2 + %i, %x * 2 + %j] : memref<1x2x5x33xf32>
            %v = affine.load %W[%c, %i, %j] : memref<2x3x3xf32>
            %p = arith.mulf %u, %v : f32
            %q = arith.addf %a2, %p : f32
            affine.yield %q : f32
          }
          affine.yield %s2 : f32
        }
        affine.store %s1, %O[0, %c, %y, %x] : memref<1x2x2x16xf32>
      }
    }
  }
  return
}

func.func @p(%X: memref<1x2x4x32xf32>, %O: memref<1x2x2x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %c = 0 to 2 {
    affine.for %y = 0 to 2 {
      affine.for %x = 0 to 16 {
        %s1 = affine.for %i = 0 to 2 iter_args(%a1 = %z) -> (f32) {
          %s2 = affine.for %j = 0 to 2 iter_args(%a2 = %a1) -> (f32) {
            %u = affine.load %X[0, %c, %y * 2 + %i, %x * 2 + %j] : memref<1x2x4x32xf32>
            %q = arith.addf %a2, %u : f32
            affine.yield %q : f32
          }
          affine.yield %s2 : f32
        }
        affine.store %s1, %O[0, %c, %y, %x] : memref<1x2x2x16xf32>
      }
    }
  }
  return
}

// CHECK: passed: [DEINTERLEAVE] operand %arg0, read 2 elements apart along the loop at {{.*}}.mlir:{{[0-9]+}}:7, copied at the start of the loop at {{.*}}.mlir:{{[0-9]+}}:3, one slice per iteration into a 1x5x2x17 buffer by residue mod 2: contiguous along that loop (in @k)
// CHECK: passed: [REGISTER TILING] 2 x 16 tile of the reduction in 4 vector accumulators (vector<8xf32>), each sum kept in order (in @k)
// CHECK: passed: [REGISTER TILING] 2 x 16 tile of the reduction in 4 vector accumulators (vector<8xf32>), each sum kept in order (in @p)
// CHECK-LABEL: func.func @k(
// CHECK: %[[XS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x5x2x17xf32>
// CHECK: affine.for %[[C:.*]] = 0 to 2 {
// CHECK: affine.for %[[H:.*]] = 0 to 5 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: %[[A:.*]] = affine.vector_load %arg0[%{{.*}}, %[[C]], %[[H]], %[[J]] * 2] : memref<1x2x5x33xf32>, vector<8xf32>
// CHECK-NEXT: %[[B:.*]] = affine.vector_load %arg0[%{{.*}}, %[[C]], %[[H]], %[[J]] * 2 + 8] : memref<1x2x5x33xf32>, vector<8xf32>
// CHECK-NEXT: %[[R0:.*]] = vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[R0]], %[[XS]][%{{.*}}, %[[H]], 0, %[[J]]] : memref<1x5x2x17xf32>, vector<8xf32>
// CHECK-NEXT: %[[R1:.*]] = vector.shuffle %[[A]], %[[B]] [1, 3, 5, 7, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[R1]], %[[XS]][%{{.*}}, %[[H]], 1, %[[J]]] : memref<1x5x2x17xf32>, vector<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: affine.for %[[T:.*]] = 0 to 1 {
// CHECK: affine.store %{{.*}}, %[[XS]][%{{.*}}, %[[H]], %[[T]], 16] : memref<1x5x2x17xf32>
// CHECK: affine.vector_load %[[XS]][0, %{{.*}} * 2 + %{{.*}}, %{{.*}} mod 2, %{{.*}} + %{{.*}} floordiv 2] : memref<1x5x2x17xf32>, vector<8xf32>
// CHECK-NOT: vector.shuffle
// CHECK: memref.dealloc %[[XS]] : memref<1x5x2x17xf32>
// CHECK-LABEL: func.func @p(
// CHECK-NOT: memref.alloc
// CHECK: %[[P0:.*]] = affine.vector_load %arg0[0, %{{.*}}, %{{.*}} * 2 + %{{.*}}, %{{.*}} * 2 + %{{.*}}] : memref<1x2x4x32xf32>, vector<8xf32>
// CHECK-NEXT: %[[P1:.*]] = affine.vector_load %arg0[0, %{{.*}}, %{{.*}} * 2 + %{{.*}}, %{{.*}} * 2 + %{{.*}} + 7] : memref<1x2x4x32xf32>, vector<8xf32>
// CHECK-NEXT: vector.shuffle %[[P0]], %[[P1]] [0, 2, 4, 6, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NOT: memref.alloc

// REFUSED: passed: [DEINTERLEAVE] operand %arg0, read 2 elements apart {{.*}} (in @k)
// REFUSED: missed: [STOP DEINTERLEAVE] the register tile de-interleaves stride 2 itself with fewer vector ops than the copy would take over the whole nest (in @p) [1 load(s) of stride 2: 256 uses of 256 elements copied, 16 columns at 8 lanes; 96 vector ops without the copy, 128 with it]
