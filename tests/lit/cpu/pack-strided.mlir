// Issue 35 (docs/cpu_codegen.md section 31): a 4x4 convolution of stride 4 (a patch embedding),
// as convert-linalg-to-affine-loops writes it. The lanes along the output columns would read every
// fourth element of the input's row: pack-strided copies the input once, before the nest, into
// Xp[c, kh, kw, oh, ow] (its last dimension along the lanes); flat rows joins (oh, ow) into 15
// columns and the register tile runs its lanes over them, two vectors of 8 (the last masked).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.4.mlir 2> %t.4.remarks && %cat %t.4.remarks %t.4.mlir | filecheck %s
// RUN: mlir-opt %t.4.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x3x12x20xf32>, %W: memref<8x3x4x4xf32>, %O: memref<1x8x3x5xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 8 {
      affine.for %y = 0 to 3 {
        affine.for %x = 0 to 5 {
          affine.store %z, %O[%n, %f, %y, %x] : memref<1x8x3x5xf32>
          affine.for %c = 0 to 3 {
            affine.for %i = 0 to 4 {
              affine.for %j = 0 to 4 {
                %u = affine.load %X[%n, %c, %y * 4 + %i, %x * 4 + %j] : memref<1x3x12x20xf32>
                %v = affine.load %W[%f, %c, %i, %j] : memref<8x3x4x4xf32>
                %o = affine.load %O[%n, %f, %y, %x] : memref<1x8x3x5xf32>
                %p = arith.mulf %u, %v : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : memref<1x8x3x5xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}


// CHECK: passed: [STRIDED PACK] operand %arg0, read 4 elements apart along the lanes loop, copied before the nest into a 3x4x4x3x5 buffer whose last dimension runs along it (in @k)
// CHECK: passed: [FLAT ROWS] the loops over 3 rows and 5 columns run as one loop of 15 columns
// CHECK: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order
// CHECK-LABEL: func.func @k
// CHECK: %[[P:[a-z0-9_]+]] = memref.alloc() {alignment = 64 : i64} : memref<3x4x4x3x5xf32>
// CHECK: affine.for %[[C:[a-z0-9_]+]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[I:[a-z0-9_]+]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[J:[a-z0-9_]+]] = 0 to 4 {
// CHECK-NEXT: affine.for %[[Y:[a-z0-9_]+]] = 0 to 3 {
// CHECK-NEXT: affine.for %[[X:[a-z0-9_]+]] = 0 to 5 {
// CHECK-NEXT: %[[V:[0-9]+]] = affine.load %arg0[{{[^,]+}}, %[[C]], %[[Y]] * 4 + %[[I]], %[[X]] * 4 + %[[J]]] : memref<1x3x12x20xf32>
// CHECK-NEXT: affine.store %[[V]], %[[P]][%[[C]], %[[I]], %[[J]], %[[Y]], %[[X]]] : memref<3x4x4x3x5xf32>
// CHECK: %[[F:[a-z0-9_]+]] = memref.collapse_shape %[[P]] {{\[}}[0], [1], [2], [3, 4]] : memref<3x4x4x3x5xf32> into memref<3x4x4x15xf32>
// CHECK: affine.vector_load %[[F]][{{.*}}] : memref<3x4x4x15xf32>, vector<8xf32>
// CHECK: vector.maskedload %[[F]]
// CHECK: memref.dealloc %[[P]] : memref<3x4x4x3x5xf32>
// CHECK-NEXT: return
