// Issue 35: a 1-D convolution with its padding copy, as the lowering writes torch's Conv1d(padding=1).
// Fusion may not interchange the convolution to fuse the copy at the channel loop (the cpu's
// interchange check: the reduction band c, kw would be split around the output loops, the sums
// then kept in memory across the channels); the convolution keeps c and kw inside, and its tile
// carries the sums in registers across both (kw unrolled).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.5.mlir 2> %t.5.remarks && %cat %t.5.remarks %t.5.mlir | filecheck %s
// RUN: mlir-opt %t.5.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @k(%X: memref<1x8x8xf32>, %W: memref<6x8x3xf32>, %O: memref<1x6x8xf32>) {
  %z = arith.constant 0.0 : f32
  %P = memref.alloc() : memref<1x8x10xf32>
  affine.for %n = 0 to 1 {
    affine.for %c = 0 to 8 {
      affine.for %x = 0 to 10 {
        affine.store %z, %P[%n, %c, %x] : memref<1x8x10xf32>
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %c = 0 to 8 {
      affine.for %x = 0 to 8 {
        %v = affine.load %X[%n, %c, %x] : memref<1x8x8xf32>
        affine.store %v, %P[%n, %c, %x + 1] : memref<1x8x10xf32>
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %x = 0 to 8 {
        affine.store %z, %O[%n, %f, %x] : memref<1x6x8xf32>
      }
    }
  }
  affine.for %n = 0 to 1 {
    affine.for %f = 0 to 6 {
      affine.for %x = 0 to 8 {
        affine.for %c = 0 to 8 {
          affine.for %j = 0 to 3 {
            %a = affine.load %P[%n, %c, %x + %j] : memref<1x8x10xf32>
            %b = affine.load %W[%f, %c, %j] : memref<6x8x3xf32>
            %o = affine.load %O[%n, %f, %x] : memref<1x6x8xf32>
            %m = arith.mulf %a, %b : f32
            %s = arith.addf %o, %m : f32
            affine.store %s, %O[%n, %f, %x] : memref<1x6x8xf32>
          }
        }
      }
    }
  }
  memref.dealloc %P : memref<1x8x10xf32>
  return
}

// CHECK-NOT: [LOOP INTERCHANGE]
// CHECK: passed: [REGISTER TILING] 6 x 8 tile of the reduction in 6 vector accumulators (vector<8xf32>), each sum kept in order (in @k)
// CHECK-LABEL: func.func @k
// CHECK: affine.for %{{.*}} = 0 to 6 step 6 {
// CHECK: affine.for %[[C:[a-z0-9_]+]] = 0 to 8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: affine.store
// CHECK-COUNT-3: affine.vector_load %{{.*}}[{{[^,]+}}, %[[C]], %{{.*}}] : memref<1x8x10xf32>, vector<8xf32>
// CHECK: affine.yield
// CHECK-COUNT-6: affine.vector_store %{{.*}}, %arg2
