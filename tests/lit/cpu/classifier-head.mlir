// Issue 35, classifier heads (docs/cpu_codegen.md section 32): what fusion and contraction leave of
// `x @ (w * c)^T`: per row j of the weight its scaled elements into a 24x1 buffer, then each row
// of x's dot product with it. Product isolation expands the buffer in its layout before fusion
// (24x40: the transposed weight), loop order puts j innermost of the band above the reduction
// (the register tile's lanes), and the scaled transposing copy moves in vector tiles: the scale
// broadcast once per tile and applied to each row vector, then the network; its edges (40 is
// not a multiple of 16, nor 24) in 8 x 8 tiles.
// RUN: loopopt %s --target cpu --remarks 2>&1 | filecheck %s
func.func @head(%W: memref<40x24xf32>, %X: memref<16x24xf32>, %C: memref<16x40xf32>) {
  %c = arith.constant 0.125 : f32
  %t = memref.alloc() : memref<24x1xf32>
  affine.for %j = 0 to 40 {
    affine.for %k = 0 to 24 {
      %w = affine.load %W[%j, %k] : memref<40x24xf32>
      %s = arith.mulf %w, %c : f32
      affine.store %s, %t[%k, 0] : memref<24x1xf32>
    }
    affine.for %i = 0 to 16 {
      %c0 = affine.load %C[%i, %j] : memref<16x40xf32>
      %r = affine.for %k = 0 to 24 iter_args(%acc = %c0) -> (f32) {
        %x = affine.load %X[%i, %k] : memref<16x24xf32>
        %b = affine.load %t[%k, 0] : memref<24x1xf32>
        %p = arith.mulf %x, %b : f32
        %a = arith.addf %acc, %p : f32
        affine.yield %a : f32
      }
      affine.store %r, %C[%i, %j] : memref<16x40xf32>
    }
  }
  memref.dealloc %t : memref<24x1xf32>
  return
}

// CHECK-DAG: classifier-head.mlir:12:3: passed: [PRODUCT ISOLATION] loop split into 2 loops: a matrix product in a nest of its own (buffer expanded per iteration to 24x40) (in @head)
// CHECK-DAG: classifier-head.mlir:12:3: passed: [LOOP ORDER] 1:0: lanes along the loop at {{.*}}, which walks every access of the reduction nest contiguously or not at all (was: the loop around the reduction, lanes refused: {{.*}}) (in @head)
// CHECK-DAG: classifier-head.mlir:12:3: passed: [REGISTER TILING] 12 x 32 tile of the reduction in 24 vector accumulators (vector<16xf32>), each sum kept in order; the 8 columns left over in one vector<8xf32>, not one of 16 lanes (in @head)
// CHECK-DAG: classifier-head.mlir:12:3: passed: [TRANSPOSE TILE] a 24 x 40 transposing copy through arith.mulf in 16 x 16 tiles, each 16 vector loads, 64 shuffles and 16 vector stores; 8 x 40 in 8 x 8 tiles; 16 x 8 in 8 x 8 tiles (in @head)
// CHECK-LABEL: func.func @head
// CHECK: %[[C:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[T:.*]] = memref.alloc() : memref<24x40xf32>
// CHECK-NEXT: affine.for %[[J:.*]] = 0 to 32 step 16 {
// CHECK-NEXT: affine.for %[[K:.*]] = 0 to 16 step 16 {
// CHECK-NEXT: %[[R0:.*]] = affine.vector_load %arg0[%[[J]], %[[K]]] : memref<40x24xf32>, vector<16xf32>
// CHECK-COUNT-15: affine.vector_load %arg0
// CHECK-NEXT: %[[S:.*]] = vector.broadcast %[[C]] : f32 to vector<16xf32>
// CHECK-NEXT: %[[M0:.*]] = arith.mulf %[[R0]], %[[S]] : vector<16xf32>
// CHECK-COUNT-15: arith.mulf %{{.*}}, %[[S]] : vector<16xf32>
// CHECK-NEXT: vector.shuffle %[[M0]], %{{.*}} [0, 16, 1, 17
// CHECK-COUNT-63: vector.shuffle
// CHECK-NEXT: affine.vector_store %{{.*}}, %[[T]][%[[K]], %[[J]]] : memref<24x40xf32>, vector<16xf32>
// CHECK: affine.for %{{.*}} = 0 to 40 step 8 {
// CHECK-NEXT: affine.for %{{.*}} = 16 to 24 step 8 {
// CHECK: vector.broadcast %[[C]] : f32 to vector<8xf32>
// CHECK: affine.for %{{.*}} = 32 to 40 step 8 {
// CHECK-NEXT: affine.for %{{.*}} = 0 to 16 step 8 {
// CHECK: affine.vector_load %[[T]]
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: memref.dealloc %[[T]] : memref<24x40xf32>
