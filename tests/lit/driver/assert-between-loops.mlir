// cf.assert reads and writes no memory (analysis/effects.py GUARD_OPS): loops fuse across it, no
// [UNSUPPORTED] remark is given, and it stays where it was, after the fused loop (a failing check
// aborts the program, which then has no results to change).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @assert_between(%a: memref<64xf32>, %out: memref<64xf32>, %ok: i1) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  cf.assert %ok, "first"
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK-NOT: [UNSUPPORTED]
// CHECK: {{.*}}.mlir:8:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:8:3 and {{.*}}.mlir:13:3 profit = 512 (in @assert_between)
// CHECK: analysis: numLoopsFused = 1

// CHECK-LABEL: func.func @assert_between
// CHECK: affine.for
// CHECK-NOT: affine.for
// CHECK: cf.assert %{{[a-z0-9_]+}}, "first"
// CHECK-NEXT: return
