// cf.assert reads and writes no memory but may abort (analysis/effects.py GUARD_OPS, the check
// rule of analysis/checks.py): no [UNSUPPORTED] remark is given, and loops fuse across a check
// only where no op that is a hazard to it changes its order with it. @assert_between: fused, the
// second loop's stores to %out would run before the check, so an aborting run would leave %out
// written where the input left it untouched: refused. @private_between: the second loop writes a
// buffer of the function's own, unseen after an abort: fused, and the check stays after the loop.
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

func.func @private_between(%a: memref<64xf32>, %out: memref<64xf32>, %ok: i1) {
  %t = memref.alloc() : memref<64xf32>
  %u = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  cf.assert %ok, "second"
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %u[%i] : memref<64xf32>
  }
  %r = affine.load %u[7] : memref<64xf32>
  affine.store %r, %out[0] : memref<64xf32>
  return
}

// CHECK-NOT: [UNSUPPORTED]
// CHECK: {{.*}}.mlir:11:3: missed: [STOP FUSION] a run-time check would change its order with an op it must keep: {{.*}}.mlir:11:3 and {{.*}}.mlir:16:3, level = 0, profit = 512 (in @assert_between) [affine.store at {{.*}}.mlir:18:5 writes memory seen after an abort would run before the check "first" at {{.*}}.mlir:15:3]
// CHECK: {{.*}}.mlir:26:3: passed: [LOOP FUSION] , level = 0 fused {{.*}}.mlir:26:3 and {{.*}}.mlir:31:3 profit = 512 (in @private_between)

// CHECK-LABEL: func.func @assert_between
// CHECK: affine.for
// CHECK: cf.assert %{{[a-z0-9_]+}}, "first"
// CHECK-NEXT: affine.for
// CHECK-LABEL: func.func @private_between
// CHECK: affine.for
// CHECK-NOT: affine.for
// CHECK: cf.assert %{{[a-z0-9_]+}}, "second"
