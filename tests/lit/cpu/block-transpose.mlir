// Issue 24, locality: a transposing copy (torch-mlir's lowering of a Linear weight's transpose) is
// tiled by one cache line (16 f32) a side, the tile loops outermost, so the column walk of %src
// reuses 16 lines; of the two tile loops the one with fewer iterations runs inside (issue 35:
// @weight_t's 256 rows of %dst per sweep instead of 512 of %src; @weight_t_tall keeps its order);
// a band whose reordering would reverse a dependence is left as it is and
// `--passes block-transposes` says why. (The point loops then move in 8 x 8 vector tiles:
// transpose-tiles, tests/lit/cpu/transpose-tiles.mlir.)
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --passes block-transposes --remarks 2>&1 | filecheck %s --check-prefix=REFUSED
// RUN: loopopt %s --target trn1 --remarks 2>&1 | filecheck %s --check-prefix=TRN1
func.func @weight_t(%src: memref<512x256xf32>, %dst: memref<256x512xf32>) {
  affine.for %i = 0 to 256 {
    affine.for %j = 0 to 512 {
      %v = affine.load %src[%j, %i] : memref<512x256xf32>
      affine.store %v, %dst[%i, %j] : memref<256x512xf32>
    }
  }
  return
}

func.func @weight_t_tall(%src: memref<256x512xf32>, %dst: memref<512x256xf32>) {
  affine.for %i = 0 to 512 {
    affine.for %j = 0 to 256 {
      %v = affine.load %src[%j, %i] : memref<256x512xf32>
      affine.store %v, %dst[%i, %j] : memref<512x256xf32>
    }
  }
  return
}

func.func @anti_diagonal(%src: memref<32x32xf32>, %dst: memref<1x64xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %v = affine.load %src[%j, %i] : memref<32x32xf32>
      affine.store %v, %dst[0, %i + %j] : memref<1x64xf32>
    }
  }
  return
}

// CHECK: block-transpose.mlir:12:3: passed: [BLOCK TRANSPOSE] 16 x 16 tiles of the loop at {{.*}}block-transpose.mlir:12:3 and the innermost loop (the innermost loop's tiles outside: the shorter sweep inside) (one 64-byte cache line a side): the column walk reuses 16 cache lines instead of touching one per iteration (in @weight_t)
// CHECK: block-transpose.mlir:22:3: passed: [BLOCK TRANSPOSE] 16 x 16 tiles of the loop at {{.*}}block-transpose.mlir:22:3 and the innermost loop (one 64-byte cache line a side): the column walk reuses 16 cache lines instead of touching one per iteration (in @weight_t_tall)
// CHECK-LABEL: func.func @weight_t
// CHECK-NEXT: affine.for %[[JJ:.*]] = 0 to 512 step 16 {
// CHECK-NEXT: affine.for %[[II:.*]] = 0 to 256 step 16 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: %[[V:.*]] = affine.vector_load %arg0[%[[J]] + %[[JJ]], %[[I]] + %[[II]]] : memref<512x256xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %arg1[%[[I]] + %[[II]], %[[J]] + %[[JJ]]] : memref<256x512xf32>, vector<8xf32>
// CHECK-LABEL: func.func @weight_t_tall
// CHECK-NEXT: affine.for %[[II:.*]] = 0 to 512 step 16 {
// CHECK-NEXT: affine.for %[[JJ:.*]] = 0 to 256 step 16 {
// CHECK-NEXT: affine.for %[[I:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 16 step 8 {
// CHECK-NEXT: %[[V:.*]] = affine.vector_load %arg0[%[[J]] + %[[JJ]], %[[I]] + %[[II]]] : memref<256x512xf32>, vector<8xf32>
// CHECK: affine.vector_store %{{.*}}, %arg1[%[[I]] + %[[II]], %[[J]] + %[[JJ]]] : memref<512x256xf32>, vector<8xf32>
// CHECK-LABEL: func.func @anti_diagonal
// CHECK-NEXT: affine.for %{{.*}} = 0 to 32 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 32 {

// REFUSED: block-transpose.mlir:32:3: missed: [STOP BLOCK TRANSPOSE] {{.+}} (in @anti_diagonal)

// TRN1-NOT: BLOCK TRANSPOSE
// TRN1-LABEL: func.func @weight_t
// TRN1-NEXT: affine.for %{{.*}} = 0 to 256 {
