// Issue 33, class 2: the loop's counter as data in a register tile. Lane l of the vector that
// starts at column j0 runs iteration j0 + l, so the counter of P (the loop to block) becomes
// `broadcast(j0) + [0, 1, .., 7]` (a vector<8xindex>) where an op on lanes reads it: a causal
// mask `k <= j` inside the reduction (k, the same in every lane, is broadcast) and an
// `index_cast` of j stored after it. An index P moves through an affine.apply is lane 0's
// address only: used as data it refuses the lanes, and the remark names the op.
// RUN: loopopt %s --target cpu --vector-bits 256 --passes register-tile --remarks -o - 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: loopopt %s --target cpu --vector-bits 256 -o %t && mlir-opt %t > /dev/null
// REQUIRES: mlir-opt
func.func @counter(%A: memref<12x16xf32>, %B: memref<16x40xf32>, %C: memref<12x40xf32>, %D: memref<12x40xi32>) {
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 40 {
      %r = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (f32) {
        %a = affine.load %A[%i, %k] : memref<12x16xf32>
        %b = affine.load %B[%k, %j] : memref<16x40xf32>
        %p = arith.mulf %a, %b : f32
        %kj = arith.cmpi ule, %k, %j : index
        %q = arith.select %kj, %p, %z : f32
        %s = arith.addf %acc, %q : f32
        affine.yield %s : f32
      }
      affine.store %r, %C[%i, %j] : memref<12x40xf32>
      %jj = arith.index_cast %j : index to i32
      affine.store %jj, %D[%i, %j] : memref<12x40xi32>
    }
  }
  return
}

func.func @apply_as_data(%A: memref<12x16xi32>, %B: memref<16x40xi32>, %C: memref<12x40xi32>) {
  %z = arith.constant 0 : i32
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 40 {
      %r = affine.for %k = 0 to 16 iter_args(%acc = %z) -> (i32) {
        %a = affine.load %A[%i, %k] : memref<12x16xi32>
        %b = affine.load %B[%k, %j] : memref<16x40xi32>
        %p = arith.muli %a, %b : i32
        %s = arith.addi %acc, %p : i32
        affine.yield %s : i32
      }
      %j2 = affine.apply affine_map<(d0) -> (d0 * 2)>(%j)
      %jj = arith.index_cast %j2 : index to i32
      %v = arith.addi %r, %jj : i32
      affine.store %v, %C[%i, %j] : memref<12x40xi32>
    }
  }
  return
}

// CHECK-LABEL: func.func @counter
// CHECK: affine.for %{{.*}} = 0 to 12 step 4 {
// CHECK: affine.for %[[J0:.*]] = 0 to 24 step 24 {
// CHECK: %[[J8:.*]] = affine.apply #map{{[0-9]*}}(%[[J0]])
// CHECK: affine.for %[[K:.*]] = 0 to 16 iter_args
// CHECK: %[[KV:.*]] = vector.broadcast %[[K]] : index to vector<8xindex>
// CHECK: %[[IOTA:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
// CHECK: %[[JB:.*]] = vector.broadcast %[[J0]] : index to vector<8xindex>
// CHECK: %[[JV:.*]] = arith.addi %[[JB]], %[[IOTA]] : vector<8xindex>
// CHECK: %[[M0:.*]] = arith.cmpi ule, %[[KV]], %[[JV]] : vector<8xindex>
// CHECK: %[[JB8:.*]] = vector.broadcast %[[J8]] : index to vector<8xindex>
// CHECK: %[[JV8:.*]] = arith.addi %[[JB8]], %[[IOTA]] : vector<8xindex>
// CHECK: arith.cmpi ule, %[[KV]], %[[JV8]] : vector<8xindex>
// CHECK: arith.select %[[M0]], %{{.*}} : vector<8xi1>, vector<8xf32>
// After the reduction: j's lanes cast to i32 and stored with one vector store per row and vector.
// CHECK: %[[IOTA2:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
// CHECK: %[[JC:.*]] = arith.addi %{{.*}}, %[[IOTA2]] : vector<8xindex>
// CHECK: %[[JI:.*]] = arith.index_cast %[[JC]] : vector<8xindex> to vector<8xi32>
// CHECK: affine.vector_store %[[JI]], %arg3[%{{.*}}, %[[J0]]] : memref<12x40xi32>, vector<8xi32>
// The column remainder (two vectors in one step, section 44), its counter in lanes as well.
// CHECK: affine.for %{{.*}} = 24 to 40 step 16 {
// CHECK: arith.index_cast %{{.*}} : vector<8xindex> to vector<8xi32>

// CHECK-LABEL: func.func @apply_as_data
// CHECK-NOT: vector
// CHECK: return

// REMARK: counter-lanes.mlir:14:5: passed: [REGISTER TILING] 4 x 24 tile of the reduction in 12 vector accumulators (vector<8xf32>), each sum kept in order; the 16 columns the whole tiles leave over in one step of 2 vectors (in @counter)
// @apply_as_data's reduction loop reads B down a column, which LLVM does not vectorize either:
// scalar copies (docs/cpu_codegen.md section 29).
// REMARK: counter-lanes.mlir:35:5: passed: [REGISTER TILING] 3 x 4 tile of the reduction in 12 accumulators (scalar i32), each sum kept in order; scalar copies: LLVM cannot vectorize the reduction loop either (affine.load at {{.*}}counter-lanes.mlir:38:14 moves by [1, 0] elements per iteration); lanes refused: arith.index_cast at {{.*}}counter-lanes.mlir:44:13: an index that moves with the loop (affine.apply's result) is used as data, and only the loop's counter and arith ops on it have a lane form (in @apply_as_data)
