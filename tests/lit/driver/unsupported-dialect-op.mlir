// Ops outside the supported dialects are kept as written, reported once per op name, and are
// barriers: the cf.assert between the loops may not be crossed, so the pair is refused.
// RUN: loopopt %s --target cpu --remarks 2>&1 | filecheck %s

func.func @assert_between(%a: memref<64xf32>, %out: memref<64xf32>, %ok: i1) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  cf.assert %ok, "first"
  cf.assert %ok, "second"
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:11:3: analysis: [UNSUPPORTED] cf.assert kept as is; treated as a barrier (unknown effects)
// CHECK-NOT: [UNSUPPORTED]
// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] ops between the loops can't be moved: {{.*}}.mlir:7:3 and {{.*}}.mlir:13:3, level = 0, profit = 512 (in @assert_between) [cf.assert at {{.*}}:11:3 depends on the first loop and the second loop needs it]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @assert_between
// CHECK: affine.for
// CHECK: }
// CHECK-NEXT: cf.assert %{{[a-z0-9_]+}}, "first"
// CHECK-NEXT: cf.assert %{{[a-z0-9_]+}}, "second"
// CHECK-NEXT: affine.for
