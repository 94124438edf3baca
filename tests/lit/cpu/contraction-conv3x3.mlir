// Issue 35, one planner for contractions: a 3x3 convolution (NCHW) as convert-linalg-to-affine-loops
// writes it (a fill, then the sum in memory over c, kh, kw). Scalar replacement chains the sum
// through the iter_args of c, kh and kw: one reduction band. The tile's rows are the output
// channels f (the weight broadcast per row), jammed across the loop over output rows; its lanes
// the output columns (one vector of the input shared by the rows); c carries the 6 accumulators,
// the 3 x 3 kernel positions run unrolled inside it, in their order (each sum in the input's
// order: bit-exact). The batch loop of one iteration is dropped first.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.7.mlir 2> %t.7.remarks && %cat %t.7.remarks %t.7.mlir | filecheck %s
// RUN: mlir-opt %t.7.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x8x4x10xf32>, %W: memref<6x8x3x3xf32>, %O: memref<1x6x2x8xf32>) {
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
                %a = affine.load %X[%n, %c, %y + %i, %x + %j] : memref<1x8x4x10xf32>
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

// CHECK: passed: [UNIT LOOP] 1 loop of one iteration replaced by its body (in @k)
// CHECK: passed: [REGISTER TILING] 6 x 8 tile of the reduction in 6 vector accumulators (vector<8xf32>), each sum kept in order (in @k)
// CHECK-LABEL: func.func @k
// CHECK: affine.for %[[F:[a-z0-9_]+]] = 0 to 6 step 6 {
// CHECK: affine.for %[[Y:[a-z0-9_]+]] = 0 to 2 {
// CHECK: affine.for %[[X:[a-z0-9_]+]] = 0 to 8 step 8 {
// CHECK: affine.for %[[C:[a-z0-9_]+]] = 0 to 8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: affine.vector_load %arg0[{{[^,]+}}, %[[C]], %[[Y]] + %{{.*}}, %[[X]] + %{{.*}}] : memref<1x8x4x10xf32>, vector<8xf32>
// CHECK-COUNT-6: affine.load %arg1[%{{.*}}, %[[C]], %{{.*}}, %{{.*}}] : memref<6x8x3x3xf32>
// CHECK: vector.broadcast
// CHECK: arith.mulf
// CHECK-COUNT-8: affine.vector_load %arg0
// CHECK-NOT: affine.vector_load %arg0
// CHECK: affine.yield
// CHECK-COUNT-6: affine.vector_store %{{.*}}, %arg2
// CHECK: return
