// Issue 35: a 3x3 convolution of stride 2. The lanes read every second element of the input's row:
// a vector at the first lane's element, one ending at the last lane's (W - 1 further: nothing
// past it is read), and a shuffle keeping lanes 0, 2, 4, 6 of the first and 1, 3, 5, 7 of the
// second.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.4.mlir 2> %t.4.remarks && %cat %t.4.remarks %t.4.mlir | filecheck %s
// RUN: mlir-opt %t.4.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x8x5x17xf32>, %W: memref<6x8x3x3xf32>, %O: memref<1x6x2x8xf32>) {
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
          affine.for %c = 0 to 8 {
            affine.for %i = 0 to 3 {
              affine.for %j = 0 to 3 {
                %a = affine.load %X[%n, %c, %y * 2 + %i, %x * 2 + %j] : memref<1x8x5x17xf32>
                %b = affine.load %W[%f, %c, %i, %j] : memref<6x8x3x3xf32>
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
  }
  return
}

// CHECK: passed: [REGISTER TILING] 6 x 8 tile of the reduction in 6 vector accumulators (vector<8xf32>), each sum kept in order (in @k)
// CHECK-LABEL: func.func @k
// CHECK: affine.for %[[C:[a-z0-9_]+]] = 0 to 8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: %[[A:[a-z0-9_]+]] = affine.vector_load %arg0[{{[^,]+}}, %[[C]], %{{.*}} * 2 + %{{.*}}, %[[X:[a-z0-9_]+]] * 2 + %[[J:[a-z0-9_]+]]] : memref<1x8x5x17xf32>, vector<8xf32>
// CHECK: %[[B:[a-z0-9_]+]] = affine.vector_load %arg0[{{[^,]+}}, %[[C]], %{{.*}} * 2 + %{{.*}}, %[[X]] * 2 + %[[J]] + 7] : memref<1x8x5x17xf32>, vector<8xf32>
// CHECK: vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// CHECK-COUNT-8: vector.shuffle
// CHECK: affine.yield
