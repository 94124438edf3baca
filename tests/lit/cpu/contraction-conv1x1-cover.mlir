// Issue 35: a 1x1 convolution whose 14 output columns are no multiple of the 8 lanes. The tile's
// two vectors cover all of them in one step (no remainder loop): the first loaded and stored
// whole, the second through a mask of the 14 - 8 columns that exist. One output row: with more,
// the rows and columns run as one loop (contraction-conv1x1-flat.mlir).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.4.mlir 2> %t.4.remarks && %cat %t.4.remarks %t.4.mlir | filecheck %s
// RUN: mlir-opt %t.4.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x5x1x14xf32>, %W: memref<6x5x1x1xf32>, %O: memref<1x6x1x14xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %y = 0 to 1 {
        affine.for %x = 0 to 14 {
          affine.store %z, %O[%n, %f, %y, %x] : memref<1x6x1x14xf32>
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %y = 0 to 1 {
        affine.for %x = 0 to 14 {
          affine.for %c = 0 to 5 {
            affine.for %i = 0 to 1 {
              affine.for %j = 0 to 1 {
                %a = affine.load %X[%n, %c, %y + %i, %x + %j] : memref<1x5x1x14xf32>
                %b = affine.load %W[%f, %c, %i, %j] : memref<6x5x1x1xf32>
                %o = affine.load %O[%n, %f, %y, %x] : memref<1x6x1x14xf32>
                %p = arith.mulf %a, %b : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : memref<1x6x1x14xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}

// CHECK: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; its 2 vectors cover all 14 columns in one step, the last one masked (in @k)
// CHECK-DAG: #[[COUNT:map[0-9]*]] = affine_map<(d0) -> (-d0 + 6)>
// CHECK-LABEL: func.func @k
// CHECK: affine.for %{{.*}} = 0 to 6 step 6 {
// CHECK: affine.for %[[J:[a-z0-9_]+]] = 0 to 14 step 16 {
// CHECK: %[[N:[0-9]+]] = affine.apply #[[COUNT]](%[[J]])
// CHECK: %[[M:[0-9]+]] = vector.create_mask %[[N]] : vector<8xi1>
// CHECK: affine.for %[[C:[a-z0-9_]+]] = 0 to 5 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: affine.for
// CHECK: affine.vector_load %arg0[{{[^,]+}}, %[[C]], {{[^,]+}}, %[[J]]{{( \+ [^,]+)?}}] : memref<1x5x1x14xf32>, vector<8xf32>
// CHECK: vector.maskedload %arg0[{{.*}}], %[[M]], %{{.*}} : memref<1x5x1x14xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK-COUNT-6: affine.load %arg1[{{[^,]+}}, %[[C]], {{[^,]+}}, {{[^,]+}}] : memref<6x5x1x1xf32>
// CHECK: affine.yield
// CHECK-NOT: affine.for
// CHECK-COUNT-6: vector.maskedstore %arg2[{{.*}}], %[[M]], %{{.*}} : memref<1x6x1x14xf32>, vector<8xi1>, vector<8xf32>
// CHECK-NOT: affine.for
// CHECK: return
