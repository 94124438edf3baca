// torch-mlir's einsum td,edh->teh: x @ W with W viewed as d x (e*h), its columns j = e * 32 + h read
// B at [d, j floordiv 32, j mod 32]. isl proves B's address one element further every j (for every
// d of the loop inside), so before the register tile is planned B reads a view joining e and h at
// base + j, and j gives the tile its lanes: 6 x 64 in vector accumulators on the pinned AVX-512 host
// (4 x 24 of 8 lanes on AVX2; it was a scalar 4 x 3 tile).
// A loop inside j whose bounds use j (@moving) keeps its access, and says why.
// RUN: loopopt %s --target cpu --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// RUN: loopopt %s --target cpu --passes product-views --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=STOP
// REQUIRES: mlir-opt
// REMARK: passed: [LINEAR VIEW] 1 access(es) move by one element per iteration in memory (isl): read through a view joining dimensions 1..2 of 16x4x32, at its base plus the loop's counter (in @experts)
// REMARK: passed: [REGISTER TILING] 6 x 64 tile of the reduction in 24 vector accumulators (vector<16xf32>), each sum kept in order (in @experts)
// REMARK-NOT: LINEAR VIEW
// CHECK-LABEL: func.func @experts
// CHECK: %[[V:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1, 2]] : memref<16x4x32xf32> into memref<16x128xf32>
// CHECK: affine.for %[[T:.*]] = 0 to 6 step 6
// CHECK: affine.for %[[J:.*]] = 0 to 128 step 64
// CHECK: affine.for %[[D:.*]] = 0 to 16 iter_args
// CHECK: affine.vector_load %[[V]][%[[D]], %[[J]]] : memref<16x128xf32>, vector<16xf32>
// CHECK: affine.vector_store {{.*}}, %arg2[%[[T]], %[[J]]] : memref<8x128xf32>, vector<16xf32>
// CHECK-LABEL: func.func @moving
// CHECK-NOT: collapse_shape
// CHECK: affine.load %arg0[(%{{.*}} - %{{.*}} + 1) mod 3 + %{{.*}} * 3] : memref<80xf32>
// STOP: missed: [STOP LINEAR VIEW] affine.load at {{.*}}: a loop inside its loop has bounds that use the loop's counter (in @moving)
func.func @experts(%x: memref<8x16xf32>, %w: memref<16x4x32xf32>, %o: memref<8x128xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %t = 0 to 8 {
    affine.for %j = 0 to 128 {
      affine.store %z, %o[%t, %j] : memref<8x128xf32>
    }
  }
  affine.for %t = 0 to 8 {
    affine.for %j = 0 to 128 {
      affine.for %d = 0 to 16 {
        %a = affine.load %x[%t, %d] : memref<8x16xf32>
        %b = affine.load %w[%d, %j floordiv 32, %j mod 32] : memref<16x4x32xf32>
        %c = affine.load %o[%t, %j] : memref<8x128xf32>
        %m = arith.mulf %a, %b : f32
        %s = arith.addf %c, %m : f32
        affine.store %s, %o[%t, %j] : memref<8x128xf32>
      }
    }
  }
  return
}

func.func @moving(%x: memref<80xf32>, %o: memref<16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %j = 0 to 14 {
    %r = affine.for %k = affine_map<(d0) -> (d0)>(%j) to affine_map<(d0) -> (d0 + 2)>(%j) iter_args(%a = %z) -> (f32) {
      %v = affine.load %x[(%j - %k + 1) mod 3 + %k * 3] : memref<80xf32>
      %s = arith.addf %a, %v : f32
      affine.yield %s : f32
    }
    affine.store %r, %o[%j] : memref<16xf32>
  }
  return
}
