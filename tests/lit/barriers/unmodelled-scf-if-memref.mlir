// A memref yielded by scf.if is untraced like a select: the loop storing through it is a
// barrier, even though the pair shares the placed %s.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @if_alias(%a: memref<64xf32>, %out: memref<64xf32>, %flag: i1) {
  %b = memref.alloc() : memref<64xf32>
  %u = memref.alloc() : memref<64xf32>
  %s = memref.alloc() : memref<64xf32>
  %x = scf.if %flag -> (memref<64xf32>) {
    scf.yield %b : memref<64xf32>
  } else {
    scf.yield %u : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %x[%i] : memref<64xf32>
    affine.store %v, %s[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %b[%i] : memref<64xf32>
    %w = affine.load %s[%i] : memref<64xf32>
    %r = arith.addf %v, %w : f32
    affine.store %r, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:14:3: missed: [STOP FUSION] unmodelled effects: {{.*}}.mlir:14:3 and {{.*}}.mlir:19:3, level = 0, profit = 512 (in @if_alias) [memref made by scf.if at {{.*}}:9:8 is not traced to a buffer (in the loop at {{.*}}:14:3)]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @if_alias
// CHECK: scf.if
// CHECK: affine.for
// CHECK: }
// CHECK-NEXT: affine.for
