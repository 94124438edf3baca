// Issue 35, a dynamic batch's rows left over by the row blocks (docs/cpu_codegen.md section 51):
// C = A B over %m rows (a memref.dim), rows cut into blocks of 104 for a 40 KiB L2 (given:
// --cache-sizes; the sum's whole 48 x 24 micro-panel, 4.5 KiB, within an eighth of it: section 65).
// The rows the whole blocks leave over (all of them when %m < 104) start at
// (%m floordiv 104) * 104 itself, not at max(0, that): %m >= 0, so the start is never below the
// lower bound 0 (`register_tile.start_of_rest`). With one lower bound their loop is register tiled
// as the blocks are (4 x 24 at 256 bits: 4 rows per step, then one at a time), not one row per
// step on a 1 x 32 tile. A lower bound that may lie above the upper one keeps the max.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 1K,40K,160K --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.mlir
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @batch(%A: memref<?x48xf32>, %B: memref<48x112xf32>, %C: memref<?x112xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x48xf32>
  affine.for %i = 0 to %m {
    affine.for %j = 0 to 112 {
      %r = affine.for %k = 0 to 48 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<?x48xf32>
        %b = affine.load %B[%k, %j] : memref<48x112xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<?x112xf32>
    }
  }
  return
}
// REMARK: [CACHE TILING] ? x 112 x 48 product (4 x 24 register tile): rows in blocks of 104
// REMARK-NOT: [REGISTER TILING] 1 x
// REMARK: [REGISTER TILING] 4 x 24 tile
// REMARK-NOT: [REGISTER TILING] 1 x
// REMARK: [REGISTER TILING] 4 x 24 tile
// REMARK-NOT: [REGISTER TILING] 1 x
// CHECK-DAG: #[[BLOCKS:map[0-9]*]] = affine_map<()[s0] -> ((s0 floordiv 104) * 104)>
// CHECK-DAG: #[[FOURS:map[0-9]*]] = affine_map<()[s0, s1] -> ((s1 floordiv 4) * 4)>
// CHECK: %[[M:.*]] = memref.dim %arg0
// CHECK: affine.for %{{.*}} = 0 to #[[BLOCKS]]()[%[[M]]] step 104 {
// CHECK: affine.for %{{.*}} = #[[BLOCKS]]()[%[[M]]] to #[[FOURS]]()[%[[M]], %[[M]]] step 4 {
// CHECK: affine.for %{{.*}} = 0 to 48 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: affine.for %{{.*}} = max #{{map[0-9]*}}()[%[[M]], %[[M]], %[[M]]] to %[[M]] {
