// Issue 35, gpt2_layer: the row sum after a product (layer norm's mean after the projection) is
// not fused into the product's loop over columns: it would make the loop register tiling blocks
// carry a sum its lanes may not share, and the product would run one scalar dot product per
// element. The product is tiled; the sum runs after it in a nest of its own.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
func.func @k(%A: memref<12x32xf32>, %B: memref<32x64xf32>, %bias: memref<64xf32>, %D: memref<12x64xf32>, %S: memref<12xf32>) {
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
      affine.for %r = 0 to 32 {
        %x = affine.load %A[%i, %r] : memref<12x32xf32>
        %y = affine.load %B[%r, %j] : memref<32x64xf32>
        %c = affine.load %C[%i, %j] : memref<12x64xf32>
        %p = arith.mulf %x, %y : f32
        %q = arith.addf %c, %p : f32
        affine.store %q, %C[%i, %j] : memref<12x64xf32>
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


// CHECK: product-row-sum.mlir:11:5: missed: [STOP FUSION] a product's output loop would carry a reduction its tile's lanes may not share: {{.*}}product-row-sum.mlir:11:5 and {{.*}}product-row-sum.mlir:39:5, level = 1, {{.*}}[the loop at {{.*}}product-row-sum.mlir:11:5 holds a product's reduction loop; the loop at {{.*}}product-row-sum.mlir:39:5 carries a reduction by arith.addf, not one the tile's lanes may share]
// CHECK: product-row-sum.mlir:11:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order
// CHECK-LABEL: func.func @k
// CHECK: affine.for %[[I:.*]] = 0 to 12 step 4 {
// CHECK: affine.for %[[J:.*]] = 0 to 48 step 24 {
// CHECK: affine.for %{{.*}} = 0 to 32 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: iter_args
// CHECK: affine.vector_store %{{.*}}, %arg3[%[[I]], %[[J]]] : memref<12x64xf32>, vector<8xf32>
// the row sum, after the product: over the columns, from D in memory
// CHECK: affine.for %{{.*}} = 0 to 64 step 8 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>) {
// CHECK: affine.vector_load %arg3[
// CHECK: affine.vector_store %{{.*}}, %arg4[%{{.*}}] : memref<12xf32>, vector<8xf32>
// CHECK: return
