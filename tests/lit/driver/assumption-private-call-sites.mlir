// A private function's argument aliasing follows its call sites: @kernel is called with the
// same buffer twice, so its two arguments may alias, and the pair of loops in it is refused
// (in @kernel: a negative distance between %p and %q, which may be one buffer).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func private @kernel(%p: memref<65xf32>, %q: memref<65xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %p[%i] : memref<65xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %q[%i + 1] : memref<65xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

func.func @caller(%buf: memref<65xf32>, %out: memref<64xf32>) {
  func.call @kernel(%buf, %buf, %out) : (memref<65xf32>, memref<65xf32>, memref<64xf32>) -> ()
  return
}

// CHECK: {{.*}}.mlir:6:1: analysis: [ASSUMPTION] private @kernel: argument aliasing taken from its call sites (1 argument(s) may alias another) (in @kernel)
// CHECK-NEXT: {{.*}}.mlir:20:1: analysis: [ASSUMPTION] the 2 memref arguments of public @caller are assumed not to alias each other (in @caller)
// CHECK-NEXT: {{.*}}.mlir:8:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:8:3 and {{.*}}.mlir:12:3, level = 0, profit = 512 (in @kernel) [WAR on argument {{.*}}, distances { [d] : -63 <= d <= 63 }]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func private @kernel
// CHECK: memref.alloc()
// CHECK-COUNT-2: affine.for
