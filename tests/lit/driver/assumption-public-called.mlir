// A public function the module calls: its arguments follow those calls (here both receive %x,
// so they may alias), and callers outside the module keep the no-alias assumption; the remark
// says both.
// RUN: loopopt %s --remarks -o /dev/null 2>&1 | filecheck %s
// MUTANT-N: skip

func.func @k(%a: memref<8xf32>, %b: memref<8xf32>) {
  return
}

func.func @caller(%x: memref<8xf32>) {
  call @k(%x, %x) : (memref<8xf32>, memref<8xf32>) -> ()
  return
}

// CHECK: {{.*}}.mlir:7:1: analysis: [ASSUMPTION] public @k: argument aliasing taken from its calls in the module (1 argument(s) may alias another); callers outside the module are assumed to pass distinct buffers (in @k)
// CHECK-NOT: [ASSUMPTION]
