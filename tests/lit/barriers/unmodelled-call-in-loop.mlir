// A call inside a loop may touch any memory: the loop is a barrier for fusion and the remark
// names the call and the loop holding it.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func private @log(%x: f32)

func.func @call_in_loop(%a: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    func.call @log(%x) : (f32) -> ()
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %x = affine.load %t[%i] : memref<64xf32>
    affine.store %x, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK: {{.*}}.mlir:9:3: missed: [STOP FUSION] unmodelled effects: {{.*}}.mlir:9:3 and {{.*}}.mlir:14:3, level = 0, profit = 512 (in @call_in_loop) [call to @log at {{.*}}:11:5 (in the loop at {{.*}}:9:3)]
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @call_in_loop
// CHECK: memref.alloc()
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load
// CHECK-NEXT: func.call @log
// CHECK-NEXT: affine.store
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
