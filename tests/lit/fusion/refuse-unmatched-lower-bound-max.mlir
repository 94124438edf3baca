// Equal trip counts (32), but the first lower bound is max(%k, %k - 1): the shift between the IVs
// is not one affine expression, refused with the detail naming max(...).
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @maxlb(%a: memref<128xf32>, %out: memref<64xf32>, %k: index) {
  %t = memref.alloc() : memref<128xf32>
  affine.for %i = max affine_map<()[s0] -> (s0, s0 - 1)>()[%k] to affine_map<()[s0] -> (s0 + 32)>()[%k] {
    %x = affine.load %a[%i] : memref<128xf32>
    affine.store %x, %t[%i] : memref<128xf32>
  }
  affine.for %i = 0 to 32 {
    %x = affine.load %t[%i] : memref<128xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] unmatched trip count: {{.*}}.mlir:7:3 and {{.*}}.mlir:11:3, level = 0, profit = 256 (in @maxlb) [different lower bounds given as max(...) of several values]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @maxlb
// CHECK: affine.for %{{[a-z0-9_]+}} = max #{{map[0-9]*}}()[%{{[a-z0-9_]+}}] to #{{map[0-9]*}}()[%{{[a-z0-9_]+}}] {
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 32 {
