// Issue 35: max pooling, a 2 x 2 window of stride 2. The window is a reduction band (maximumf in the
// iter_args of kh and kw), both loops of 2 iterations unrolled; the rows are output rows; each
// window position reads two vectors and shuffles out every second element.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.3.mlir 2> %t.3.remarks && %cat %t.3.remarks %t.3.mlir | filecheck %s
// RUN: mlir-opt %t.3.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x2x4x16xf32>, %O: memref<1x2x2x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %kk = arith.constant 4.0 : f32
  affine.for %n = 0 to 1 {
    affine.for %c = 0 to 2 {
      affine.for %y = 0 to 2 {
        affine.for %x = 0 to 8 {
          %m = affine.for %i = 0 to 2 iter_args(%u = %ninf) -> (f32) {
            %v = affine.for %j = 0 to 2 iter_args(%t = %u) -> (f32) {
              %a = affine.load %X[%n, %c, %y * 2 + %i, %x * 2 + %j] : memref<1x2x4x16xf32>
              %s = arith.maximumf %t, %a : f32
              affine.yield %s : f32
            }
            affine.yield %v : f32
          }
          affine.store %m, %O[%n, %c, %y, %x] : memref<1x2x2x8xf32>
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
// CHECK-NOT: affine.for
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-COUNT-6: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-COUNT-2: affine.vector_store %{{.*}}, %arg1
