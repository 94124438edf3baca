// Section 52: a register tile's loads counted by the elements they read. Four phases of a stride-4
// transposed convolution (k8), fused in one nest, read the same input: per step of the tap loop
// two input vectors (x[j + k], x[j + k + 1]), each loaded by two phases, and four weights. Counted
// once each, the rows of the batch (the weight broadcast once per step for all of them, an input
// vector per row) beat rows of the output channel (a broadcast per row and phase): a 3 x 8 tile
// over n, 12 accumulators (3 rows x 1 vector x 4 phases). The emitted body keeps a load per phase;
// LLVM keeps the first of two that read one element.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
// REMARK: [REGISTER TILING] 3 x 8 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order
// CHECK: affine.for %[[N:.*]] = 0 to 3 step 3 {
// CHECK: affine.for %[[F:.*]] = 0 to 8 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 40 step 8 {
// CHECK: affine.for %[[C:.*]] = 0 to 8 iter_args
// CHECK: affine.vector_load %arg0[%[[N]], %[[C]], %[[J]] + %c0] : memref<4x8x43xf32>, vector<8xf32>
// CHECK: affine.load %arg1[%[[F]], %[[C]], %c0 * 4 + 1] : memref<8x8x8xf32>
// CHECK: affine.vector_load %arg0[%[[N]], %[[C]], %[[J]] + %c0 + 1] : memref<4x8x43xf32>, vector<8xf32>
// CHECK: affine.load %arg1[%[[F]], %[[C]], %c0 * 4 + 3] : memref<8x8x8xf32>
// CHECK: affine.vector_store %{{.*}}#0, %arg2[%[[N]], %[[F]], %[[J]]] : memref<4x8x40xf32>, vector<8xf32>
// CHECK: affine.for %{{.*}} = 3 to 4 {
func.func @k(%x: memref<4x8x43xf32>, %w: memref<8x8x8xf32>, %o0: memref<4x8x40xf32>, %o1: memref<4x8x40xf32>,
             %o2: memref<4x8x40xf32>, %o3: memref<4x8x40xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 4 {
    affine.for %f = 0 to 8 {
      affine.for %j = 0 to 40 {
        %r:4 = affine.for %c = 0 to 8 iter_args(%a0 = %z, %a1 = %z, %a2 = %z, %a3 = %z) -> (f32, f32, f32, f32) {
          %s:4 = affine.for %k = 0 to 2 iter_args(%b0 = %a0, %b1 = %a1, %b2 = %a2, %b3 = %a3) -> (f32, f32, f32, f32) {
            %x0 = affine.load %x[%n, %c, %j + %k] : memref<4x8x43xf32>
            %w0 = affine.load %w[%f, %c, %k * 4 + 1] : memref<8x8x8xf32>
            %m0 = arith.mulf %x0, %w0 : f32
            %t0 = arith.addf %b0, %m0 : f32
            %x1 = affine.load %x[%n, %c, %j + %k] : memref<4x8x43xf32>
            %w1 = affine.load %w[%f, %c, %k * 4] : memref<8x8x8xf32>
            %m1 = arith.mulf %x1, %w1 : f32
            %t1 = arith.addf %b1, %m1 : f32
            %x2 = affine.load %x[%n, %c, %j + %k + 1] : memref<4x8x43xf32>
            %w2 = affine.load %w[%f, %c, %k * 4 + 3] : memref<8x8x8xf32>
            %m2 = arith.mulf %x2, %w2 : f32
            %t2 = arith.addf %b2, %m2 : f32
            %x3 = affine.load %x[%n, %c, %j + %k + 1] : memref<4x8x43xf32>
            %w3 = affine.load %w[%f, %c, %k * 4 + 2] : memref<8x8x8xf32>
            %m3 = arith.mulf %x3, %w3 : f32
            %t3 = arith.addf %b3, %m3 : f32
            affine.yield %t0, %t1, %t2, %t3 : f32, f32, f32, f32
          }
          affine.yield %s#0, %s#1, %s#2, %s#3 : f32, f32, f32, f32
        }
        affine.store %r#0, %o0[%n, %f, %j] : memref<4x8x40xf32>
        affine.store %r#1, %o1[%n, %f, %j] : memref<4x8x40xf32>
        affine.store %r#2, %o2[%n, %f, %j] : memref<4x8x40xf32>
        affine.store %r#3, %o3[%n, %f, %j] : memref<4x8x40xf32>
      }
    }
  }
  return
}
