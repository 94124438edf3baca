// Issue 35, section 24: a 3x3 depthwise convolution whose output rows (12 columns at 8 lanes)
// are one whole vector and a tail (of 4 columns: one vector of 4 lanes since section 38). Both run once per row tile, as one block, so each row
// keeps 2 accumulator vectors live: 6 rows fit 16 registers (12 accumulators + 3 spare), where
// 8 rows of one vector were planned before. At 512 bits (28 columns at 16 lanes) the 9 weights,
// loaded once and used by every row, are counted as held too: 10 rows.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.5.mlir 2> %t.5.remarks && %cat %t.5.remarks %t.5.mlir | filecheck %s
// RUN: mlir-opt %t.5.mlir > /dev/null
// RUN: sed -e 's/12xf32/28xf32/g' -e 's/14xf32/30xf32/g' -e 's/to 12 {/to 28 {/g' -e 's/9x28xf32/13x28xf32/g' -e 's/11x30xf32/15x30xf32/g' -e 's/to 9 {/to 13 {/g' %s | loopopt - --target cpu --vector-bits 512 --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=WIDE
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x3x11x14xf32>, %W: memref<3x1x3x3xf32>, %O: memref<1x3x9x12xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 3 {
      affine.for %y = 0 to 9 {
        affine.for %x = 0 to 12 {
          affine.store %z, %O[%n, %f, %y, %x] : memref<1x3x9x12xf32>
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 3 {
      affine.for %y = 0 to 9 {
        affine.for %x = 0 to 12 {
            affine.for %i = 0 to 3 {
              affine.for %j = 0 to 3 {
                %a = affine.load %X[%n, %f, %y + %i, %x + %j] : memref<1x3x11x14xf32>
                %b = affine.load %W[%f, 0, %i, %j] : memref<3x1x3x3xf32>
                %o = affine.load %O[%n, %f, %y, %x] : memref<1x3x9x12xf32>
                %p = arith.mulf %a, %b : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : memref<1x3x9x12xf32>
              }
            }
        }
      }
    }
  }
  return
}

// CHECK: passed: [REGISTER TILING] 6 x 8 tile of the reduction in 6 vector accumulators (vector<8xf32>), each sum kept in order; the 4 columns left over in one vector<4xf32>, not one of 8 lanes; 12 accumulators live at once (the whole vector and the masked tail run once each, as one block) (in @k)
// CHECK-LABEL: func.func @k
// CHECK: affine.for %{{.*}} = 0 to 6 step 6 {
// CHECK: affine.for %{{.*}} = 0 to 8 step 8 {
// CHECK-COUNT-6: affine.vector_store %{{.*}}, %arg2[{{.*}}] : memref<1x3x9x12xf32>, vector<8xf32>
// CHECK: affine.for %{{.*}} = 8 to 12 step 4 {
// CHECK: affine.vector_load %arg0[{{.*}}] : memref<1x3x11x14xf32>, vector<4xf32>
// CHECK-COUNT-6: affine.vector_store %{{.*}}, %arg2[{{.*}}] : memref<1x3x9x12xf32>, vector<4xf32>
// CHECK: affine.for %{{.*}} = 6 to 9 step 3 {

// WIDE: passed: [REGISTER TILING] 10 x 16 tile of the reduction in 10 vector accumulators (vector<16xf32>), each sum kept in order; 20 accumulators live at once (the whole vector and the masked tail run once each, as one block); 9 registers hold values loaded once for all rows (in @k)
