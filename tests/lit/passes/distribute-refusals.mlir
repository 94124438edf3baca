// --passes distribute refuses, each with its reason: a body whose statements form one
// dependence cycle, and a loop carrying iter_args.
// RUN: loopopt %s --passes distribute --remarks 2>&1 | filecheck %s

func.func @one_group(%a: memref<65xf32>) {
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<65xf32>
    affine.store %x, %a[%i + 1] : memref<65xf32>
  }
  return
}

func.func @carries(%a: memref<64xf32>, %s: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %sum = affine.for %i = 0 to 64 iter_args(%acc = %zero) -> (f32) {
    %x = affine.load %a[%i] : memref<64xf32>
    %n = arith.addf %acc, %x : f32
    affine.yield %n : f32
  }
  affine.store %sum, %s[] : memref<f32>
  return
}

// CHECK: {{.*}}.mlir:6:3: missed: [STOP DISTRIBUTION] no independent statement groups (in @one_group)
// CHECK-NEXT: {{.*}}.mlir:15:10: missed: [STOP DISTRIBUTION] loop carries values through iter_args (in @carries)
// CHECK-NOT: [LOOP DISTRIBUTION]
// CHECK-LABEL: func.func @one_group
// CHECK-COUNT-1: affine.for
// CHECK-NOT: affine.for
// CHECK-LABEL: func.func @carries
// CHECK-COUNT-1: affine.for
// CHECK-NOT: affine.for
// CHECK: return
