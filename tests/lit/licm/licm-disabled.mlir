// --enable-licm=false: the invariant load and mulf stay in the loop and no [LICM] remark
// appears; with the default (ON) both move.
// RUN: loopopt %s --target cpu --vector-bits 256 --enable-licm=false --remarks 2>&1 | filecheck %s
// RUN: loopopt %s --target cpu --vector-bits 256 --remarks 2>&1 | filecheck %s --check-prefix=ON

func.func @off(%a: memref<64xf32>, %s: memref<f32>, %out: memref<64xf32>, %v: f32) {
  affine.for %i = 0 to 64 {
    %k = affine.load %s[] : memref<f32>
    %m = arith.mulf %v, %k : f32
    %x = affine.load %a[%i] : memref<64xf32>
    %y = arith.addf %x, %m : f32
    affine.store %y, %out[%i] : memref<64xf32>
  }
  return
}

// CHECK-NOT: [LICM]
// CHECK: analysis: numLoopsFused = 0
// CHECK-LABEL: func.func @off
// CHECK-NEXT: affine.for
// CHECK-NEXT: affine.load
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: affine.load

// ON: passed: [LICM] Moving inst affine.load to a new insertion point (in @off)
// ON-NEXT: passed: [LICM] Moving inst arith.mulf to a new insertion point (in @off)
// ON-LABEL: func.func @off
// ON-NEXT: affine.load
// ON-NEXT: arith.mulf
// ON-NEXT: affine.for
