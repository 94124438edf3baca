// Step unit-loops (docs/cpu_codegen.md section 40): every loop of one iteration is replaced by its body,
// in any nest. torch.einsum's output permutation [0, 1, 4, 2, 3] with an exp fused after it: its two
// innermost loops run once, so the 40-column loop around them is the innermost one vectorize plans
// (before: "[STOP VECTORIZE] the loop runs fewer iterations than one vector" on the unit loop, and nothing
// named the column loop, left scalar). One remark per function, at the first unit loop.
// RUN: loopopt %s --target cpu --vector-bits 256 --exact-math --remarks -o %t.mlir 2> %t.remarks && %cat %t.remarks %t.mlir | filecheck %s
// RUN: mlir-opt %t.mlir > /dev/null
// REQUIRES: mlir-opt

func.func @perm(%in: memref<2x3x1x1x40xf32>, %out: memref<2x3x40xf32>) {
  affine.for %b = 0 to 2 {
    affine.for %c = 0 to 3 {
      affine.for %d = 0 to 40 {
        affine.for %u = 0 to 1 {
          affine.for %v = 0 to 1 {
            %x = affine.load %in[%b, %c, %u, %v, %d] : memref<2x3x1x1x40xf32>
            %e = math.exp %x : f32
            affine.store %e, %out[%b, %c, %d] : memref<2x3x40xf32>
          }
        }
      }
    }
  }
  return
}

// A loop of one iteration carrying a value (0 to 2 step 2: once) goes, its yield's value the result;
// 0 to 3 step 2 runs twice and stays.
func.func @carried(%A: memref<8x16xf32>, %O: memref<8x16xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%i, %j] : memref<8x16xf32>
      %q = affine.for %w = 0 to 2 step 2 iter_args(%s = %a) -> (f32) {
        %t = arith.mulf %s, %s : f32
        affine.yield %t : f32
      }
      %p = affine.for %w = 0 to 3 step 2 iter_args(%s = %q) -> (f32) {
        %t = arith.addf %s, %a : f32
        affine.yield %t : f32
      }
      affine.store %p, %O[%i, %j] : memref<8x16xf32>
    }
  }
  return
}

// CHECK: unit-loops.mlir:14:9: passed: [UNIT LOOP] 2 loops of one iteration replaced by their bodies; 1 loop around them now innermost (in @perm)
// CHECK-NEXT: unit-loops.mlir:33:12: passed: [UNIT LOOP] 1 loop of one iteration replaced by its body (in @carried)
// CHECK-NOT: fewer iterations than one vector
// CHECK: unit-loops.mlir:13:7: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 8 (in @perm)
// CHECK-NOT: fewer iterations than one vector
// CHECK-LABEL: func.func @perm(
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK:         affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT:      affine.for %[[C:.*]] = 0 to 3 {
// CHECK-NEXT:        affine.for %[[D:.*]] = 0 to 40 {
// CHECK-NOT:           affine.for
// CHECK:               affine.load %arg0[%[[B]], %[[C]], 0, 0, %[[D]]] : memref<2x3x1x1x40xf32>
// CHECK-LABEL: func.func @carried(
// CHECK:         affine.for
// CHECK:           affine.for
// CHECK:             %[[A:.*]] = affine.load %arg0
// CHECK-NEXT:        %[[Q:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:        affine.for %{{.*}} = 0 to 3 step 2 iter_args(%{{.*}} = %[[Q]]) -> (f32) {
