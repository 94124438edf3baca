// Section 84 (a user's elementwise fusion before loopopt): MLIR's linalg-fuse-elementwise-ops
// reshapes an attention block's output projection to read the heads directly, a product whose
// reduction runs over two loops, C[i, j] += A[i, h, d] * B[h, d, j]. The row sum after it (layer
// norm's mean) must stay out of its loop over columns, as with one reduction loop: fused, that
// loop would carry the sum and the register tile would be refused (`product_band_of`). The
// product is tiled over its band; the sum runs after it in a nest of its own.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.mlir 2>%t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// REQUIRES: mlir-opt
// REMARK: product-band-row-sum.mlir:28:5: missed: [STOP FUSION] a product's output loop would carry a reduction its tile's lanes may not share: {{.*}}product-band-row-sum.mlir:28:5 and {{.*}}product-band-row-sum.mlir:58:5, level = 1, {{.*}}[the loop at {{.*}}product-band-row-sum.mlir:28:5 holds a product's reduction loop; the loop at {{.*}}product-band-row-sum.mlir:58:5 carries a reduction by arith.addf, not one the tile's lanes may share]
// REMARK: product-band-row-sum.mlir:28:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order
// CHECK-LABEL: func.func @k
// the product over its band (h, 4 iterations, run as copies of d's loop), 4 x 24 in registers
// CHECK: affine.for %[[I:.*]] = 0 to 12 step 4 {
// CHECK: affine.for %[[J:.*]] = 0 to 48 step 24 {
// CHECK: affine.for %{{.*}} = 0 to 8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: affine.vector_store %{{.*}}, %arg3[%[[I]], %[[J]]] : memref<12x64xf32>, vector<8xf32>
// the row sum, after the product: over the columns, from D in memory
// CHECK: affine.for %{{.*}} = 0 to 64 step 8 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>) {
// CHECK: affine.load %arg3
func.func @k(%A: memref<12x4x8xf32>, %B: memref<4x8x64xf32>, %bias: memref<64xf32>, %D: memref<12x64xf32>, %S: memref<12xf32>) {
  %z = arith.constant 0.0 : f32
  %init = arith.constant 0.0 : f32
  %C = memref.alloc() : memref<12x64xf32>
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 64 {
      affine.store %z, %C[%i, %j] : memref<12x64xf32>
    }
  }
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 64 {
      affine.for %h = 0 to 4 {
        affine.for %d = 0 to 8 {
          %x = affine.load %A[%i, %h, %d] : memref<12x4x8xf32>
          %y = affine.load %B[%h, %d, %j] : memref<4x8x64xf32>
          %c = affine.load %C[%i, %j] : memref<12x64xf32>
          %p = arith.mulf %x, %y : f32
          %q = arith.addf %c, %p : f32
          affine.store %q, %C[%i, %j] : memref<12x64xf32>
        }
      }
    }
  }
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 64 {
      %c = affine.load %C[%i, %j] : memref<12x64xf32>
      %w = affine.load %bias[%j] : memref<64xf32>
      %e = arith.addf %c, %w : f32
      affine.store %e, %D[%i, %j] : memref<12x64xf32>
    }
  }
  affine.for %i = 0 to 12 {
    affine.store %init, %S[%i] : memref<12xf32>
  }
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 64 {
      %e = affine.load %D[%i, %j] : memref<12x64xf32>
      %s = affine.load %S[%i] : memref<12xf32>
      %t = arith.addf %s, %e : f32
      affine.store %t, %S[%i] : memref<12xf32>
    }
  }
  memref.dealloc %C : memref<12x64xf32>
  return
}
