// docs/cpu_codegen.md section 48: a stride-2 depthwise 3x3 convolution over rows of an even width
// (torch pads MobileNet's 14 columns to 16; the windows read 15): each channel's 15 rows are copied
// whole as one stream (`plane_rows`), through a view joining rows and columns, into a 2 x 120
// buffer (residue, (h * 16 + e) / 2): 15 vector steps of two loads, two shuffles and two stores,
// no column left over per row; the nest reads Xs[.., j mod 2, (2y + i) * 8 + x + j floordiv 2]
// in one masked vector of 7 columns.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x2x15x16xf32>, %W: memref<2x3x3xf32>, %O: memref<1x2x7x7xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %c = 0 to 2 {
    affine.for %y = 0 to 7 {
      affine.for %x = 0 to 7 {
        %s1 = affine.for %i = 0 to 3 iter_args(%a1 = %z) -> (f32) {
          %s2 = affine.for %j = 0 to 3 iter_args(%a2 = %a1) -> (f32) {
            %u = affine.load %X[0, %c, %y * 2 + %i, %x * 2 + %j] : memref<1x2x15x16xf32>
            %v = affine.load %W[%c, %i, %j] : memref<2x3x3xf32>
            %p = arith.mulf %u, %v : f32
            %q = arith.addf %a2, %p : f32
            affine.yield %q : f32
          }
          affine.yield %s2 : f32
        }
        affine.store %s1, %O[0, %c, %y, %x] : memref<1x2x7x7xf32>
      }
    }
  }
  return
}

// CHECK: passed: [DEINTERLEAVE] operand %arg0, read 2 elements apart along the loop at {{.*}}.mlir:{{[0-9]+}}:7, copied at the start of the loop at {{.*}}.mlir:{{[0-9]+}}:3, one slice per iteration into a 1x2x120 buffer by residue mod 2: contiguous along that loop (in @k)
// CHECK: passed: [REGISTER TILING] 7 x 8 tile of the reduction in 7 vector accumulators (vector<8xf32>), each sum kept in order; its one vector covers all 7 columns, masked past them (in @k)
// CHECK: #[[ROW:.*]] = affine_map<(d0, d1, d2, d3, d4) -> ((d1 * 2 + d2) * 8 + d3 + d4 floordiv 2)>
// CHECK-LABEL: func.func @k(
// CHECK: %[[XS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x120xf32>
// CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<1x2x15x16xf32> into memref<1x2x240xf32>
// CHECK-NEXT: affine.for %[[C:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[N:.*]] = 0 to 1 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 120 step 8 {
// CHECK-NEXT: %[[A:.*]] = affine.vector_load %[[V]][%[[N]], %[[C]], %[[J]] * 2] : memref<1x2x240xf32>, vector<8xf32>
// CHECK-NEXT: %[[B:.*]] = affine.vector_load %[[V]][%[[N]], %[[C]], %[[J]] * 2 + 8] : memref<1x2x240xf32>, vector<8xf32>
// CHECK-NEXT: %[[R0:.*]] = vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[R0]], %[[XS]][%[[N]], 0, %[[J]]] : memref<1x2x120xf32>, vector<8xf32>
// CHECK-NEXT: %[[R1:.*]] = vector.shuffle %[[A]], %[[B]] [1, 3, 5, 7, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[R1]], %[[XS]][%[[N]], 1, %[[J]]] : memref<1x2x120xf32>, vector<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: affine.store %{{.*}}, %[[XS]]
// CHECK: affine.apply #[[ROW]](
// CHECK: vector.maskedload %[[XS]]
// CHECK-NOT: vector.shuffle
// CHECK: memref.dealloc %[[XS]] : memref<1x2x120xf32>
