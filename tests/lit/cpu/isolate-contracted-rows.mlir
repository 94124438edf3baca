// Section 39: a Linear layer at a batch of one (the unit batch folded away), a ReLU before it and
// a residual and a mean subtraction after it, lowered from linalg. Fusion puts everything in the
// loop over the 16 tokens, the ReLU inside the product's reduction loop (interchanged k outside
// j to align with it), and contraction shrinks the product's output and its A to the row one
// token owns: C[0, j] += a[0, k] * W[k, j], two IVs, which product isolation did not take for a
// product: a GEMV per token, W streamed 16 times. Isolation now also tries a loop whose update's
// output is a buffer it may expand: expanded (16x1x32, 16x64, 16) and split, the product is
// again a nest over its 16 rows, put k innermost and tiled 6 x 16 (12 rows, then a block of 4). The ReLU
// writing A runs as one loop of 16 x 64 (flat-loops, section 41).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2> %t.remarks && cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @ffn_ln(%arg0: memref<1x16x64xf32>, %arg1: memref<64x32xf32>, %arg2: memref<32xf32>, %arg3: memref<1x16x32xf32>, %arg4: memref<1x16x32xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 3.200000e+01 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<16x64xf32>
  affine.for %arg5 = 0 to 16 {
    affine.for %arg6 = 0 to 64 {
      %0 = affine.load %arg0[0, %arg5, %arg6] : memref<1x16x64xf32>
      %1 = arith.cmpf ugt, %0, %cst : f32
      %2 = arith.select %1, %0, %cst : f32
      affine.store %2, %alloc[%arg5, %arg6] : memref<16x64xf32>
    }
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
  affine.for %arg5 = 0 to 16 {
    affine.for %arg6 = 0 to 32 {
      affine.store %cst, %alloc_1[%arg5, %arg6] : memref<16x32xf32>
    }
  }
  affine.for %arg5 = 0 to 16 {
    affine.for %arg6 = 0 to 32 {
      affine.for %arg7 = 0 to 64 {
        %0 = affine.load %alloc[%arg5, %arg7] : memref<16x64xf32>
        %1 = affine.load %arg1[%arg7, %arg6] : memref<64x32xf32>
        %2 = affine.load %alloc_1[%arg5, %arg6] : memref<16x32xf32>
        %3 = arith.mulf %0, %1 : f32
        %4 = arith.addf %2, %3 : f32
        affine.store %4, %alloc_1[%arg5, %arg6] : memref<16x32xf32>
      }
    }
  }
  affine.for %arg5 = 0 to 16 {
    affine.for %arg6 = 0 to 32 {
      %0 = affine.load %alloc_1[%arg5, %arg6] : memref<16x32xf32>
      %1 = affine.load %arg2[%arg6] : memref<32xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %alloc_1[%arg5, %arg6] : memref<16x32xf32>
    }
  }
  affine.for %arg5 = 0 to 16 {
    affine.for %arg6 = 0 to 32 {
      %0 = affine.load %arg3[0, %arg5, %arg6] : memref<1x16x32xf32>
      %1 = affine.load %alloc_1[%arg5, %arg6] : memref<16x32xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %alloc_1[%arg5, %arg6] : memref<16x32xf32>
    }
  }
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  affine.for %arg5 = 0 to 16 {
    affine.store %cst, %alloc_2[%arg5] : memref<16xf32>
  }
  affine.for %arg5 = 0 to 16 {
    affine.for %arg6 = 0 to 32 {
      %0 = affine.load %alloc_1[%arg5, %arg6] : memref<16x32xf32>
      %1 = affine.load %alloc_2[%arg5] : memref<16xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %alloc_2[%arg5] : memref<16xf32>
    }
  }
  affine.for %arg5 = 0 to 16 {
    affine.for %arg6 = 0 to 32 {
      %0 = affine.load %alloc_1[%arg5, %arg6] : memref<16x32xf32>
      %1 = affine.load %alloc_2[%arg5] : memref<16xf32>
      %2 = arith.divf %1, %cst_0 : f32
      %3 = arith.subf %0, %2 : f32
      affine.store %3, %alloc_1[%arg5, %arg6] : memref<16x32xf32>
    }
  }
  affine.for %arg5 = 0 to 1 {
    affine.for %arg6 = 0 to 16 {
      affine.for %arg7 = 0 to 32 {
        %0 = affine.load %alloc_1[%arg5 * 16 + %arg6, %arg7] : memref<16x32xf32>
        affine.store %0, %arg4[%arg5, %arg6, %arg7] : memref<1x16x32xf32>
      }
    }
  }
  memref.dealloc %alloc : memref<16x64xf32>
  memref.dealloc %alloc_1 : memref<16x32xf32>
  memref.dealloc %alloc_2 : memref<16xf32>
  return
}

// CHECK: passed: [PRODUCT ISOLATION] loop split into 6 loops: a matrix product in a nest of its own (buffer expanded per iteration to 16x1x32, 16x64, 16); the product's rows, contracted to the one each iteration owns, are the loop's again (in @ffn_ln)
// CHECK: passed: [REGISTER TILING] 6 x 16 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order (in @ffn_ln)
// CHECK-LABEL: func.func @ffn_ln
// CHECK: %[[A:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<16x1x32xf32>
// CHECK: %[[AV:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1]] : memref<16x64xf32> into memref<1024xf32>
// CHECK: affine.for %[[T:.*]] = 0 to 1024 {
// CHECK: affine.store %{{.*}}, %[[AV]][%[[T]]] : memref<1024xf32>
// CHECK: affine.for %{{.*}} = 0 to 12 step 6 {
// CHECK: affine.for %{{.*}} = 0 to 64 iter_args(
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: affine.for %{{.*}} = 12 to 16 step 4 {
