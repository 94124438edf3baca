// The second loop writes a[i + 1], which the first loop reads one iteration later: fused, the
// read would see the new value (WAR).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @war(%a: memref<66xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<66xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %a[%i + 1] : memref<66xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:7:3 and {{.*}}.mlir:11:3, level = 0, profit = 512 (in @war) [WAR on argument (an argument), distances { [d = -1] }]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @war
// CHECK: affine.for
// CHECK: affine.for
// CHECK: affine.store %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}[%{{[a-z0-9_]+}} + 1]
// CHECK-NEXT: }
// CHECK-NEXT: return
