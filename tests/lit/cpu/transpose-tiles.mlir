// Issue 35: a transposing copy (torch-mlir's lowering of a Linear weight's transpose), after
// block-transposes' 16 x 16 tiles, moves in tiles of one vector a side: 8 row loads of %src, three
// stages of 8 interleaving shuffles, 8 row stores of %dst (8 f32 lanes at 256 bits); a copy whose
// loop is not a whole number of tiles runs its whole tiles so and its edge after them in the
// largest tile that fits (32 x 12: 32 x 8 in 8 x 8 tiles, 32 x 4 in 4 x 4 tiles); a loop shorter
// than the smallest edge tile (4) stays element by element and says why.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
func.func @weight_t(%src: memref<64x32xf32>, %dst: memref<32x64xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 64 {
      %v = affine.load %src[%j, %i] : memref<64x32xf32>
      affine.store %v, %dst[%i, %j] : memref<32x64xf32>
    }
  }
  return
}

func.func @ragged(%src: memref<12x32xf32>, %dst: memref<32x12xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 12 {
      %v = affine.load %src[%j, %i] : memref<12x32xf32>
      affine.store %v, %dst[%i, %j] : memref<32x12xf32>
    }
  }
  return
}

func.func @thin(%src: memref<3x32xf32>, %dst: memref<32x3xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 3 {
      %v = affine.load %src[%j, %i] : memref<3x32xf32>
      affine.store %v, %dst[%i, %j] : memref<32x3xf32>
    }
  }
  return
}

// CHECK-DAG: transpose-tiles.mlir:9:3: passed: [TRANSPOSE TILE] a 16 x 16 transposing copy in 8 x 8 tiles, each 8 vector loads, 24 shuffles and 8 vector stores (in @weight_t)
// CHECK-DAG: transpose-tiles.mlir:19:3: passed: [TRANSPOSE TILE] a 32 x 12 transposing copy in 8 x 8 tiles, each 8 vector loads, 24 shuffles and 8 vector stores; 32 x 4 in 4 x 4 tiles (in @ragged)
// CHECK-DAG: transpose-tiles.mlir:29:3: missed: [STOP TRANSPOSE TILE] a loop of the copy runs fewer iterations than one vector tile: trip counts 32 and 3, tiles of 8 (at least 4) (in @thin)
// CHECK-LABEL: func.func @weight_t
// CHECK: affine.for %[[JJ:.*]] = 0 to 64 step 16 {
// CHECK-NEXT: affine.for %[[II:.*]] = 0 to 32 step 16 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: %[[R0:.*]] = affine.vector_load %arg0[%[[J]] + %[[JJ]], %[[I]] + %[[II]]] : memref<64x32xf32>, vector<8xf32>
// CHECK-NEXT: %[[J1:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK-NEXT: %[[R1:.*]] = affine.vector_load %arg0[%[[J1]] + %[[JJ]], %[[I]] + %[[II]]] : memref<64x32xf32>, vector<8xf32>
// CHECK-COUNT-6: affine.vector_load %arg0
// CHECK-NEXT: %[[S0:.*]] = vector.shuffle %[[R0]], %{{.*}} [0, 8, 1, 9, 2, 10, 3, 11] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: vector.shuffle %[[R0]], %{{.*}} [4, 12, 5, 13, 6, 14, 7, 15] : vector<8xf32>, vector<8xf32>
// CHECK-COUNT-22: vector.shuffle
// CHECK-NEXT: affine.vector_store %{{.*}}, %arg1[%[[I]] + %[[II]], %[[J]] + %[[JJ]]] : memref<32x64xf32>, vector<8xf32>
// CHECK-NEXT: %[[I1:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK-NEXT: affine.vector_store %{{.*}}, %arg1[%[[I1]] + %[[II]], %[[J]] + %[[JJ]]] : memref<32x64xf32>, vector<8xf32>
// CHECK-LABEL: func.func @ragged
// CHECK: affine.for %[[I:.*]] = 0 to 32 step 8 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 8 step 8 {
// CHECK-NEXT: affine.vector_load %arg0[%[[J]], %[[I]]] : memref<12x32xf32>, vector<8xf32>
// CHECK-COUNT-24: vector.shuffle {{.*}} : vector<8xf32>, vector<8xf32>
// CHECK: affine.for %[[I4:.*]] = 0 to 32 step 4 {
// CHECK-NEXT: affine.for %[[J4:.*]] = 8 to 12 step 4 {
// CHECK-NEXT: affine.vector_load %arg0[%[[J4]], %[[I4]]] : memref<12x32xf32>, vector<4xf32>
// CHECK-COUNT-8: vector.shuffle {{.*}} : vector<4xf32>, vector<4xf32>
// CHECK-COUNT-4: affine.vector_store {{.*}} : memref<32x12xf32>, vector<4xf32>
// CHECK-NOT: affine.store
// CHECK: return
// CHECK-LABEL: func.func @thin
// CHECK-NOT: vector.shuffle
// CHECK: return
