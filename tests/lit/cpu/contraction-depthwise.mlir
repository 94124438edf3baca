// Issue 35: a depthwise 3x3 convolution (no channel reduction: the band is kh, kw). The rows are
// output rows: the weight W[f, kh, kw] is one broadcast for every row and vector, where rows of
// f would need one per row and the input still a vector per row.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.3.mlir 2> %t.3.remarks && %cat %t.3.remarks %t.3.mlir | filecheck %s
// RUN: mlir-opt %t.3.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x6x4x10xf32>, %W: memref<6x1x3x3xf32>, %O: memref<1x6x2x8xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %y = 0 to 2 {
        affine.for %x = 0 to 8 {
          affine.store %z, %O[%n, %f, %y, %x] : memref<1x6x2x8xf32>
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %y = 0 to 2 {
        affine.for %x = 0 to 8 {
            affine.for %i = 0 to 3 {
              affine.for %j = 0 to 3 {
                %a = affine.load %X[%n, %f, %y + %i, %x + %j] : memref<1x6x4x10xf32>
                %b = affine.load %W[%f, 0, %i, %j] : memref<6x1x3x3xf32>
                %o = affine.load %O[%n, %f, %y, %x] : memref<1x6x2x8xf32>
                %p = arith.mulf %a, %b : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : memref<1x6x2x8xf32>
              }
            }
        }
      }
    }
  }
  return
}

// CHECK: passed: [REGISTER TILING] 2 x 8 tile of the reduction in 2 vector accumulators (vector<8xf32>), each sum kept in order (in @k)
// CHECK-LABEL: func.func @k
// CHECK: affine.for %{{.*}} = 0 to 2 step 2 {
// CHECK: affine.for %{{.*}} = 0 to 8 step 8 {
// CHECK: affine.vector_load %arg0[{{[^,]+}}, %[[F:[a-z0-9_]+]], %{{.*}}, %{{.*}}] : memref<1x6x4x10xf32>, vector<8xf32>
// CHECK: affine.vector_load %arg0[{{[^,]+}}, %[[F]], %{{.*}}, %{{.*}}] : memref<1x6x4x10xf32>, vector<8xf32>
// CHECK: %[[W:[a-z0-9_]+]] = affine.load %arg1[%[[F]], 0, %{{.*}}, %{{.*}}] : memref<6x1x3x3xf32>
// CHECK: %[[B:[a-z0-9_]+]] = vector.broadcast %[[W]] : f32 to vector<8xf32>
// CHECK: arith.mulf %{{.*}}, %[[B]] : vector<8xf32>
// CHECK: arith.mulf %{{.*}}, %[[B]] : vector<8xf32>
// CHECK-COUNT-2: affine.vector_store %{{.*}}, %arg2
