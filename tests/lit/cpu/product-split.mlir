// Section 39: a batched Linear layer (PyTorch's (3, 16, 64) -> 32 with a ReLU before it and a
// residual after it, lowered from linalg: the product's rows are the 48 tokens, the ReLU and
// the residual loop over the batch of 3). Fusion's split rescue (unmatched trip counts 3 and 48)
// would split the product's rows loop at iteration 3, fuse its head (3 rows) under the ReLU's
// batch loop and its tail with the bias shifted by 3 rows, whose carried dependence leaves the
// tail's register tile one row high. The cpu keeps a loop over a matrix product's rows, columns
// or reduction whole: the product is one nest of all 48 rows, tiled 6 x 16 (the ReLU and the
// residual run apart).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @ffn_ln(%arg0: memref<3x16x64xf32>, %arg1: memref<64x32xf32>, %arg2: memref<32xf32>, %arg3: memref<3x16x32xf32>, %arg4: memref<3x16x32xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<3x16x64xf32>
  affine.for %arg5 = 0 to 3 {
    affine.for %arg6 = 0 to 16 {
      affine.for %arg7 = 0 to 64 {
        %0 = affine.load %arg0[%arg5, %arg6, %arg7] : memref<3x16x64xf32>
        %1 = arith.cmpf ugt, %0, %cst : f32
        %2 = arith.select %1, %0, %cst : f32
        affine.store %2, %alloc[%arg5, %arg6, %arg7] : memref<3x16x64xf32>
      }
    }
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<48x32xf32>
  affine.for %arg5 = 0 to 48 {
    affine.for %arg6 = 0 to 32 {
      affine.store %cst, %alloc_1[%arg5, %arg6] : memref<48x32xf32>
    }
  }
  affine.for %arg5 = 0 to 48 {
    affine.for %arg6 = 0 to 32 {
      affine.for %arg7 = 0 to 64 {
        %0 = affine.load %alloc[%arg5 floordiv 16, %arg5 mod 16, %arg7] : memref<3x16x64xf32>
        %1 = affine.load %arg1[%arg7, %arg6] : memref<64x32xf32>
        %2 = affine.load %alloc_1[%arg5, %arg6] : memref<48x32xf32>
        %3 = arith.mulf %0, %1 : f32
        %4 = arith.addf %2, %3 : f32
        affine.store %4, %alloc_1[%arg5, %arg6] : memref<48x32xf32>
      }
    }
  }
  affine.for %arg5 = 0 to 48 {
    affine.for %arg6 = 0 to 32 {
      %0 = affine.load %alloc_1[%arg5, %arg6] : memref<48x32xf32>
      %1 = affine.load %arg2[%arg6] : memref<32xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %alloc_1[%arg5, %arg6] : memref<48x32xf32>
    }
  }
  affine.for %arg5 = 0 to 3 {
    affine.for %arg6 = 0 to 16 {
      affine.for %arg7 = 0 to 32 {
        %0 = affine.load %arg3[%arg5, %arg6, %arg7] : memref<3x16x32xf32>
        %1 = affine.load %alloc_1[%arg5 * 16 + %arg6, %arg7] : memref<48x32xf32>
        %2 = arith.addf %0, %1 : f32
        affine.store %2, %arg4[%arg5, %arg6, %arg7] : memref<3x16x32xf32>
      }
    }
  }
  memref.dealloc %alloc : memref<3x16x64xf32>
  memref.dealloc %alloc_1 : memref<48x32xf32>
  return
}

// CHECK: missed: [STOP LOOP SPLIT] the loop runs over the rows or columns of a matrix product it holds: a split at iteration 3 of 48 would cut the product in two, its head under its partner's loop (in @ffn_ln)
// CHECK-NOT: [LOOP SPLIT]
// CHECK: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order (in @ffn_ln)
// CHECK-NOT: one row
// CHECK-LABEL: func.func @ffn_ln
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<48x32xf32>
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 48 step 6 {
// CHECK: affine.for %{{.*}} = 0 to 64 iter_args(
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: affine.for %{{.*}} = 3 to 48
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK: affine.load %[[C]][%{{.*}} * 16 + %{{.*}}, %{{.*}}] : memref<48x32xf32>
