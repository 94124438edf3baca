// docs/cpu_codegen.md section 35: a depthwise 5x5 convolution of stride 3 (two channels, 2 x 10
// outputs). Every loop around the sum moves the input, so no im2col copy is reused (pack-strided
// refuses); the lanes along the output columns would read every third element. deinterleave-strided
// copies the input split by residue mod 3, one channel at a time at the start of the channel loop
// (the channel's IV alone indexes its dimension): Xs[h, r, j] = X[c, h, 3j + r], in vectors of 8
// (three loads, two shuffles per residue; the last group overlaps the one before; the last two
// columns one by one), and the nest reads Xs[3y + i, j mod 3, x + j floordiv 3]: contiguous along
// x. The register tile then runs its lanes along x.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x2x8x32xf32>, %W: memref<2x5x5xf32>, %O: memref<1x2x2x10xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %c = 0 to 2 {
    affine.for %y = 0 to 2 {
      affine.for %x = 0 to 10 {
        %s1 = affine.for %i = 0 to 5 iter_args(%a1 = %z) -> (f32) {
          %s2 = affine.for %j = 0 to 5 iter_args(%a2 = %a1) -> (f32) {
            %u = affine.load %X[0, %c, %y * 3 + %i, %x * 3 + %j] : memref<1x2x8x32xf32>
            %v = affine.load %W[%c, %i, %j] : memref<2x5x5xf32>
            %p = arith.mulf %u, %v : f32
            %q = arith.addf %a2, %p : f32
            affine.yield %q : f32
          }
          affine.yield %s2 : f32
        }
        affine.store %s1, %O[0, %c, %y, %x] : memref<1x2x2x10xf32>
      }
    }
  }
  return
}

// The same nest in the order torch-mlir lowers a depthwise convolution (y, x, c): the channels
// around the sum read the input a plane apart. The step reorders the band (c, y, x) first (legal:
// no dependence), then copies each channel's slice at the start of the channel loop.
func.func @t(%X: memref<1x2x8x32xf32>, %W: memref<2x5x5xf32>, %O: memref<1x2x2x10xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %y = 0 to 2 {
    affine.for %x = 0 to 10 {
      affine.for %c = 0 to 2 {
        %s1 = affine.for %i = 0 to 5 iter_args(%a1 = %z) -> (f32) {
          %s2 = affine.for %j = 0 to 5 iter_args(%a2 = %a1) -> (f32) {
            %u = affine.load %X[0, %c, %y * 3 + %i, %x * 3 + %j] : memref<1x2x8x32xf32>
            %v = affine.load %W[%c, %i, %j] : memref<2x5x5xf32>
            %p = arith.mulf %u, %v : f32
            %q = arith.addf %a2, %p : f32
            affine.yield %q : f32
          }
          affine.yield %s2 : f32
        }
        affine.store %s1, %O[0, %c, %y, %x] : memref<1x2x2x10xf32>
      }
    }
  }
  return
}


// CHECK: passed: [DEINTERLEAVE] operand %arg0, read 3 elements apart along the loop at {{.*}}.mlir:{{[0-9]+}}:7, copied at the start of the loop at {{.*}}.mlir:{{[0-9]+}}:3, one slice per iteration into a 1x8x3x11 buffer by residue mod 3: contiguous along that loop (in @k)
// CHECK: passed: [DEINTERLEAVE] operand %arg0, read 3 elements apart along the loop at {{.*}}.mlir:{{[0-9]+}}:5, copied at the start of the loop at {{.*}}.mlir:{{[0-9]+}}:7, one slice per iteration into a 1x8x3x11 buffer by residue mod 3: contiguous along that loop (the band reordered 2:0:1 first, the slicing loops outermost) (in @t)
// CHECK: passed: [REGISTER TILING] {{.*}} tile of the reduction in {{.*}} vector accumulators (vector<8xf32>){{.*}}(in @k)
// CHECK: passed: [REGISTER TILING] {{.*}} tile of the reduction in {{.*}} vector accumulators (vector<8xf32>){{.*}}(in @t)
// CHECK-LABEL: func.func @k
// CHECK: %[[D:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<1x8x3x11xf32>
// CHECK-NEXT: memref.collapse_shape %[[D]] {{\[\[}}0, 1, 2, 3]] : memref<1x8x3x11xf32> into memref<264xf32>
// CHECK-NEXT: affine.for %[[C:[a-z0-9_]+]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[N:[a-z0-9_]+]] = 0 to 1 {
// CHECK-NEXT: affine.for %[[H:[a-z0-9_]+]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 8 step 8 {
// CHECK-NEXT: %[[V0:[0-9]+]] = affine.vector_load %arg0[%[[N]], %[[C]], %[[H]], %[[J]] * 3] : memref<1x2x8x32xf32>, vector<8xf32>
// CHECK-NEXT: %[[V1:[0-9]+]] = affine.vector_load %arg0[%[[N]], %[[C]], %[[H]], %[[J]] * 3 + 8] : memref<1x2x8x32xf32>, vector<8xf32>
// CHECK-NEXT: %[[V2:[0-9]+]] = affine.vector_load %arg0[%[[N]], %[[C]], %[[H]], %[[J]] * 3 + 16] : memref<1x2x8x32xf32>, vector<8xf32>
// CHECK-NEXT: %[[S0:[0-9]+]] = vector.shuffle %[[V0]], %[[V1]] [0, 3, 6, 9, 12, 15, 6, 7] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: %[[R0:[0-9]+]] = vector.shuffle %[[S0]], %[[V2]] [0, 1, 2, 3, 4, 5, 10, 13] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_store %[[R0]], %[[D]][%[[N]], %[[H]], 0, %[[J]]] : memref<1x8x3x11xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %[[D]][%[[N]], %[[H]], 2, %[[J]]] : memref<1x8x3x11xf32>, vector<8xf32>
// CHECK: affine.vector_load %arg0[%[[N]], %[[C]], %[[H]], 6] : memref<1x2x8x32xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %[[D]][%[[N]], %[[H]], 0, 2] : memref<1x8x3x11xf32>, vector<8xf32>
// CHECK: affine.for %[[T:[a-z0-9_]+]] = 0 to 2 {
// CHECK: affine.store %{{.*}}, %[[D]][%[[N]], %[[H]], %[[T]], 10] : memref<1x8x3x11xf32>
// CHECK: affine.vector_load %[[D]][0, {{.*}} mod 3, {{.*}} floordiv 3] : memref<1x8x3x11xf32>, vector<8xf32>
// CHECK: memref.dealloc %[[D]] : memref<1x8x3x11xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @t
// CHECK: %[[E:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<1x8x3x11xf32>
// CHECK-NEXT: memref.collapse_shape %[[E]] {{\[\[}}0, 1, 2, 3]] : memref<1x8x3x11xf32> into memref<264xf32>
// CHECK-NEXT: affine.for %[[TC:[a-z0-9_]+]] = 0 to 2 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 1 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 step 8 {
// CHECK-NEXT: affine.vector_load %arg0[%{{.*}}, %[[TC]], %{{.*}}, %{{.*}} * 3] : memref<1x2x8x32xf32>, vector<8xf32>
// CHECK: affine.vector_load %[[E]][0, {{.*}} mod 3, {{.*}} floordiv 3] : memref<1x8x3x11xf32>, vector<8xf32>
// CHECK: memref.dealloc %[[E]] : memref<1x8x3x11xf32>
// CHECK-NEXT: return
