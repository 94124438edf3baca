// Ops outside the supported dialects are kept as written, reported once per op name, and are
// barriers: the llvm.intr.debugtrap between the loops may not be crossed, so the pair is refused.
// (cf.assert is modelled: tests/lit/driver/assert-between-loops.mlir.)
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @assert_between(%a: memref<64xf32>, %out: memref<64xf32>, %ok: i1) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  llvm.intr.debugtrap
  llvm.intr.debugtrap
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:12:3: analysis: [UNSUPPORTED] llvm.intr.debugtrap kept as is; treated as a barrier (unknown effects)
// CHECK-NOT: [UNSUPPORTED]
// CHECK: {{.*}}.mlir:8:3: missed: [STOP FUSION] ops between the loops can't be moved: {{.*}}.mlir:8:3 and {{.*}}.mlir:14:3, level = 0, profit = 512 (in @assert_between) [llvm.intr.debugtrap at {{.*}}:12:3 depends on the first loop and the second loop needs it]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @assert_between
// CHECK: affine.for
// CHECK: }
// CHECK-NEXT: llvm.intr.debugtrap
// CHECK-NEXT: llvm.intr.debugtrap
// CHECK-NEXT: affine.for
