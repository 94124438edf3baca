// Same trip count (32) but steps 2 and 1: refused with the detail "different steps".
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @steps(%a: memref<64xf32>, %b: memref<32xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 step 2 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t[%i] : memref<64xf32>
    %y = affine.load %b[%i] : memref<32xf32>
    %z = arith.addf %x, %y : f32
    affine.store %z, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:6:3: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:6:3 and {{.*}}.mlir:10:3, level = 0, profit = 128 (in @steps) [different steps]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @steps
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 64 step 2 {
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 32 {
