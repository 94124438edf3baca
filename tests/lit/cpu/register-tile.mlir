// Issue 24, GEMM piece: the default cpu pipeline tiles a matrix product for registers. Scalar
// replacement puts C[i, j] in iter_args of the k loop; register tiling then runs blocks of 4 rows
// x 3 vectors of 8 lanes (12 accumulators in 16 registers) through one k loop, A broadcast per
// row, B loaded once per vector; the 21 columns left over run in one step of 3 vectors, the last
// with a mask (vector.maskedload / maskedstore of the lanes that exist), each row's broadcast
// serving all three (section 44: the whole row's loads choose 4 x 24 over 3 x 32); the 3 rows
// left over run the same sweep as one block. Each C element keeps its sum in k order (bit-exact);
// with --contract true the multiply-add becomes one math.fma.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks -o %t.7.mlir 2> %t.7.remarks && %cat %t.7.remarks %t.7.mlir | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --contract true 2>&1 | filecheck %s --check-prefix=FMA
// RUN: mlir-opt %t.7.mlir > /dev/null
// REQUIRES: mlir-opt
func.func @matmul(%A: memref<31x16xf32>, %B: memref<16x45xf32>, %C: memref<31x45xf32>) {
  affine.for %i = 0 to 31 {
    affine.for %j = 0 to 45 {
      affine.for %k = 0 to 16 {
        %a = affine.load %A[%i, %k] : memref<31x16xf32>
        %b = affine.load %B[%k, %j] : memref<16x45xf32>
        %c = affine.load %C[%i, %j] : memref<31x45xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<31x45xf32>
      }
    }
  }
  return
}

// CHECK: {{.*}}.mlir:{{[0-9]+}}:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; the 21 columns the whole tiles leave over in one step of 3 vectors (in @matmul)
// CHECK-LABEL: func.func @matmul
// CHECK: affine.for %[[I:[a-z0-9_]+]] = 0 to 28 step 4 {
// CHECK: affine.for %[[J:[a-z0-9_]+]] = 0 to 24 step 24 {
// CHECK: affine.vector_load %{{[a-z0-9_]+}}[%[[I]], %[[J]]] : memref<31x45xf32>, vector<8xf32>
// CHECK: affine.for %[[K:[a-z0-9_]+]] = 0 to 16 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: %[[A:[a-z0-9_]+]] = affine.load %{{[a-z0-9_]+}}[%[[I]], %[[K]]] : memref<31x16xf32>
// CHECK: %[[B:[a-z0-9_]+]] = affine.vector_load %{{[a-z0-9_]+}}[%[[K]], %[[J]]] : memref<16x45xf32>, vector<8xf32>
// CHECK: %[[BA:[a-z0-9_]+]] = vector.broadcast %[[A]] : f32 to vector<8xf32>
// CHECK: %[[P:[a-z0-9_]+]] = arith.mulf %[[BA]], %[[B]] : vector<8xf32>
// CHECK: arith.addf %{{[a-z0-9_]+}}, %[[P]] : vector<8xf32>
// CHECK: affine.yield
// CHECK: affine.vector_store %{{[a-z0-9_#]+}}, %{{[a-z0-9_]+}}[%[[I]], %[[J]]] : memref<31x45xf32>, vector<8xf32>
// CHECK: affine.for %[[JT:[a-z0-9_]+]] = 24 to 45 step 24 {
// CHECK: %[[N:[a-z0-9_]+]] = affine.apply #{{[a-z0-9_]+}}(%[[JT]])
// CHECK: %[[MASK:[a-z0-9_]+]] = vector.create_mask %[[N]] : vector<8xi1>
// CHECK: affine.vector_load %{{[a-z0-9_]+}}[%[[I]], %[[JT]]] : memref<31x45xf32>, vector<8xf32>
// CHECK: vector.maskedload %{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}], %[[MASK]], %{{[a-z0-9_]+}} : memref<31x45xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: vector.maskedload %{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}], %[[MASK]], %{{[a-z0-9_]+}} : memref<16x45xf32>
// CHECK: vector.maskedstore %{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}], %[[MASK]], %{{[a-z0-9_#]+}} : memref<31x45xf32>, vector<8xi1>, vector<8xf32>
// CHECK: affine.for %{{[a-z0-9_]+}} = 28 to 31 step 3 {
// CHECK: iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: math.fma
// CHECK: return

// FMA-LABEL: func.func @matmul
// FMA: affine.for %{{[a-z0-9_]+}} = 0 to 16 iter_args
// FMA-NOT: arith.mulf
// FMA: math.fma %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : vector<8xf32>
// FMA: return
