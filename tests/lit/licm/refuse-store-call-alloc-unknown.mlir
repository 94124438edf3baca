// Ops with invariant operands that still never move, each with its reason: a store (writes
// memory), a call (may have side effects), an allocation, and an unregistered op.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func private @tick()

func.func @pinned(%s: memref<f32>, %v: f32) {
  affine.for %i = 0 to 16 {
    affine.store %v, %s[] : memref<f32>
    func.call @tick() : () -> ()
    %m = memref.alloca() : memref<4xf32>
    "acme.fence"() : () -> ()
  }
  return
}

// CHECK: {{.*}}.mlir:12:5: analysis: [UNSUPPORTED] acme.fence kept as is; treated as a barrier (unknown effects)
// CHECK: {{.*}}.mlir:9:5: missed: [LICM] not hoisted: affine.store writes memory (in @pinned)
// CHECK-NEXT: {{.*}}.mlir:10:5: missed: [LICM] not hoisted: call to @tick may have side effects (in @pinned)
// CHECK-NEXT: {{.*}}.mlir:11:10: missed: [LICM] not hoisted: memref.alloca allocates (in @pinned)
// CHECK-NEXT: {{.*}}.mlir:12:5: missed: [LICM] not hoisted: unknown op acme.fence may have side effects (in @pinned)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @pinned
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.store
// CHECK-NEXT: func.call @tick()
// CHECK-NEXT: memref.alloca()
// CHECK-NEXT: "acme.fence"()
// CHECK-NEXT: }
