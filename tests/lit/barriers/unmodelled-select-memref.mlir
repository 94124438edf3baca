// %x is %b or %u, chosen at run time: an access through it may touch any buffer (untraced), so
// the first loop is a barrier and the pair (which shares the placed %s) is refused.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @select_alias(%a: memref<64xf32>, %out: memref<64xf32>, %flag: i1) {
  %b = memref.alloc() : memref<65xf32>
  %u = memref.alloc() : memref<65xf32>
  %s = memref.alloc() : memref<64xf32>
  %x = arith.select %flag, %b, %u : memref<65xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %s[%i] : memref<64xf32>
    affine.store %v, %x[%i] : memref<65xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %b[%i + 1] : memref<65xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %r = arith.addf %v, %w : f32
    affine.store %r, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:10:3: missed: [STOP FUSION] unmodelled effects: {{.*}}.mlir:10:3 and {{.*}}.mlir:15:3, level = 0, profit = 512 (in @select_alias) [memref made by arith.select at {{.*}}:9:8 is not traced to a buffer (in the loop at {{.*}}:10:3)]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @select_alias
// CHECK: %[[X:[a-z0-9_]+]] = arith.select
// CHECK-NEXT: affine.for
// CHECK: affine.store %{{[a-z0-9_]+}}, %[[X]]
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
