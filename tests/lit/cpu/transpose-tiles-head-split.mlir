// Issue 35: torch-mlir's head split of K after its projection (bert_attention), fused with the
// bias: kt[h, d, i] = k[i, h * 32 + d] + b[h * 32 + d] over i, h, d. The loop between the two walks
// (h) stays; i and d step by the tile and each 8 x 8 tile loads 8 rows of %k, adds one vector of
// the bias (loaded once per tile) to each row, transposes them by 24 shuffles and stores 8 rows of
// %kt. A store that two iterations may share (kt[d, h + i]) stays element by element and says why.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes transpose-tiles --remarks 2>&1 | filecheck %s
// CHECK-DAG: transpose-tiles-head-split.mlir:25:3: passed: [TRANSPOSE TILE] a 32 x 32 transposing copy through arith.addf with 1 operand(s) read once per tile, at each of the 2 iterations of the loop between, in 8 x 8 tiles, each 8 vector loads, 24 shuffles and 8 vector stores (in @k_heads)
// CHECK-DAG: transpose-tiles-head-split.mlir:40:3: missed: [STOP TRANSPOSE TILE] two iterations of the copy may store to one element: the tiles store their elements in another order (in @collide)
// CHECK-LABEL: func.func @k_heads
// CHECK: affine.for %[[I:.*]] = 0 to 32 step 8 {
// CHECK-NEXT: affine.for %[[H:.*]] = 0 to 2 {
// CHECK-NEXT: affine.for %[[D:.*]] = 0 to 32 step 8 {
// CHECK-NEXT: %[[C:.*]] = affine.apply #{{.*}}(%[[H]], %[[D]])
// CHECK-NEXT: %[[R0:.*]] = affine.vector_load %arg0[%[[I]], %[[C]]] : memref<32x64xf32>, vector<8xf32>
// CHECK-COUNT-7: affine.vector_load %arg0
// CHECK-NEXT: %[[B:.*]] = affine.vector_load %arg1[%[[C]]] : memref<64xf32>, vector<8xf32>
// CHECK-NEXT: arith.addf %[[R0]], %[[B]] : vector<8xf32>
// CHECK-COUNT-7: arith.addf {{.*}}, %[[B]] : vector<8xf32>
// CHECK-COUNT-24: vector.shuffle
// CHECK-NEXT: affine.vector_store %{{.*}}, %arg2[%[[H]], %[[D]], %[[I]]] : memref<2x32x32xf32>, vector<8xf32>
// CHECK-COUNT-7: affine.vector_store {{.*}} : memref<2x32x32xf32>, vector<8xf32>
// CHECK-LABEL: func.func @collide
// CHECK: affine.store %{{.*}}, %arg2[%{{.*}}, %{{.*}} + %{{.*}}] : memref<8x18xf32>
func.func @k_heads(%k: memref<32x64xf32>, %b: memref<64xf32>, %kt: memref<2x32x32xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %h = 0 to 2 {
      affine.for %d = 0 to 32 {
        %c = affine.apply affine_map<(d0, d1) -> (d0 * 32 + d1)>(%h, %d)
        %v = affine.load %k[%i, %c] : memref<32x64xf32>
        %w = affine.load %b[%c] : memref<64xf32>
        %y = arith.addf %v, %w : f32
        affine.store %y, %kt[%h, %d, %i] : memref<2x32x32xf32>
      }
    }
  }
  return
}

func.func @collide(%k: memref<16x24xf32>, %b: memref<24xf32>, %kt: memref<8x18xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %h = 0 to 3 {
      affine.for %d = 0 to 8 {
        %c = affine.apply affine_map<(d0, d1) -> (d0 * 8 + d1)>(%h, %d)
        %v = affine.load %k[%i, %c] : memref<16x24xf32>
        %w = affine.load %b[%c] : memref<24xf32>
        %y = arith.addf %v, %w : f32
        affine.store %y, %kt[%d, %h + %i] : memref<8x18xf32>
      }
    }
  }
  return
}
