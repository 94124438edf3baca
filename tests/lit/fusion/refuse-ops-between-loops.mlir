// A call between the loops rewrites the intermediate the second loop reads: the second loop
// needs it, and it depends on the first loop, so it can move neither up nor out of the way.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func private @rewrite(%m: memref<64xf32>)

func.func @call_between(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    affine.store %x, %t[%i] : memref<64xf32>
  }
  func.call @rewrite(%t) : (memref<64xf32>) -> ()
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:9:3: missed: [STOP FUSION] ops between the loops can't be moved: {{.*}}.mlir:9:3 and {{.*}}.mlir:14:3, level = 0, profit = 512 (in @call_between) [func.call at {{.*}}:13:3 depends on the first loop and the second loop needs it]
// CHECK-NEXT: analysis: numLoopsFused = 0

// The call stays between the two loops.
// CHECK-LABEL: func.func @call_between
// CHECK: %[[T:[a-z0-9_]+]] = memref.alloc()
// CHECK-NEXT: affine.for
// CHECK: }
// CHECK-NEXT: call @rewrite(%[[T]])
// CHECK-NEXT: affine.for
