// Issue 35 (docs/cpu_codegen.md section 27): a 1x1 convolution over 2 output rows of 14 columns,
// no multiple of the 8 lanes. The rows and columns run as one loop of 28 columns through views
// joining the last two dimensions of X and O (memref.collapse_shape): the tile sweeps whole
// vectors across the row boundary, and only the last 4 of the 28 columns are left over (one
// vector of 4 lanes, section 38, in one step with a whole vector after a 6 x 16 tile, section 44;
// a 3 x 28 tile's 4 input vectors do not fit 16 registers beside its accumulators, section 45).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.4.mlir 2> %t.4.remarks && %cat %t.4.remarks %t.4.mlir | filecheck %s
// RUN: mlir-opt %t.4.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x5x2x14xf32>, %W: memref<6x5x1x1xf32>, %O: memref<1x6x2x14xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %y = 0 to 2 {
        affine.for %x = 0 to 14 {
          affine.store %z, %O[%n, %f, %y, %x] : memref<1x6x2x14xf32>
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %y = 0 to 2 {
        affine.for %x = 0 to 14 {
          affine.for %c = 0 to 5 {
            affine.for %i = 0 to 1 {
              affine.for %j = 0 to 1 {
                %a = affine.load %X[%n, %c, %y + %i, %x + %j] : memref<1x5x2x14xf32>
                %b = affine.load %W[%f, %c, %i, %j] : memref<6x5x1x1xf32>
                %o = affine.load %O[%n, %f, %y, %x] : memref<1x6x2x14xf32>
                %p = arith.mulf %a, %b : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : memref<1x6x2x14xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}

// CHECK: passed: [FLAT ROWS] the loops over 2 rows and 14 columns run as one loop of 28 columns through a view joining the buffers' last two dimensions (in @k)
// CHECK: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; the 4 columns left over in one vector<4xf32>, not one of 8 lanes; the 12 columns the whole tiles leave over in one step of 2 vectors (in @k)
// CHECK-LABEL: func.func @k
// CHECK-DAG: %[[O:[a-z_0-9]+]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<1x6x2x14xf32> into memref<1x6x28xf32>
// CHECK-DAG: %[[X:[a-z_0-9]+]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<1x5x2x14xf32> into memref<1x5x28xf32>
// CHECK: affine.for %{{.*}} = 0 to 6 step 6 {
// CHECK: affine.for %[[J:[a-z0-9_]+]] = 0 to 16 step 16 {
// CHECK: affine.for %[[C:[a-z0-9_]+]] = 0 to 5 iter_args
// CHECK: affine.vector_load %[[X]][{{[^,]+}}, %[[C]], %[[J]]] : memref<1x5x28xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %[[X]][{{[^,]+}}, %[[C]], %{{[a-z0-9_]+}}] : memref<1x5x28xf32>, vector<8xf32>
// CHECK: affine.yield
// CHECK: affine.vector_store %{{.*}}, %[[O]][{{[^,]+}}, {{[^,]+}}, %[[J]]] : memref<1x6x28xf32>, vector<8xf32>
// The 12 columns left over: a vector of 8 and one of 4 in one step.
// CHECK: affine.for %[[J2:[a-z0-9_]+]] = 16 to 28 step 12 {
// CHECK: affine.for %[[C2:[a-z0-9_]+]] = 0 to 5 iter_args
// CHECK-NEXT: affine.vector_load %[[X]][{{[^,]+}}, %[[C2]], %[[J2]]] : memref<1x5x28xf32>, vector<8xf32>
// CHECK-NEXT: affine.vector_load %[[X]][{{[^,]+}}, %[[C2]], %{{[a-z0-9_]+}}] : memref<1x5x28xf32>, vector<4xf32>
// CHECK: affine.yield
// CHECK: affine.vector_store %{{.*}}, %[[O]][{{[^,]+}}, {{[^,]+}}, %[[J2]]] : memref<1x6x28xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %[[O]][{{[^,]+}}, {{[^,]+}}, %{{[a-z0-9_]+}}] : memref<1x6x28xf32>, vector<4xf32>
// CHECK: return
