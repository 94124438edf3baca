// Issue 35: a 1x1 convolution. Its kernel loops run one iteration each: dropped first (step unit-loops,
// one remark for the function), the nest is
// a matrix product over the channels (rows of f, lanes of ow, the sum over c in iter_args).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.2.mlir 2> %t.2.remarks && %cat %t.2.remarks %t.2.mlir | filecheck %s
// RUN: mlir-opt %t.2.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x8x2x8xf32>, %W: memref<6x8x1x1xf32>, %O: memref<1x6x2x8xf32>) {
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
            affine.for %i = 0 to 1 {
              affine.for %j = 0 to 1 {
                %a = affine.load %X[%n, %c, %y + %i, %x + %j] : memref<1x8x2x8xf32>
                %b = affine.load %W[%f, %c, %i, %j] : memref<6x8x1x1xf32>
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

// CHECK: passed: [UNIT LOOP] 3 loops of one iteration replaced by their bodies; 1 loop around them now innermost (in @k)
// CHECK: passed: [REGISTER TILING] 6 x 8 tile of the reduction in 6 vector accumulators (vector<8xf32>), each sum kept in order (in @k)
// CHECK-LABEL: func.func @k
// CHECK: affine.for %{{.*}} = 0 to 6 step 6 {
// CHECK: affine.for %[[C:[a-z0-9_]+]] = 0 to 8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: affine.for
// CHECK: affine.vector_load %arg0[{{[^,]+}}, %[[C]], %{{.*}}, %{{.*}}] : memref<1x8x2x8xf32>, vector<8xf32>
// CHECK-COUNT-6: affine.load %arg1[{{[^,]+}}, %[[C]], {{[^,]+}}, {{[^,]+}}] : memref<6x8x1x1xf32>
// CHECK: affine.yield
// CHECK-COUNT-6: affine.vector_store %{{.*}}, %arg2
