// Issue 24, GEMM piece: `--passes register-tile` explains every reduction nest it sees (the
// default pipeline remarks only what it tiles): one that carries a dependence along the loop to
// block, a reduction loop that writes memory, an exact reduction over a strided operand (LLVM
// vectorizes that loop itself), and an ordered float sum over a strided operand, which gets four
// independent scalar chains (each sum still in order).
// RUN: loopopt %s --target cpu --vector-bits 256 --passes register-tile --remarks 2>&1 | filecheck %s
func.func @nests(%A: memref<16x16xf32>, %B: memref<16x16xf32>, %C: memref<16x16xf32>, %N: memref<16x16xi32>, %M: memref<16x16xi32>) {
  %z = arith.constant 0.0 : f32
  %zi = arith.constant 0 : i32
  affine.for %j = 1 to 16 {
    %prev = affine.load %C[0, %j - 1] : memref<16x16xf32>
    %r = affine.for %k = 0 to 16 iter_args(%acc = %prev) -> (f32) {
      %a = affine.load %A[0, %k] : memref<16x16xf32>
      %b = affine.load %B[%k, %j] : memref<16x16xf32>
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %p : f32
      affine.yield %s : f32
    }
    affine.store %r, %C[0, %j] : memref<16x16xf32>
  }
  affine.for %j = 0 to 16 {
    %r = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
      %a = affine.load %A[1, %k] : memref<16x16xf32>
      %s = arith.addf %acc, %a : f32
      affine.store %a, %B[%k, %j] : memref<16x16xf32>
      affine.yield %s : f32
    }
    affine.store %r, %C[1, %j] : memref<16x16xf32>
  }
  affine.for %j = 0 to 16 {
    %r = affine.for %k = 0 to 16 iter_args(%acc = %zi) -> (i32) {
      %b = affine.load %N[%j, %k] : memref<16x16xi32>
      %s = arith.addi %acc, %b : i32
      affine.yield %s : i32
    }
    affine.store %r, %M[2, %j] : memref<16x16xi32>
  }
  affine.for %j = 0 to 16 {
    %r = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
      %b = affine.load %B[%j, %k] : memref<16x16xf32>
      %s = arith.addf %acc, %b : f32
      affine.yield %s : f32
    }
    affine.store %r, %C[3, %j] : memref<16x16xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:{{[0-9]+}}:3: missed: [STOP REGISTER TILING] a memory dependence is carried by the loop to block (in @nests) [dependence on argument #2 across iterations]
// CHECK-NEXT: {{.*}}.mlir:{{[0-9]+}}:3: missed: [STOP REGISTER TILING] the inner loop is not a reduction over loads (in @nests) [affine.store at {{.*}}.mlir:{{[0-9]+}}:7 writes in the reduction loop]
// CHECK-NEXT: {{.*}}.mlir:{{[0-9]+}}:3: missed: [STOP REGISTER TILING] no gain: LLVM vectorizes the reduction loop itself (in @nests) [lanes refused (affine.load at {{.*}}.mlir:{{[0-9]+}}:12 moves by [1, 0] elements per iteration) and the reductions are exact in any order]
// CHECK-NEXT: {{.*}}.mlir:{{[0-9]+}}:3: passed: [REGISTER TILING] 1 x 4 tile of the reduction in 4 accumulators (scalar f32), each sum kept in order; one row: no loop around it (in @nests)
// CHECK-LABEL: func.func @nests
// CHECK: affine.for %[[J:[a-z0-9_]+]] = 0 to 16 step 4 {
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 16 iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-COUNT-4: affine.load %{{[a-z0-9_]+}}[%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}] : memref<16x16xf32>
// CHECK: return
