// Issue 35, no cliff in product isolation: fusion leaves a Linear layer as `for k { t = W[:, k];
// C += X[:, k] t }` (t a row of the transposed weight). Expanding t over all 13 iterations of k
// (2600 bytes) exceeds the budget (1600 bytes given), so the loop is cut into strips whose
// expansions fit: 13 has no divisor in [4, 8], so two equal strips, 7 and 6 iterations, each
// expanded and split (the copy, then the product in a nest of its own, put k innermost and
// register tiled; each strip's transposing copy in 4 x 4 tiles, its edges element by element,
// section 32). Each element's sum keeps its order (bit-exact). With a budget below two
// iterations' copies the product stays where fusion put it, and the default remarks say why.
// RUN: loopopt %s --target cpu --vector-bits 256 --loop-opt-sb-size 1600 --remarks -o %t.7.mlir 2> %t.7.remarks && %cat %t.7.remarks %t.7.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.7.mlir
// RUN: loopopt %s --target cpu --vector-bits 256 --loop-opt-sb-size 300 --remarks 2>&1 | filecheck %s --check-prefix=SMALL
// RUN: mlir-opt %t.7.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @strips(%X: memref<9x13xf32>, %W: memref<50x13xf32>, %C: memref<9x50xf32>) {
  %t = memref.alloc() : memref<1x50xf32>
  affine.for %q = 0 to 13 {
    affine.for %b = 0 to 50 {
      %w = affine.load %W[%b, %q] : memref<50x13xf32>
      affine.store %w, %t[0, %b] : memref<1x50xf32>
    }
    affine.for %i = 0 to 9 {
      %x = affine.load %X[%i, %q] : memref<9x13xf32>
      affine.for %j = 0 to 50 {
        %v = affine.load %t[0, %j] : memref<1x50xf32>
        %c = affine.load %C[%i, %j] : memref<9x50xf32>
        %p = arith.mulf %x, %v : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<9x50xf32>
      }
    }
  }
  memref.dealloc %t : memref<1x50xf32>
  return
}

// REMARK: isolate-strips.mlir:16:3: passed: [PRODUCT ISOLATION] loop cut into strips of 7 iterations, each split: a matrix product in a nest of its own (all iterations' copies would exceed the budget, 1600 bytes) (buffer expanded per strip to 7x50, 6x50) (in @strips)
// REMARK: passed: [REGISTER TILING] 4 x 24 tile
// REMARK: passed: [REGISTER TILING] 4 x 24 tile

// CHECK-LABEL: func.func @strips
// CHECK: %[[S1:.*]] = memref.alloc() : memref<7x50xf32>
// CHECK: %[[S2:.*]] = memref.alloc() : memref<6x50xf32>
// CHECK: affine.for %[[K1:.*]] = 0 to 4 step 4 {
// CHECK: affine.vector_store %{{.*}}, %[[S1]][%[[K1]], %{{.*}}] : memref<7x50xf32>, vector<4xf32>
// CHECK: affine.for %[[K1E:.*]] = 4 to 7 {
// CHECK: affine.store %{{.*}}, %[[S1]][%[[K1E]], %{{.*}}] : memref<7x50xf32>
// CHECK: affine.for %{{.*}} = 0 to 8 step 4 {
// CHECK: affine.for %[[K2:.*]] = 0 to 7 iter_args(
// CHECK: affine.vector_load %[[S1]][%[[K2]], %{{.*}}] : memref<7x50xf32>, vector<8xf32>
// CHECK: affine.for %[[K3:.*]] = 7 to 11 step 4 {
// CHECK: affine.vector_store %{{.*}}, %[[S2]][%[[K3]] - 7, %{{.*}}] : memref<6x50xf32>, vector<4xf32>
// CHECK: affine.for %[[K4:.*]] = 7 to 13 iter_args(
// CHECK: affine.vector_load %[[S2]][%[[K4]] - 7, %{{.*}}] : memref<6x50xf32>, vector<8xf32>

// SMALL: isolate-strips.mlir:16:3: missed: [STOP PRODUCT ISOLATION] the matrix product stays in the loop fusion put it in: two iterations' copies of its buffers (400 bytes) exceed the budget (300 bytes) (in @strips)
