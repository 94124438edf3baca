// Issue 35, cache tiling: with an 8 KiB L2 and a 16 KiB L3 share (given: --cache-sizes), small
// products take every block of the size model (docs/cpu_codegen.md section 18) around their 4 x 24
// register tile (256 bits): the reduction in blocks of at most 10 (B's 10 x 24 micro-panel in an
// eighth of L2), rows while A's block fits half of L2, columns while B's panel fits half of L3.
// Whole blocks first, then the iterations left over in nests of their own; the register tiler
// takes each nest. The sum scalar replacement carries from C's element is loaded and stored by
// each block of the reduction (bit-exact); a sum carried from 0.0 is not cut, nor are its rows
// (its whole micro-panel exceeds an eighth of L2), its columns are; and a load beside the product of a buffer the row loop writes refuses them; both say why.
// RUN: loopopt %s --target cpu --vector-bits 256 --cache-sizes 1K,8K,16K --remarks -o %t.8.mlir 2> %t.8.remarks && %cat %t.8.remarks %t.8.mlir | filecheck %s --check-prefix=REMARK
// RUN: filecheck %s < %t.8.mlir
// RUN: mlir-opt %t.8.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @reduction_blocks(%A: memref<37x53xf32>, %B: memref<53x61xf32>, %C: memref<37x61xf32>) {
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 61 {
      affine.for %k = 0 to 53 {
        %a = affine.load %A[%i, %k] : memref<37x53xf32>
        %b = affine.load %B[%k, %j] : memref<53x61xf32>
        %c = affine.load %C[%i, %j] : memref<37x61xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<37x61xf32>
      }
    }
  }
  return
}

func.func @every_block(%A: memref<257x23xf32>, %B: memref<23x263xf32>, %C: memref<257x263xf32>) {
  affine.for %i = 0 to 257 {
    affine.for %j = 0 to 263 {
      affine.for %k = 0 to 23 {
        %a = affine.load %A[%i, %k] : memref<257x23xf32>
        %b = affine.load %B[%k, %j] : memref<23x263xf32>
        %c = affine.load %C[%i, %j] : memref<257x263xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<257x263xf32>
      }
    }
  }
  return
}

func.func @from_zero(%A: memref<37x53xf32>, %B: memref<53x61xf32>, %C: memref<37x61xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 37 {
    affine.for %j = 0 to 61 {
      %r = affine.for %k = 0 to 53 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<37x53xf32>
        %b = affine.load %B[%k, %j] : memref<53x61xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<37x61xf32>
    }
  }
  return
}

func.func @load_beside(%A: memref<37x53xf32>, %B: memref<53x61xf32>, %C: memref<37x61xf32>, %D: memref<37xf32>) {
  affine.for %i = 0 to 37 {
    %d = affine.load %D[%i] : memref<37xf32>
    affine.for %j = 0 to 61 {
      affine.for %k = 0 to 53 {
        %a = affine.load %A[%i, %k] : memref<37x53xf32>
        %b = affine.load %B[%k, %j] : memref<53x61xf32>
        %c = affine.load %C[%i, %j] : memref<37x61xf32>
        %p = arith.mulf %a, %b : f32
        %q = arith.mulf %p, %d : f32
        %s = arith.addf %c, %q : f32
        affine.store %s, %C[%i, %j] : memref<37x61xf32>
      }
    }
    %d2 = arith.addf %d, %d : f32
    affine.store %d2, %D[%i] : memref<37xf32>
  }
  return
}

// REMARK: cache-tile.mlir:15:5: passed: [CACHE TILING] 37 x 61 x 53 product (4 x 24 register tile): the reduction in blocks of 9 (B's 9 x 24 micro-panel in L2); caches L1 1K, L2 8K, L3 16K (in @reduction_blocks)
// REMARK: cache-tile.mlir:31:5: passed: [CACHE TILING] 257 x 263 x 23 product (4 x 24 register tile): the reduction in blocks of 8 (B's 8 x 24 micro-panel in L2), rows in blocks of 88 (A's 88 x 8 block in half of L2), columns in blocks of 144 (B's 8 x 144 panel in half of L3's share); caches L1 1K, L2 8K, L3 16K (in @every_block)
// REMARK: cache-tile.mlir:48:5: missed: [STOP CACHE TILING] the reduction is not blocked (in @from_zero) [it is carried in registers (iter_args) from an init other than the element it ends in, or with ops after it: its first block would need the init and its last the ops]
// REMARK-NEXT: cache-tile.mlir:48:5: missed: [STOP CACHE TILING] the rows are not blocked (in @from_zero) [B's micro-panel of the whole reduction (53 x 24, 4.97 KiB), read by every row tile, exceeds the L2 / 8 (1 KiB) left beside A's block: it stays in L2 and each row tile reads its rows of A as a stream]
// REMARK-NEXT: cache-tile.mlir:48:5: passed: [CACHE TILING] 37 x 61 x 53 product (4 x 24 register tile): columns in blocks of 24 (B's 53 x 24 panel in half of L3's share); caches L1 1K, L2 8K, L3 16K (in @from_zero)
// REMARK-NEXT: cache-tile.mlir:65:5: missed: [STOP CACHE TILING] an op beside the product in the loop around it would run once per block (in @load_beside) [affine.load at {{.*}}cache-tile.mlir:64:10 reads memory that the loop writes]
// REMARK: cache-tile.mlir:31:5: passed: [UNIT LOOP] a loop of one iteration is replaced by its body (in @every_block)

// (The register tiles: 4 x 24, two whole tiles of the 61 columns and the 13 left over in one
// step of 2 vectors, the last masked; a 3 x 32 tile's 4 vectors, a broadcast and 12
// accumulators do not fit 16 registers: section 45.) Five whole blocks of 9 of the reduction,
// each a 4 x 24 tile loading C, summing 9 terms and storing C; then the last 8 terms (45 to 53)
// in a nest of their own. B's masked vectors inside the reduction read whole vectors through a
// 1-D view (unmask-loads, section 58).
// CHECK-LABEL: func.func @reduction_blocks
// CHECK-NEXT: memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<53x61xf32> into memref<3233xf32>
// CHECK-NEXT: affine.for %[[KB:.*]] = 0 to 45 step 9 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 36 step 4 {
// CHECK: affine.for %[[J:.*]] = 0 to 48 step 24 {
// CHECK: affine.vector_load %arg2[%[[I]], %[[J]]] : memref<37x61xf32>, vector<8xf32>
// CHECK: affine.for %{{.*}} = #map{{[0-9]*}}(%[[KB]]) to #map{{[0-9]*}}(%[[KB]]) iter_args(
// CHECK: affine.vector_store %{{.*}}, %arg2[%[[I]], %[[J]]] : memref<37x61xf32>, vector<8xf32>
// CHECK: affine.for %{{.*}} = 48 to 61 step 16 {
// CHECK: vector.maskedload
// CHECK: affine.for %{{.*}} = 0 to 36 step 4 {
// CHECK: affine.for %{{.*}} = 45 to 53 iter_args(

// The columns in blocks of 144 (one whole, then 144 to 263), the reduction in blocks of 8 (two
// whole, then 16 to 23), the rows in blocks of 88 (two whole, then 176 to 257); inside, the
// register tile sweeps each block's columns one tile (24) wide. The loop over the one whole
// column block runs once: the register tile replaces it by its body (section 17's unit loops),
// its counter the constant 0. The last 23 columns are one step of 3 vectors, the last masked.
// B is an argument: each column block of 24 first copies its 8 x 24 window (this reduction
// block's rows) into a panel, once per row block (section 55).
// CHECK-LABEL: func.func @every_block
// CHECK-NEXT: %[[JC:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<8x24xf32>
// CHECK-NEXT: memref.alloc() {alignment = 64 : i64} : memref<8x24xf32>
// CHECK-NEXT: affine.for %[[KB2:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: affine.for %[[IB:.*]] = 0 to 176 step 88 {
// CHECK-NEXT: affine.for %[[JR:.*]] = #map{{[0-9]*}}(%[[JC]]) to #map{{[0-9]*}}(%[[JC]], %[[JC]]) step 24 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 24 step 8 {
// CHECK: affine.for %{{.*}} = #map{{[0-9]*}}(%[[IB]]) to #map{{[0-9]*}}(%[[IB]], %[[IB]]) step 4 {
// CHECK: affine.for %{{.*}} = 176 to 256 step 4 {
// CHECK: affine.for %{{.*}} = 16 to 23 iter_args(
// CHECK: affine.for %{{.*}} = 144 to 240 step 24 {
// CHECK: affine.for %{{.*}} = 240 to 263 step 24 {
// CHECK: vector.maskedload

// Columns in blocks of 24, the rows whole inside each (section 65: the whole reduction's 53 x 24
// micro-panel exceeds an eighth of the 8 KiB L2, so no block of A's rows is kept beside it): the
// sum runs all 53 terms from 0.0.
// CHECK-LABEL: func.func @from_zero
// CHECK: affine.for %[[JB3:.*]] = 0 to 48 step 24 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 53 {
// CHECK: affine.for %{{.*}} = 0 to 36 step 4 {
// CHECK: affine.for %{{.*}} = #map{{[0-9]*}}(%[[JB3]]) to #map{{[0-9]*}}(%[[JB3]], %[[JB3]]) step 24 {
// CHECK: affine.for %{{.*}} = 0 to 53 iter_args(

// No blocks: D[i] is loaded once per row (and written after it).
// CHECK-LABEL: func.func @load_beside
// CHECK-NEXT: affine.for %{{.*}} = 0 to 36 step 4 {
// CHECK-NOT: func.func
// CHECK: affine.for %{{.*}} = 0 to 53 iter_args(
