// The consumer reads %t at an index loaded from memory (a gather): which elements it reads is
// unknown, so the pair is refused as a possible negative distance.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @gather(%a: memref<64xf32>, %idx: memref<64xindex>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %k = affine.load %idx[%i] : memref<64xindex>
    %x = memref.load %t[%k] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:7:3 and {{.*}}.mlir:11:3, level = 0, profit = 512 (in @gather) [memref.alloc ({{.*}}:6:8) is accessed at unknown elements]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @gather
// CHECK: %[[T:[a-z0-9_]+]] = memref.alloc()
// CHECK: affine.for
// CHECK: affine.for
// CHECK: %[[K:[a-z0-9_]+]] = affine.load
// CHECK-NEXT: memref.load %[[T]][%[[K]]]
