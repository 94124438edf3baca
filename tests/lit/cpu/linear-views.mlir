// GroupNorm's statistics after torch-mlir's reshape: the collapsed H x W loop indexes the input by
// (e floordiv 8, e mod 8). isl proves the address one element further every iteration, so the loads
// (here those of the register tile's scalar copies, planned first) read a view joining H and W at
// base + e and the sums vectorize (--reassociate); a row of 16 read 8 at a time (@mismatched) jumps
// after element 7 and stays as it is, and says why.
// RUN: loopopt %s --target cpu --reassociate --remarks -o %t.mlir 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: %cat %t.mlir | filecheck %s
// RUN: loopopt %s --target cpu --passes linear-views --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=STOP
// REQUIRES: mlir-opt
// REMARK: passed: [LINEAR VIEW] {{[0-9]+}} access(es) move by one element per iteration in memory (isl): read through a view joining dimensions 2..3 of 2x16x8x8, at its base plus the loop's counter (in @stats)
// REMARK-NOT: LINEAR VIEW
// REMARK: passed: [VECTORIZE] innermost loop left to LLVM's loop vectorizer at width 16 (in @stats)
// REMARK: missed: [STOP VECTORIZE] an access is not contiguous along the loop (in @mismatched) [affine.load at {{.*}} moves by [0, 0, ?, ?] elements per iteration (its address in memory moves by other than one element after iteration 7 of its loop)]
// CHECK-LABEL: func.func @stats
// CHECK: %[[V:.*]] = memref.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : memref<2x16x8x8xf32> into memref<2x16x64xf32>
// CHECK: affine.for %[[E:.*]] = 0 to 64 iter_args
// CHECK: affine.load %[[V]][%{{.*}}, %{{.*}} * 4 + %{{.*}}, %[[E]]] : memref<2x16x64xf32>
// CHECK: arith.addf {{.*}} fastmath<reassoc> : f32
// CHECK-LABEL: func.func @mismatched
// CHECK-NOT: collapse_shape
// CHECK: affine.load %arg0[%{{.*}}, %{{.*}}, %{{.*}} floordiv 8, %{{.*}} mod 8] : memref<2x16x8x16xf32>
// STOP: missed: [STOP LINEAR VIEW] affine.load at {{.*}}: its address in memory moves by other than one element after iteration 7 of its loop (in @mismatched)
func.func @stats(%x: memref<2x16x8x8xf32>, %s: memref<2x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 2 {
    affine.for %g = 0 to 4 {
      affine.for %c = 0 to 4 {
        %r = affine.for %e = 0 to 64 iter_args(%a = %z) -> (f32) {
          %v = affine.load %x[%n, %g * 4 + %c, %e floordiv 8, %e mod 8] : memref<2x16x8x8xf32>
          %b = arith.addf %a, %v : f32
          affine.yield %b : f32
        }
        affine.store %r, %s[%n, %g * 4 + %c] : memref<2x16xf32>
      }
    }
  }
  return
}

func.func @mismatched(%x: memref<2x16x8x16xf32>, %s: memref<2x16xf32>) {
  %z = arith.constant 0.0 : f32
  affine.for %n = 0 to 2 {
    affine.for %c = 0 to 16 {
      %r = affine.for %e = 0 to 64 iter_args(%a = %z) -> (f32) {
        %v = affine.load %x[%n, %c, %e floordiv 8, %e mod 8] : memref<2x16x8x16xf32>
        %b = arith.addf %a, %v : f32
        affine.yield %b : f32
      }
      affine.store %r, %s[%n, %c] : memref<2x16xf32>
    }
  }
  return
}
