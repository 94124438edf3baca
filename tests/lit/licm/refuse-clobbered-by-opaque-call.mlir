// A call with no memref operands may still write any memory it can reach (globals, and the
// caller's arguments through other aliases): the load of the argument %s stays.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func private @tick()

func.func @opaque(%s: memref<f32>, %out: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %k = affine.load %s[] : memref<f32>
    affine.store %k, %out[%i] : memref<16xf32>
    func.call @tick() : () -> ()
  }
  return
}

// CHECK: {{.*}}.mlir:9:10: missed: [LICM] not hoisted: %{{[a-z0-9_]+}} may be written by call to @tick in the loop (in @opaque)
// CHECK-NEXT: {{.*}}.mlir:11:5: missed: [LICM] not hoisted: call to @tick may have side effects (in @opaque)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @opaque
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: memref<f32>
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load %[[S]][]
