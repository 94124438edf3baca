// scf.while is not a region op LICM may move (it need not terminate): it stays, with its reason.
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s

func.func @while_in_loop(%out: memref<16xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  affine.for %i = 0 to 16 {
    %r = scf.while (%x = %c0) : (index) -> index {
      %go = arith.cmpi slt, %x, %n : index
      scf.condition(%go) %x : index
    } do {
    ^bb0(%y: index):
      %z = arith.addi %y, %c1 : index
      scf.yield %z : index
    }
    affine.store %r, %out[%i] : memref<16xindex>
  }
  return
}

// CHECK: {{.*}}.mlir:8:10: missed: [LICM] not hoisted: scf.while has regions (in @while_in_loop)
// CHECK-NEXT: analysis: numLoopsFused = 0

// CHECK-LABEL: func.func @while_in_loop
// CHECK: affine.for %{{[a-z0-9_]+}} = 0 to 16 {
// CHECK-NEXT: scf.while
