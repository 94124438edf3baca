// Issue 35: a transposing copy (torch-mlir's lowering of a Linear weight's transpose), after
// block-transposes' 16 x 16 tiles, moves in tiles of one vector a side: 8 row loads of %src, three
// stages of 8 interleaving shuffles, 8 row stores of %dst (8 f32 lanes at 256 bits); a copy whose
// loop is not a whole number of tiles stays element by element and says why.
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

// CHECK-DAG: transpose-tiles.mlir:7:3: passed: [TRANSPOSE TILE] a 16 x 16 transposing copy in 8 x 8 tiles, each 8 vector loads, 24 shuffles and 8 vector stores (in @weight_t)
// CHECK-DAG: transpose-tiles.mlir:17:3: missed: [STOP TRANSPOSE TILE] a loop of the copy is not a whole number of vector tiles: trip counts 32 and 12, tiles of 8 (in @ragged)
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
// CHECK-NOT: vector.shuffle
// CHECK: return
