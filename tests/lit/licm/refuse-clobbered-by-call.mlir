// The loop calls a function that receives %s: it may write any element of %s, so the load of
// %s[] stays, and the call itself stays too.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func private @update(%m: memref<f32>)

func.func @clobber(%s: memref<f32>, %out: memref<16xf32>) {
  affine.for %i = 0 to 16 {
    %k = affine.load %s[] : memref<f32>
    affine.store %k, %out[%i] : memref<16xf32>
    func.call @update(%s) : (memref<f32>) -> ()
  }
  return
}

// CHECK: {{.*}}.mlir:9:10: missed: [LICM] not hoisted: %{{[a-z0-9_]+}} is written in the loop (call to @update) (in @clobber)
// CHECK-NEXT: {{.*}}.mlir:11:5: missed: [LICM] not hoisted: call to @update may have side effects (in @clobber)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @clobber
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: memref<f32>
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load %[[S]][]
// CHECK-NEXT: affine.store
// CHECK-NEXT: func.call @update(%[[S]])
