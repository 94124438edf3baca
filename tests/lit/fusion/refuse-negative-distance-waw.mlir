// Both loops write %out; the second writes out[i] that the first writes again at iteration
// i + 1 (out[j - 1] at j = i + 1): fused, the first loop's later write would win (WAW).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @waw(%a: memref<65xf32>, %out: memref<65xf32>) {
  %t = memref.alloc() : memref<65xf32>
  affine.for %i = 1 to 65 {
    %x = affine.load %a[%i] : memref<65xf32>
    affine.store %x, %t[%i] : memref<65xf32>
    affine.store %x, %out[%i - 1] : memref<65xf32>
  }
  affine.for %i = 1 to 65 {
    %x = affine.load %t[%i] : memref<65xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %out[%i] : memref<65xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] negative distance dep in def-use: {{.*}}.mlir:7:3 and {{.*}}.mlir:12:3, level = 0, profit = 512 (in @waw) [WAW on argument (an argument), distances { [d = -1] }]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @waw
// CHECK-COUNT-2: affine.for
// CHECK-NOT: affine.for
// CHECK: return
