// Section 38: the columns a 3x3 convolution's tile leaves over run in the narrowest vector that
// holds them. 24 output columns at 16 lanes (512 bits) are one whole vector and 8 columns left
// over: those run as one vector<8xf32>, unmasked (a 16-lane vector would run half idle: on a core
// that splits 512-bit ops in two halves, twice the tail's slots). 7 columns (ResNet's last stage)
// run as one vector of 8 lanes masked past the seventh, not a vector of 4 and a masked one of 4;
// 21 columns as a vector of 16 and one of 8 masked past the fifth.
// Section 44's gate: the 8 columns join the whole vector's step only where their own step starves
// the FMA pipes. 14 rows of one vector<8xf32> are 14 independent sums; two 256-bit pipes of
// latency 4 (Zen 4, --fma-pipes 2x256x4) need 8: the tail keeps its step. With a latency of 8
// (16 needed) the 14 starve them: JOIN, a tile of 12 rows covering all 24 columns in one step,
// a vector<16xf32> and a vector<8xf32> per row, each row's broadcast weight serving both.
// RUN: loopopt %s --target cpu --vector-bits 512 --fma-pipes 2x256x4 --remarks -o %t.24.mlir 2> %t.24.remarks && %cat %t.24.remarks %t.24.mlir | filecheck %s
// RUN: mlir-opt %t.24.mlir > /dev/null
// RUN: sed -e 's/4x24xf32/4x7xf32/g' -e 's/6x26xf32/6x9xf32/g' -e 's/to 24 {/to 7 {/g' %s | loopopt - --target cpu --vector-bits 512 --remarks 2>&1 | filecheck %s --check-prefix=SEVEN
// RUN: sed -e 's/4x24xf32/4x21xf32/g' -e 's/6x26xf32/6x23xf32/g' -e 's/to 24 {/to 21 {/g' %s | loopopt - --target cpu --vector-bits 512 --fma-pipes 2x256x4 --remarks 2>&1 | filecheck %s --check-prefix=MASKED
// RUN: loopopt %s --target cpu --vector-bits 512 --fma-pipes 2x256x8 --remarks -o %t.join.mlir 2> %t.join.remarks && %cat %t.join.remarks %t.join.mlir | filecheck %s --check-prefix=JOIN
// RUN: mlir-opt %t.join.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x4x6x26xf32>, %W: memref<16x4x3x3xf32>, %O: memref<1x16x4x24xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 16 {
      affine.for %y = 0 to 4 {
        affine.for %x = 0 to 24 {
          affine.store %z, %O[%n, %f, %y, %x] : memref<1x16x4x24xf32>
        }
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 16 {
      affine.for %y = 0 to 4 {
        affine.for %x = 0 to 24 {
          affine.for %c = 0 to 4 {
            affine.for %i = 0 to 3 {
              affine.for %j = 0 to 3 {
                %a = affine.load %X[%n, %c, %y + %i, %x + %j] : memref<1x4x6x26xf32>
                %b = affine.load %W[%f, %c, %i, %j] : memref<16x4x3x3xf32>
                %o = affine.load %O[%n, %f, %y, %x] : memref<1x16x4x24xf32>
                %p = arith.mulf %a, %b : f32
                %q = arith.addf %o, %p : f32
                affine.store %q, %O[%n, %f, %y, %x] : memref<1x16x4x24xf32>
              }
            }
          }
        }
      }
    }
  }
  return
}

// CHECK: passed: [REGISTER TILING] 14 x 16 tile of the reduction in 14 vector accumulators (vector<16xf32>), each sum kept in order; the 8 columns left over in one vector<8xf32>, not one of 16 lanes; 28 accumulators live at once (the whole vector and the masked tail run once each, as one block) (in @k)
// CHECK-LABEL: func.func @k
// CHECK-NOT: vector.create_mask
// CHECK: affine.for %{{.*}} = 0 to 14 step 14 {
// CHECK: affine.for %{{.*}} = 0 to 16 step 16 {
// CHECK-COUNT-14: affine.vector_store %{{.*}}, %arg2[{{.*}}] : memref<1x16x4x24xf32>, vector<16xf32>
// CHECK: affine.for %{{.*}} = 16 to 24 step 8 {
// CHECK: affine.vector_load %arg0[{{.*}}] : memref<1x4x6x26xf32>, vector<8xf32>
// CHECK-COUNT-14: affine.vector_store %{{.*}}, %arg2[{{.*}}] : memref<1x16x4x24xf32>, vector<8xf32>
// CHECK: affine.for %{{.*}} = 14 to 16 step 2 {
// CHECK-NOT: vector.create_mask

// SEVEN: passed: [REGISTER TILING] 16 x 8 tile of the reduction in 16 vector accumulators (vector<8xf32>), each sum kept in order; its one vector covers all 7 columns, masked past them (in @k)
// SEVEN: affine.for %{{.*}} = 0 to 7 step 8 {
// SEVEN: vector.create_mask %{{.*}} : vector<8xi1>
// SEVEN: vector.maskedload %arg0[{{.*}}], %{{.*}}, %{{.*}} : memref<1x4x6x9xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>

// MASKED: passed: [REGISTER TILING] 14 x 16 tile of the reduction in 14 vector accumulators (vector<16xf32>), each sum kept in order; the 5 columns left over in one vector<8xf32> (masked past them), not one of 16 lanes; 28 accumulators live at once (the whole vector and the masked tail run once each, as one block) (in @k)
// MASKED: affine.for %{{.*}} = 16 to 21 step 8 {
// MASKED: vector.create_mask %{{.*}} : vector<8xi1>
// MASKED: vector.maskedload %arg0[{{.*}}], %{{.*}}, %{{.*}} : memref<1x4x6x23xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// JOIN: passed: [REGISTER TILING] 12 x 24 tile of the reduction in 24 vector accumulators (vector<16xf32>), each sum kept in order; its 2 vectors cover all 24 columns in one step, the 8 columns left over in one vector<8xf32>, not one of 16 lanes (in @k)
// JOIN-LABEL: func.func @k
// JOIN-NOT: vector.create_mask
// JOIN: affine.for %{{.*}} = 0 to 12 step 12 {
// JOIN: affine.for %{{.*}} = 0 to 24 step 24 {
// JOIN: affine.vector_load %arg0[{{.*}}] : memref<1x4x6x26xf32>, vector<16xf32>
// JOIN: affine.vector_load %arg0[{{.*}}] : memref<1x4x6x26xf32>, vector<8xf32>
// JOIN: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// JOIN: arith.addf %{{.*}} : vector<8xf32>
// JOIN-COUNT-12: affine.vector_store %{{.*}}, %arg2[{{.*}}] : memref<1x16x4x24xf32>, vector<{{16|8}}xf32>
// JOIN: affine.for %{{.*}} = 12 to 16 step 4 {
// JOIN-NOT: vector.create_mask

