// An unregistered op in a loop has unknown effects: reported once as unsupported, and the loop
// holding it does not fuse.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @unregistered(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %y = "acme.scale"(%x) : (f32) -> f32
    affine.store %y, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:9:10: analysis: [UNSUPPORTED] acme.scale kept as is; treated as a barrier (unknown effects)
// CHECK: {{.*}}.mlir:7:3: missed: [STOP FUSION] unmodelled effects: {{.*}}.mlir:7:3 and {{.*}}.mlir:12:3, level = 0, profit = 512 (in @unregistered) [unmodelled op acme.scale at {{.*}}:9:10 (in the loop at {{.*}}:7:3)]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @unregistered
// CHECK: memref.alloc()
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load
// CHECK-NEXT: "acme.scale"
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
